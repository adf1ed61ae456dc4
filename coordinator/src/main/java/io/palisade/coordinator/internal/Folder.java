package io.palisade.coordinator.internal;

import io.palisade.coordinator.Catalog;
import io.palisade.coordinator.Options;

import io.palisade.fencing.KeyFilter;
import io.palisade.fencing.PalisadeException;
import io.palisade.heads.FoldMark;
import io.palisade.heads.HeadsState;
import io.palisade.journal.JournalEvent;
import io.palisade.journal.TableHead;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * The fold agent of journal-ack tables (docs/journal-ack.md): commits a table's whole unfolded tail to Lance as one
 * fenced merge-insert through the ordinary pipeline (a {@code FOLD} op: fence, Phase A with its
 * {@link JournalEvent.FoldPlanned}, the substrate commit with its achieved-version check, publication). The fold's
 * rows are the newest row of every key whose newest unfolded write is an insert or upsert; its deletes, every key
 * whose newest write is a delete. When its intent completes, the heads fold moves the table's watermark and the
 * unfolded writes are dropped: each write is folded exactly once.
 *
 * <p>When it folds: {@link #duty} after each committer cycle folds a table whose tail has reached
 * {@link Options#foldEvery()} writes or whose oldest unfolded write is older than {@link Options#foldLagMillis()};
 * before an acknowledgement that would pass {@link Options#maxUnfoldedBytes()}, or on a table whose oldest unfolded
 * write is {@link Options#maxFoldLagMillis()} old, the committer folds first (after publishing the fold in flight), so
 * the writer waits (back-pressure) rather than fails; and before any other operation on the table but maintenance
 * that leaves the tail as it is (a compaction, the automatic index refresh)
 * (which waits only for the fold in flight), a branch created
 * from its graph branch, a merge, a bulk load, or the graph's close.
 *
 * <p><b>Off the committer thread.</b> A fold's fence, Phase A (its intent and {@code fold_planned}, the watermark) and
 * publication run on the committer thread; its Lance merge-insert runs on the fold thread ({@code palisade-fold}), so
 * journal-ack acknowledgements go on while it runs. The writes they acknowledge are journaled after the plan, so they
 * lie above its watermark and stay unfolded when it completes. At most one fold is in flight per graph: {@link #duty}
 * publishes it once its Lance commit is done and only then starts another; {@link #fold} (every other caller: an
 * operation on the table that is not a journal-ack write, the memory bound, branches, merges, close) first waits
 * for the fold in flight, so those still run after a fold of the table, as before. With a stepped committer (the
 * deterministic simulation) the Lance commit runs inline.
 *
 * <p>A journal-ack table's maintenance shares the fold thread and its one slot ({@link #launchedMaintenance}): the
 * Lance work of a compaction (the rewrite and the index rebuild) and of an index refresh runs there while
 * acknowledgements go on; it starts when nothing is in flight, and while a compaction or an automatic index refresh
 * waits for a fold ({@link #busyFor}) or runs, no fold starts. (A caller's index refresh folds first, then runs there.)
 *
 * <p>Invariants: committer thread only (the fold thread runs only the substrate commit). A fold that fails leaves its
 * writes unfolded (they stay acknowledged and readable); a fold of unknown outcome poisons the table like any commit,
 * and recovery decides at the next open.
 */
final class Folder implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Folder.class);

    private final Context ctx;
    private final Committer committer;
    /** Wakes the committer's thread if it parks idle: a Lance commit on the fold thread is done. */
    private final Runnable wakeCommitter;
    /** Null with a stepped committer: the Lance commit runs inline. */
    private final java.util.concurrent.ExecutorService lance;
    /** Tests only: runs on the fold thread before a fold's or a maintenance's Lance commit (e.g. to hold it). */
    volatile Runnable beforeLanceCommit;

    /** The fold or journal-ack maintenance in flight, null when none. */
    private Running running;
    /** The fold being started ({@link #start}), to which {@link #launched} attaches its Lance commit. */
    private Running starting;
    /** A journal-ack table's maintenance waits for the job in flight ({@link #busyFor}): start no fold before it. */
    private boolean maintenanceWaiting;
    /** Set by {@link #duty}: see {@link #quiet()}. */
    private boolean quiet;

    /** A Lance commit off the committer thread: a fold ({@code fold} and {@code rows} set) or maintenance. */
    private static final class Running {
        final WriteOp op;
        final WriteOp.Fold fold;
        final FoldRows rows;
        final long started;
        final long writes;
        Committer.InFlight flight;

        Running(WriteOp.Fold fold, long started, long writes) {
            this.op = fold;
            this.fold = fold;
            this.rows = fold.rows();
            this.started = started;
            this.writes = writes;
        }

        Running(Committer.InFlight maintenance) {
            this.op = maintenance.op().op();
            this.fold = null;
            this.rows = null;
            this.started = maintenance.phaseAStart();
            this.writes = 0;
            this.flight = maintenance;
        }
    }

    Folder(Context ctx, Committer committer, boolean inline, Runnable wakeCommitter) {
        this.ctx = ctx;
        this.committer = committer;
        this.wakeCommitter = wakeCommitter;
        this.lance = inline ? null : java.util.concurrent.Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "palisade-fold");
            t.setDaemon(true);
            return t;
        });
    }

    /**
     * Whether the last {@link #duty} left nothing that time alone can make due: no fold or maintenance in flight or
     * waiting, and no unfolded write. Until a submission or a Lance commit done on the fold thread wakes it, the
     * committer has nothing to do then (committer thread).
     */
    boolean quiet() {
        return quiet;
    }

    /** Publishes the fold in flight once its Lance commit is done, then folds a table whose tail reached a bound. */
    int duty() {
        quiet = false;
        int work = 0;
        if (running != null) {
            if (!running.flight.result().isDone()) {
                return 0;
            }
            finish();
            work++;
        }
        if (maintenanceWaiting) {
            return work; // the maintenance queued behind the job just published goes first
        }
        List<PublishedView.TailSummary> tails = ctx.view().unfoldedSummary();
        if (tails.isEmpty()) {
            quiet = running == null;
            return work;
        }
        Options o = ctx.options();
        long now = ctx.view().clockMillis() * 1_000_000L;
        for (PublishedView.TailSummary t : tails) {
            boolean due = t.writes() >= o.foldEvery() || t.bytes() >= o.maxUnfoldedBytes()
                    || now - t.oldestNanos() >= o.foldLagMillis() * 1_000_000L;
            if (due && start(t.branch(), t.table())) {
                if (lance == null) {
                    finish(); // inline (a stepped committer): published in the same cycle, as before
                }
                return work + 1; // one fold in flight at a time
            }
        }
        return work;
    }

    /** Folds every table of the graph with unfolded writes (before close). */
    void foldAll() {
        awaitRunning();
        for (PublishedView.TailSummary t : ctx.view().unfoldedSummary()) {
            fold(t.branch(), t.table());
        }
    }

    /** Folds the tables of {@code branch} with unfolded writes (before a branch is created from it, or merged). */
    void foldBranch(String branch) {
        awaitRunning();
        for (PublishedView.TailSummary t : ctx.view().unfoldedSummary()) {
            if (t.branch().equals(branch)) {
                fold(t.branch(), t.table());
            }
        }
    }

    /**
     * Folds (branch, table) if it has unfolded writes, after the fold in flight (if any) is published, and waits for
     * it; whether a fold committed.
     */
    boolean fold(String branch, String table) {
        awaitRunning();
        return start(branch, table) && finish();
    }

    /** Waits for the fold in flight, if any, and publishes it. */
    void awaitRunning() {
        if (running != null) {
            finish();
        }
    }

    /** Whether a fold or journal-ack maintenance is in flight (its Lance commit running or done, unpublished). */
    boolean folding() {
        return running != null;
    }

    /**
     * Whether the maintenance {@code m} (a compaction or an automatic index refresh), of a journal-ack table, must wait
     * for the Lance commit in flight; if so, no fold starts until it has run. Maintenance of a table-ack table, or with
     * nothing in flight, never waits here.
     */
    boolean busyFor(WriteOp m) {
        boolean journalAck = ctx.view().catalog().table(m.table()).map(Catalog.TableDef::journalAck).orElse(false);
        if (!journalAck) {
            return false; // and leaves a journal-ack table's waiting maintenance marked
        }
        maintenanceWaiting = running != null && !running.flight.result().isDone();
        return maintenanceWaiting;
    }

    /**
     * Called by the committer once a journal-ack table's maintenance, after its fence and Phase A, has its Lance commit
     * running off this thread (nothing else is in flight: the committer waited for it first). With a stepped committer
     * it is published at once.
     */
    void launchedMaintenance(Committer.InFlight maintenance) {
        if (running != null) {
            throw new IllegalStateException(maintenance.op().op().kind() + " " + maintenance.op().intentId()
                    + " launched beside " + running.op.kind() + " " + running.flight.op().intentId());
        }
        maintenanceWaiting = false;
        running = new Running(maintenance);
        if (lance == null) {
            finish();
        }
    }

    /** Runs a fold's substrate commit on the fold thread (inline with a stepped committer). */
    CompletableFuture<SubstrateCommit.Result> offThread(java.util.function.Supplier<SubstrateCommit.Result> commit) {
        if (lance == null) {
            return CompletableFuture.completedFuture(commit.get()); // a simulated crash propagates to the stepper
        }
        CompletableFuture<SubstrateCommit.Result> done = CompletableFuture.supplyAsync(() -> {
            Runnable hook = beforeLanceCommit;
            if (hook != null) {
                hook.run();
            }
            return commit.get();
        }, lance);
        // on the fold thread, after the completion: the committer's next cycle sees it done
        done.whenComplete((r, e) -> wakeCommitter.run());
        return done;
    }

    /** Called by the committer once the fold being started has its Lance commit running. */
    void launched(Committer.InFlight flight) {
        if (starting == null || starting.op != flight.op().op()) {
            throw new IllegalStateException("fold " + flight.op().intentId() + " launched outside Folder.start");
        }
        starting.flight = flight;
    }

    /** Starts a fold of (branch, table) if it has unfolded writes; whether its Lance commit is now in flight. */
    private boolean start(String branch, String table) {
        HeadsState state = ctx.view().state();
        FoldMark mark = state.foldMark(branch, table);
        Map<String, UnfoldedWrites.Entry> newest = ctx.view().unfoldedNewest(branch, table);
        if (mark.unfolded() == 0 || newest.isEmpty()) {
            return false;
        }
        Catalog.TableDef def = ctx.view().catalog().require(table);
        TableHead head = state.head(branch, table).orElseThrow();
        List<String> deleted = new ArrayList<>();
        List<String> all = new ArrayList<>(newest.keySet());
        for (Map.Entry<String, UnfoldedWrites.Entry> e : newest.entrySet()) {
            if (e.getValue().deletes()) {
                deleted.add(e.getKey());
            }
        }
        long t0 = System.nanoTime();
        KeyFilter deletes = deleted.isEmpty() ? null : BatchValidation.keyFilter(def, deleted);
        FoldRows rows = new FoldRows(def, ctx.allocator(), newest); // decoded by the fold's Lance commit
        String intentId = "f-" + UUID.randomUUID();
        WriteOp.Fold op = new WriteOp.Fold(WriteOp.Submission.of(branch, table, head.version(), Optional.empty()), rows,
                deletes, BatchValidation.keyFilter(def, all), intentId, new JournalEvent.FoldPlanned(intentId, branch,
                table, mark.newestSequence(), Math.toIntExact(mark.unfolded()), deletes));
        Running r = new Running(op, t0, mark.unfolded());
        starting = r;
        try {
            committer.startFold(op);
        } catch (PalisadeException e) {
            rows.close();
            boolean planned = ctx.view().state().openIntent(intentId).isPresent();
            if (planned) {
                // its plan is journaled and open: another plan of the table would be refused by replay, so the table
                // takes no more writes this session and recovery judges the fold at the next open
                ctx.refusals().poison(branch, table);
            }
            LOG.warn("fold of {}/{} ({} writes) was not started{}; they stay acknowledged and unfolded: {}", branch, table,
                    mark.unfolded(), planned ? " after its plan was journaled (the table is refused until reopen)" : "",
                    e.getMessage());
            return false;
        } catch (RuntimeException | Error e) {
            rows.close();
            throw e;
        } finally {
            starting = null;
        }
        if (r.flight == null) {
            // the fence or Phase A ended it: nothing was committed
            rows.close();
            report(r);
            return false;
        }
        running = r;
        return true;
    }

    /** Waits for the fold or maintenance in flight and publishes it; whether it committed. */
    private boolean finish() {
        Running r = running;
        running = null;
        try {
            committer.finishInFlight(r.flight);
        } finally {
            if (r.rows != null) {
                r.rows.close();
            }
        }
        if (r.fold == null) {
            return !r.op.future().isCompletedExceptionally(); // maintenance has the maintenance meters
        }
        return report(r);
    }

    private boolean report(Running r) {
        if (!r.op.future().isDone()) {
            throw new IllegalStateException("fold " + r.fold.intentId() + " ended without an outcome");
        }
        try {
            r.op.future().join();
            Meters.TableMeters m = ctx.meters().table(r.op.table());
            m.fold().record(System.nanoTime() - r.started);
            m.foldedRows().increment(r.rows.count());
            return true;
        } catch (CompletionException | PalisadeException e) {
            Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
            LOG.warn("fold of {}/{} ({} writes) did not commit; they stay acknowledged and unfolded: {}", r.op.branch(),
                    r.op.table(), r.writes, cause.getMessage());
            return false;
        }
    }

    /** Stops the fold thread (after {@link #foldAll}, at close). */
    @Override
    public void close() {
        if (lance != null) {
            lance.shutdownNow();
        }
    }
}
