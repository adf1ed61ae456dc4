package io.palisade.coordinator.internal;

import io.palisade.coordinator.MigrationReport;
import io.palisade.heads.HeadsState;
import io.palisade.heads.MigrationUnit;
import io.palisade.heads.Pin;
import io.palisade.journal.TableHead;
import io.palisade.substrate.TableRef;
import io.palisade.substrate.TableStore;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * The PK migration's judgements of table images, each a value computed from the store and the heads: whether a
 * pinned image can take the PK {@code [id]} (no other PK, no duplicate or null id), the verified digest of a branch
 * whose every keyed pin this migration published, the refusal of a foreign version found above a unit's base, and
 * the table branch a unit annotates.
 */
final class MigrationChecks {
    private MigrationChecks() {
    }

    /** Why the image {@code ref} of (branch, table) cannot take the PK {@code [id]}: another PK, duplicate or null ids. */
    static List<MigrationReport.Refusal> validate(TableStore store, String branch, String table, TableRef ref,
                                                  int maxReportedIds) {
        List<String> pk = store.primaryKey(table, ref);
        if (!pk.isEmpty() && !pk.equals(List.of("id"))) {
            return List.of(new MigrationReport.Refusal(branch, table, ref.branch(), ref.version(),
                    "already has primary key " + pk + ", not [id]; a primary key is never changed", List.of()));
        }
        Map<String, Integer> counts = new LinkedHashMap<>();
        int nulls = 0;
        for (Map<String, Object> row : store.scanUnchecked(table, ref)) {
            Object id = row.get("id");
            if (id == null) {
                nulls++;
            } else {
                counts.merge(String.valueOf(id), 1, Integer::sum);
            }
        }
        List<MigrationReport.Refusal> out = new ArrayList<>();
        List<String> dups = counts.entrySet().stream().filter(c -> c.getValue() > 1).map(Map.Entry::getKey).sorted()
                .limit(maxReportedIds).toList();
        if (!dups.isEmpty()) {
            long total = counts.values().stream().filter(c -> c > 1).count();
            out.add(new MigrationReport.Refusal(branch, table, ref.branch(), ref.version(),
                    total + " duplicate id(s)", dups));
        }
        if (nulls > 0) {
            out.add(new MigrationReport.Refusal(branch, table, ref.branch(), ref.version(), nulls + " null id(s)", List.of()));
        }
        return out;
    }

    /**
     * The digest of {@code branch} once verified: every keyed pin published by this migration, owned, with PK
     * {@code [id]} and the PK contract an open checks; every pin that is not adds a refusal to {@code refusals}
     * instead (the digest is then meaningless).
     */
    static String branchDigest(HeadsState state, Map<String, MigrationUnit> byPin, String branch, TableStore store,
                               Predicate<String> keyed, List<MigrationReport.Refusal> refusals) {
        StringBuilder sb = new StringBuilder();
        for (Map.Entry<String, Pin> e : state.pins(branch).entrySet()) {
            String table = e.getKey();
            if (!keyed.test(table)) {
                continue;
            }
            TableHead h = e.getValue().head();
            TableRef ref = new TableRef(h.tableBranch(), h.version());
            MigrationUnit u = byPin.get(branch + "\u0000" + table);
            List<String> pk = store.primaryKey(table, ref);
            String problem = null;
            if (u == null || u.phase() != MigrationUnit.Phase.PUBLISHED || !h.equals(u.publishedHead())) {
                problem = "pin " + h + " was not published by this migration";
            } else if (!e.getValue().owned()) {
                problem = "pin is still lazily inherited";
            } else if (!pk.equals(List.of("id"))) {
                problem = "primary key is " + pk + ", not [id]";
            }
            if (problem != null) {
                refusals.add(new MigrationReport.Refusal(branch, table, ref.branch(), ref.version(),
                        "verification failed: " + problem, List.of()));
                continue;
            }
            store.openKeyed(table, ref).close(); // the PK contract check every normal open makes
            sb.append(table).append('=').append(h).append(':').append(RowDigest.of(store.scanUnchecked(table, ref)))
                    .append('\n');
        }
        return RowDigest.ofText(sb.toString());
    }

    /** A foreign version above a unit's base: the migration stops, nothing more is committed for the unit. */
    static io.palisade.fencing.ForeignCommitException foreign(MigrationUnit u, String table, String tableBranch,
                                                                       long base, long latest, String what) {
        List<Long> versions = new java.util.ArrayList<>();
        for (long v = base + 1; v <= latest; v++) {
            versions.add(v);
        }
        return new io.palisade.fencing.ForeignCommitException(io.palisade.fencing.ForeignCommitException.Situation.PENDING,
                table, u.graphBranch(), tableBranch, base, latest, versions, List.of(), false, List.of(), "foreign commit: "
                + what + ". The migration stopped; adopt or inspect the versions (docs/recovery.md \"Foreign commits\"), "
                + "then run `palisade migrate pk GRAPH` again");
    }

    /**
     * The table branch a unit annotates: the pinned one when owned; for a lazy pin a fork named after the
     * graph branch <em>incarnation</em> ({@code g-<branch>-i<creation sequence>}), so a table branch left
     * by an earlier, deleted graph branch of the same name is never mistaken for this unit's fork.
     */
    static String tableBranch(HeadsState state, MigrationUnit u) {
        if (!u.lazyInherited()) {
            return u.pinnedTableBranch();
        }
        io.palisade.heads.GraphBranch b = state.branches().get(u.graphBranch());
        long incarnation = b == null ? 0 : b.createdAt();
        return "g-" + u.graphBranch() + "-i" + incarnation;
    }

    /** Every live graph branch, main first. */
    static List<String> branchesMainFirst(HeadsState state) {
        List<String> out = new ArrayList<>();
        out.add(HeadsState.MAIN);
        for (String b : state.branches().keySet()) {
            if (!b.equals(HeadsState.MAIN)) {
                out.add(b);
            }
        }
        return out;
    }
}
