package io.palisade.coordinator.internal;


import io.palisade.fencing.KeyFilter;
import io.palisade.fencing.action.ActionCodec;
import io.palisade.journal.ExpectedBase;
import io.palisade.journal.HeadTransition;
import io.palisade.journal.IntentOutcome;
import io.palisade.journal.JournalEvent;
import io.palisade.journal.JournalEvent.HeadPublished;
import io.palisade.journal.JournalEvent.IntentCompleted;
import io.palisade.journal.JournalEvent.IntentRecorded;
import io.palisade.journal.JournalEvent.TableCommitted;
import io.palisade.journal.TableHead;
import io.palisade.substrate.TableRef;

import java.util.ArrayList;
import java.util.List;

/**
 * The pipeline's journal records and their appends (DESIGN §3 phases A, C and D; §4): the Phase A
 * {@link IntentRecorded} of each operation, the records of an operation rejected before its commit (an intent
 * whose transition is the head to itself, completed {@code KEY_CONFLICT} or {@code WRITE_CONFLICT}), the
 * completions of a commit's losers, and a commit's {@link TableCommitted}, {@link HeadPublished} and
 * {@link IntentCompleted} records.
 *
 * <p>Invariants: committer thread only. Building a record decides nothing and touches nothing; every append goes
 * through {@link PublishedView#journal} (one sync per call, after which the records are folded into the published heads), so
 * the state readers see never runs ahead of the journal. This is the pipeline's only path to the journal: the other
 * stages hand it the records they made (a foreign race's evidence included). The write path's crash points at the
 * journal are hit here: {@code after-intent} after the Phase A append, {@code before-publish} and
 * {@code after-publish} around the Phase C/D append.
 */
final class JournalPhases {
    private final Context ctx;

    JournalPhases(Context ctx) {
        this.ctx = ctx;
    }

    /**
     * Phase A: one {@link IntentRecorded} per operation, each expecting {@code head} (at journal sequence
     * {@code lastSequence}) and intending the transition to the next version of {@code tableBranch}.
     */
    List<JournalEvent> intents(List<Fence.Admitted> ops, TableHead head, String tableBranch, long lastSequence) {
        TableHead intendedTo = new TableHead(tableBranch, head.version() + 1, head.schemaId(), head.incarnation());
        ExpectedBase base = new ExpectedBase(head.tableBranch(), head.version(), head.schemaId(), lastSequence);
        List<JournalEvent> out = new ArrayList<>();
        for (Fence.Admitted op : ops) {
            out.add(intent(op, base, op.keys(), head, intendedTo));
            if (op.op() instanceof WriteOp.Fold f) {
                out.add(f.plan());
            }
        }
        return out;
    }

    /**
     * A strict insert the fence rejected ({@code KeyConflictException} with {@code message}): its intent, which
     * leaves {@code head} as it is, and its completion naming {@code winner} and the colliding {@code keys}.
     */
    List<JournalEvent> keyConflictRejection(Fence.Admitted op, TableHead head, String message, String winner,
                                            List<String> keys) {
        return List.of(rejectedIntent(op, head, op.keys()),
                new IntentCompleted(op.intentId(), IntentOutcome.KEY_CONFLICT, message, winner, keys));
    }

    /**
     * A write refused by an integrity check (docs/integrity.md): its intent, which leaves {@code head} as it is, and
     * its completion {@code INTEGRITY_CONFLICT} with {@code message}, naming {@code keys} (the endpoint keys or the
     * ids at fault).
     */
    List<JournalEvent> integrityRejection(Fence.Admitted op, TableHead head, String message, List<String> keys) {
        return List.of(rejectedIntent(op, head, op.keys()),
                new IntentCompleted(op.intentId(), IntentOutcome.INTEGRITY_CONFLICT, message, null, keys));
    }

    /**
     * A maintenance operation whose plan conflicted until its retries were exhausted: its intent with the last plan
     * (no key filter), which leaves {@code head} as it is, and its completion {@code WRITE_CONFLICT}.
     */
    List<JournalEvent> writeConflictRejection(Fence.Admitted op, TableHead head, String message) {
        return List.of(rejectedIntent(op, head, null),
                new IntentCompleted(op.intentId(), IntentOutcome.WRITE_CONFLICT, message, null, List.of()));
    }

    /** A journal-ack write's intent (docs/journal-ack.md): the head to itself, the table moves only at a fold. */
    IntentRecorded acknowledgedIntent(Fence.Admitted op, TableHead head) {
        return rejectedIntent(op, head, op.keys());
    }

    private IntentRecorded rejectedIntent(Fence.Admitted op, TableHead head, KeyFilter keyFilter) {
        ExpectedBase base = new ExpectedBase(head.tableBranch(), head.version(), head.schemaId(), ctx.view().state().lastSequence());
        return intent(op, base, keyFilter, head, head);
    }

    /** {@code a}'s intent, expecting {@code base}, with {@code keyFilter}, intending its table's head {@code from → to}. */
    private static IntentRecorded intent(Fence.Admitted a, ExpectedBase base, KeyFilter keyFilter, TableHead from,
                                         TableHead to) {
        WriteOp op = a.op();
        return new IntentRecorded(a.intentId(), op.idempotencyKey().orElse(null), WriteActions.operation(op.kind()),
                op.branch(), op.table(), base, ActionCodec.encode(WriteActions.of(a)), keyFilter,
                new HeadTransition(op.branch(), op.table(), from, to), op.submission().requestDigest());
    }

    /** The completion of a commit's loser whose {@code keys} the substrate found already held ({@code winner} nullable). */
    IntentCompleted keyConflictLoss(Fence.Admitted op, String reason, String winner, List<String> keys) {
        return new IntentCompleted(op.intentId(), IntentOutcome.KEY_CONFLICT, reason, winner, keys);
    }

    /** The completion of an intent that had no effect ({@code WRITE_CONFLICT}, {@code VALIDATION_FAILED}, {@code ABORTED}). */
    IntentCompleted failed(Fence.Admitted op, IntentOutcome outcome, String reason) {
        return new IntentCompleted(op.intentId(), outcome, reason, null, List.of());
    }

    /** {@code a}'s commit reached {@code achieved}: its effect, journaled without publishing it. */
    TableCommitted tableCommitted(Fence.Admitted a, TableRef achieved) {
        return new TableCommitted(List.of(a.intentId()), a.op().branch(), a.op().table(), achieved.branch(), achieved.version());
    }

    /**
     * Phases C and D of a commit of {@code committed} from {@code base} to {@code achieved}: {@link TableCommitted},
     * the {@link HeadPublished} transition from {@code head}, and one {@code COMMITTED} completion per operation, in
     * order, added to {@code into}. A commit that reached no new version (maintenance with nothing to do) is
     * completed with a reason starting {@code no-op:}. Returns the index in {@code into} of the first completion.
     */
    int publication(List<JournalEvent> into, List<Fence.Admitted> committed, TableHead head, TableRef base,
                    TableRef achieved) {
        WriteOp first = committed.get(0).op();
        TableHead to = new TableHead(achieved.branch(), achieved.version(), head.schemaId(), head.incarnation());
        List<String> ids = committed.stream().map(Fence.Admitted::intentId).toList();
        into.add(new TableCommitted(ids, first.branch(), first.table(), to.tableBranch(), to.version()));
        into.add(new HeadPublished(List.of(new HeadTransition(first.branch(), first.table(), head, to))));
        int commitIndex = into.size();
        boolean noOp = achieved.version() == base.version();
        for (Fence.Admitted a : committed) {
            WriteOp op = a.op();
            into.add(new IntentCompleted(a.intentId(), IntentOutcome.COMMITTED, noOp ? noOpReason(op) : "", null,
                    List.of()));
        }
        return commitIndex;
    }

    /** Why a committed op reached no new table version. */
    private static String noOpReason(WriteOp op) {
        String why = switch (op) {
            case WriteOp.Compact c -> "nothing to compact";
            case WriteOp.OptimizeIndex o -> "the index covers every fragment";
            case WriteOp.Delete d -> "the table holds none of the keys";
            case WriteOp.Insert i -> "nothing written";
            case WriteOp.Upsert u -> "nothing written";
            case WriteOp.Update u -> "nothing written";
            case WriteOp.Append a -> "nothing written";
            case WriteOp.Overwrite o -> "nothing written";
            case WriteOp.AddColumns a -> "nothing written";
            case WriteOp.Fold f -> "nothing to fold";
        };
        return "no-op: " + why + "; no table version was committed";
    }

    /** Appends the Phase A batch (one sync), then crash point {@code after-intent}; returns its first sequence. */
    long appendIntents(List<JournalEvent> phaseA) {
        long first = ctx.view().journal(phaseA);
        CrashPoints.hit(folds(phaseA) ? "after-fold-intent" : "after-intent");
        return first;
    }

    /** Whether a batch is a fold's (a fold runs alone: its crash points have their own names). */
    private static boolean folds(List<JournalEvent> batch) {
        for (JournalEvent e : batch) {
            if (e instanceof JournalEvent.FoldPlanned) {
                return true;
            }
        }
        return false;
    }

    /**
     * Appends the Phase C/D batch (one sync) between crash points {@code before-publish} and
     * {@code after-publish}; returns its first sequence.
     */
    long publish(List<JournalEvent> phaseCD) {
        return publish(phaseCD, false);
    }

    /** {@link #publish(List)}; a fold's batch hits {@code before-fold-publish} and {@code after-fold-publish}. */
    long publish(List<JournalEvent> phaseCD, boolean fold) {
        CrashPoints.hit(fold ? "before-fold-publish" : "before-publish");
        long first = ctx.view().journal(phaseCD);
        CrashPoints.hit(fold ? "after-fold-publish" : "after-publish");
        return first;
    }

    /** Appends records outside the phase boundaries (one sync): rejections, losers' outcomes, a race's evidence. */
    long append(List<JournalEvent> events) {
        return ctx.view().journal(events);
    }
}
