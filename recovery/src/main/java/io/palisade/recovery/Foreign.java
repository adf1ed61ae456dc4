package io.palisade.recovery;

import io.palisade.fencing.ForeignCommitException;
import io.palisade.journal.TableHead;
import io.palisade.substrate.TableStore;

import java.util.List;

/**
 * Table versions {@code (head.version, latest]} of {@code head}'s table branch that no journaled intent explains.
 * {@code openIntents}: found above an interrupted write's base, so that write's group is what rolls forward to
 * {@code latest} when the operator adopts; otherwise found above a head with nothing open, and adoption publishes
 * {@code latest} itself.
 *
 * <p>A foreign version is refused (situation PENDING) unless the operator adopts it, and nothing is journaled
 * before that decision.
 */
record Foreign(String graphBranch, String table, TableHead head, long latest, String detail, boolean openIntents) {
    Foreign(String graphBranch, String table, TableHead head, long latest, String detail) {
        this(graphBranch, table, head, latest, detail, false);
    }

    /** What adoption validates before it publishes. */
    Adoption.Candidate candidate() {
        return new Adoption.Candidate(graphBranch, table, head, latest);
    }

    /** The refusal of a graph with foreign versions: the first named in full, the others counted and named. */
    static ForeignCommitException pending(List<Foreign> foreign) {
        Foreign f = foreign.get(0);
        String others = foreign.size() == 1 ? "" : " (and " + (foreign.size() - 1) + " more table"
                + (foreign.size() == 2 ? "" : "s") + ": " + String.join(", ", foreign.subList(1, foreign.size())
                .stream().map(o -> "'" + o.table() + "' on graph branch '" + o.graphBranch() + "'").toList()) + ")";
        return new ForeignCommitException(ForeignCommitException.Situation.PENDING, f.table(), f.graphBranch(),
                f.head().tableBranch(), f.head().version(), f.latest(), f.candidate().versions(), List.of(), false,
                List.of(), "foreign commit: " + f.detail() + others + ". Nothing was changed; the graph stays refused "
                + "until an operator decides. Inspect the versions, then adopt them with `palisade recover GRAPH "
                + "--adopt-foreign` (see docs/recovery.md \"Foreign commits\")");
    }

    /** The versions of a table branch above {@code after}, with their row counts, for a refusal's message. */
    static String versionsAbove(TableStore store, String table, String branch, long after) {
        try {
            return String.join(", ", store.listVersions(table, branch).stream().filter(v -> v.ref().version() > after)
                    .map(v -> "version " + v.ref().version() + " (" + v.totalRows() + " rows)").toList());
        } catch (RuntimeException e) {
            return "(versions unreadable: " + e.getMessage() + ")";
        }
    }
}
