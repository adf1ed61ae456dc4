package io.palisade.substrate;

import io.palisade.fencing.KeyFilter;

/**
 * What a streaming read ({@link TableSnapshot#scan(ScanSpec, RowSink)}) selects: the rows that {@code filter} (a Lance
 * SQL filter expression such as {@code age > 30 AND name LIKE 'a%'}; null: every row) selects, of {@code keys} only
 * when not null (a keyed table), at most {@code limit} of them ({@link #NO_LIMIT}: all), read {@code batchRows} rows at
 * a time. The rows are delivered one by one; a reader holds one batch, so its memory does not grow with the table.
 */
public record ScanSpec(String filter, KeyFilter keys, long limit, int batchRows) {
    /** No limit on the rows. */
    public static final long NO_LIMIT = Long.MAX_VALUE;
    /** The rows read at a time unless a spec says otherwise. */
    public static final int DEFAULT_BATCH_ROWS = 1024;

    public ScanSpec {
        if (limit < 0) {
            throw new IllegalArgumentException("a scan limit is at least 0, not " + limit);
        }
        if (batchRows < 1) {
            throw new IllegalArgumentException("a scan reads at least one row per batch, not " + batchRows);
        }
        if (filter != null && filter.isBlank()) {
            filter = null;
        }
    }

    /** Every row, {@link #DEFAULT_BATCH_ROWS} at a time. */
    public static ScanSpec all() {
        return new ScanSpec(null, null, NO_LIMIT, DEFAULT_BATCH_ROWS);
    }

    public ScanSpec withFilter(String f) {
        return new ScanSpec(f, keys, limit, batchRows);
    }

    public ScanSpec withKeys(KeyFilter k) {
        return new ScanSpec(filter, k, limit, batchRows);
    }

    public ScanSpec withLimit(long l) {
        return new ScanSpec(filter, keys, l, batchRows);
    }

    public ScanSpec withBatchRows(int n) {
        return new ScanSpec(filter, keys, limit, n);
    }

    /** Whether {@code limit} is set. */
    public boolean limited() {
        return limit != NO_LIMIT;
    }
}
