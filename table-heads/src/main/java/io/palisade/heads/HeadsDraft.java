package io.palisade.heads;

import io.palisade.journal.JournalEvent;

/**
 * The working copy of a {@link HeadsState} while {@link HeadsReducer} applies one journal record to it: every part
 * of the state as a mutable field, each still the state's own persistent map until a step of the record replaces it.
 *
 * <p>Lives for one record and never leaves the reducer. The state it was copied from is never changed (a step only
 * replaces a field's map with a new persistent map); {@link #result()} freezes the draft into the next state, which
 * shares every unchanged part with the previous one. A step that rejects the record throws (through {@link #fail})
 * before {@link #result()} is reached, so a rejected record produces no state.
 */
final class HeadsDraft {
    /** The sequence of the record being applied: the next state's {@link HeadsState#lastSequence()}. */
    final long seq;
    long writerEpoch;
    int formatStamp;
    long lastCheckpointSequence;
    long receiptsExpiredThrough;
    String openRecovery;
    PMap<String, GraphBranch> branches;
    PMap<String, PMap<String, Pin>> pins;
    PMap<String, OpenIntent> open;
    PMap<String, CompletedIntent> completed;
    PMap<String, IntentReceipt> receipts;
    PMap<String, MigrationProgress> migrations;
    PMap<String, PMap<String, FoldMark>> folds;
    PMap<String, JournalEvent.FoldPlanned> foldPlans;
    PMap<String, FoldMark> foldLater;
    JournaledCatalog catalog;
    HeadsState.Completion log;
    final Object lineage;

    HeadsDraft(HeadsState s, long seq) {
        this.seq = seq;
        writerEpoch = s.writerEpoch;
        formatStamp = s.formatStamp;
        lastCheckpointSequence = s.lastCheckpointSequence;
        receiptsExpiredThrough = s.receiptsExpiredThrough;
        openRecovery = s.openRecovery;
        branches = s.branches;
        pins = s.pins;
        open = s.open;
        completed = s.completed;
        receipts = s.receipts;
        migrations = s.migrations;
        folds = s.folds;
        foldPlans = s.foldPlans;
        foldLater = s.foldLater;
        catalog = s.catalog;
        log = s.log;
        lineage = s.lineage == null ? new Object() : s.lineage; // the empty state begins a new lineage
    }

    /** The state after the record. */
    HeadsState result() {
        return new HeadsState(seq, writerEpoch, formatStamp, lastCheckpointSequence, receiptsExpiredThrough,
                openRecovery, branches, pins, open, completed, receipts, migrations, folds, foldPlans, foldLater, catalog, log,
                lineage);
    }

    /** The rejection of the record being applied, naming its sequence and, where there is one, branch and table. */
    IllegalTransitionException fail(String branch, String table, String message) {
        return new IllegalTransitionException(seq, branch, table, message);
    }
}
