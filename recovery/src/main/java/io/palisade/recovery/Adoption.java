package io.palisade.recovery;

import io.palisade.fencing.ForeignCommitException;
import io.palisade.journal.TableHead;
import io.palisade.substrate.IdCensus;
import io.palisade.substrate.KeyedSchemas;
import io.palisade.substrate.TableRef;
import io.palisade.substrate.TableStore;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Adoption validates before it publishes (DESIGN §5): before recovery journals anything for an
 * operator's {@code --adopt-foreign}, every keyed table whose foreign versions are to be adopted is checked
 * at the version that would become its head (the adopted image):
 * <ul>
 *   <li>the primary-key contract still holds: an {@code id} column, not nullable, of the type the journal's
 *       head has, marked as the table's only primary-key field;</li>
 *   <li>no row has a null {@code id};</li>
 *   <li>no {@code id} is held by more than one row (an exact count over the whole table at that version).</li>
 * </ul>
 * A table is keyed when the journal's head (a version this graph's writer published, so checked against
 * the PK contract when it was published) carries the primary key {@code [id]}. Append-only tables carry no
 * key guarantee and are adopted as they are.
 *
 * <p>Any violation throws {@link ForeignCommitException} with {@link ForeignCommitException.Situation#ADOPTION_REFUSED}
 * before anything is journaled, so a refused adoption leaves the graph exactly as a refused open does.
 */
public final class Adoption {
    private static final Logger LOG = LoggerFactory.getLogger(Adoption.class);

    /** How many duplicated ids a refusal names. */
    public static final int SAMPLE = 10;

    /** One table branch whose versions {@code (head.version, latest]} no intent explains. */
    public record Candidate(String graphBranch, String table, TableHead head, long latest) {
        /** The foreign versions, ascending. */
        public List<Long> versions() {
            List<Long> out = new ArrayList<>();
            for (long v = head.version() + 1; v <= latest; v++) {
                out.add(v);
            }
            return out;
        }

        /** The adopted image. */
        public TableRef latestRef() {
            return new TableRef(head.tableBranch(), latest);
        }
    }

    /** What is wrong with one adopted image (empty problems: it can be adopted). */
    public record Verdict(Candidate candidate, boolean keyed, IdCensus census, List<String> problems) {
        public Verdict {
            problems = List.copyOf(problems);
        }

        public boolean adoptable() {
            return problems.isEmpty();
        }

        /** Whether a repair could make it adoptable: only duplicated ids and a stripped (re-installable) PK are wrong. */
        public boolean repairable() {
            return census == null || (census.nullIds() == 0 && census.hasId() && !census.idNullable()
                    && (census.primaryKey().isEmpty() || census.primaryKey().equals(List.of(KeyedSchemas.ID))));
        }
    }

    private Adoption() {
    }

    /**
     * Checks every candidate; throws for the first that may not be adopted, naming the others that may
     * not either. Journals nothing.
     */
    public static void validate(TableStore store, List<Candidate> candidates) {
        List<Verdict> refused = new ArrayList<>();
        for (Candidate c : candidates) {
            Verdict v = check(store, c);
            if (!v.adoptable()) {
                refused.add(v);
            }
        }
        if (refused.isEmpty()) {
            return;
        }
        Verdict first = refused.get(0);
        String others = refused.size() == 1 ? "" : " (adoption of " + (refused.size() - 1) + " more table"
                + (refused.size() == 2 ? "" : "s") + " is refused too: " + String.join(", ", refused.subList(1,
                refused.size()).stream().map(v -> "'" + v.candidate().table() + "' on graph branch '"
                + v.candidate().graphBranch() + "'").toList()) + ")";
        LOG.warn("adoption refused: {}", describe(first));
        throw refusal(first, others);
    }

    /** The refusal for one verdict. */
    static ForeignCommitException refusal(Verdict v, String others) {
        Candidate c = v.candidate();
        IdCensus census = v.census();
        String way = v.repairable()
                ? ". Make it usable with `palisade repair GRAPH --table " + c.table() + " --duplicates keep-newest|keep-oldest`"
                + " (journaled; removes the extra rows and re-installs the primary key), or restore the table directory"
                + " from a backup"
                : ". It cannot be repaired in place: restore the table directory from a backup";
        return new ForeignCommitException(ForeignCommitException.Situation.ADOPTION_REFUSED, c.table(), c.graphBranch(),
                c.head().tableBranch(), c.head().version(), c.latest(), c.versions(), List.of(), census != null,
                census == null ? List.of() : census.sampleKeys(),
                "adoption refused: " + describe(v) + others + ". Nothing was published; the graph stays refused"
                        + way + " (docs/recovery.md \"Foreign commits\")");
    }

    /** One sentence naming the table, branches, versions and every problem. */
    static String describe(Verdict v) {
        Candidate c = v.candidate();
        List<Long> versions = c.versions();
        String vs = versions.size() == 1 ? "version " + versions.get(0)
                : "versions " + versions.get(0) + " to " + versions.get(versions.size() - 1);
        return "table '" + c.table() + "' (graph branch '" + c.graphBranch() + "', table branch '"
                + c.head().tableBranch() + "'): foreign " + vs + " above the journal's head version "
                + c.head().version() + " would make version " + c.latest() + " the head, which "
                + String.join("; and ", v.problems());
    }

    /** Checks one adopted image; journals nothing. */
    public static Verdict check(TableStore store, Candidate c) {
        TableRef head = new TableRef(c.head().tableBranch(), c.head().version());
        if (!store.primaryKey(c.table(), head).equals(List.of(KeyedSchemas.ID))) {
            return new Verdict(c, false, null, List.of()); // append-only: no key guarantee to keep
        }
        Optional<ArrowType> headIdType;
        try (var h = store.openKeyed(c.table(), head)) {
            headIdType = h.schema().getFields().stream().filter(f -> f.getName().equals(KeyedSchemas.ID))
                    .map(Field::getType).findFirst();
        }
        IdCensus census = store.idCensus(c.table(), c.latestRef(), SAMPLE);
        List<String> problems = new ArrayList<>();
        if (!census.hasId()) {
            problems.add("has no 'id' column (a keyed table's primary key)");
        } else {
            if (census.idNullable()) {
                problems.add("makes 'id' nullable");
            }
            String wanted = headIdType.map(ArrowType::toString).orElse(null);
            if (wanted != null && !wanted.equals(census.idType())) {
                problems.add("changes the type of 'id' from " + typeName(wanted) + " to " + typeName(census.idType()));
            }
        }
        if (!census.primaryKey().equals(List.of(KeyedSchemas.ID))) {
            problems.add(census.primaryKey().isEmpty()
                    ? "no longer marks 'id' as the primary key (the foreign writer stripped it)"
                    : "marks " + census.primaryKey() + " as the primary key instead of exactly 'id'");
        }
        if (census.nullIds() > 0) {
            problems.add("has " + census.nullIds() + " row" + (census.nullIds() == 1 ? "" : "s") + " with a null id");
        }
        if (census.duplicatedKeys() > 0) {
            problems.add("holds " + census.duplicatedKeys() + " id" + (census.duplicatedKeys() == 1 ? "" : "s")
                    + " more than once (" + census.extraRows() + " extra row" + (census.extraRows() == 1 ? "" : "s")
                    + "): " + census.describeSample());
        }
        return new Verdict(c, true, census, problems);
    }

    /** Arrow's type names for a person: {@code Utf8} is a string, {@code Int(64, true)} an int64. */
    static String typeName(String arrow) {
        if (arrow == null) {
            return "nothing";
        }
        return switch (arrow) {
            case "Utf8" -> "string";
            case "LargeUtf8" -> "large string";
            case "Int(64, true)" -> "int64";
            default -> arrow;
        };
    }
}
