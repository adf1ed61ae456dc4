package io.palisade.coordinator.internal;

import io.palisade.fencing.IdempotencyMismatchException;

import io.palisade.coordinator.Catalog;
import io.palisade.coordinator.LoadMode;
import io.palisade.coordinator.MergeResult;
import io.palisade.coordinator.Options;
import io.palisade.coordinator.Receipt;
import io.palisade.fencing.CommitStateUnknownException;
import io.palisade.fencing.GraphClosedException;
import io.palisade.fencing.PalisadeException;
import io.palisade.heads.HeadsState;
import io.palisade.journal.Journal;
import io.palisade.journal.TableHead;
import io.palisade.substrate.TableStore;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.ManyToOneConcurrentArrayQueue;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.slf4j.LoggerFactory;

import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;

/**
 * The engine of one open graph (DESIGN §3): it owns the graph's journal, table store and allocator, the queue to its
 * single committer and the committer itself, and runs every write, control task and branch operation there. The
 * public {@code Graph} is a facade over it.
 *
 * <p>Invariants: every write and control task is queued here and run by the one committer (its own Agrona thread, or
 * the caller's when the committer is stepped); a caller waits for its future, which completes only once the write's
 * completion is durable in the journal; after {@link #close} nothing more is queued and everything still queued fails.
 */
public final class Engine implements AutoCloseable {
    private static final int QUEUE_CAPACITY = 1 << 14;
    /**
     * The committer's idle strategy ({@link WakeableIdleStrategy}): after a cycle without work it spins and yields,
     * then backs off in timed parks of 1 µs doubling to 100 µs (under load the next submission lands within one, and
     * no writer pays for a wake-up); after {@link #IDLE_BACKOFF_NANOS} of idleness it parks until a submission or a
     * fold's Lance commit wakes it, or {@link #IDLE_PARK_NANOS} pass while a timed duty is pending (a fold due by the
     * age of its oldest write: seen at most this late), {@link #IDLE_QUIET_PARK_NANOS} when nothing is
     * ({@link Folder#quiet()}).
     */
    private static final int IDLE_SPINS = 64;
    private static final int IDLE_YIELDS = 64;
    private static final long IDLE_MIN_BACKOFF_NANOS = 1_000;
    private static final long IDLE_MAX_BACKOFF_NANOS = 100_000;
    private static final long IDLE_BACKOFF_NANOS = 50_000_000;
    private static final long IDLE_PARK_NANOS = 10_000_000;
    private static final long IDLE_QUIET_PARK_NANOS = 1_000_000_000;

    private final Context ctx;
    private final ManyToOneConcurrentArrayQueue<Object> queue = new ManyToOneConcurrentArrayQueue<>(QUEUE_CAPACITY);
    private final Committer committer;
    private final AgentRunner runner;
    /** The committer's idle strategy, woken by each submission; null with a manual committer. */
    private final WakeableIdleStrategy idle;
    private volatile boolean closed;

    /**
     * @param manualCommitter no committer thread: the caller steps the committer ({@link #stepCommitter()}) and
     *                        blocking calls step it until their own result is ready (the deterministic simulation)
     */
    public Engine(GraphLayout layout, Catalog catalog, Options options, Journal journal, TableStore store,
                  BufferAllocator allocator, HeadsState state, boolean manualCommitter) {
        Meters meters = new Meters(catalog);
        PublishedView view = new PublishedView(layout, catalog, options, journal, state, meters, manualCommitter);
        meters.watch(view);
        this.ctx = new Context(layout, options, journal, store, allocator, view,
                new Reads(view, store, allocator, layout), meters, new TableRefusals(), new TableBranches(store),
                manualCommitter);
        this.idle = manualCommitter ? null : new WakeableIdleStrategy(IDLE_SPINS, IDLE_YIELDS, IDLE_MIN_BACKOFF_NANOS,
                IDLE_MAX_BACKOFF_NANOS, IDLE_BACKOFF_NANOS, this::idleParkNanos, () -> !queue.isEmpty());
        this.committer = new Committer(ctx, queue, idle == null ? () -> { } : idle::wake);
        if (manualCommitter) {
            this.runner = null;
        } else {
            this.runner = new AgentRunner(idle, this::onCommitterError, null, committer);
            AgentRunner.startOnThread(runner);
        }
    }

    public Context context() {
        return ctx;
    }

    // ------------------------------------------------------------------ submission

    /** The table version the current published view has for (branch, table): a new op's base; -1 without a head. */
    public long baseVersion(String branch, String table) {
        return ctx.view().state().head(branch, table).map(TableHead::version).orElse(-1L);
    }

    /**
     * Queues {@code op} for the committer; an op whose idempotency key already has a receipt gets that receipt
     * without being queued, or {@link IdempotencyMismatchException} when it is another request than the key's.
     */
    public CompletableFuture<Receipt> submit(WriteOp op) {
        if (op instanceof WriteOp.Delete && ctx.view().catalog().table(op.table())
                .map(t -> ctx.view().catalog().cascadesFrom(t.name())).orElse(false)) {
            // a node delete that takes edges along is one graph transaction with their deletes: its receipt is the
            // first part's
            CompletableFuture<Receipt> first = new CompletableFuture<>();
            submitTransaction(op.branch(), java.util.List.of(op), op.idempotencyKey()).whenComplete((r, e) -> {
                if (e != null) {
                    first.completeExceptionally(e instanceof CompletionException c && c.getCause() != null
                            ? c.getCause() : e); // the typed failure, as any write's future carries it
                } else {
                    first.complete(r.parts().get(0));
                }
            });
            return first;
        }
        if (op.idempotencyKey().isPresent()) {
            HeadsState state = ctx.view().state();
            Optional<io.palisade.heads.IntentReceipt> r = state.receipt(op.idempotencyKey().get());
            if (r.isPresent()) {
                try {
                    RequestDigest.checkRepeat(op, r.get());
                } catch (IdempotencyMismatchException e) {
                    ctx.meters().validationFailures.increment();
                    return CompletableFuture.failedFuture(e);
                }
                ctx.meters().idempotentReplays.increment();
                return CompletableFuture.completedFuture(Receipts.of(r.get(), state));
            }
        }
        encodeForTheJournal(op);
        enqueue(op);
        return op.future();
    }

    /**
     * Encodes the rows of an insert or upsert to a journal-ack table for the journal here, on the writer's thread,
     * rather than on the committer every writer waits on. A write that fails validation later wasted the encoding; a
     * table whose ack mode is not known yet (unknown table) is left to the committer.
     */
    private void encodeForTheJournal(WriteOp op) {
        JournalRowsMemo memo = op.submittedRows();
        if (memo != null && ctx.view().catalog().table(op.table()).filter(Catalog.TableDef::journalAck).isPresent()) {
            memo.bytes();
        }
    }

    private void enqueue(Object item) {
        long park = 1_000;
        while (!queue.offer(item)) {
            if (closed) {
                throw new GraphClosedException("graph " + ctx.layout().root() + " is closed");
            }
            LockSupport.parkNanos(park);
            park = Math.min(park * 2, 1_000_000);
        }
        if (idle != null) {
            idle.wake();
        }
        if (closed) {
            committer.failPending(new GraphClosedException("graph " + ctx.layout().root() + " is closed"));
        }
    }

    /**
     * Queues a graph transaction's {@code parts} on {@code branch} (docs/transactions.md), in queue order with the
     * writes; its receipt's future.
     */
    public CompletableFuture<io.palisade.coordinator.TransactionReceipt> submitTransaction(
            String branch, java.util.List<WriteOp> parts, Optional<String> idempotencyKey) {
        for (WriteOp p : parts) {
            JournalRowsMemo m = p.submittedRows();
            if (m != null) {
                m.bytes(); // encoded for the journal on the writer's thread, not on the committer
            }
        }
        Transactions.Queued q = new Transactions.Queued(branch, parts, idempotencyKey,
                idempotencyKey.isPresent() ? RequestDigest.ofTransaction(branch, parts) : null, new CompletableFuture<>());
        if (idempotencyKey.isPresent()) {
            try {
                Optional<io.palisade.coordinator.TransactionReceipt> r = Transactions.repeat(ctx.view().state(), q);
                if (r.isPresent()) {
                    ctx.meters().idempotentReplays.increment();
                    return CompletableFuture.completedFuture(r.get());
                }
            } catch (IdempotencyMismatchException e) {
                ctx.meters().validationFailures.increment();
                return CompletableFuture.failedFuture(e);
            }
        }
        enqueue(q);
        return q.future();
    }

    /** Runs {@code task} on the committer thread, ordered with the writes queued before it; returns its result. */
    @SuppressWarnings("unchecked")
    public <T> T onCommitter(Callable<T> task) {
        CompletableFuture<Object> f = new CompletableFuture<>();
        enqueue(new Committer.Control((Callable<Object>) task, f));
        return (T) join(f);
    }

    /** Waits for {@code f} (stepping a manual committer meanwhile); a Palisade failure is rethrown as it is. */
    public <T> T join(CompletableFuture<T> f) {
        if (runner == null) {
            while (!f.isDone()) {
                stepCommitter();
            }
        }
        try {
            return f.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CommitStateUnknownException("interrupted while waiting for the receipt", e);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof PalisadeException p) {
                throw p;
            }
            throw new CompletionException(e.getCause());
        }
    }

    // ------------------------------------------------------------------ compound operations on the committer

    /** A bulk load (docs/bulk-load.md), run on the committer as one intent, once the table's writes are folded. */
    public Receipt load(String branch, String table, ArrowReader reader, LoadMode mode, int batchRows) {
        return onCommitter(() -> {
            if (ctx.view().state().branchLive(branch) && ctx.view().catalog().table(table).isPresent()) {
                committer.folder().fold(branch, table);
                if (ctx.view().state().foldMark(branch, table).unfolded() > 0) {
                    throw new io.palisade.fencing.WriteConflictException("table '" + table + "' on graph branch '"
                            + branch + "' has acknowledged writes its fold did not commit yet; the load would commit "
                            + "under them; retry");
                }
            }
            return BulkLoader.load(ctx, committer, branch, table, reader, mode, batchRows);
        });
    }

    /** Refuses (retryable) when graph branch {@code branch} still has unfolded writes after its fold. */
    private void requireFolded(String branch, String why) {
        if (ctx.view().state().branchLive(branch) && !ctx.view().state().unfoldedTables(branch).isEmpty()) {
            throw new io.palisade.fencing.WriteConflictException("graph branch '" + branch + "' has acknowledged writes "
                    + "its fold did not commit yet (" + String.join(", ", ctx.view().state().unfoldedTables(branch)
                    .keySet()) + "), and " + why + "; retry");
        }
    }

    /** Creates a graph branch from {@code from}, once {@code from}'s journal-ack tables are folded. */
    public void createBranch(String name, String from) {
        GraphBranches.checkName(name);
        onCommitter(() -> {
            committer.folder().foldBranch(from); // a branch starts from its parent's folded tables (docs/journal-ack.md)
            requireFolded(from, "a graph branch is created from it");
            GraphBranches.create(ctx, name, from);
            return null;
        });
    }

    public void deleteBranch(String name) {
        GraphBranches.checkDeletable(name);
        onCommitter(() -> {
            GraphBranches.delete(ctx, name);
            return null;
        });
    }

    /** Merges {@code source} into {@code target} on the committer, once both sides' journal-ack tables are folded. */
    public MergeResult merge(String source, String target) {
        return onCommitter(() -> {
            committer.folder().foldBranch(source); // a merge reads both sides' folded tables
            committer.folder().foldBranch(target);
            requireFolded(source, "a merge reads its folded tables");
            requireFolded(target, "a merge writes its folded tables");
            return Merges.merge(ctx, committer, source, target);
        });
    }

    /** Waits until no fold is in flight (a control task on the committer, which waits for it like every one). */
    public void awaitFold() {
        onCommitter(() -> null);
    }

    // ------------------------------------------------------------------ test and simulation hooks

    /**
     * Runs {@code hook} on the fold thread just before the Lance commit of a fold or of a journal-ack table's
     * maintenance (tests hold one there); null clears.
     */
    public void beforeFoldCommit(Runnable hook) {
        committer.folder().beforeLanceCommit = hook;
    }

    /** Replaces the clock the fold bounds use (tests: age the unfolded writes without waiting). */
    public void clock(LongSupplier clockMillis) {
        ctx.view().clock(clockMillis);
    }

    /**
     * Simulation mode only: runs one committer duty cycle on the calling thread (everything queued so far), returns
     * its work count. Whatever a crash point throws propagates to the caller.
     */
    public int stepCommitter() {
        if (runner != null) {
            throw new IllegalStateException("the committer of " + ctx.layout().root() + " runs on its own thread");
        }
        return committer.doWork();
    }

    /**
     * Simulation mode only: what a process death leaves. Nothing more is journaled (no checkpoint, no completion,
     * queued writes are neither run nor failed); the journal's queue is closed and the writer lease released, as the OS
     * does for a dead process; the table store is not closed (it stands for files that outlive the process).
     * Idempotent, and a no-op after {@link #close()}.
     */
    public void abandon() {
        if (runner != null) {
            throw new IllegalStateException("only a graph with a manual committer can be abandoned");
        }
        if (closed) {
            return;
        }
        closed = true;
        ctx.meters().close();
        try {
            ctx.journal().close();
        } finally {
            ctx.allocator().close();
        }
    }

    /** The limit of the committer's next park until woken (asked on its thread, once the committer runs). */
    private long idleParkNanos() {
        return committer.folder().quiet() ? IDLE_QUIET_PARK_NANOS : IDLE_PARK_NANOS;
    }

    /** The parks the committer's thread has begun while idle (0 with a manual committer); tests, diagnostics. */
    public long committerParks() {
        return idle == null ? 0 : idle.parks();
    }

    /** Waits (bounded) for the committer to drain; for tests. */
    public boolean awaitIdle(long timeout, TimeUnit unit) {
        long deadline = System.nanoTime() + unit.toNanos(timeout);
        while (!queue.isEmpty() && System.nanoTime() < deadline) {
            LockSupport.parkNanos(100_000);
        }
        return queue.isEmpty();
    }

    private void onCommitterError(Throwable t) {
        LoggerFactory.getLogger(Engine.class).error("committer error", t);
    }

    /**
     * Stops the committer, folds what it can (best effort: what stays unfolded is still in the journal), fails what is
     * still queued, checkpoints, and releases the journal, the table store and the allocator. Idempotent.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        ctx.meters().close();
        if (runner != null) {
            idle.stop();
            runner.close();
        }
        try {
            try {
                committer.folder().foldAll();
            } catch (RuntimeException e) {
                LoggerFactory.getLogger(Engine.class).warn("folding at close failed; the writes stay in the journal: {}",
                        e.toString());
            }
            // an Error out of the fold (a simulated crash, an OOM) still releases the journal below
            committer.failPending(new GraphClosedException("graph " + ctx.layout().root() + " was closed"));
            ctx.view().checkpointIfBehind();
        } finally {
            try {
                committer.folder().close();
                committer.maintenance().close();
                ctx.view().closeRelease();
                ctx.journal().close();
            } finally {
                ctx.store().close();
                ctx.allocator().close();
            }
        }
    }
}
