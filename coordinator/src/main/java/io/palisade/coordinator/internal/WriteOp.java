package io.palisade.coordinator.internal;

import io.palisade.coordinator.Catalog;
import io.palisade.coordinator.Receipt;

import io.palisade.fencing.KeyFilter;
import org.apache.arrow.vector.VectorSchemaRoot;

import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/** One queued logical write, as the committer sees it. */
public final class WriteOp {
    /**
     * What an op does. {@code FOLD} is the committer's own: the fold of a journal-ack table's unfolded writes
     * (docs/journal-ack.md), with {@code rows} the newest row of every upserted key and {@code deleteKeys} the keys
     * whose newest write deleted them (null when none).
     */
    public enum Kind {
        INSERT, UPSERT, DELETE, APPEND, OVERWRITE, ADD_COLUMNS, OPTIMIZE_INDEX, COMPACT, FOLD;

        /** Whether a write of this kind to a journal-ack table is acknowledged from the journal. */
        boolean journalable() {
            return switch (this) {
                case INSERT, UPSERT, DELETE -> true;
                case APPEND, OVERWRITE, ADD_COLUMNS, OPTIMIZE_INDEX, COMPACT, FOLD -> false;
            };
        }
    }

    final Kind kind;
    final String branch;
    final String table;
    final VectorSchemaRoot rows;      // INSERT, UPSERT, APPEND
    final KeyFilter deleteKeys;       // DELETE
    public java.util.List<Catalog.ColumnDef> newColumns = java.util.List.of(); // ADD_COLUMNS
    final Optional<String> idempotencyKey;
    final CompletableFuture<Receipt> future = new CompletableFuture<>();
    final long submittedNanos = System.nanoTime();
    /** The table version the writer's view had when it submitted (the op's base for the conflict check). */
    final long baseVersion;
    String intentId;
    KeyFilter keys;
    /** OPTIMIZE_INDEX, COMPACT: the plan journaled in the intent and committed exactly (set before Phase A). */
    io.palisade.substrate.MaintenancePlan plan;
    /** FOLD: its plan, journaled right after its intent. */
    io.palisade.journal.JournalEvent.FoldPlanned foldPlan;
    /** Why the op failed after its intent was journaled (completed exceptionally after phase D). */
    io.palisade.fencing.PalisadeException failure;

    public WriteOp(Kind kind, String branch, String table, VectorSchemaRoot rows, KeyFilter deleteKeys,
            Optional<String> idempotencyKey, long baseVersion) {
        this.kind = kind;
        this.branch = branch;
        this.table = table;
        this.rows = rows;
        this.deleteKeys = deleteKeys;
        this.idempotencyKey = idempotencyKey;
        this.baseVersion = baseVersion;
    }

    long rowCount() {
        return switch (kind) {
            case DELETE -> deleteKeys.size();
            case ADD_COLUMNS, OPTIMIZE_INDEX, COMPACT -> 0;
            case FOLD -> rows.getRowCount() + (deleteKeys == null ? 0 : deleteKeys.size());
            case INSERT, UPSERT, APPEND, OVERWRITE -> rows.getRowCount();
        };
    }

    /** Whether the op is table maintenance (planned before its intent, committed as planned). */
    boolean maintenance() {
        return kind == Kind.OPTIMIZE_INDEX || kind == Kind.COMPACT;
    }

    /** The key of a graph branch's table in the committer's per-table state: {@code "<branch>/<table>"}. */
    static String where(String branch, String table) {
        return branch + "/" + table;
    }

    /** {@link #where(String, String)} of this op's graph branch and table. */
    String where() {
        return where(branch, table);
    }

    /** Whether two ops can share one substrate commit. */
    boolean groupsWith(WriteOp o) {
        return kind == o.kind && branch.equals(o.branch) && table.equals(o.table)
                && kind != Kind.OVERWRITE && kind != Kind.ADD_COLUMNS && kind != Kind.OPTIMIZE_INDEX && kind != Kind.COMPACT
                && kind != Kind.FOLD;
    }
}
