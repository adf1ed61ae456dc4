package io.palisade.coordinator.internal;


import io.palisade.fencing.ForeignCommitException;
import io.palisade.fencing.KeyFilter;
import io.palisade.journal.IntentOutcome;
import io.palisade.journal.JournalEvent;
import io.palisade.journal.JournalEvent.ForeignCommitFound;
import io.palisade.journal.JournalEvent.IntentCompleted;
import io.palisade.substrate.KeyedTable;
import io.palisade.substrate.TableRef;
import io.palisade.substrate.TableStore;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * A substrate commit that Lance rebased over a foreign version (docs/recovery.md "Foreign commits").
 *
 * <p>Lance 7.0.0 commits a transaction read at version {@code b} as {@code latest + 1} whenever the commits
 * since {@code b} are compatible with it (an append under a merge-insert, for instance), whatever
 * {@code conflictRetries} or {@code maxRetries} say (docs/lance-surface.md "Rebase over foreign commits"). The
 * committer is the table's only writer under the lease, so every one of its commits must achieve exactly its
 * base + 1 (maintenance: one effective version, after Lance's own ReserveFragments); any other version in between
 * was written by someone else. Such a commit is never acknowledged: {@link #events} journals the evidence
 * ({@link ForeignCommitFound}, then every intent completed {@link IntentOutcome#FOREIGN_COMMIT}), the table is
 * refused for the rest of the session, and recovery refuses the graph until an operator adopts the versions.
 *
 * @param graphBranch     the graph branch written
 * @param table           the table
 * @param base            the version the commit was based on (the published head)
 * @param achieved        the version it reached (committed), or the table branch's latest version (not committed)
 * @param committed       whether the write committed (Lance rebased it) or Lance refused it because of the
 *                        foreign commit (nothing of it was committed)
 * @param foreignVersions the versions between that no intent explains, ascending
 * @param intentIds       the commit's intents
 * @param duplicatesChecked whether the intents' keys were counted at {@code achieved}
 * @param duplicateKeys   a sample of the intents' keys held more than once at {@code achieved}
 * @param checkFailure    nullable: why the duplicate check could not run
 * @param refusedBecause  nullable: Lance's reason for refusing an uncommitted write
 */
record ForeignRace(String graphBranch, String table, TableRef base, TableRef achieved, boolean committed,
                   List<Long> foreignVersions, List<String> intentIds, boolean duplicatesChecked,
                   List<String> duplicateKeys, String checkFailure, String refusedBecause) {

    static final int KEY_SAMPLE = 20;

    ForeignRace {
        foreignVersions = List.copyOf(foreignVersions);
        intentIds = List.copyOf(intentIds);
        duplicateKeys = List.copyOf(duplicateKeys);
    }

    /** The versions strictly between {@code base} and {@code achieved}: for a write, exactly the foreign ones. */
    static List<Long> between(TableRef base, TableRef achieved) {
        List<Long> out = new ArrayList<>();
        for (long v = base.version() + 1; v < achieved.version(); v++) {
            out.add(v);
        }
        return out;
    }

    /**
     * The race of a commit from {@code base} to {@code achieved}; {@code keys} (nullable: the write inserted no keys
     * into a keyed table) are counted at {@code achieved}, exactly, to tell the writer whether its keys are now held
     * twice.
     */
    static ForeignRace found(TableStore store, String graphBranch, String table, TableRef base, TableRef achieved,
                             List<Long> foreignVersions, List<String> intentIds, KeyFilter keys) {
        if (keys == null || keys.isEmpty()) {
            return new ForeignRace(graphBranch, table, base, achieved, true, foreignVersions, intentIds, false, List.of(),
                    null, null);
        }
        try (KeyedTable t = store.openKeyed(table, achieved)) {
            Map<String, Long> counts = t.keyCounts(keys);
            List<String> twice = counts.entrySet().stream().filter(e -> e.getValue() > 1).map(Map.Entry::getKey)
                    .sorted().toList();
            return new ForeignRace(graphBranch, table, base, achieved, true, foreignVersions, intentIds, true,
                    twice.subList(0, Math.min(KEY_SAMPLE, twice.size())), null, null);
        } catch (RuntimeException e) {
            return new ForeignRace(graphBranch, table, base, achieved, true, foreignVersions, intentIds, false, List.of(),
                    e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage(), null);
        }
    }

    /**
     * A commit from {@code base} that Lance refused ({@code why}) because of the foreign versions up to {@code latest}:
     * nothing of the write was committed, so none of its keys is duplicated by it.
     */
    static ForeignRace refused(String graphBranch, String table, TableRef base, TableRef latest, List<String> intentIds,
                               String why) {
        return new ForeignRace(graphBranch, table, base, latest, false,
                between(base, new TableRef(latest.branch(), latest.version() + 1)), intentIds, false, List.of(), null, why);
    }

    private String versions() {
        return (foreignVersions.size() == 1 ? "version " : "versions ")
                + foreignVersions.stream().map(String::valueOf).collect(Collectors.joining(", "));
    }

    /** What was found, in one sentence (journaled, and the start of the exception's message). */
    String detail() {
        if (!committed) {
            return "table '" + table + "' (graph branch '" + graphBranch + "', table branch '" + achieved.branch()
                    + "'): a foreign commit (" + versions() + ", written by a Lance client other than this graph's "
                    + "committer) landed above the write's base " + base.version() + "; Lance refused the write because of "
                    + "it (" + refusedBecause + "), so none of its rows were committed";
        }
        String dup;
        if (duplicatesChecked) {
            dup = duplicateKeys.isEmpty() ? "none of the write's keys is held twice there"
                    : "the write's keys now held more than once there: " + String.join(", ", duplicateKeys);
        } else if (checkFailure != null) {
            dup = "its keys could not be checked for duplicates (" + checkFailure + ")";
        } else {
            dup = "the write inserted no keys, so none is duplicated by it";
        }
        return "table '" + table + "' (graph branch '" + graphBranch + "', table branch '" + achieved.branch()
                + "'): a foreign commit (" + versions() + ", written by a Lance client other than this graph's "
                + "committer) landed while the write committed; Lance rebased the write over it as version "
                + achieved.version() + " (its base was " + base.version() + "); " + dup;
    }

    /** The exception every intent of the commit fails with. */
    ForeignCommitException exception() {
        return new ForeignCommitException(ForeignCommitException.Situation.RACED_WRITE, table, graphBranch,
                achieved.branch(), base.version(), achieved.version(), foreignVersions, intentIds, duplicatesChecked,
                duplicateKeys, (committed ? "write not acknowledged: " + detail() + ". Its rows are in version "
                + achieved.version() + ", which is not published: readers still see version " + base.version() + ". "
                : "write not committed: " + detail() + ". ") + "The table is refused until an operator decides: inspect the "
                + "versions, then adopt them with `palisade recover GRAPH --adopt-foreign` (refused when the image holds a "
                + "duplicate id) — see docs/recovery.md \"Foreign commits\"");
    }

    /** The journal's evidence: the finding, then every intent completed FOREIGN_COMMIT. */
    List<JournalEvent> events() {
        List<JournalEvent> out = new ArrayList<>();
        String detail = detail();
        out.add(new ForeignCommitFound(intentIds, graphBranch, table, achieved.branch(), base.version(),
                committed ? achieved.version() : -1, foreignVersions, duplicatesChecked, duplicateKeys, detail));
        for (String id : intentIds) {
            out.add(new IntentCompleted(id, IntentOutcome.FOREIGN_COMMIT, detail, null, duplicateKeys));
        }
        return out;
    }

    /** The refusal of later writes to the table in this session. */
    ForeignCommitException refusal() {
        return new ForeignCommitException(ForeignCommitException.Situation.PENDING, table, graphBranch, achieved.branch(),
                base.version(), achieved.version(), foreignVersions, List.of(), duplicatesChecked, duplicateKeys,
                "table '" + table + "' on graph branch '" + graphBranch + "' is refused: a write raced a foreign commit ("
                        + versions() + ") and was not acknowledged. Close the graph, inspect the versions, then adopt them "
                        + "with `palisade recover GRAPH --adopt-foreign` (see docs/recovery.md \"Foreign commits\")");
    }
}
