package io.palisade.coordinator;

import io.palisade.coordinator.internal.BatchValidation;
import io.palisade.coordinator.internal.Engine;
import io.palisade.coordinator.internal.RequestDigest;
import io.palisade.coordinator.internal.WriteOp;
import io.palisade.fencing.KeyFilter;
import io.palisade.fencing.ValidationException;
import io.palisade.heads.HeadsState;
import io.palisade.heads.Pin;
import io.palisade.recovery.RecoveryReport;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.SortedMap;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiFunction;

/**
 * An open graph: the embedded coordinator of one writer process (DESIGN §3). Thread-safe: any number
 * of threads may write concurrently; their operations are queued to the graph's single committer,
 * which groups compatible ones into one substrate commit and one journal sync.
 *
 * <p>Every write returns its {@link Receipt} only once its completion is durable in the journal. A
 * write's {@link VectorSchemaRoot} must stay open until its receipt (or failure) arrives; the graph
 * never closes or retains it.
 *
 * <p>A facade: it checks a call's arguments against the catalog and hands the operation to the graph's engine
 * ({@code io.palisade.coordinator.internal}), which owns the committer, the journal and the tables.
 */
public final class Graph implements AutoCloseable {
    private final Engine engine;
    private final Metrics metrics;
    private final RecoveryReport recoveryReport;

    Graph(Engine engine, RecoveryReport recoveryReport) {
        this.engine = engine;
        this.metrics = new Metrics(engine.context().meters(), engine.context().layout().root());
        this.recoveryReport = recoveryReport;
    }

    // ------------------------------------------------------------------ writes

    /** Strict insert: every key must be new (at the base and among concurrent writes), else {@link io.palisade.fencing.KeyConflictException}. */
    public Receipt insert(String branch, String table, VectorSchemaRoot rows) {
        return engine.join(insertAsync(branch, table, rows, WriteOptions.NONE));
    }

    public Receipt insert(String branch, String table, VectorSchemaRoot rows, WriteOptions options) {
        return engine.join(insertAsync(branch, table, rows, options));
    }

    public CompletableFuture<Receipt> insertAsync(String branch, String table, VectorSchemaRoot rows, WriteOptions options) {
        return engine.submit(keyed(WriteOp.Insert::new, branch, table, rows, options));
    }

    /** Insert or replace by key. */
    public Receipt upsert(String branch, String table, VectorSchemaRoot rows) {
        return engine.join(upsertAsync(branch, table, rows, WriteOptions.NONE));
    }

    public Receipt upsert(String branch, String table, VectorSchemaRoot rows, WriteOptions options) {
        return engine.join(upsertAsync(branch, table, rows, options));
    }

    public CompletableFuture<Receipt> upsertAsync(String branch, String table, VectorSchemaRoot rows, WriteOptions options) {
        return engine.submit(keyed(WriteOp.Upsert::new, branch, table, rows, options));
    }

    /**
     * Bulk load (docs/bulk-load.md): streams {@code reader} into {@code table} on {@code branch}
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
        Objects.requireNonNull(reader, "reader");
        Objects.requireNonNull(mode, "mode");
        return engine.load(branch, table, reader, mode, batchRows);
    }

    /**
     * Deletes the rows with these keys (absent keys are ignored). The receipt counts the rows removed; a delete none
     * of whose keys the table holds commits no table version (receipt at the head's version, completion "no-op").
     */
    public Receipt delete(String branch, String table, List<String> keys) {
        return engine.join(deleteAsync(branch, table, keys, WriteOptions.NONE));
    }

    public CompletableFuture<Receipt> deleteAsync(String branch, String table, List<String> keys, WriteOptions options) {
        Catalog.TableDef def = catalog().require(table);
        if (!def.kind().keyed()) {
            throw new ValidationException("table '" + table + "' is append-only: delete by key needs a keyed table");
        }
        KeyFilter filter = BatchValidation.keyFilter(def, keys);
        if (filter.isEmpty()) {
            throw new ValidationException("delete needs at least one key");
        }
        return engine.submit(digested(new WriteOp.Delete(submission(branch, table, options.idempotencyKey()), filter),
                s -> new WriteOp.Delete(s, filter)));
    }

    /** Appends rows to an append-only (keyless) table. */
    public Receipt append(String branch, String table, VectorSchemaRoot rows) {
        if (catalog().require(table).kind().keyed()) {
            throw new ValidationException("table '" + table + "' is keyed on 'id': a bare append cannot be expressed; "
                    + "use insert (strict) or upsert");
        }
        return engine.join(engine.submit(new WriteOp.Append(submission(branch, table, Optional.empty()), rows)));
    }

    /** Replaces every row of {@code table} on {@code branch}; a keyed table keeps its exact primary key. */
    public Receipt overwrite(String branch, String table, VectorSchemaRoot rows) {
        catalog().require(table);
        if (rows == null) {
            throw new ValidationException("an overwrite needs a batch (it may be empty)");
        }
        return engine.join(engine.submit(new WriteOp.Overwrite(submission(branch, table, Optional.empty()), rows)));
    }

    /**
     * Adds nullable columns to {@code table} (on main; existing rows read null). The primary key is
     * untouched; once the substrate commit is done the new catalog is journaled ({@code CatalogRecorded}) and then
     * written to {@code catalog.json} (a crash in between is reconciled or rewritten at the next open).
     */
    public Receipt addColumns(String table, List<Catalog.ColumnDef> columns) {
        Catalog.TableDef def = catalog().require(table);
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
        return engine.join(engine.submit(new WriteOp.AddColumns(submission(HeadsState.MAIN, table, Optional.empty()),
                columns)));
    }

    /**
     * Brings the BTREE index on {@code id} of a keyed table up to date (creating it if absent), as a
     * journaled maintenance operation: the committer plans it on the head (AddIndex when absent,
     * RewriteIndex with the coverage it will have when present), journals and judges the plan like any
     * write, commits it exactly and verifies the committed version against it (docs/coordinator.md
     * "Maintenance"). An index that already covers every fragment commits nothing: the receipt's version
     * is then the head's and the intent's completion says "no-op". On a journal-ack table its unfolded writes are
     * folded first, so the index covers every write acknowledged before the call.
     */
    public Receipt optimizeIndex(String branch, String table) {
        if (!catalog().require(table).kind().keyed()) {
            throw new ValidationException("table '" + table + "' is append-only and has no key index");
        }
        return engine.join(engine.submit(new WriteOp.OptimizeIndex(submission(branch, table, Optional.empty()), true)));
    }

    /**
     * Compacts a table's small fragments (rows unchanged; indices remapped by the substrate) as a
     * journaled maintenance operation planned before its intent: the intent carries the fragment groups
     * it rewrites (RewriteFragments, and RebindIndexCoverage for an indexed table). Nothing to compact
     * commits nothing (receipt at the head's version, completion "no-op").
     */
    public Receipt compact(String branch, String table) {
        return engine.join(compactAsync(branch, table));
    }

    /** {@link #compact} without waiting; the op's base is the head this call sees. */
    public CompletableFuture<Receipt> compactAsync(String branch, String table) {
        catalog().require(table);
        return engine.submit(new WriteOp.Compact(submission(branch, table, Optional.empty())));
    }

    /** A write of {@code rows} to a keyed table, made by {@code kind} (an insert's or an upsert's constructor). */
    private WriteOp keyed(BiFunction<WriteOp.Submission, VectorSchemaRoot, WriteOp> kind, String branch, String table,
                          VectorSchemaRoot rows, WriteOptions options) {
        if (!catalog().require(table).kind().keyed()) {
            throw new ValidationException("table '" + table + "' is append-only and has no key: use append");
        }
        if (rows == null || rows.getRowCount() == 0) {
            throw new ValidationException("a write to '" + table + "' needs at least one row");
        }
        return digested(kind.apply(submission(branch, table, options.idempotencyKey()), rows), s -> kind.apply(s, rows));
    }

    /**
     * {@code op}, remade by {@code remake} with its request's digest when it carries an idempotency key: a repeat of
     * the key must be the same request (docs/coordinator.md, "API").
     */
    private static WriteOp digested(WriteOp op, java.util.function.Function<WriteOp.Submission, WriteOp> remake) {
        if (op.idempotencyKey().isEmpty()) {
            return op;
        }
        return remake.apply(op.submission().withRequestDigest(RequestDigest.of(op)));
    }

    /** A submission to (branch, table) now, based on the version the published view has. */
    private WriteOp.Submission submission(String branch, String table, Optional<String> idempotencyKey) {
        return WriteOp.Submission.of(branch, table, engine.baseVersion(branch, table), idempotencyKey);
    }

    /**
     * A new graph transaction on {@code branch} (docs/transactions.md): add inserts, upserts and deletes of any keyed
     * tables, then {@link Transaction#commit()} them together.
     */
    public Transaction transaction(String branch) {
        return new Transaction(engine, catalog(), branch);
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

    /**
     * Updates existing rows by key: each of {@code changes} names a row's {@code id} and the columns to set. A column
     * a change does not name keeps its value; one named with null becomes null (refused for a non-null column). This
     * is the partial write an upsert is not: an upsert writes the whole row, so the columns it omits become null.
     *
     * <p>Every id must be in the table when the update commits, else the whole update fails with
     * {@link io.palisade.fencing.KeyNotFoundException} and nothing is written. The committer reads the current rows as
     * the update commits and writes their new whole rows, so a concurrent write of the same key is never lost: the
     * update applies on top of every write of the key committed before it, in journal order (docs/coordinator.md
     * "Updates"). The receipt counts the rows updated. Both ack modes; an idempotency key as for any write.
     *
     * @throws ValidationException when a change names no id, an id twice, an unknown column or a value of the wrong
     *                             type, or sets a non-null column to null (nothing is written)
     */
    public Receipt update(String branch, String table, List<Row> changes) {
        return update(branch, table, changes, WriteOptions.NONE);
    }

    /** {@link #update(String, String, List)} with write options (an idempotency key). */
    public Receipt update(String branch, String table, List<Row> changes, WriteOptions options) {
        return engine.join(updateAsync(branch, table, changes, options));
    }

    /** {@link #update(String, String, List, WriteOptions)}, answered when the update is acknowledged. */
    public CompletableFuture<Receipt> updateAsync(String branch, String table, List<Row> changes, WriteOptions options) {
        Objects.requireNonNull(changes, "changes");
        List<Map<String, Object>> normalised = BatchValidation.changes(catalog().require(table), changes,
                engine.context().allocator());
        return engine.submit(digested(new WriteOp.Update(submission(branch, table, options.idempotencyKey()), normalised,
                null), s -> new WriteOp.Update(s, normalised, null)));
    }

    /** Appends {@code rows} to an append-only table (see {@link Row}). */
    public Receipt appendRows(String branch, String table, List<Row> rows) {
        try (VectorSchemaRoot root = batch(table, rows)) {
            return append(branch, table, root);
        }
    }

    /** An Arrow batch of {@code rows} in {@code table}'s catalog schema; an unknown column is a {@link ValidationException}. */
    private VectorSchemaRoot batch(String table, List<Row> rows) {
        return BatchValidation.batch(catalog().require(table), rows, engine.context().allocator());
    }

    // ------------------------------------------------------------------ reads

    /** Every row of {@code table} at its published head on {@code branch}, as {@link Row}s. */
    public List<Row> rows(String branch, String table) {
        return scan(branch, table).stream().map(Row::of).toList();
    }

    /**
     * The rows of a keyed table with the given ids at its published head on {@code branch}, by id; an id with no
     * row is absent from the map. A lookup through the table's {@code id} predicate, not a scan of the table.
     */
    public Map<String, Row> get(String branch, String table, Collection<String> keys) {
        Map<String, Row> out = new LinkedHashMap<>();
        engine.context().reads().get(branch, table, keys).forEach((k, r) -> out.put(k, Row.of(r)));
        return out;
    }

    /** Every row of {@code table} at its published head on {@code branch}. */
    public List<Map<String, Object>> scan(String branch, String table) {
        return engine.context().reads().scan(branch, table);
    }

    /** Every row of {@code table} on {@code branch} as of journal sequence {@code seq} (unfolded writes included). */
    public List<Map<String, Object>> scanAt(String branch, String table, long seq) {
        return engine.context().reads().scanAt(branch, table, seq);
    }

    public Catalog catalog() {
        return engine.context().view().catalog();
    }

    public Metrics metrics() {
        return metrics;
    }

    /** The current published state (heads, branches, intents): an immutable value of one journal position. */
    public HeadsState state() {
        return engine.context().view().state();
    }

    public Path path() {
        return engine.context().layout().root();
    }

    /** What recovery found and did when this graph was opened ({@link RecoveryReport#toJson()}). */
    public RecoveryReport recoveryReport() {
        return recoveryReport;
    }

    /**
     * Waits until no fold is in flight: the fold whose Lance commit runs off the committer thread, if any, is
     * published. For tests and the benchmark harness; a fold it does not start.
     */
    public void awaitFold() {
        engine.awaitFold();
    }

    // ------------------------------------------------------------------ branches

    /**
     * Creates a graph branch from {@code from} (lazy: it pins {@code from}'s table states; forks on first write). The
     * name of a deleted branch that wrote a table is refused ({@link io.palisade.fencing.ValidationException}): its
     * table branches keep its history.
     */
    public void createBranch(String name, String from) {
        engine.createBranch(name, from);
    }

    /** Deletes a graph branch; its table branches stay, for reads of journal points while it was live. */
    public void deleteBranch(String name) {
        engine.deleteBranch(name);
    }

    public List<String> branches() {
        return new ArrayList<>(state().branches().keySet());
    }

    /** The published heads of a branch: table → head. */
    public SortedMap<String, Pin> heads(String branch) {
        HeadsState s = state();
        if (!s.branchLive(branch)) {
            throw new ValidationException("unknown graph branch '" + branch + "'");
        }
        return s.pins(branch);
    }

    /**
     * Merges {@code source} into {@code target} (RFC-023 §5's fast-forward row). The keys each side
     * changed since the fork come from the journal: the key filters of the intents applied on that side
     * after the source branch was created. A key changed on both sides is a
     * {@link io.palisade.fencing.MergeConflictException} naming the keys, and nothing is merged.
     * Otherwise, per table, rows inserted on the source go in with WhenMatched Fail, updated rows as
     * upserts, and keys deleted on the source are deleted on the target. The merge runs on the committer,
     * so no write interleaves with it. In a graph whose catalog declares edge endpoints or unique columns the merge is
     * one graph transaction, checked as a whole and published whole or not at all (docs/transactions.md "Branch
     * merges"); otherwise each table's part is its own journaled intent.
     */
    public MergeResult merge(String source, String target) {
        return engine.merge(source, target);
    }

    // ------------------------------------------------------------------ lifecycle

    /** The engine behind this facade (the coordinator's own tests and simulation reach the committer through it). */
    Engine engine() {
        return engine;
    }

    @Override
    public void close() {
        engine.close();
    }
}
