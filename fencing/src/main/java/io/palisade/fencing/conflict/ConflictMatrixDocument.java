package io.palisade.fencing.conflict;

import io.palisade.fencing.action.Action;
import io.palisade.fencing.action.ActionKind;
import io.palisade.fencing.action.ResourceKind;

import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Renders {@code docs/conflict-matrix.md} from the code: the catalog (payloads read off the action
 * records, footprints off {@link ActionKind}), the full N×N matrix, every rule and every X cell.
 * A test fails when the committed file differs from this rendering.
 */
public final class ConflictMatrixDocument {

    private ConflictMatrixDocument() {
    }

    public static String render() {
        StringBuilder sb = new StringBuilder();
        sb.append("# Conflict matrix\n\n");
        sb.append("<!-- Generated from io.palisade.fencing.conflict.ConflictMatrix; do not edit. Regenerate with:\n");
        sb.append("     mvn -B -q test -pl fencing -Dtest=ConflictMatrixDocumentTest -Dpalisade.regenerateDocs=true -->\n\n");
        sb.append("Every ordered pair of catalog actions (A1–A19) has a cell: **C** (always compatible), **X** (never both "
                + "commit) or **R(n)** (rule n decides from the payloads). The matrix is declared once per unordered pair, "
                + "so it is symmetric: whether two transactions may both commit does not depend on which committed first. "
                + "Rows are the action of the transaction committing second, columns the winner's; by symmetry they may be "
                + "read either way.\n\n");
        sb.append("The driver (`ConflictResolver`) checks a transaction only against transactions committed after its read "
                + "version. For an R(n) cell it first intersects the two actions' resource masks (`reads()`/`writes()`); "
                + "disjoint masks commute without asking the rule.\n\n");
        sb.append("One judgement spans transactions: when both transactions replace the whole table (each removes "
                + "\"all current\" fragments: an overwrite), their ")
                .append(ConflictResolver.SUPERSEDED.stream().sorted().map(k -> k.code() + " " + k.label())
                        .collect(Collectors.joining(", ")))
                .append(" pairs are not judged: the later replacement wins whole (Lance's last writer wins), and each "
                        + "one's content was validated on its own. Their other actions (config, metadata, indices) "
                        + "are judged as usual.\n\n");

        sb.append("## Catalog\n\n");
        sb.append("| # | action | payload | reads | writes |\n|---|---|---|---|---|\n");
        for (ActionKind k : ActionKind.values()) {
            sb.append("| ").append(k.code()).append(" | ").append(k.label()).append(" | ").append(payload(k))
                    .append(" | ").append(kinds(k.readKinds())).append(" | ").append(kinds(k.writeKinds())).append(" |\n");
        }
        sb.append("\nResource kinds whose concurrent writes commute: ")
                .append(Arrays.stream(ResourceKind.values()).filter(ResourceKind::commutingWrites)
                        .map(ResourceKind::label).collect(Collectors.joining(", ")))
                .append(".\n\n");

        sb.append("## Matrix\n\n|   |");
        for (ActionKind k : ActionKind.values()) {
            sb.append(' ').append(k.code()).append(" |");
        }
        sb.append("\n|---|");
        sb.append("---|".repeat(ActionKind.values().length)).append('\n');
        for (ActionKind a : ActionKind.values()) {
            sb.append("| **").append(a.code()).append("** |");
            for (ActionKind b : ActionKind.values()) {
                sb.append(' ').append(ConflictMatrix.cell(a, b).symbol()).append(" |");
            }
            sb.append('\n');
        }
        sb.append('\n');
        Map<String, Integer> counts = new LinkedHashMap<>();
        for (ActionKind a : ActionKind.values()) {
            for (ActionKind b : ActionKind.values()) {
                counts.merge(ConflictMatrix.cell(a, b).symbol().substring(0, 1), 1, Integer::sum);
            }
        }
        sb.append("Ordered cells: ").append(ActionKind.values().length * ActionKind.values().length).append(" (C ")
                .append(counts.getOrDefault("C", 0)).append(", X ").append(counts.getOrDefault("X", 0)).append(", R ")
                .append(counts.getOrDefault("R", 0)).append(").\n\n");

        sb.append("## Rules\n\n");
        for (Rule r : Rule.values()) {
            sb.append("### ").append(r.code()).append(" — ").append(r.title()).append("\n\n");
            sb.append("- Detection: ").append(r.detection()).append(".\n");
            sb.append("- Resolution: **").append(r.resolution()).append("** — ").append(r.resolutionText()).append(".\n");
            sb.append("- Examines: ").append(kinds(r.kinds())).append(".\n");
            sb.append("- Cells: ").append(String.join(", ", pairs(c -> c instanceof Cell.Ruled rr && rr.rule() == r)))
                    .append(".\n\n");
        }

        sb.append("## X cells\n\n| cell | resolution | why |\n|---|---|---|\n");
        for (ActionKind a : ActionKind.values()) {
            for (ActionKind b : ActionKind.values()) {
                if (b.ordinal() < a.ordinal()) {
                    continue;
                }
                if (ConflictMatrix.cell(a, b) instanceof Cell.Conflicting x) {
                    sb.append("| ").append(a.code()).append("×").append(b.code()).append(" (").append(a.label())
                            .append(" × ").append(b.label()).append(") | ").append(x.resolution()).append(" | ")
                            .append(x.why()).append(" |\n");
                }
            }
        }
        return sb.toString();
    }

    private static List<String> pairs(java.util.function.Predicate<Cell> p) {
        List<String> out = new ArrayList<>();
        for (ActionKind a : ActionKind.values()) {
            for (ActionKind b : ActionKind.values()) {
                if (b.ordinal() >= a.ordinal() && p.test(ConflictMatrix.cell(a, b))) {
                    out.add(a.code() + "×" + b.code());
                }
            }
        }
        return out;
    }

    private static String kinds(java.util.Set<ResourceKind> kinds) {
        if (kinds.isEmpty()) {
            return "—";
        }
        return kinds.stream().sorted().map(ResourceKind::label).collect(Collectors.joining(", "));
    }

    private static String payload(ActionKind k) {
        Class<?> c = recordOf(k);
        return "`{ " + Arrays.stream(c.getRecordComponents()).map(ConflictMatrixDocument::component)
                .collect(Collectors.joining(", ")) + " }`";
    }

    private static String component(RecordComponent rc) {
        return rc.getName() + ": " + typeName(rc.getGenericType());
    }

    private static String typeName(Type t) {
        if (t instanceof ParameterizedType p) {
            return ((Class<?>) p.getRawType()).getSimpleName() + "<" + Arrays.stream(p.getActualTypeArguments())
                    .map(ConflictMatrixDocument::typeName).collect(Collectors.joining(", ")) + ">";
        }
        if (t instanceof Class<?> c) {
            return c.getSimpleName();
        }
        return t.getTypeName();
    }

    /** The record class implementing {@code kind}, found among the sealed interface's permitted subclasses. */
    static Class<?> recordOf(ActionKind kind) {
        for (Class<?> c : Action.class.getPermittedSubclasses()) {
            if (c.getSimpleName().equals(kind.label())) {
                return c;
            }
        }
        throw new IllegalStateException("no action record for " + kind);
    }
}
