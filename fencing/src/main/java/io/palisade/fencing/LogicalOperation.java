package io.palisade.fencing;

/** The logical write operations a caller can ask for (RFC-023 §5's rows). */
public enum LogicalOperation {
    /** Strict insert: every key must be new. */
    INSERT,
    /** Insert or replace by key. */
    UPSERT,
    /** Bulk load of rows that must all be new ({@code load --mode append}). */
    LOAD_APPEND,
    /** Bulk load that inserts or replaces by key ({@code load --mode merge}). */
    LOAD_MERGE,
    /** Branch merge: rows inserted on the source since the fork. */
    BRANCH_MERGE_NEW_ROWS,
    /** Branch merge: rows updated on the source since the fork. */
    BRANCH_MERGE_UPDATED_ROWS,
    /** Folding a write-ahead log of upserts into the table. */
    WAL_UPSERT_FOLD,
    /** Delete rows by key. */
    DELETE,
    /** Replace the whole table. */
    OVERWRITE,
    /** Add columns. */
    ADD_COLUMNS,
    /** Drop columns. */
    DROP_COLUMNS,
    /** Bare append of rows: only a keyless table can take it. */
    APPEND
}
