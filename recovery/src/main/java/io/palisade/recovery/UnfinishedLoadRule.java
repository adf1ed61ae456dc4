package io.palisade.recovery;

import io.palisade.fencing.ForeignCommitException;
import io.palisade.heads.HeadsState;
import io.palisade.heads.IntentPhase;
import io.palisade.heads.OpenIntent;
import io.palisade.journal.HeadTransition;
import io.palisade.journal.IntentOutcome;
import io.palisade.journal.JournalCursor;
import io.palisade.journal.JournalEvent;
import io.palisade.journal.JournalEvent.HeadPublished;
import io.palisade.journal.JournalEvent.IntentCompleted;
import io.palisade.journal.JournalEvent.LoadProgress;
import io.palisade.journal.JournalReader;
import io.palisade.journal.JournalRecord;
import io.palisade.journal.RecoveryClassification;
import io.palisade.journal.RecoveryClassification.Kind;
import io.palisade.journal.TableHead;
import io.palisade.substrate.OperationKind;
import io.palisade.substrate.TableRef;
import io.palisade.substrate.TableStore;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

/**
 * The rule for an unfinished bulk load (docs/bulk-load.md): an open intent with {@link LoadProgress}
 * records that never reached its single TableCommitted is rolled BACK to the version its last start
 * marker names, by a Restore commit (or by adopting the Restore an interrupted earlier rollback
 * made); that restored version (same content as the start) is published and the intent completes
 * as ROLLED_BACK. A load without substrate effect completes as ABORTED.
 *
 * <p>Invariant: the batches between the start and the table branch's latest version are explained by the progress
 * records, plus at most one in-flight batch (committed, not yet journaled); anything beyond is a foreign commit,
 * refused before anything is journaled or restored. Memory stays bounded however long the load was: no batch's key
 * filter is kept.
 */
final class UnfinishedLoadRule {

    private UnfinishedLoadRule() {
    }

    /** Whether the open intent is a bulk load (it has progress records). */
    static boolean isLoad(RecoveryEffects effects, OpenIntent o) {
        Progress p = new Progress(true);
        read(effects, o, p);
        return p.records > 0;
    }

    /**
     * Appends the decision for {@code group} to {@code found} and its records (one batch) to {@code events} when the
     * group is an unfinished load.
     *
     * @return false when the group is not an unfinished load (the general rule, {@link OpenGroupRule}, applies)
     */
    static boolean decide(RecoveryEffects effects, OpenGroup group, HeadsState state, TableStore store,
                          List<RecoveryClassification> found, List<JournalEvent> events) {
        OpenIntent o = group.first();
        if (group.intents().size() != 1 || o.phase() != IntentPhase.RECORDED) {
            return false;
        }
        Progress progress = new Progress(false);
        read(effects, o, progress);
        if (progress.records == 0) {
            return false;
        }
        LoadProgress startMarker = progress.startMarker;
        LoadProgress lastBatch = progress.lastBatch;
        String table = o.table();
        String tableBranch = startMarker.tableBranch();
        long startVersion = startMarker.achievedVersion();
        long journaled = lastBatch == null || !lastBatch.tableBranch().equals(tableBranch) ? startVersion
                : lastBatch.achievedVersion();
        long latest = store.exists(table) && store.listBranches(table).contains(tableBranch)
                ? store.latest(table, tableBranch).version() : -1;
        String evidence = "load started at " + tableBranch + "@" + startVersion + ", "
                + (lastBatch == null ? "no batch journaled" : (lastBatch.batchIndex() + 1) + " batches (" + lastBatch.rows()
                + " rows) journaled up to @" + journaled) + ", table branch at @" + latest;
        if (latest <= startVersion) {
            found.add(new RecoveryClassification(o.intentId(), Kind.NO_EFFECT_ABORTED, table, evidence));
            events.add(new IntentCompleted(o.intentId(), IntentOutcome.ABORTED,
                    "bulk load without substrate effect, aborted by recovery", null, List.of()));
            return true;
        }
        TableRef restored;
        boolean restoredEarlier = latest <= journaled + 2
                && store.decompose(table, new TableRef(tableBranch, latest)).kind() == OperationKind.RESTORE;
        if (restoredEarlier) {
            restored = new TableRef(tableBranch, latest);
        } else if (latest <= journaled + 1) {
            restored = effects.restore(store, table, new TableRef(tableBranch, startVersion));
        } else {
            List<Long> versions = new ArrayList<>();
            for (long v = journaled + 2; v <= latest; v++) {
                versions.add(v);
            }
            throw new ForeignCommitException(ForeignCommitException.Situation.PENDING, table, o.graphBranch(), tableBranch,
                    journaled, latest, versions, List.of(o.intentId()), false, List.of(),
                    "foreign commit: table '" + table + "' branch '" + tableBranch + "' is at version " + latest
                    + " but the unfinished bulk load " + o.intentId() + " explains at most version " + (journaled + 1)
                    + " (" + evidence + "); versions above it: "
                    + Foreign.versionsAbove(store, table, tableBranch, journaled + 1)
                    + ". Nothing was changed; see docs/recovery.md \"Foreign commits\"");
        }
        TableHead from = group.head(state);
        TableHead to = new TableHead(tableBranch, restored.version(), from.schemaId(), from.incarnation());
        events.add(new HeadPublished(List.of(new HeadTransition(o.graphBranch(), table, from, to))));
        events.add(new IntentCompleted(o.intentId(), IntentOutcome.ROLLED_BACK,
                "unfinished bulk load rolled back by recovery: " + tableBranch + "@" + startVersion + " restored as @"
                        + restored.version(), null, List.of()));
        found.add(new RecoveryClassification(o.intentId(), Kind.LOAD_ROLLED_BACK, table,
                evidence + "; restored @" + startVersion + " as @" + restored.version() + " and published it"));
        return true;
    }

    /** Reads the progress records of {@code o}, from its intent on, until {@code progress} wants no more. */
    private static void read(RecoveryEffects effects, OpenIntent o, Predicate<LoadProgress> progress) {
        try (JournalReader reader = effects.reader(); JournalCursor cursor = reader.read(o.recordedAt())) {
            for (JournalRecord r = cursor.poll(); r != null; r = cursor.poll()) {
                if (r.event() instanceof LoadProgress lp && lp.intentId().equals(o.intentId()) && !progress.test(lp)) {
                    return;
                }
            }
        }
    }

    /** What a load's progress records say: its last start marker and its last batch (without key filter). */
    private static final class Progress implements Predicate<LoadProgress> {
        private final boolean firstOnly;
        int records;
        LoadProgress startMarker;
        LoadProgress lastBatch;

        Progress(boolean firstOnly) {
            this.firstOnly = firstOnly;
        }

        /** Takes one record; whether to read on. */
        @Override
        public boolean test(LoadProgress lp) {
            records++;
            if (lp.batchIndex() < 0) {
                startMarker = lp;
            } else {
                // keep no key filters: memory stays bounded however long the load was
                lastBatch = new LoadProgress(lp.intentId(), lp.batchIndex(), lp.tableBranch(),
                        lp.achievedVersion(), lp.rows(), null);
            }
            return !firstOnly;
        }
    }
}
