package io.palisade.heads;

import io.palisade.journal.HeadTransition;
import io.palisade.journal.JournalEvent;
import io.palisade.journal.JournalEvent.CheckpointWritten;
import io.palisade.journal.JournalEvent.GraphBranchCreated;
import io.palisade.journal.JournalEvent.GraphBranchDeleted;
import io.palisade.journal.JournalEvent.HeadPublished;
import io.palisade.journal.JournalEvent.IntentCompleted;
import io.palisade.journal.JournalEvent.IntentRecorded;
import io.palisade.journal.JournalEvent.LoadProgress;
import io.palisade.journal.JournalEvent.MigrationBranchVerified;
import io.palisade.journal.JournalEvent.MigrationClaimed;
import io.palisade.journal.JournalEvent.MigrationPkInstalled;
import io.palisade.journal.JournalEvent.MigrationRefused;
import io.palisade.journal.JournalEvent.MigrationStampWritten;
import io.palisade.journal.JournalEvent.MigrationUnitForked;
import io.palisade.journal.JournalEvent.MigrationUnitPlanned;
import io.palisade.journal.JournalEvent.MigrationUnitPublished;
import io.palisade.journal.JournalEvent.RecoveryFinished;
import io.palisade.journal.JournalEvent.RecoveryStarted;
import io.palisade.journal.JournalEvent.TableCommitted;
import io.palisade.journal.JournalEvent.TornTailCut;
import io.palisade.journal.JournalEvent.WriterStarted;
import io.palisade.journal.JournalRecord;
import io.palisade.journal.TableHead;

import java.util.Comparator;
import java.util.Map;
import java.util.Objects;

/**
 * The reducer of {@link HeadsState}: applies one journal record to a state, giving its successor. It owns what every
 * journal event type does to the heads, in one exhaustive {@code switch} over the sealed {@link JournalEvent} (an event
 * type added to the journal does not compile until it has a case here). Head publication, graph branches, the writer
 * epoch, the recorded catalog, checkpoints and recoveries are applied here; intents and receipts in {@link IntentSteps}, journal-ack fold
 * marks and plans in {@link FoldMarkSteps}, PK migrations in {@link MigrationSteps}; all of them on one
 * {@link HeadsDraft} per record.
 *
 * <p>What {@link #apply} guarantees: the given state is never changed; the result is a new state whose
 * {@link HeadsState#lastSequence()} is the record's sequence; a record that cannot follow the state (the invariants
 * listed on {@link HeadsState}) throws {@link IllegalTransitionException} and produces no state. The result depends on
 * the state and the record only, so applying the same records to equal states gives equal states.
 */
final class HeadsReducer {
    private HeadsReducer() {
    }

    /** {@code state} with {@code record} applied; see {@link HeadsState#apply}. */
    static HeadsState apply(HeadsState state, JournalRecord record) {
        long seq = record.sequence();
        if (seq != state.lastSequence + 1) {
            throw new IllegalTransitionException(seq, null, null,
                    "record out of order: expected sequence " + (state.lastSequence + 1));
        }
        HeadsDraft d = new HeadsDraft(state, seq);
        JournalEvent event = record.event();
        switch (event) {
            case WriterStarted e -> writerStarted(d, e);
            case IntentRecorded e -> IntentSteps.intentRecorded(d, e);
            case TableCommitted e -> IntentSteps.tableCommitted(d, e);
            case HeadPublished e -> headPublished(d, e);
            case IntentCompleted e -> IntentSteps.intentCompleted(d, e, record.timestampNanos());
            case GraphBranchCreated e -> branchCreated(d, e);
            case GraphBranchDeleted e -> branchDeleted(d, e);
            case CheckpointWritten e -> checkpointWritten(d, e);
            case MigrationClaimed e -> MigrationSteps.migrationClaimed(d, e);
            case MigrationUnitPlanned e -> MigrationSteps.unitPlanned(d, e);
            case MigrationUnitForked e -> MigrationSteps.unitForked(d, e);
            case MigrationPkInstalled e -> MigrationSteps.pkInstalled(d, e);
            case MigrationUnitPublished e -> MigrationSteps.unitPublished(d, e);
            case MigrationBranchVerified e -> MigrationSteps.branchVerified(d, e);
            case MigrationStampWritten e -> MigrationSteps.stampWritten(d, e);
            case MigrationRefused e -> MigrationSteps.migrationRefused(d, e);
            case RecoveryStarted e -> d.openRecovery = e.recoveryId();
            case RecoveryFinished e -> d.openRecovery = null;
            case LoadProgress e -> IntentSteps.loadProgress(d, e);
            case TornTailCut e -> {
                // the journal's own bookkeeping: nothing in the heads changes
            }
            case JournalEvent.TableVersionSetAside e -> {
                // a torn version above the head moved out of the table: no head changes; the open intents it
                // belonged to complete in their own IntentCompleted records
            }
            case JournalEvent.ForeignCommitFound e -> {
                // evidence only: the achieved version is not published (no head changes); its intents complete
                // FOREIGN_COMMIT in their own IntentCompleted records, and recovery refuses the table until adopted
            }
            case JournalEvent.DuplicatesRepaired e -> {
                // the rows a repair removes: evidence for explain; its intent's records move the head
            }
            case JournalEvent.RowsRecorded e -> IntentSteps.rowsRecorded(d, e.intentId(), e.graphBranch(), e.table());
            case JournalEvent.RowsReleased e -> IntentSteps.rowsRecorded(d, e.intentId(), e.graphBranch(), e.table());
            case JournalEvent.JournaledWrite e -> {
                // the intent recorded, its rows and its completion JOURNALED, in this one record
                IntentSteps.intentRecorded(d, e.intent());
                IntentSteps.rowsRecorded(d, e.intentId(), e.intent().graphBranch(), e.intent().table());
                IntentSteps.intentCompleted(d, e.completed(), record.timestampNanos());
            }
            case JournalEvent.FoldPlanned e -> FoldMarkSteps.foldPlanned(d, e);
            case JournalEvent.VersionsExpired e -> {
                // retention removes versions below every head and pin: no head changes; a read of an older point
                // is refused by the reader, which asks the table which versions it still keeps
            }
            case JournalEvent.ReceiptsExpired e -> IntentSteps.receiptsExpired(d, e);
            case JournalEvent.CatalogRecorded e -> catalogRecorded(d, e);
            case JournalEvent.TransactionCommitted e -> IntentSteps.transactionCommitted(d, e, record.timestampNanos());
            case JournalEvent.TransactionStarted e -> {
                // names the parts that follow it; the commit point, if journaled, completes them
            }
        }
        return d.result();
    }

    private static void writerStarted(HeadsDraft d, WriterStarted e) {
        if (e.epoch() < d.writerEpoch) {
            throw d.fail(null, null, "writer epoch goes backwards: " + e.epoch() + " after " + d.writerEpoch);
        }
        d.writerEpoch = e.epoch();
        d.formatStamp = e.formatStamp();
    }

    /**
     * The catalog from this record on; the one it replaces becomes the previous one (a catalog recorded again unchanged
     * keeps the previous one it had).
     */
    private static void catalogRecorded(HeadsDraft d, JournalEvent.CatalogRecorded e) {
        JournaledCatalog was = d.catalog;
        String previous = was == null ? null : was.digest().equals(e.digest()) ? was.previousDigest() : was.digest();
        d.catalog = new JournaledCatalog(d.seq, e.digest(), e.catalog(), e.reason(), previous);
    }

    private static void checkpointWritten(HeadsDraft d, CheckpointWritten e) {
        if (e.coveredSequence() >= d.seq || e.coveredSequence() < 0) {
            throw d.fail(null, null, "checkpoint written covering sequence " + e.coveredSequence());
        }
        // a checkpoint never covers less than an earlier one; the bound of what is forgotten never goes back
        d.lastCheckpointSequence = Math.max(d.lastCheckpointSequence, e.coveredSequence());
        IntentSteps.forgetCompleted(d, d.lastCheckpointSequence);
    }

    private static void headPublished(HeadsDraft d, HeadPublished e) {
        for (HeadTransition t : e.transitions()) {
            publish(d, t);
            IntentSteps.attribute(d, t);
        }
    }

    /**
     * Moves the head of (branch, table) along {@code t}: the branch is live, {@code t.from()} is the current head, and
     * neither the incarnation nor the version on the same table branch and incarnation goes backwards.
     */
    static void publish(HeadsDraft d, HeadTransition t) {
        String b = t.graphBranch();
        String table = t.table();
        if (!d.branches.containsKey(b)) {
            throw d.fail(b, table, "head published on a graph branch that is not live");
        }
        PMap<String, Pin> bp = d.pins.get(b);
        Pin cur = bp == null ? null : bp.get(table);
        TableHead now = cur == null ? null : cur.head();
        TableHead to = t.to();
        if (!Objects.equals(now, t.from())) {
            throw d.fail(b, table, "head transition from " + t.from() + " does not match the current head " + now);
        }
        if (now != null) {
            if (to.incarnation() < now.incarnation()) {
                throw d.fail(b, table, "incarnation goes backwards: " + now + " -> " + to);
            }
            if (to.incarnation() == now.incarnation() && to.tableBranch().equals(now.tableBranch())
                    && to.version() < now.version()) {
                throw d.fail(b, table, "head version goes backwards on table branch '" + to.tableBranch() + "': "
                        + now.version() + " -> " + to.version());
            }
        }
        bp = (bp == null ? PMap.<String, Pin>empty() : bp).put(table, new Pin(to, null, d.seq));
        d.pins = d.pins.put(b, bp);
    }

    private static void branchCreated(HeadsDraft d, GraphBranchCreated e) {
        String b = e.branch();
        String p = e.fromBranch();
        if (d.branches.containsKey(b)) {
            throw d.fail(b, null, "graph branch created twice");
        }
        GraphBranch parent = d.branches.get(p);
        if (parent == null) {
            throw d.fail(b, null, "graph branch created from '" + p + "', which is not live");
        }
        long from = e.fromSequence();
        if (from >= d.seq || from < parent.createdAt()) {
            throw d.fail(b, null, "graph branch created from '" + p + "' as of sequence " + from
                    + ", outside the parent's life [" + parent.createdAt() + ", " + d.seq + ")");
        }
        PMap<String, FoldMark> parentFolds = d.folds.get(p);
        if (parentFolds != null) {
            parentFolds.forEach((t, m) -> {
                if (m.unfolded() > 0) {
                    throw d.fail(b, t, "graph branch created from '" + p + "' while its journal-ack table has "
                            + m.unfolded() + " unfolded writes; a branch is created after its parent's tables are folded");
                }
            });
        }
        PMap<String, Pin> pp = d.pins.get(p);
        if (pp != null) {
            PMap<String, Pin> child = PMap.empty();
            for (Map.Entry<String, Pin> en : pp.sortedEntries(Comparator.naturalOrder())) {
                Pin pin = en.getValue();
                if (pin.since() > from) {
                    throw d.fail(b, en.getKey(), "graph branch created from '" + p + "' as of sequence " + from
                            + ", but the parent's head of this table changed after it (at " + pin.since()
                            + "); the inherited head is unknown");
                }
                child = child.put(en.getKey(), new Pin(pin.head(), p, d.seq));
            }
            d.pins = d.pins.put(b, child);
        }
        d.branches = d.branches.put(b, new GraphBranch(b, p, from, d.seq));
    }

    private static void branchDeleted(HeadsDraft d, GraphBranchDeleted e) {
        String b = e.branch();
        if (HeadsState.MAIN.equals(b)) {
            throw d.fail(b, null, "the main graph branch cannot be deleted");
        }
        if (!d.branches.containsKey(b)) {
            throw d.fail(b, null, "deleted graph branch is not live");
        }
        d.branches = d.branches.remove(b);
        d.pins = d.pins.remove(b);
        d.folds = d.folds.remove(b);
    }
}
