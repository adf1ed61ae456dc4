package io.palisade.coordinator;

import io.palisade.fencing.GraphRefusedException;
import io.palisade.fencing.KeyFilter;
import io.palisade.fencing.PalisadeException;
import io.palisade.fencing.ValidationException;
import io.palisade.heads.Checkpoints;
import io.palisade.heads.HeadsReplayer;
import io.palisade.heads.HeadsState;
import io.palisade.heads.Pin;
import io.palisade.journal.Journal;
import io.palisade.journal.JournalEvent;
import io.palisade.journal.JournalEvent.CheckpointWritten;
import io.palisade.journal.JournalEvent.GraphBranchCreated;
import io.palisade.journal.JournalEvent.GraphBranchDeleted;
import io.palisade.journal.JournalRecord;
import io.palisade.journal.TableHead;
import io.palisade.substrate.TableRef;
import io.palisade.substrate.TableSnapshot;
import io.palisade.substrate.TableStore;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.ManyToOneConcurrentArrayQueue;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * An open graph: the embedded coordinator of one writer process (DESIGN §3). Thread-safe: any number
 * of threads may write concurrently; their operations are queued to the graph's single committer,
 * which groups compatible ones into one substrate commit and one journal sync.
 *
 * <p>Every write returns its {@link Receipt} only once its completion is durable in the journal. A
 * write's {@link VectorSchemaRoot} must stay open until its receipt (or failure) arrives; the graph
 * never closes or retains it.
 */
public final class Graph implements AutoCloseable {
    private static final int QUEUE_CAPACITY = 1 << 14;

    private final GraphLayout layout;
    private volatile Catalog catalog;
    private final Options options;
    private final Journal journal;
    private final TableStore store;
    private final BufferAllocator allocator;
    private final Checkpoints checkpoints;
    private final Metrics metrics = new Metrics();
    private final ManyToOneConcurrentArrayQueue<Object> queue = new ManyToOneConcurrentArrayQueue<>(QUEUE_CAPACITY);
    private final Committer committer;
    private final AgentRunner runner;
    private volatile HeadsState state;
    /**
     * The acknowledged-but-unfolded writes of journal-ack tables. {@link #view} guards it together with {@link #state}:
     * the committer changes both in one step ({@link #append}) and readers take both in one step, so a read merges a
     * tail and a head of the same journal position.
     */
    private final UnfoldedWrites unfolded;
    private final Object view = new Object();
    private volatile boolean closed;
    private long recordsSinceCheckpoint;
    private final boolean steppedCommitter;

    /**
     * @param manualCommitter no committer thread: the caller steps the committer ({@link #stepCommitter()})
     *                        and blocking calls step it until their own result is ready (the deterministic
     *                        simulation's mode, see {@link Palisade.Wiring})
     */
    Graph(GraphLayout layout, Catalog catalog, Options options, Journal journal, TableStore store,
          BufferAllocator allocator, HeadsState state, boolean manualCommitter) {
        this.layout = layout;
        this.catalog = catalog;
        this.options = options;
        this.journal = journal;
        this.store = store;
        this.allocator = allocator;
        this.state = state;
        this.steppedCommitter = manualCommitter;
        this.checkpoints = Checkpoints.of(layout.palisade());
        this.unfolded = rebuildUnfolded(layout.palisade(), catalog, state, state.lastSequence());
        this.committer = new Committer(this, queue);
        if (manualCommitter) {
            this.runner = null;
        } else {
            this.runner = new AgentRunner(new BackoffIdleStrategy(64, 64, 1_000, 100_000), this::onCommitterError, null,
                    committer);
            AgentRunner.startOnThread(runner);
        }
    }

    // ------------------------------------------------------------------ writes

    /** Strict insert: every key must be new (at the base and among concurrent writes), else {@link io.palisade.fencing.KeyConflictException}. */
    public Receipt insert(String branch, String table, VectorSchemaRoot rows) {
        return join(insertAsync(branch, table, rows, WriteOptions.NONE));
    }

    public Receipt insert(String branch, String table, VectorSchemaRoot rows, WriteOptions options) {
        return join(insertAsync(branch, table, rows, options));
    }

    public CompletableFuture<Receipt> insertAsync(String branch, String table, VectorSchemaRoot rows, WriteOptions options) {
        return submit(keyed(WriteOp.Kind.INSERT, branch, table, rows, options));
    }

    /** Insert or replace by key. */
    public Receipt upsert(String branch, String table, VectorSchemaRoot rows) {
        return join(upsertAsync(branch, table, rows, WriteOptions.NONE));
    }

    public Receipt upsert(String branch, String table, VectorSchemaRoot rows, WriteOptions options) {
        return join(upsertAsync(branch, table, rows, options));
    }

    public CompletableFuture<Receipt> upsertAsync(String branch, String table, VectorSchemaRoot rows, WriteOptions options) {
        return submit(keyed(WriteOp.Kind.UPSERT, branch, table, rows, options));
    }

    /**
     * Bulk load (issue 9, docs/bulk-load.md): streams {@code reader} into {@code table} on {@code branch}
     * as ONE intent that commits successive fenced merge-inserts of at most {@code batchRows} rows each
     * (WhenMatched Fail for {@link LoadMode#APPEND}, UpdateAll for {@link LoadMode#MERGE}), journals its
     * progress after every batch and publishes the graph head once at the end: readers of the graph see
     * all of the load or none of it. Memory is bounded by the batch, not by the load or the table.
     *
     * <p>A strict load whose keys are already present, or that carries a key twice (in one batch or
     * across batches), fails with {@link io.palisade.fencing.KeyConflictException} naming keys; the
     * batches already committed are rolled back (restored) before the failure is returned. The load runs
     * on the committer: other writes to the graph wait for it. The caller keeps ownership of
     * {@code reader} (it is read to its end, or to the failure, but not closed).
     */
    public Receipt load(String branch, String table, ArrowReader reader, LoadMode mode, int batchRows) {
        java.util.Objects.requireNonNull(reader, "reader");
        java.util.Objects.requireNonNull(mode, "mode");
        return onCommitter(() -> BulkLoader.load(this, branch, table, reader, mode, batchRows));
    }

    /** Deletes the rows with these keys (absent keys are ignored). */
    public Receipt delete(String branch, String table, List<String> keys) {
        return join(deleteAsync(branch, table, keys, WriteOptions.NONE));
    }

    public CompletableFuture<Receipt> deleteAsync(String branch, String table, List<String> keys, WriteOptions options) {
        Catalog.TableDef def = catalog.require(table);
        if (!def.kind().keyed()) {
            throw new ValidationException("table '" + table + "' is append-only: delete by key needs a keyed table");
        }
        KeyFilter filter = keyFilter(def, keys);
        if (filter.isEmpty()) {
            throw new ValidationException("delete needs at least one key");
        }
        return submit(new WriteOp(WriteOp.Kind.DELETE, branch, table, null, filter, options.idempotencyKey(),
                baseVersion(branch, table)));
    }

    /** The exact key filter of {@code keys} over {@code def}'s {@code id} (parsed as int64 where {@code id} is one). */
    static KeyFilter keyFilter(Catalog.TableDef def, List<String> keys) {
        if (def.column("id").orElseThrow().type() == Catalog.ColumnType.Scalar.INT64) {
            long[] ks = new long[keys.size()];
            for (int i = 0; i < ks.length; i++) {
                try {
                    ks[i] = Long.parseLong(keys.get(i));
                } catch (NumberFormatException | NullPointerException e) {
                    throw new ValidationException("key '" + keys.get(i) + "' is not an int64 id of table '" + def.name() + "'");
                }
            }
            return KeyFilter.ofLongs(def.idFieldId(), ks);
        }
        return KeyFilter.ofStrings(def.idFieldId(), keys);
    }

    // ------------------------------------------------------------------ rows without Arrow (Row)

    /** Strict insert of {@code rows} (see {@link Row}); as {@link #insert(String, String, VectorSchemaRoot)}. */
    public Receipt insert(String branch, String table, List<Row> rows) {
        return insert(branch, table, rows, WriteOptions.NONE);
    }

    /** Strict insert of {@code rows} with write options (an idempotency key). */
    public Receipt insert(String branch, String table, List<Row> rows, WriteOptions options) {
        try (VectorSchemaRoot root = batch(table, rows)) {
            return insert(branch, table, root, options);
        }
    }

    /** Upsert of {@code rows} (see {@link Row}); as {@link #upsert(String, String, VectorSchemaRoot)}. */
    public Receipt upsert(String branch, String table, List<Row> rows) {
        return upsert(branch, table, rows, WriteOptions.NONE);
    }

    /** Upsert of {@code rows} with write options (an idempotency key). */
    public Receipt upsert(String branch, String table, List<Row> rows, WriteOptions options) {
        try (VectorSchemaRoot root = batch(table, rows)) {
            return upsert(branch, table, root, options);
        }
    }

    /** Appends {@code rows} to an append-only table (see {@link Row}). */
    public Receipt appendRows(String branch, String table, List<Row> rows) {
        try (VectorSchemaRoot root = batch(table, rows)) {
            return append(branch, table, root);
        }
    }

    /** Every row of {@code table} at its published head on {@code branch}, as {@link Row}s. */
    public List<Row> rows(String branch, String table) {
        return scan(branch, table).stream().map(Row::of).toList();
    }

    /**
     * The rows of a keyed table with the given ids at its published head on {@code branch}, by id; an id with no
     * row is absent from the map. A lookup through the table's {@code id} predicate, not a scan of the table.
     */
    public Map<String, Row> get(String branch, String table, java.util.Collection<String> keys) {
        Catalog.TableDef def = catalog.require(table);
        if (!def.kind().keyed()) {
            throw new ValidationException("table '" + table + "' is append-only: get by key needs a keyed table");
        }
        HeadsState s;
        Map<String, UnfoldedWrites.Entry> tail;
        synchronized (view) {
            s = state;
            tail = unfolded.newest(branch, table);
        }
        TableHead head = s.head(branch, table).orElseThrow(
                () -> new ValidationException("table '" + table + "' has no head on branch '" + branch + "'"));
        Map<String, Row> out = new java.util.LinkedHashMap<>();
        if (keys.isEmpty()) {
            return out;
        }
        List<String> fromTable = new ArrayList<>();
        for (String k : new java.util.LinkedHashSet<>(keys)) {
            Optional<UnfoldedWrites.Answer> a = UnfoldedWrites.answer(tail, k, allocator);
            if (a.isEmpty()) {
                fromTable.add(k);
            } else if (a.get() instanceof UnfoldedWrites.Answer.Present p) {
                out.put(k, Row.of(p.row()));
            }
        }
        if (fromTable.isEmpty()) {
            return out;
        }
        try (TableSnapshot t = store.openKeyed(table, new TableRef(head.tableBranch(), head.version()))) {
            for (Map<String, Object> r : t.rowsWithKeys(keyFilter(def, fromTable))) {
                Row row = Row.of(r);
                out.put(String.valueOf(r.get("id")), row);
            }
        }
        return out;
    }

    /**
     * An Arrow batch of {@code rows} in {@code table}'s catalog schema; a column the table does not have is a
     * {@link ValidationException} (never silently dropped).
     */
    private VectorSchemaRoot batch(String table, List<Row> rows) {
        Catalog.TableDef def = catalog.require(table);
        java.util.Set<String> columns = new java.util.HashSet<>();
        def.columns().forEach(c -> columns.add(c.name()));
        List<Map<String, Object>> maps = new ArrayList<>(rows.size());
        for (int i = 0; i < rows.size(); i++) {
            Row r = rows.get(i);
            for (String c : r.asMap().keySet()) {
                if (!columns.contains(c)) {
                    throw new ValidationException("row " + (i + 1) + ": table '" + table + "' has no column '" + c
                            + "' (columns: " + String.join(", ", def.columns().stream().map(Catalog.ColumnDef::name).toList()) + ")");
                }
            }
            maps.add(r.asMap());
        }
        VectorSchemaRoot root = VectorSchemaRoot.create(def.arrowSchema(), allocator);
        try {
            io.palisade.substrate.ArrowRows.fill(root, maps);
            return root;
        } catch (RuntimeException e) {
            root.close();
            throw e;
        }
    }

    /** Appends rows to an append-only (keyless) table. */
    public Receipt append(String branch, String table, VectorSchemaRoot rows) {
        if (catalog.require(table).kind().keyed()) {
            throw new ValidationException("table '" + table + "' is keyed on 'id': a bare append cannot be expressed; "
                    + "use insert (strict) or upsert");
        }
        return join(submit(new WriteOp(WriteOp.Kind.APPEND, branch, table, rows, null, Optional.empty(),
                baseVersion(branch, table))));
    }

    /** Replaces every row of {@code table} on {@code branch}; a keyed table keeps its exact primary key. */
    public Receipt overwrite(String branch, String table, VectorSchemaRoot rows) {
        catalog.require(table);
        if (rows == null) {
            throw new ValidationException("an overwrite needs a batch (it may be empty)");
        }
        return join(submit(new WriteOp(WriteOp.Kind.OVERWRITE, branch, table, rows, null, Optional.empty(),
                baseVersion(branch, table))));
    }

    /**
     * Adds nullable columns to {@code table} (on main; existing rows read null). The primary key is
     * untouched; the catalog is updated once the substrate commit is done (and reconciled at open if a
     * crash fell in between).
     */
    public Receipt addColumns(String table, List<Catalog.ColumnDef> columns) {
        Catalog.TableDef def = catalog.require(table);
        if (columns.isEmpty()) {
            throw new ValidationException("add columns needs at least one column");
        }
        for (Catalog.ColumnDef c : columns) {
            if (def.column(c.name()).isPresent()) {
                throw new ValidationException("table '" + table + "' already has a column '" + c.name() + "'");
            }
            if (!c.nullable()) {
                throw new ValidationException("column '" + c.name() + "' must be nullable: existing rows read null");
            }
        }
        WriteOp op = new WriteOp(WriteOp.Kind.ADD_COLUMNS, HeadsState.MAIN, table, null, null, Optional.empty(),
                baseVersion(HeadsState.MAIN, table));
        op.newColumns = List.copyOf(columns);
        return join(submit(op));
    }

    /**
     * Brings the BTREE index on {@code id} of a keyed table up to date (creating it if absent), as a
     * journaled maintenance operation: the committer plans it on the head (AddIndex when absent,
     * RewriteIndex with the coverage it will have when present), journals and judges the plan like any
     * write, commits it exactly and verifies the committed version against it (docs/coordinator.md
     * "Maintenance"). An index that already covers every fragment commits nothing: the receipt's version
     * is then the head's and the intent's completion says "no-op".
     */
    public Receipt optimizeIndex(String branch, String table) {
        if (!catalog.require(table).kind().keyed()) {
            throw new ValidationException("table '" + table + "' is append-only and has no key index");
        }
        return join(submit(new WriteOp(WriteOp.Kind.OPTIMIZE_INDEX, branch, table, null, null, Optional.empty(),
                baseVersion(branch, table))));
    }

    /**
     * Compacts a table's small fragments (rows unchanged; indices remapped by the substrate) as a
     * journaled maintenance operation planned before its intent: the intent carries the fragment groups
     * it rewrites (RewriteFragments, and RebindIndexCoverage for an indexed table). Nothing to compact
     * commits nothing (receipt at the head's version, completion "no-op").
     */
    public Receipt compact(String branch, String table) {
        return join(compactAsync(branch, table));
    }

    /** {@link #compact} without waiting; the op's base is the head this call sees. */
    public CompletableFuture<Receipt> compactAsync(String branch, String table) {
        catalog.require(table);
        return submit(new WriteOp(WriteOp.Kind.COMPACT, branch, table, null, null, Optional.empty(),
                baseVersion(branch, table)));
    }

    /** Adds columns to the catalog and writes it durably (committer thread only). */
    void addToCatalog(String table, List<Catalog.ColumnDef> columns) {
        List<Catalog.TableDef> tables = new ArrayList<>();
        for (Catalog.TableDef t : catalog.tables()) {
            if (t.name().equals(table)) {
                List<Catalog.ColumnDef> cols = new ArrayList<>(t.columns());
                cols.addAll(columns);
                tables.add(new Catalog.TableDef(t.name(), t.kind(), cols, t.ack()));
            } else {
                tables.add(t);
            }
        }
        Catalog next = new Catalog(tables);
        layout.writeCatalog(next);
        catalog = next;
    }

    private WriteOp keyed(WriteOp.Kind kind, String branch, String table, VectorSchemaRoot rows, WriteOptions options) {
        if (!catalog.require(table).kind().keyed()) {
            throw new ValidationException("table '" + table + "' is append-only and has no key: use append");
        }
        if (rows == null || rows.getRowCount() == 0) {
            throw new ValidationException("a write to '" + table + "' needs at least one row");
        }
        return new WriteOp(kind, branch, table, rows, null, options.idempotencyKey(), baseVersion(branch, table));
    }

    private long baseVersion(String branch, String table) {
        return state.head(branch, table).map(TableHead::version).orElse(-1L);
    }

    private CompletableFuture<Receipt> submit(WriteOp op) {
        if (op.idempotencyKey.isPresent()) {
            Optional<io.palisade.heads.Receipt> r = state.receipt(op.idempotencyKey.get());
            if (r.isPresent()) {
                metrics.idempotentReplays.increment();
                return CompletableFuture.completedFuture(receipt(r.get(), state));
            }
        }
        enqueue(op);
        return op.future;
    }

    private void enqueue(Object item) {
        long park = 1_000;
        while (!queue.offer(item)) {
            if (closed) {
                throw new GraphRefusedException("graph " + layout.root() + " is closed");
            }
            LockSupport.parkNanos(park);
            park = Math.min(park * 2, 1_000_000);
        }
        if (closed) {
            committer.failPending(new GraphRefusedException("graph " + layout.root() + " is closed"));
        }
    }

    /** Refuses further writes to {@code table} on {@code branch} until reopen (committer thread only). */
    void poison(String branch, String table) {
        committer.poison(branch, table);
    }

    boolean poisoned(String branch, String table) {
        return committer.poisoned(branch, table);
    }

    /** Nullable: why the table is refused after a write raced a foreign commit this session (committer thread only). */
    io.palisade.fencing.ForeignCommitException foreignRefusal(String branch, String table) {
        return committer.refusal(branch, table);
    }

    /** Refuses the table for the session after a bulk load raced a foreign commit (committer thread only). */
    void refuseForeign(String branch, String table, io.palisade.fencing.ForeignCommitException refusal) {
        committer.refuse(branch, table, refusal);
    }

    /**
     * Remembers a commit published outside the write pipeline (a bulk load: versions {@code (from, to]})
     * as a winner for later conflict checks (committer thread only).
     */
    void rememberCommit(String branch, String table, TableRef from, TableRef to, String intentId) {
        committer.rememberCommit(branch, table, catalog.require(table).kind().keyed(), from, to, intentId);
    }

    /** Runs {@code task} on the committer thread, ordered with the writes queued before it. */
    @SuppressWarnings("unchecked")
    <T> T onCommitter(java.util.concurrent.Callable<T> task) {
        CompletableFuture<Object> f = new CompletableFuture<>();
        enqueue(new Committer.Control((java.util.concurrent.Callable<Object>) task, f));
        return (T) join(f);
    }

    private <T> T join(CompletableFuture<T> f) {
        if (runner == null) {
            while (!f.isDone()) {
                stepCommitter();
            }
        }
        try {
            return f.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new io.palisade.fencing.CommitStateUnknownException("interrupted while waiting for the receipt", e);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof PalisadeException p) {
                throw p;
            }
            throw new CompletionException(e.getCause());
        }
    }

    // ------------------------------------------------------------------ branches

    /** Creates a graph branch from {@code from} (lazy: it pins {@code from}'s table states; forks on first write). */
    public void createBranch(String name, String from) {
        checkBranchName(name);
        onCommitter(() -> {
            committer.folder().foldBranch(from); // a branch starts from its parent's folded tables (docs/journal-ack.md)
            HeadsState s = state;
            if (s.branchLive(name)) {
                throw new ValidationException("graph branch '" + name + "' already exists");
            }
            if (!s.branchLive(from)) {
                throw new ValidationException("unknown graph branch '" + from + "'");
            }
            append(List.of(new GraphBranchCreated(name, from, s.lastSequence())));
            return null;
        });
    }

    public void deleteBranch(String name) {
        if (HeadsState.MAIN.equals(name)) {
            throw new ValidationException("the main branch cannot be deleted");
        }
        onCommitter(() -> {
            if (!state.branchLive(name)) {
                throw new ValidationException("unknown graph branch '" + name + "'");
            }
            append(List.of(new GraphBranchDeleted(name)));
            return null;
        });
    }

    public List<String> branches() {
        return new ArrayList<>(state.branches().keySet());
    }

    /** The published heads of a branch: table → head. */
    public SortedMap<String, Pin> heads(String branch) {
        if (!state.branchLive(branch)) {
            throw new ValidationException("unknown graph branch '" + branch + "'");
        }
        return state.pins(branch);
    }

    /**
     * Merges {@code source} into {@code target} (RFC-023 §5's fast-forward row). The keys each side
     * changed since the fork come from the journal: the key filters of the intents applied on that side
     * after the source branch was created. A key changed on both sides is a
     * {@link io.palisade.fencing.MergeConflictException} naming the keys, and nothing is merged.
     * Otherwise, per table, rows inserted on the source go in with WhenMatched Fail, updated rows as
     * upserts, and keys deleted on the source are deleted on the target. The merge runs on the committer,
     * so no write interleaves with it; each table's part is its own journaled intent.
     */
    public MergeResult merge(String source, String target) {
        return onCommitter(() -> {
            committer.folder().foldBranch(source); // a merge reads both sides' folded tables
            committer.folder().foldBranch(target);
            return Merges.merge(this, committer, source, target);
        });
    }

    private static void checkBranchName(String name) {
        if (name == null || !name.matches("[A-Za-z0-9][A-Za-z0-9_-]{0,63}")) {
            throw new ValidationException("graph branch name '" + name + "' must match [A-Za-z0-9][A-Za-z0-9_-]*");
        }
    }

    /** The Lance table branch a graph branch writes to once it owns a table. */
    String tableBranchFor(String graphBranch) {
        return HeadsState.MAIN.equals(graphBranch) ? TableRef.MAIN : "g-" + graphBranch;
    }

    /** Forks {@code tableBranch} from {@code from}, or reuses it if an interrupted earlier attempt left it there. */
    TableRef forkForBranch(String table, TableRef from, String tableBranch) {
        if (store.listBranches(table).contains(tableBranch)) {
            TableRef existing = store.latest(table, tableBranch);
            if (existing.version() == from.version() + 1
                    && store.decompose(table, existing).kind() == io.palisade.substrate.OperationKind.CREATE_INDEX) {
                // a fork through a branch rebuilds the id index on the new branch (one CreateIndex commit above the
                // fork point, TableStore.forkBranch): the fork of an earlier write that then failed
                return existing;
            }
            if (existing.version() != from.version()) {
                throw new GraphRefusedException("table '" + table + "' already has a branch " + tableBranch + " at version "
                        + existing.version() + ", not at the pinned version " + from.version());
            }
            return existing;
        }
        return store.forkBranch(table, from, tableBranch);
    }

    // ------------------------------------------------------------------ reads

    /** Every row of {@code table} at its published head on {@code branch}. */
    public List<Map<String, Object>> scan(String branch, String table) {
        HeadsState s;
        Map<String, UnfoldedWrites.Entry> tail;
        synchronized (view) {
            s = state;
            tail = unfolded.newest(branch, table);
        }
        TableHead head = s.head(branch, table).orElseThrow(
                () -> new ValidationException("table '" + table + "' has no head on branch '" + branch + "'"));
        return UnfoldedWrites.overlay(scan(table, head), tail, allocator);
    }

    /** Every row of {@code table} on {@code branch} as of journal sequence {@code seq} (unfolded writes included). */
    public List<Map<String, Object>> scanAt(String branch, String table, long seq) {
        HeadsState at = HeadsReplayer.of(layout.palisade()).headsAt(seq);
        TableHead head = at.head(branch, table).orElseThrow(
                () -> new ValidationException("table '" + table + "' had no head on branch '" + branch + "' at sequence " + seq));
        UnfoldedWrites tail = rebuildUnfolded(layout.palisade(), catalog, at, seq);
        return UnfoldedWrites.overlay(scan(table, head), tail.newest(branch, table), allocator);
    }

    /**
     * The unfolded writes as of {@code through}, rebuilt from the journal: every table of {@code at} with unfolded
     * writes names the sequence of its oldest one's intent, and the records from there on are folded in.
     */
    static UnfoldedWrites rebuildUnfolded(java.nio.file.Path palisadeDir, Catalog catalog, HeadsState at, long through) {
        java.util.Set<String> ackTables = new java.util.HashSet<>();
        for (Catalog.TableDef t : catalog.tables()) {
            if (t.journalAck()) {
                ackTables.add(t.name());
            }
        }
        UnfoldedWrites out = new UnfoldedWrites(ackTables);
        long from = Long.MAX_VALUE;
        for (String b : at.branches().keySet()) {
            for (io.palisade.heads.FoldMark m : at.unfoldedTables(b).values()) {
                from = Math.min(from, m.oldestSequence());
            }
        }
        if (from == Long.MAX_VALUE || ackTables.isEmpty()) {
            return out;
        }
        try (io.palisade.journal.JournalReader reader = io.palisade.journal.JournalReader.open(palisadeDir);
             io.palisade.journal.JournalCursor c = reader.read(from)) {
            for (JournalRecord r = c.poll(); r != null && r.sequence() <= through; r = c.poll()) {
                out.apply(r);
            }
        }
        return out;
    }

    /** A table's unfolded writes at a glance (for the fold agent, {@code heads} and metrics). */
    record TailSummary(String branch, String table, int writes, long oldestNanos, long bytes) {
    }

    /** The newest unfolded write of each key of (branch, table): a copy, empty for a table without unfolded writes. */
    Map<String, UnfoldedWrites.Entry> unfoldedNewest(String branch, String table) {
        synchronized (view) {
            return unfolded.newest(branch, table);
        }
    }

    /** The newest unfolded write of each of {@code keys} that has one (the strict-insert fence: no copy of the tail). */
    Map<String, UnfoldedWrites.Entry> unfoldedNewest(String branch, String table, java.util.Collection<String> keys) {
        synchronized (view) {
            return unfolded.newest(branch, table, keys);
        }
    }

    /** Every table with unfolded writes. */
    List<TailSummary> unfoldedSummary() {
        List<TailSummary> out = new ArrayList<>();
        synchronized (view) {
            for (String b : state.branches().keySet()) {
                for (Catalog.TableDef t : catalog.tables()) {
                    unfolded.of(b, t.name()).ifPresent(tail -> out.add(new TailSummary(b, t.name(), tail.entries.size(),
                            tail.oldestNanos(), tail.bytes)));
                }
            }
        }
        return out;
    }

    /**
     * The wall clock (epoch milliseconds) the fold bounds compare journal times with ({@link Options#foldLagMillis()},
     * {@link Options#maxFoldLagMillis()}). Tests only may replace it (to age the unfolded writes without waiting).
     */
    volatile java.util.function.LongSupplier clockMillis = System::currentTimeMillis;

    /**
     * The fold lag of (branch, table) in milliseconds: now minus the journal time of its oldest unfolded write (as
     * {@code heads} computes {@code fold_lag_ms}), at least 0; -1 when the table has no unfolded write.
     */
    long foldLagMillis(String branch, String table) {
        long oldest;
        synchronized (view) {
            oldest = unfolded.of(branch, table).map(UnfoldedWrites.Tail::oldestNanos).orElse(-1L);
        }
        return oldest < 0 ? -1 : Math.max(0, clockMillis.getAsLong() - oldest / 1_000_000L);
    }

    /** Payload bytes of every unfolded write (the memory bound's measure). */
    long unfoldedBytes() {
        synchronized (view) {
            return unfolded.bytes();
        }
    }

    /** Every row of {@code table} at an exact head (for merges and tools). */
    List<Map<String, Object>> scan(String branch, String table, TableHead head) {
        return scan(table, head);
    }

    private List<Map<String, Object>> scan(String table, TableHead head) {
        TableRef ref = new TableRef(head.tableBranch(), head.version());
        try (TableSnapshot t = catalog.require(table).kind().keyed() ? store.openKeyed(table, ref) : store.openKeyless(table, ref)) {
            return t.scan();
        }
    }

    public Catalog catalog() {
        return catalog;
    }

    public Metrics metrics() {
        return metrics;
    }

    /** The current published state (heads, branches, intents). */
    public HeadsState state() {
        return state;
    }

    public java.nio.file.Path path() {
        return layout.root();
    }

    // ------------------------------------------------------------------ committer support

    Journal journal() {
        return journal;
    }

    GraphLayout layout() {
        return layout;
    }

    Options options() {
        return options;
    }

    /** Whether the committer is stepped by the caller (the deterministic simulation): then folds run inline. */
    boolean steppedCommitter() {
        return steppedCommitter;
    }

    /**
     * Waits until no fold is in flight: the fold whose Lance commit runs off the committer thread, if any, is
     * published (a control task on the committer, which waits for it like every control task). For tests and the
     * benchmark harness; a fold it does not start.
     */
    public void awaitFold() {
        onCommitter(() -> null);
    }

    /** The fold agent (tests hold a fold's Lance commit through {@link Folder#beforeLanceCommit}). */
    Folder folder() {
        return committer.folder();
    }

    TableStore store() {
        return store;
    }

    BufferAllocator allocator() {
        return allocator;
    }

    /** Appends durably (one sync) and folds the records into the published state; returns the first sequence. */
    long append(List<JournalEvent> events) {
        long first = journal.appendBatch(events, options.durability());
        long now = System.currentTimeMillis() * 1_000_000L;
        synchronized (view) {
            HeadsState s = state;
            for (int i = 0; i < events.size(); i++) {
                JournalRecord r = new JournalRecord(first + i, now, journal.epoch(), events.get(i));
                s = s.apply(r);
                unfolded.apply(r);
            }
            state = s;
        }
        recordsSinceCheckpoint += events.size();
        if (recordsSinceCheckpoint >= options.checkpointEvery()) {
            checkpoint();
        }
        return first;
    }

    private void checkpoint() {
        Checkpoints.Written w = checkpoints.write(state);
        recordsSinceCheckpoint = 0;
        long seq = journal.appendBatch(List.of(new CheckpointWritten(w.sequence(), w.file().getFileName().toString(),
                w.headsDigest())), options.durability());
        state = state.apply(new JournalRecord(seq, System.currentTimeMillis() * 1_000_000L, journal.epoch(),
                new CheckpointWritten(w.sequence(), w.file().getFileName().toString(), w.headsDigest())));
    }

    /** Validates an op's rows against the table's declared schema; returns its exact key filter (null for keyless). */
    KeyFilter validate(Catalog.TableDef def, WriteOp op) {
        if (op.kind == WriteOp.Kind.DELETE) {
            return op.deleteKeys;
        }
        if (op.kind == WriteOp.Kind.FOLD) {
            return op.keys; // every row was validated when its write was acknowledged
        }
        if (op.kind == WriteOp.Kind.ADD_COLUMNS || op.kind == WriteOp.Kind.OPTIMIZE_INDEX || op.kind == WriteOp.Kind.COMPACT) {
            return null;
        }
        Schema declared = def.arrowSchema();
        VectorSchemaRoot rows = op.rows;
        for (Field f : rows.getSchema().getFields()) {
            Field d = declared.getFields().stream().filter(x -> x.getName().equals(f.getName())).findFirst()
                    .orElseThrow(() -> new ValidationException("table '" + def.name() + "' has no column '" + f.getName()
                            + "'; its columns are " + declared.getFields().stream().map(Field::getName).toList()));
            if (!d.getType().equals(f.getType())) {
                throw new ValidationException("column '" + f.getName() + "' of table '" + def.name() + "' is "
                        + d.getType() + ", the batch has " + f.getType());
            }
        }
        for (Field d : declared.getFields()) {
            FieldVector v = rows.getVector(d.getName());
            if (v == null) {
                throw new ValidationException("column '" + d.getName() + "' of table '" + def.name()
                        + "' is missing from the batch" + (d.getName().equals("id") ? " (it is the key)" : ""));
            }
            if (!d.isNullable() && !d.getName().equals("id") && v.getNullCount() > 0) {
                for (int r = 0; r < rows.getRowCount(); r++) {
                    if (v.isNull(r)) {
                        throw new ValidationException("column '" + d.getName() + "' of table '" + def.name()
                                + "' is non-null but row " + r + " is null");
                    }
                }
            }
        }
        if (!def.kind().keyed()) {
            return null;
        }
        return KeyFilter.fromBatch(rows, "id", def.idFieldId(), KeyFilter.Duplicates.REJECT);
    }

    static Receipt receipt(io.palisade.heads.Receipt r, HeadsState s) {
        return new Receipt(r.intentId(), r.completionSequence(), r.table(), r.graphBranch(), r.version(), r.rows(),
                r.outcome() != io.palisade.journal.IntentOutcome.JOURNALED
                        || s.foldMark(r.graphBranch(), r.table()).foldedThrough() >= r.completionSequence());
    }

    private void onCommitterError(Throwable t) {
        org.slf4j.LoggerFactory.getLogger(Graph.class).error("committer error", t);
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (runner != null) {
            runner.close();
        }
        try {
            try {
                committer.folder().foldAll(); // best effort: what stays unfolded is still in the journal
            } catch (RuntimeException e) {
                org.slf4j.LoggerFactory.getLogger(Graph.class).warn("folding at close failed; the writes stay in the journal: {}",
                        e.toString());
            }
            // an Error out of the fold (a simulated crash, an OOM) still releases the journal below
            committer.failPending(new GraphRefusedException("graph " + layout.root() + " was closed"));
            if (recordsSinceCheckpoint > 0 && !journal.fenced()) { // a fenced writer leaves the graph to the new one
                checkpoint();
            }
        } finally {
            try {
                committer.folder().close();
                journal.close();
            } finally {
                store.close();
                allocator.close();
            }
        }
    }

    // ------------------------------------------------------------------ recovery (issue 6)

    private volatile io.palisade.recovery.RecoveryReport recoveryReport;

    /** What recovery found and did when this graph was opened ({@link io.palisade.recovery.RecoveryReport#toJson()}). */
    public io.palisade.recovery.RecoveryReport recoveryReport() {
        return recoveryReport;
    }

    void recoveryReport(io.palisade.recovery.RecoveryReport report) {
        this.recoveryReport = report;
    }

    /**
     * Simulation mode only ({@link Palisade.Wiring#manualCommitter()}): runs one committer duty cycle on
     * the calling thread (everything queued so far), returns its work count. Whatever a crash point
     * throws propagates to the caller.
     */
    int stepCommitter() {
        if (runner != null) {
            throw new IllegalStateException("the committer of " + layout.root() + " runs on its own thread");
        }
        return committer.doWork();
    }

    /**
     * Simulation mode only: what a process death leaves. Nothing more is journaled (no checkpoint, no
     * completion, queued writes are neither run nor failed); the journal's queue is closed and the writer
     * lease released, as the OS does for a dead process; the table store is not closed (it stands for
     * files that outlive the process). Idempotent, and a no-op after {@link #close()}.
     */
    void abandon() {
        if (runner != null) {
            throw new IllegalStateException("only a graph with a manual committer can be abandoned");
        }
        if (closed) {
            return;
        }
        closed = true;
        try {
            journal.close();
        } finally {
            allocator.close();
        }
    }

    /** Waits (bounded) for the committer to drain; for tests. */
    boolean awaitIdle(long timeout, TimeUnit unit) {
        long deadline = System.nanoTime() + unit.toNanos(timeout);
        while (!queue.isEmpty() && System.nanoTime() < deadline) {
            LockSupport.parkNanos(100_000);
        }
        return queue.isEmpty();
    }
}
