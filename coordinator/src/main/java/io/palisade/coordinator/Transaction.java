package io.palisade.coordinator;

import io.palisade.coordinator.internal.BatchValidation;
import io.palisade.coordinator.internal.Engine;
import io.palisade.coordinator.internal.WriteOp;
import io.palisade.fencing.KeyFilter;
import io.palisade.fencing.ValidationException;
import org.apache.arrow.vector.VectorSchemaRoot;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * A graph transaction (docs/transactions.md): inserts, upserts and deletes of any keyed tables of one graph branch,
 * committed together. {@link #commit()} publishes every part or none: a reader through Palisade never sees part of it,
 * and a crash leaves it whole or absent. A strict insert's keys must be new to its table; the catalog's edge endpoints
 * and unique columns are checked on the transaction as a whole (an edge may name a node the same transaction
 * inserts, a node may be deleted with its edges). A key may be written once per table in one transaction.
 *
 * <p>Not thread-safe; one use. Rows given as {@link Row}s are held by the transaction until it commits or closes;
 * rows given as a {@link VectorSchemaRoot} must stay open until {@link #commit()} returns. Closing a transaction that
 * was not committed writes nothing.
 */
public final class Transaction implements AutoCloseable {
    private final Engine engine;
    private final Catalog catalog;
    private final String branch;
    private final List<WriteOp> parts = new ArrayList<>();
    private final List<VectorSchemaRoot> owned = new ArrayList<>();
    private boolean done;
    private Optional<String> key = Optional.empty();

    Transaction(Engine engine, Catalog catalog, String branch) {
        this.engine = engine;
        this.catalog = catalog;
        this.branch = Objects.requireNonNull(branch, "branch");
    }

    /** Strict insert of {@code rows} into {@code table}: every key must be new to the table. */
    public Transaction insert(String table, List<Row> rows) {
        return insert(table, own(table, rows));
    }

    /** Strict insert of {@code rows} (kept open by the caller until {@link #commit()} returns). */
    public Transaction insert(String table, VectorSchemaRoot rows) {
        parts.add(new WriteOp.Insert(submission(table, rows), rows));
        return this;
    }

    /** Insert or replace by key of {@code rows} in {@code table}. */
    public Transaction upsert(String table, List<Row> rows) {
        return upsert(table, own(table, rows));
    }

    /** Insert or replace by key of {@code rows} (kept open by the caller until {@link #commit()} returns). */
    public Transaction upsert(String table, VectorSchemaRoot rows) {
        parts.add(new WriteOp.Upsert(submission(table, rows), rows));
        return this;
    }

    /** Deletes the rows of {@code table} with these keys (absent keys are ignored). */
    public Transaction delete(String table, List<String> keys) {
        Catalog.TableDef def = keyed(table);
        KeyFilter filter = BatchValidation.keyFilter(def, keys);
        if (filter.isEmpty()) {
            throw new ValidationException("a delete of '" + table + "' in a transaction needs at least one key");
        }
        parts.add(new WriteOp.Delete(WriteOp.Submission.of(branch, table, -1, Optional.empty()), filter));
        return this;
    }

    /**
     * Gives the transaction an idempotency key (docs/transactions.md "Idempotency"): committing again a transaction
     * with the same key and the same parts, in the same order, returns the first commit's receipt and writes nothing;
     * with other parts it is refused ({@code IdempotencyMismatchException}). The key is remembered as a single write's
     * is ({@link Idempotency}); a transaction and a single write cannot share one.
     */
    public Transaction idempotencyKey(String key) {
        open();
        if (key == null || key.isBlank()) {
            throw new ValidationException("a transaction's idempotency key must not be blank");
        }
        this.key = Optional.of(key);
        return this;
    }

    /** The parts added so far. */
    public int size() {
        return parts.size();
    }

    /**
     * Commits every part together; returns once the transaction is durable in the journal (and its table-ack parts
     * are in their tables). A key conflict, an integrity conflict or bad input fails the whole transaction with its
     * typed exception (naming the table and keys) and writes nothing of it.
     */
    public TransactionReceipt commit() {
        return engine.join(commitAsync());
    }

    /**
     * {@link #commit()} without waiting: the receipt's future. Transactions committed together from several threads
     * share one journal sync. Rows given as a {@link VectorSchemaRoot} must stay open until the future completes.
     */
    public CompletableFuture<TransactionReceipt> commitAsync() {
        open();
        done = true;
        CompletableFuture<TransactionReceipt> f;
        try {
            f = engine.submitTransaction(branch, List.copyOf(parts), key);
        } catch (RuntimeException e) {
            release();
            throw e;
        }
        // the committer reads the rows until it answers: released then, not before
        f.whenComplete((r, e) -> release());
        return f;
    }

    /** Discards a transaction not committed (nothing is written); releases the rows it holds. */
    @Override
    public void close() {
        done = true;
        release();
    }

    private WriteOp.Submission submission(String table, VectorSchemaRoot rows) {
        keyed(table);
        if (rows == null || rows.getRowCount() == 0) {
            throw new ValidationException("a write to '" + table + "' in a transaction needs at least one row");
        }
        return WriteOp.Submission.of(branch, table, -1, Optional.empty());
    }

    private Catalog.TableDef keyed(String table) {
        open();
        Catalog.TableDef def = catalog.require(table);
        if (!def.kind().keyed()) {
            throw new ValidationException("table '" + table + "' is append-only: a transaction writes keyed tables");
        }
        return def;
    }

    private VectorSchemaRoot own(String table, List<Row> rows) {
        Catalog.TableDef def = keyed(table);
        VectorSchemaRoot root = BatchValidation.batch(def, rows, engine.context().allocator());
        owned.add(root);
        return root;
    }

    private void open() {
        if (done) {
            throw new IllegalStateException("this transaction was committed or closed; begin another");
        }
    }

    private synchronized void release() {
        owned.forEach(VectorSchemaRoot::close);
        owned.clear();
    }
}
