package io.palisade.coordinator.internal;

import io.palisade.coordinator.Catalog;
import io.palisade.coordinator.Receipt;

import io.palisade.fencing.KeyFilter;
import io.palisade.journal.JournalEvent;
import org.apache.arrow.vector.VectorSchemaRoot;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * One queued logical write, as the committer sees it: one immutable record per kind, holding only what its kind
 * carries. What a stage learns about an op (its intent id, its key filter, a maintenance plan, why it lost) is never
 * written back into it: the stages return it ({@link Fence.Admitted}, {@link Lost}).
 *
 * <p>Invariants of every op: its {@link Submission} is non-null; the op is never mutated after construction except
 * that its {@link #future()} is completed, exactly once, by the stage that decides its outcome.
 */
public sealed interface WriteOp {
    /**
     * What an op does, for logs, messages and the journal's operation name ({@link WriteActions#operation}).
     * {@code FOLD} is the committer's own: the fold of a journal-ack table's unfolded writes (docs/journal-ack.md).
     */
    enum Kind {
        INSERT, UPSERT, UPDATE, DELETE, APPEND, OVERWRITE, ADD_COLUMNS, OPTIMIZE_INDEX, COMPACT, FOLD;

        /** Whether a write of this kind to a journal-ack table is acknowledged from the journal. */
        boolean journalable() {
            return switch (this) {
                case INSERT, UPSERT, UPDATE, DELETE -> true;
                case APPEND, OVERWRITE, ADD_COLUMNS, OPTIMIZE_INDEX, COMPACT, FOLD -> false;
            };
        }

        /** Whether an op of this kind is table maintenance (planned before its intent, committed as planned). */
        boolean maintenance() {
            return switch (this) {
                case OPTIMIZE_INDEX, COMPACT -> true;
                case INSERT, UPSERT, UPDATE, DELETE, APPEND, OVERWRITE, ADD_COLUMNS, FOLD -> false;
            };
        }

        /** Whether ops of this kind may share one substrate commit with others of the kind. */
        boolean groups() {
            return switch (this) {
                case INSERT, UPSERT, UPDATE, DELETE, APPEND -> true;
                case OVERWRITE, ADD_COLUMNS, OPTIMIZE_INDEX, COMPACT, FOLD -> false;
            };
        }
    }

    /**
     * What every op carries from its submission: the graph branch and table it writes, the table version the
     * writer's view had when it submitted ({@code baseVersion}, the op's base for the conflict check; -1 without a
     * head), its idempotency key, the writer's future and when it was submitted ({@link System#nanoTime()}).
     * Invariants: one new future per submission ({@link #of}), completed once. What the writer named is not checked
     * here: the facade and the stages check it, and fail the op, as for any op.
     */
    record Submission(String branch, String table, long baseVersion, Optional<String> idempotencyKey,
                      CompletableFuture<Receipt> future, long submittedNanos, String requestDigest) {
        /** A submission made now, with a new future and no request digest. */
        public static Submission of(String branch, String table, long baseVersion, Optional<String> idempotencyKey) {
            return new Submission(branch, table, baseVersion, idempotencyKey, new CompletableFuture<>(), System.nanoTime(),
                    null);
        }

        /** This submission with the digest of its request ({@link RequestDigest}); the same future. */
        public Submission withRequestDigest(String digest) {
            return new Submission(branch, table, baseVersion, idempotencyKey, future, submittedNanos, digest);
        }
    }

    /** A strict insert of {@code rows} (a keyed table; every key new). Invariant: {@code rows} non-null. */
    record Insert(Submission submission, VectorSchemaRoot rows, JournalRowsMemo journalRows) implements WriteOp {
        public Insert {
            Objects.requireNonNull(rows, "rows");
            Objects.requireNonNull(journalRows, "journalRows");
        }

        public Insert(Submission submission, VectorSchemaRoot rows) {
            this(submission, rows, new JournalRowsMemo(rows));
        }
    }

    /** An insert-or-replace by key of {@code rows} (a keyed table). Invariant: {@code rows} non-null. */
    record Upsert(Submission submission, VectorSchemaRoot rows, JournalRowsMemo journalRows) implements WriteOp {
        public Upsert {
            Objects.requireNonNull(rows, "rows");
            Objects.requireNonNull(journalRows, "journalRows");
        }

        public Upsert(Submission submission, VectorSchemaRoot rows) {
            this(submission, rows, new JournalRowsMemo(rows));
        }
    }

    /**
     * An update of existing rows of a keyed table: each of {@code changes} names a row's {@code id} and the columns to
     * set (a column it does not name keeps its value; one named with null becomes null). The fence resolves it on the
     * committer, against the table's newest state, into {@code afterImage}: the whole new rows in the catalog schema,
     * written as an upsert of exactly those keys ({@link Updates}). Invariants: {@code changes} non-empty, immutable,
     * values normalised to the catalog's types; {@code afterImage} null until resolved, then one row per change, in
     * order, owned by the committer's run of the group that resolved it, which closes it when the run ends (it is
     * committed, or encoded into the journal, within that run).
     */
    record Update(Submission submission, List<Map<String, Object>> changes, VectorSchemaRoot afterImage) implements WriteOp {
        public Update {
            changes = List.copyOf(changes);
        }

        /** This update resolved to {@code rows}: the same submission and future. */
        Update resolved(VectorSchemaRoot rows) {
            return new Update(submission, changes, Objects.requireNonNull(rows, "rows"));
        }

        /** The resolved rows; an unresolved update here is a committer defect. */
        VectorSchemaRoot rows() {
            if (afterImage == null) {
                throw new IllegalStateException("update of " + where() + " reached a commit unresolved");
            }
            return afterImage;
        }
    }

    /** A delete of the rows with {@code keys} (a keyed table; absent keys are ignored). Invariant: {@code keys} non-null. */
    record Delete(Submission submission, KeyFilter keys) implements WriteOp {
        public Delete {
            Objects.requireNonNull(keys, "keys");
        }
    }

    /**
     * An append of {@code rows} (an append-only table): the writer's batch, not checked here (the fence validates
     * it; a null batch fails the op there).
     */
    record Append(Submission submission, VectorSchemaRoot rows) implements WriteOp {
    }

    /** A replacement of every row of the table by {@code rows} (may be empty). Invariant: {@code rows} non-null. */
    record Overwrite(Submission submission, VectorSchemaRoot rows) implements WriteOp {
        public Overwrite {
            Objects.requireNonNull(rows, "rows");
        }
    }

    /** The addition of nullable {@code columns} to the table. Invariant: {@code columns} non-empty, immutable. */
    record AddColumns(Submission submission, List<Catalog.ColumnDef> columns) implements WriteOp {
        public AddColumns {
            columns = List.copyOf(columns);
        }
    }

    /**
     * Index maintenance of a keyed table: planned by the fence, journaled and committed exactly as planned. On a
     * journal-ack table {@code foldFirst} folds its unfolded writes before it (a caller's refresh); without it (the
     * automatic refresh after folds) it waits only for the fold in flight and leaves the unfolded writes as they are,
     * like a compaction, its Lance work on the fold thread.
     */
    record OptimizeIndex(Submission submission, boolean foldFirst) implements WriteOp {
    }

    /** Compaction of a table's fragments: planned by the fence, journaled and committed exactly as planned. */
    record Compact(Submission submission) implements WriteOp {
    }

    /**
     * The fold of a journal-ack table's unfolded writes, built whole by the {@link Folder}: {@code rows} the newest row
     * of every upserted key, {@code deleteKeys} the keys whose newest write deleted them (null when none), {@code keys}
     * every key it touches (its fenced key filter), {@code intentId} its own intent id ({@code f-…}) and {@code plan}
     * its {@code fold_planned} record, journaled right after its intent. Invariants: {@code rows}, {@code keys},
     * {@code intentId} and {@code plan} non-null; {@code plan.intentId()} is {@code intentId}.
     */
    record Fold(Submission submission, FoldRows rows, KeyFilter deleteKeys, KeyFilter keys, String intentId,
                JournalEvent.FoldPlanned plan) implements WriteOp {
        public Fold {
            Objects.requireNonNull(rows, "rows");
            Objects.requireNonNull(keys, "keys");
            Objects.requireNonNull(intentId, "intentId");
            if (!plan.intentId().equals(intentId)) {
                throw new IllegalArgumentException("fold " + intentId + " with the plan of " + plan.intentId());
            }
        }
    }

    /** What the op carries from its submission. */
    Submission submission();

    /**
     * The journal bytes of the rows the writer submitted with the op (an insert's or upsert's), encoded once by the
     * thread that asks first; null for an op whose rows the writer did not submit as they are journaled.
     */
    default JournalRowsMemo submittedRows() {
        return switch (this) {
            case Insert i -> i.journalRows();
            case Upsert u -> u.journalRows();
            case Update u -> null;
            case Delete d -> null;
            case Append a -> null;
            case Overwrite o -> null;
            case AddColumns a -> null;
            case OptimizeIndex o -> null;
            case Compact c -> null;
            case Fold f -> null;
        };
    }

    /** The op's kind. */
    default Kind kind() {
        return switch (this) {
            case Insert i -> Kind.INSERT;
            case Upsert u -> Kind.UPSERT;
            case Update u -> Kind.UPDATE;
            case Delete d -> Kind.DELETE;
            case Append a -> Kind.APPEND;
            case Overwrite o -> Kind.OVERWRITE;
            case AddColumns a -> Kind.ADD_COLUMNS;
            case OptimizeIndex o -> Kind.OPTIMIZE_INDEX;
            case Compact c -> Kind.COMPACT;
            case Fold f -> Kind.FOLD;
        };
    }

    default String branch() {
        return submission().branch();
    }

    default String table() {
        return submission().table();
    }

    /** The table version the writer's view had when it submitted (the op's base for the conflict check). */
    default long baseVersion() {
        return submission().baseVersion();
    }

    default Optional<String> idempotencyKey() {
        return submission().idempotencyKey();
    }

    /** The writer's future: completed once, by the stage that decides the op's outcome. */
    default CompletableFuture<Receipt> future() {
        return submission().future();
    }

    default long submittedNanos() {
        return submission().submittedNanos();
    }

    /** The rows (or keys) the op writes, as its receipt counts them. */
    default long rowCount() {
        return switch (this) {
            case Insert i -> i.rows().getRowCount();
            case Upsert u -> u.rows().getRowCount();
            case Update u -> u.changes().size();
            case Delete d -> d.keys().size();
            case Append a -> a.rows().getRowCount();
            case Overwrite o -> o.rows().getRowCount();
            case AddColumns a -> 0;
            case OptimizeIndex o -> 0;
            case Compact c -> 0;
            case Fold f -> f.rows().count() + (f.deleteKeys() == null ? 0 : f.deleteKeys().size());
        };
    }

    /** Whether a write of this kind to a journal-ack table is acknowledged from the journal. */
    default boolean journalable() {
        return kind().journalable();
    }

    /** Whether the op is table maintenance (planned before its intent, committed as planned). */
    default boolean maintenance() {
        return kind().maintenance();
    }

    /** The key of a graph branch's table in the committer's per-table state: {@code "<branch>/<table>"}. */
    static String where(String branch, String table) {
        return branch + "/" + table;
    }

    /** {@link #where(String, String)} of this op's graph branch and table. */
    default String where() {
        return where(branch(), table());
    }

    /** Whether two ops can share one substrate commit. */
    default boolean groupsWith(WriteOp o) {
        return kind() == o.kind() && branch().equals(o.branch()) && table().equals(o.table()) && kind().groups();
    }
}
