package io.palisade.coordinator.internal;

import io.palisade.coordinator.Catalog;
import io.palisade.coordinator.Options;
import io.palisade.coordinator.Receipt;

import io.palisade.fencing.CommitStateUnknownException;
import io.palisade.fencing.PalisadeException;
import io.palisade.fencing.ValidationException;
import io.palisade.heads.HeadsState;
import io.palisade.heads.Pin;
import io.palisade.journal.JournalEvent;
import io.palisade.journal.TableHead;
import io.palisade.substrate.TableRef;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.ManyToOneConcurrentArrayQueue;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;

/**
 * The one committer of a graph (DESIGN §3): an Agrona agent draining a many-to-one queue. Per duty
 * cycle it takes every queued operation, runs control tasks in queue order, groups compatible writes
 * (same kind, graph branch and table, at most {@code maxGroup}; never past an earlier write of another kind on the
 * table, or of a table an edge endpoint ties to it) and runs each group through the stages:
 * <ol>
 *   <li>{@link Fence}: idempotency, validation, in-group deferral, the strict-insert winner check and
 *       maintenance planning and judging, against the commits it remembers; then {@link Integrity}: the catalog's
 *       edge endpoints and unique columns, against the newest published state;</li>
 *   <li>Phase A: {@link JournalPhases} journals every accepted intent, with the fence's rejections (one sync);</li>
 *   <li>Phase B: {@link SubstrateCommit} forks a lazily inherited table branch and makes one substrate commit
 *       for the group (the achieved-version rule, maintenance verification);</li>
 *   <li>the fence remembers the commit; {@link Publisher} journals Phases C and D (one sync) and answers the writers.</li>
 * </ol>
 * Invariants: every stage runs on this thread only, except a fold's Lance commit ({@link Folder}: off this thread,
 * while journal-ack acknowledgements go on; every other op on that table waits for the fold), so only this thread
 * appends to the journal, and one substrate commit is in flight per table; the published {@link HeadsState} is replaced
 * only by the journal appends, after the records it folds are durable. Every published commit is remembered
 * as a winner for operations based before it.
 */
final class Committer implements Agent {
    private static final Logger LOG = LoggerFactory.getLogger(Committer.class);

    /** A task to run on the committer thread, in queue order with the writes. */
    record Control(Callable<Object> task, CompletableFuture<Object> future) {
    }

    private final Context ctx;
    private final ManyToOneConcurrentArrayQueue<Object> queue;
    private final ArrayDeque<Object> pending = new ArrayDeque<>();
    private final JournalPhases journal;
    private final Fence fence;
    private final SubstrateCommit substrate;
    private final Publisher publisher;
    private final AutoMaintenance maintenance;

    private final KeyPresence presence;
    private final JournalAck journalAck;
    private final Folder folder;
    private final Integrity integrity;
    private final Transactions transactions;

    /**
     * {@code wake}: wakes this committer's thread when it parks idle; called on the fold thread when a Lance commit
     * there is done, so the committer publishes it at once.
     */
    Committer(Context ctx, ManyToOneConcurrentArrayQueue<Object> queue, Runnable wake) {
        this.ctx = ctx;
        this.queue = queue;
        this.journal = new JournalPhases(ctx);
        this.fence = new Fence(ctx, journal);
        this.substrate = new SubstrateCommit(ctx, journal);
        this.maintenance = new AutoMaintenance(ctx, journal, pending::addFirst);
        this.publisher = new Publisher(ctx, journal, pending::addFirst, maintenance);
        this.presence = new KeyPresence(ctx);
        this.journalAck = new JournalAck(ctx, journal, presence);
        this.folder = new Folder(ctx, this, ctx.steppedCommitter(), wake);
        this.integrity = new Integrity(ctx, journal);
        this.transactions = new Transactions(ctx, journal, fence, presence, integrity, folder);
    }

    /**
     * Commits graph transactions queued one after another (at most {@code maxGroup}): judged in order, journaled in one
     * append (after the fold in flight was published, as for a control task).
     */
    private void runTransactions(List<Transactions.Queued> batch) {
        try {
            folder.awaitRunning();
            transactions.commit(batch);
        } catch (RuntimeException e) {
            LOG.error("committer failed a batch of {} graph transactions", batch.size(), e);
            PalisadeException failure = e instanceof PalisadeException p ? p
                    : new CommitStateUnknownException("internal error while committing graph transactions: " + e, e);
            batch.forEach(t -> t.future().completeExceptionally(failure));
        }
    }

    /** The automatic maintenance (closed with the graph, before its store). */
    AutoMaintenance maintenance() {
        return maintenance;
    }

    /** The fold agent of journal-ack tables (for the graph's branch operations and close). */
    Folder folder() {
        return folder;
    }

    @Override
    public String roleName() {
        return "palisade-committer";
    }

    @Override
    public int doWork() {
        int drained = queue.drain(pending::addLast, ctx.options().maxGroup() * 4);
        int work = 0;
        Object deferred = null;
        while (!pending.isEmpty()) {
            Object head = pending.pollFirst();
            if (deferred == null && head instanceof WriteOp w && besideTail(w) && folder.busyFor(w)) {
                // a journal-ack table's compaction or automatic index refresh waits for the fold in flight without
                // holding up the writes behind it (not counted as work: the committer idles while only it waits); the
                // fold agent starts no other fold meanwhile, so it runs next
                deferred = w;
                continue;
            }
            work++;
            if (head instanceof Control c) {
                runControl(c);
                continue;
            }
            if (head instanceof Transactions.Queued t) {
                // graph transactions queued one after another share one journal append
                List<Transactions.Queued> batch = new ArrayList<>();
                batch.add(t);
                while (batch.size() < ctx.options().maxGroup() && pending.peekFirst() instanceof Transactions.Queued n) {
                    pending.pollFirst();
                    batch.add(n);
                }
                runTransactions(batch);
                continue;
            }
            WriteOp first = (WriteOp) head;
            List<WriteOp> group = new ArrayList<>();
            group.add(first);
            ArrayDeque<Object> rest = new ArrayDeque<>();
            while (!pending.isEmpty() && group.size() < ctx.options().maxGroup()) {
                Object o = pending.pollFirst();
                if (o instanceof WriteOp w && w.groupsWith(first)) {
                    group.add(w);
                } else {
                    rest.addLast(o);
                    if (o instanceof Control || o instanceof Transactions.Queued
                            || (o instanceof WriteOp w && w.branch().equals(first.branch())
                            && (w.table().equals(first.table())
                            || Integrity.linked(ctx.view().catalog(), w.table(), first.table())))) {
                        // keep controls and graph transactions ordered after the writes queued before them, and never pull a write
                        // past an earlier write of another kind on the same table (e.g. upsert k past delete k),
                        // nor past a write to a table an edge endpoint ties it to (a node before its edge)
                        break;
                    }
                }
            }
            while (!rest.isEmpty()) {
                pending.addFirst(rest.pollLast());
            }
            try {
                runGroup(group);
            } catch (RuntimeException e) {
                LOG.error("committer failed a group of {} on {}/{}", group.size(), first.branch(), first.table(), e);
                integrity.forget(first.branch(), first.table());
                PalisadeException failure = e instanceof PalisadeException p ? p
                        : new CommitStateUnknownException("internal error while committing: " + e, e);
                group.forEach(op -> op.future().completeExceptionally(failure));
            }
        }
        if (deferred != null) {
            pending.addFirst(deferred);
        }
        return drained + work + folder.duty();
    }

    private void runControl(Control c) {
        try {
            // a control task (bulk load, branch, merge, repair...) may write any table: never beside a fold's commit
            folder.awaitRunning();
            c.future().complete(c.task().call());
        } catch (Exception e) {
            c.future().completeExceptionally(e);
        }
    }

    /**
     * A fold, or a journal-ack table's maintenance (a compaction, an index refresh), after its fence and Phase A, its
     * Lance commit ({@link SubstrateCommit#commit}) running off the committer thread as {@code result};
     * {@link #finishInFlight} publishes it. {@code op} is the op as the fence admitted it (its own intent id, keys or
     * plan); {@code head} is the table's head it was planned on; {@code phaseAStart} and {@code phaseBStart}
     * ({@link System#nanoTime()}) time its phases. Invariant: {@code op.op()} is a {@link WriteOp.Fold}, or a
     * {@link WriteOp.Compact} or {@link WriteOp.OptimizeIndex} of a journal-ack table.
     */
    record InFlight(Fence.Admitted op, Catalog.TableDef def, TableHead head, long phaseAStart, long phaseBStart,
                        CompletableFuture<SubstrateCommit.Result> result) {
    }

    /**
     * Runs a fold op through its fence and Phase A; its substrate commit is handed to {@link Folder#launched}. When
     * the fence or Phase A ends it, {@code op.future()} is completed and nothing is launched.
     */
    void startFold(WriteOp.Fold op) {
        runGroup(List.of(op));
    }

    /**
     * Waits for the Lance commit of a fold or a journal-ack table's maintenance and runs the rest of its group on this
     * thread: the fence remembers the commit, Phases C and D publish it (a fold's crash points
     * {@code before-fold-publish}, {@code after-fold-publish}; maintenance's {@code before-publish},
     * {@code after-publish}) and the op's future is completed. A commit that failed off-thread without a result is of
     * unknown outcome: the table is poisoned, as for any commit.
     */
    void finishInFlight(InFlight f) {
        WriteOp op = f.op().op();
        String intentId = f.op().intentId();
        String what = switch (op.kind()) {
            case FOLD -> "fold";
            case OPTIMIZE_INDEX -> "index refresh";
            case COMPACT -> "compaction";
            case INSERT, UPSERT, UPDATE, DELETE, APPEND, OVERWRITE, ADD_COLUMNS ->
                    throw new IllegalStateException(op.kind() + " " + intentId + " was not run off the committer");
        };
        SubstrateCommit.Result result;
        try {
            result = f.result().join();
        } catch (java.util.concurrent.CompletionException | java.util.concurrent.CancellationException e) {
            Throwable cause = e.getCause() == null ? e : e.getCause();
            ctx.refusals().poison(op.branch(), op.table());
            LOG.error("the {} {} of {}/{} failed off the committer thread", what, intentId, op.branch(), op.table(),
                    cause);
            op.future().completeExceptionally(new CommitStateUnknownException(what + " of " + op.where() + " failed: "
                    + cause, cause));
            return;
        }
        try {
            long t2 = System.nanoTime();
            if (result instanceof SubstrateCommit.Result.Committed c && c.achieved().version() != c.base().version()) {
                fence.remember(op.where(), f.def().kind().keyed(), c.base(), c.achieved(), c.committed(), c.described());
            }
            publisher.publish(op, f.def(), f.head(), result, f.phaseAStart(), f.phaseBStart(), t2);
            if (op instanceof WriteOp.Fold) {
                integrity.folded(op.branch(), op.table(), f.head());
            } else if (result instanceof SubstrateCommit.Result.Committed c) {
                integrity.published(f.def(), op.branch(), f.head(), c.committed());
            }
        } catch (RuntimeException e) {
            // its Lance commit may have landed without Phases C/D: an unknown outcome, as for any commit
            ctx.refusals().poison(op.branch(), op.table());
            LOG.error("committer failed to publish the {} {} of {}/{}", what, intentId, op.branch(), op.table(), e);
            op.future().completeExceptionally(e instanceof PalisadeException p ? p
                    : new CommitStateUnknownException("internal error while publishing a " + what + ": " + e, e));
        }
    }

    /** Runs one write now, on the committer thread (for compound operations such as a branch merge). */
    Receipt runNow(WriteOp op) {
        runGroup(List.of(op));
        return op.future().join();
    }

    /**
     * Commits one graph transaction now, on the committer thread (a branch merge of a graph with integrity rules); its
     * receipt, or its typed failure thrown.
     */
    io.palisade.coordinator.TransactionReceipt commitNow(Transactions.Queued q) {
        runTransactions(List.of(q));
        try {
            return q.future().join();
        } catch (java.util.concurrent.CompletionException e) {
            if (e.getCause() instanceof PalisadeException p) {
                throw p;
            }
            throw e;
        }
    }

    /**
     * Remembers a commit published by another path on this thread (a bulk load): judged by what its
     * versions did; never a key-add winner of the strict-insert check (its keys are not journaled).
     */
    void rememberCommit(String branch, String table, boolean keyed, TableRef from, TableRef to, String intentId) {
        fence.rememberCommit(branch, table, keyed, from, to, intentId);
        presence.invalidate(branch, table);
    }

    /** Fails everything still queued (on close). */
    void failPending(PalisadeException e) {
        queue.drain(pending::addLast);
        for (Object o : pending) {
            if (o instanceof WriteOp w) {
                w.future().completeExceptionally(e);
            } else if (o instanceof Control c) {
                c.future().completeExceptionally(e);
            } else if (o instanceof Transactions.Queued t) {
                t.future().completeExceptionally(e);
            }
        }
        pending.clear();
    }

    // ------------------------------------------------------------------ one group through the stages

    private void runGroup(List<WriteOp> ops) {
        WriteOp first = ops.get(0);
        Optional<Catalog.TableDef> ackTable = ctx.view().catalog().table(first.table()).filter(Catalog.TableDef::journalAck);
        if (ackTable.isPresent() && !(first instanceof WriteOp.Fold)) {
            if (besideTail(first)) {
                // a compaction or an automatic index refresh plans on the table's Lance head and leaves the unfolded
                // tail as it is: it waits only for the fold in flight to publish, so that two Lance commits never race
                folder.awaitRunning();
            } else if (!first.journalable()) {
                foldFirst(first); // every other operation on a journal-ack table follows a fold
            } else if (backPressured(first)) {
                // past the memory or the lag bound the acknowledgement waits for the fold in flight to publish and
                // for a fold of the rest of the table's tail (back-pressure: the writers wait, they are not failed)
                long t = System.nanoTime();
                folder.fold(first.branch(), first.table());
                ctx.meters().table(first.table()).backPressure().record(System.nanoTime() - t);
            }
        } else if (!(first instanceof WriteOp.Fold)
                && ctx.view().state().foldMark(first.branch(), first.table()).unfolded() > 0) {
            // a table-ack table with unfolded writes (a graph transaction's part whose fold failed, or that a crash cut
            // a table-ack table with unfolded writes (a graph transaction's part whose fold failed, or that a crash cut
            // off before it): every operation on it follows a fold, as on a journal-ack table
            foldFirst(first);
        }
        if (ctx.view().state().foldMark(first.branch(), first.table()).unfolded() > 0 && writesRows(first, ackTable.isPresent())) {
            // the fold before it did not commit: committing over the unfolded writes would let a later fold undo it
            fail(ops, new io.palisade.fencing.WriteConflictException("table '" + first.table() + "' on graph branch '"
                    + first.branch() + "' has acknowledged writes its fold did not commit yet; retry"));
            return;
        }
        HeadsState state = ctx.view().state();
        Optional<PalisadeException> refusal = ctx.refusals().refusal(first.branch(), first.table());
        if (refusal.isPresent()) {
            fail(ops, refusal.get());
            return;
        }
        Catalog.TableDef def;
        Pin pin;
        try {
            def = ctx.view().catalog().require(first.table());
            if (!state.branchLive(first.branch())) {
                throw new ValidationException("unknown graph branch '" + first.branch() + "'");
            }
            pin = state.pin(first.branch(), first.table()).orElseThrow(
                    () -> new ValidationException("table '" + first.table() + "' has no head on branch '" + first.branch() + "'"));
        } catch (ValidationException e) {
            fail(ops, e);
            return;
        }

        // 1. the fence: validation, idempotency, in-group and winner conflict checks, maintenance plans; then the
        // integrity checks of edge endpoints and unique columns
        Fence.Admission fenced = fence.admit(ops, def, pin, state);
        try {
            Fence.Admission judged;
            try {
                judged = integrity.judge(def, pin, state, ops, fenced);
            } catch (PalisadeException e) {
                // a table the checks read could not be read: nothing of the group is journaled but the fence's
                // rejections; the deferred ops wait for the next group as always
                integrity.forget(first.branch(), first.table());
                fenced.accepted().forEach(a -> a.op().future().completeExceptionally(e));
                judged = new Fence.Admission(List.of(), fenced.deferred(), fenced.rejected(), fenced.rejections());
            }
            runAdmitted(first, def, pin, state, judged);
        } finally {
            // an update's resolved rows live for this run: committed, or encoded into the journal, within it
            for (Fence.Admitted a : fenced.accepted()) {
                if (a.op() instanceof WriteOp.Update u && u.afterImage() != null) {
                    u.afterImage().close();
                }
            }
        }
    }

    /** Stages 2–4 of a group the fence admitted (journal-ack writes: the acknowledgement). */
    private void runAdmitted(WriteOp first, Catalog.TableDef def, Pin pin, HeadsState state, Fence.Admission admission) {
        List<WriteOp> deferred = admission.deferred();
        for (int i = deferred.size() - 1; i >= 0; i--) {
            pending.addFirst(deferred.get(i));
        }
        try {
            journalAndCommit(first, def, pin, state, admission);
        } finally {
            // a rejected op is answered once its records are in the journal (or the journal failed: then with the
            // rejection all the same, nothing of the op was written)
            for (Lost l : admission.rejected()) {
                l.op().op().future().completeExceptionally(l.failure());
            }
        }
    }

    private void journalAndCommit(WriteOp first, Catalog.TableDef def, Pin pin, HeadsState state,
                                  Fence.Admission admission) {
        List<Fence.Admitted> accepted = admission.accepted();
        if (accepted.isEmpty()) {
            if (!admission.rejections().isEmpty()) {
                journal.append(admission.rejections());
            }
            return;
        }
        if (def.journalAck() && first.journalable()) {
            List<Fence.Admitted> acked = journalAck.acknowledge(def, pin, state, accepted, admission.rejections());
            integrity.published(def, first.branch(), pin.head(), acked);
            return;
        }

        // 2. Phase A
        TableHead head = pin.head();
        String tableBranch = pin.owned() ? head.tableBranch() : TableBranches.tableBranchFor(first.branch());
        List<JournalEvent> phaseA = new ArrayList<>(admission.rejections());
        phaseA.addAll(journal.intents(accepted, head, tableBranch, state.lastSequence()));
        long t0 = System.nanoTime();
        journal.appendIntents(phaseA);
        long t1 = System.nanoTime();

        // 3. Phase B (the Lance commit of a fold or of a journal-ack table's maintenance runs off this thread;
        // acknowledgements go on meanwhile)
        TableRef base = substrate.base(pin, first.table(), tableBranch);
        if (first instanceof WriteOp.Fold) {
            List<Fence.Admitted> fold = List.copyOf(accepted);
            folder.launched(new InFlight(fold.get(0), def, head, t0, t1,
                    folder.offThread(() -> substrate.commit(def, fold, base))));
            return;
        }
        if (first.maintenance() && def.journalAck()) {
            List<Fence.Admitted> maintenance = List.copyOf(accepted);
            folder.launchedMaintenance(new InFlight(maintenance.get(0), def, head, t0, t1,
                    folder.offThread(() -> substrate.commit(def, maintenance, base))));
            return;
        }
        SubstrateCommit.Result result = substrate.commit(def, accepted, base);
        long t2 = System.nanoTime();

        // 4. Phases C and D (a fold's and a journal-ack table's maintenance's: finishInFlight)
        if (result instanceof SubstrateCommit.Result.Committed c) {
            // the key filter stays a superset of the table's keys: a commit's inserted keys are added to it; a fold's
            // are in it already; updates, deletes, maintenance and added columns add none; an overwrite replaces them
            switch (first.kind()) {
                case INSERT, UPSERT -> {
                    for (Fence.Admitted a : c.committed()) {
                        presence.added(first.branch(), first.table(), a.keys().keys());
                    }
                }
                case OVERWRITE -> presence.invalidate(first.branch(), first.table());
                case FOLD, OPTIMIZE_INDEX, COMPACT, UPDATE, DELETE, APPEND, ADD_COLUMNS -> {
                }
            }
        }
        if (result instanceof SubstrateCommit.Result.Committed c && c.achieved().version() != c.base().version()) {
            fence.remember(first.where(), def.kind().keyed(), c.base(), c.achieved(), c.committed(), c.described());
        }
        publisher.publish(first, def, head, result, t0, t1, t2);
        if (result instanceof SubstrateCommit.Result.Committed c) {
            integrity.published(def, first.branch(), head, c.committed());
        }
    }

    /**
     * Whether {@code op} is maintenance that leaves a journal-ack table's unfolded writes as they are: a compaction, or
     * an index refresh that does not fold first (the automatic one). On a journal-ack table it waits only for the fold
     * in flight, and its Lance work runs on the fold thread.
     */
    private static boolean besideTail(WriteOp op) {
        return op instanceof WriteOp.Compact || (op instanceof WriteOp.OptimizeIndex o && !o.foldFirst());
    }

    /** Whether {@code op} commits rows to its Lance table (a journal-ack table's acknowledged writes do not). */
    private static boolean writesRows(WriteOp op, boolean journalAckTable) {
        return switch (op.kind()) {
            case FOLD, COMPACT, OPTIMIZE_INDEX -> false;
            case INSERT, UPSERT, UPDATE, DELETE -> !journalAckTable;
            case APPEND, OVERWRITE, ADD_COLUMNS -> true;
        };
    }

    /** Folds {@code op}'s table before it (a failure is logged by the fold; the caller checks what is left). */
    private void foldFirst(WriteOp op) {
        try {
            folder.fold(op.branch(), op.table());
        } catch (PalisadeException e) {
            LOG.warn("fold of {}/{} before a {} failed: {}", op.branch(), op.table(), op.kind(), e.getMessage());
        }
    }

    /**
     * Whether a journal-ack acknowledgement must wait for a fold of its table first: the unfolded rows of the graph
     * are at {@link Options#maxUnfoldedBytes()}, or the table's oldest unfolded write is
     * {@link Options#maxFoldLagMillis()} old.
     */
    private boolean backPressured(WriteOp w) {
        Options o = ctx.options();
        if (ctx.view().unfoldedBytes() >= o.maxUnfoldedBytes()) {
            return true;
        }
        long lag = ctx.view().foldLagMillis(w.branch(), w.table());
        return lag >= 0 && lag >= o.maxFoldLagMillis();
    }

    private static void fail(List<WriteOp> ops, PalisadeException e) {
        ops.forEach(op -> op.future().completeExceptionally(e));
    }
}
