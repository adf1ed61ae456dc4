package io.palisade.heads;

import io.palisade.journal.HeadTransition;
import io.palisade.journal.IntentOutcome;
import io.palisade.journal.JournalEvent;
import io.palisade.journal.JournalEvent.IntentCompleted;
import io.palisade.journal.JournalEvent.IntentRecorded;
import io.palisade.journal.JournalEvent.LoadProgress;
import io.palisade.journal.JournalEvent.TableCommitted;
import io.palisade.journal.LogicalOperation;
import io.palisade.journal.TableHead;

import java.util.ArrayList;
import java.util.List;

/**
 * The intent steps of {@link HeadsReducer}: how the journal moves an intent through its phases (recorded, table
 * committed, head published) to its completion, and which {@link IntentReceipt} a completion issues for its idempotency key.
 * Owns the open intents, the completed intents, the receipts and the completion log of a {@link HeadsDraft}.
 *
 * <p>Invariants: an intent id is recorded once and completed once (among the intents the state still knows: open,
 * or completed after the last checkpoint); an idempotency key whose receipt is kept, or that an open intent carries,
 * is never recorded again; a receipt, once issued for a key, is never replaced while it is kept; the completed intents
 * and the receipts gain entries only in an {@code IntentCompleted}, which also adds them to the completion log; they
 * lose entries only by rule: a {@code CheckpointWritten} forgets the intents completed at or before its covered
 * sequence ({@link #forgetCompleted}), a {@code ReceiptsExpired} the receipts issued at or before its sequence
 * ({@link #receiptsExpired}).
 */
final class IntentSteps {
    private IntentSteps() {
    }

    static void intentRecorded(HeadsDraft d, IntentRecorded e) {
        String id = e.intentId();
        if (d.open.containsKey(id) || d.completed.containsKey(id)) {
            throw d.fail(e.graphBranch(), e.table(), "intent " + id + " recorded twice");
        }
        if (!d.branches.containsKey(e.graphBranch())) {
            throw d.fail(e.graphBranch(), e.table(), "intent " + id + " on a graph branch that is not live");
        }
        String key = e.idempotencyKey();
        if (key != null) {
            IntentReceipt r = d.receipts.get(key);
            if (r != null) {
                throw d.fail(e.graphBranch(), e.table(), "intent " + id + " reuses idempotency key '" + key
                        + "' that already has the receipt of intent " + r.intentId());
            }
            String[] holder = {null};
            d.open.forEach((k, o) -> {
                if (key.equals(o.recorded().idempotencyKey())) {
                    holder[0] = k;
                }
            });
            if (holder[0] != null) {
                throw d.fail(e.graphBranch(), e.table(), "intent " + id + " reuses idempotency key '" + key
                        + "' of the open intent " + holder[0]);
            }
        }
        d.open = d.open.put(id, OpenIntent.recorded(e, d.seq));
    }

    static void tableCommitted(HeadsDraft d, TableCommitted e) {
        if (e.intentIds().isEmpty()) {
            throw d.fail(e.graphBranch(), e.table(), "table commit at version " + e.achievedVersion()
                    + " names no intent");
        }
        for (String id : e.intentIds()) {
            OpenIntent o = d.open.get(id);
            if (o == null) {
                throw d.fail(e.graphBranch(), e.table(), "table commit names intent " + id + ", which is not open");
            }
            if (!o.graphBranch().equals(e.graphBranch()) || !o.table().equals(e.table())) {
                throw d.fail(e.graphBranch(), e.table(), "table commit names intent " + id + " of branch '"
                        + o.graphBranch() + "', table '" + o.table() + "'");
            }
            if (o.phase() != IntentPhase.RECORDED) {
                throw d.fail(e.graphBranch(), e.table(), "intent " + id + " committed twice (already " + o.phase()
                        + ")");
            }
            d.open = d.open.put(id, o.committed(e.tableBranch(), e.achievedVersion(), d.seq));
        }
    }

    /**
     * A bulk load's batch progress: only valid for an open intent still before phase B's journaled
     * commit (a load journals its single TableCommitted at the end). It changes no head: the load
     * publishes once, at the end. Recovery reads the progress records from the journal itself.
     */
    static void loadProgress(HeadsDraft d, LoadProgress e) {
        OpenIntent o = d.open.get(e.intentId());
        if (o == null) {
            throw d.fail(null, null, "load progress names intent " + e.intentId() + ", which is not open");
        }
        if (o.phase() != IntentPhase.RECORDED) {
            throw d.fail(o.graphBranch(), o.table(), "load progress of intent " + e.intentId() + " after phase "
                    + o.phase());
        }
    }

    /**
     * A journal-ack write's rows ({@code RowsRecorded}, or the {@code RowsReleased} the journal's row release left in
     * its place): only for an open insert, upsert or delete intent still in phase A.
     */
    static void rowsRecorded(HeadsDraft d, String intentId, String graphBranch, String table) {
        OpenIntent o = d.open.get(intentId);
        if (o == null) {
            throw d.fail(graphBranch, table, "rows recorded for intent " + intentId + ", which is not open");
        }
        if (!o.graphBranch().equals(graphBranch) || !o.table().equals(table)
                || o.phase() != IntentPhase.RECORDED || !journalable(o.recorded().operation())) {
            throw d.fail(graphBranch, table, "rows recorded for intent " + intentId + " ("
                    + o.recorded().operation() + " of " + o.graphBranch() + "/" + o.table() + ", " + o.phase()
                    + "), which is not an open journal-ack write of this table");
        }
    }

    /** Marks phase C on the open intents whose effect the transition publishes. */
    static void attribute(HeadsDraft d, HeadTransition t) {
        List<OpenIntent> hits = new ArrayList<>();
        d.open.forEach((id, o) -> {
            if (!o.graphBranch().equals(t.graphBranch()) || !o.table().equals(t.table())) {
                return;
            }
            boolean hit = switch (o.phase()) {
                case RECORDED -> o.recorded().intendedTransition().to().equals(t.to());
                case TABLE_COMMITTED -> o.committedTableBranch().equals(t.to().tableBranch())
                        && o.committedVersion() == t.to().version();
                case HEAD_PUBLISHED -> false;
            };
            if (hit) {
                hits.add(o);
            }
        });
        for (OpenIntent o : hits) {
            d.open = d.open.put(o.intentId(), o.published(t.to(), d.seq));
        }
    }

    private static boolean journalable(LogicalOperation op) {
        return switch (op) {
            case INSERT, UPSERT, UPDATE, DELETE -> true;
            case OVERWRITE, ADD_COLUMNS, CREATE_TABLE, BRANCH_MERGE, INDEX_MAINTENANCE, COMPACTION, MIGRATION_UNIT,
                 FOLD, REPAIR -> false;
        };
    }

    /**
     * A graph transaction's commit point: each of its intents, open on the transaction's graph branch, completes
     * {@code JOURNALED} here, in the order the record lists them.
     */
    static void transactionCommitted(HeadsDraft d, io.palisade.journal.JournalEvent.TransactionCommitted e, long nanos) {
        for (String id : e.intentIds()) {
            OpenIntent o = d.open.get(id);
            if (o != null && !o.graphBranch().equals(e.graphBranch())) {
                throw d.fail(o.graphBranch(), o.table(), "transaction " + e.transactionId() + " on graph branch '"
                        + e.graphBranch() + "' commits intent " + id + " of graph branch '" + o.graphBranch() + "'");
            }
            intentCompleted(d, new IntentCompleted(id, IntentOutcome.JOURNALED, "", null, java.util.List.of()), nanos);
        }
    }

    static void intentCompleted(HeadsDraft d, IntentCompleted e, long nanos) {
        OpenIntent o = d.open.get(e.intentId());
        if (o == null) {
            CompletedIntent c = d.completed.get(e.intentId());
            throw d.fail(c == null ? null : c.graphBranch(), c == null ? null : c.table(), "intent " + e.intentId()
                    + (c == null ? " completed but never recorded" : " completed twice (already " + c.outcome()
                    + " at sequence " + c.completedAt() + ")"));
        }
        IntentOutcome outcome = e.outcome();
        boolean applied = outcome == IntentOutcome.COMMITTED || outcome == IntentOutcome.ROLLED_FORWARD;
        if (applied && o.phase() != IntentPhase.HEAD_PUBLISHED) {
            throw d.fail(o.graphBranch(), o.table(), "intent " + o.intentId() + " completed " + outcome
                    + " but its head was never published (phase " + o.phase() + ")");
        }
        if (!applied && o.phase() != IntentPhase.RECORDED) {
            throw d.fail(o.graphBranch(), o.table(), "intent " + o.intentId() + " completed " + outcome
                    + " after its substrate effect was journaled (phase " + o.phase() + ")");
        }
        if (outcome == IntentOutcome.JOURNALED && !journalable(o.recorded().operation())) {
            throw d.fail(o.graphBranch(), o.table(), "intent " + o.intentId() + " (" + o.recorded().operation()
                    + ") completed JOURNALED; only inserts, upserts and deletes are acknowledged from the journal");
        }
        FoldMarkSteps.intentCompleted(d, o, outcome, applied, nanos);
        d.open = d.open.remove(o.intentId());
        String key = o.recorded().idempotencyKey();
        CompletedIntent done = new CompletedIntent(o.intentId(), outcome, o.graphBranch(), o.table(), key, d.seq,
                applied ? o.publishedHead() : null);
        d.completed = d.completed.put(o.intentId(), done);
        IntentReceipt receipt = null;
        if (outcome == IntentOutcome.JOURNALED && key != null) {
            PMap<String, Pin> bp = d.pins.get(o.graphBranch());
            Pin pin = bp == null ? null : bp.get(o.table());
            TableHead h = pin == null ? o.recorded().intendedTransition().to() : pin.head();
            long rows = o.recorded().keyFilter() == null ? -1 : o.recorded().keyFilter().size();
            receipt = new IntentReceipt(o.intentId(), d.seq, o.graphBranch(), o.table(), h.tableBranch(), h.version(),
                    outcome, rows, o.recorded().requestDigest());
        }
        if (applied && key != null) {
            TableHead h = o.publishedHead();
            long rows = o.recorded().keyFilter() == null ? -1 : o.recorded().keyFilter().size();
            receipt = new IntentReceipt(o.intentId(), d.seq, o.graphBranch(), o.table(), h.tableBranch(), h.version(),
                    outcome, rows, o.recorded().requestDigest());
        }
        if (receipt != null) {
            d.receipts = d.receipts.put(key, receipt);
        }
        d.log = new HeadsState.Completion(done, receipt, d.log);
    }

    /**
     * Forgets the intents completed at or before {@code covered} (a checkpoint covers them), from the completed intents
     * and the completion log. Costs what the log holds (the completions since the last checkpoint) when the log lists
     * every completed intent, as it does in a lineage that began before them; otherwise (the first checkpoint after a
     * decode) one pass over the completed intents.
     */
    static void forgetCompleted(HeadsDraft d, long covered) {
        int logged = 0;
        int kept = 0;
        for (HeadsState.Completion c = d.log; c != null; c = c.next) {
            logged++;
            if (c.intent.completedAt() > covered) {
                kept++;
            }
        }
        if (kept == logged && kept == d.completed.size()) {
            return; // nothing to forget
        }
        HeadsState.Completion log = d.log;
        if (kept < logged) {
            HeadsState.Completion[] newer = new HeadsState.Completion[kept];
            HeadsState.Completion c = d.log;
            for (int i = 0; i < kept; i++, c = c.next) {
                newer[i] = c; // the log is newest first: the kept nodes are its first ones
            }
            log = null;
            for (int i = kept - 1; i >= 0; i--) {
                log = new HeadsState.Completion(newer[i].intent, newer[i].receipt, log);
            }
        }
        PMap<String, CompletedIntent> completed;
        if (logged == d.completed.size()) {
            completed = PMap.empty();
            for (HeadsState.Completion n = log; n != null; n = n.next) {
                completed = completed.put(n.intent.intentId(), n.intent);
            }
        } else {
            completed = d.completed.removeIf((id, ci) -> ci.completedAt() <= covered);
        }
        d.completed = completed;
        d.log = log;
    }

    /**
     * Forgets the receipts issued at or before {@code e.throughSequence()}: their keys no longer answer a repeat. The
     * bound never goes back and never reaches this record.
     */
    static void receiptsExpired(HeadsDraft d, JournalEvent.ReceiptsExpired e) {
        long through = e.throughSequence();
        if (through >= d.seq) {
            throw d.fail(null, null, "receipts expire through sequence " + through + ", which is not before this record");
        }
        if (through < d.receiptsExpiredThrough) {
            throw d.fail(null, null, "receipts expire through sequence " + through + ", below the earlier bound "
                    + d.receiptsExpiredThrough);
        }
        d.receipts = d.receipts.removeIf((key, r) -> r.completionSequence() <= through);
        d.receiptsExpiredThrough = through;
    }
}
