package io.palisade.coordinator;

import io.palisade.journal.Durability;

/**
 * Options of an opened graph.
 *
 * @param durability         journal durability of intents and completions (default {@code POWER_LOSS})
 * @param indexedMerge       whether keyed tables get a BTREE index on {@code id} and merges take Lance's
 *                           indexed path; safe only because the coordinator's exact fence and the writer
 *                           lease exclude every concurrent same-key commit (DESIGN §3)
 * @param maxGroup           the most queued operations one substrate commit may carry (group commit)
 * @param upsertRetries      bounded semantic retries of an upsert after a retryable conflict
 * @param checkpointEvery    write a heads checkpoint every this many journal records (and on close)
 * @param indexRefreshEvery  with {@code indexedMerge}: after this many row-adding commits to a keyed table
 *                           since its last index maintenance, the committer runs an index optimise
 *                           itself (a journaled maintenance operation like {@link Graph#optimizeIndex});
 *                           0 turns it off. Fragments the BTREE does not cover are scanned by every merge,
 *                           so without it a write's cost grows with the writes since the last optimise
 * @param foldLagMillis      journal-ack tables (docs/journal-ack.md): a table's unfolded writes are folded once the
 *                           oldest is this old (the bound on how long external Lance readers lag behind)
 * @param foldEvery          journal-ack tables: ... or once this many writes are unfolded
 * @param maxUnfoldedBytes   journal-ack tables: the memory bound of the unfolded writes' rows; an acknowledgement that
 *                           would pass it waits for a fold first (writers are held back, never failed)
 * @param maxFoldLagMillis   journal-ack tables: the lag bound; an acknowledgement on a table whose oldest unfolded
 *                           write is at least this old waits until a fold of the table has published (the same
 *                           back-pressure as {@code maxUnfoldedBytes}: writers wait, they are never failed), so the
 *                           lag of external Lance readers stays near this bound at the cost of throughput when the
 *                           fold absorbs fewer writes per second than are acknowledged. Default: twice
 *                           {@code foldLagMillis} (2,000 ms); a bound below {@code foldLagMillis} makes the lag bound,
 *                           not the fold agent, start the folds
 * @param compaction         automatic compaction of the tables ({@link Compaction#DEFAULTS}: on)
 * @param retention          how many old table versions are kept ({@link Retention#DEFAULTS}: a count and a time bound)
 * @param idempotency        how long idempotency keys are remembered ({@link Idempotency#DEFAULTS}: a time and a
 *                           count bound)
 * @param maxImageRows       the most rows the integrity checks' in-memory images hold in all (docs/integrity.md):
 *                           past it the least recently used images are dropped, and rebuilt by the next write that
 *                           needs them (default {@value #DEFAULT_MAX_IMAGE_ROWS}, about 1 GiB of heap)
 * @param prepareJournalAhead whether a thread keeps the journal's cycle file allocated and touched ahead of its appender,
 *                           so a sync writes only the records' pages (docs/journal.md "What a sync allocates"; on by
 *                           default). Turn it off on a copy-on-write file system (btrfs, ZFS), where each page written
 *                           ahead is written again by the records' sync. Durability never depends on it; a Kafka
 *                           journal ignores it
 */
public record Options(Durability durability, boolean indexedMerge, int maxGroup, int upsertRetries, int checkpointEvery,
                      int indexRefreshEvery, long foldLagMillis, int foldEvery, long maxUnfoldedBytes,
                      long maxFoldLagMillis, Compaction compaction, Retention retention, Idempotency idempotency,
                      long maxImageRows, boolean prepareJournalAhead) {

    /** Default of {@link #indexRefreshEvery}. */
    public static final int DEFAULT_INDEX_REFRESH_EVERY = 32;
    /** Defaults of the journal-ack fold bounds. */
    public static final long DEFAULT_FOLD_LAG_MILLIS = 1_000;
    public static final int DEFAULT_FOLD_EVERY = 32_768;
    public static final long DEFAULT_MAX_UNFOLDED_BYTES = 64L << 20;
    /** Default of {@link #maxImageRows}. */
    public static final long DEFAULT_MAX_IMAGE_ROWS = 4_000_000;

    public Options {
        if (maxGroup < 1 || upsertRetries < 0 || checkpointEvery < 1 || indexRefreshEvery < 0 || foldLagMillis < 0
                || foldEvery < 1 || maxUnfoldedBytes < 1 || maxFoldLagMillis < 0 || maxImageRows < 1) {
            throw new IllegalArgumentException("maxGroup >= 1, upsertRetries >= 0, checkpointEvery >= 1, indexRefreshEvery >= 0, "
                    + "foldLagMillis >= 0, foldEvery >= 1, maxUnfoldedBytes >= 1, maxFoldLagMillis >= 0, maxImageRows >= 1");
        }
        java.util.Objects.requireNonNull(compaction, "compaction");
        java.util.Objects.requireNonNull(retention, "retention");
        java.util.Objects.requireNonNull(idempotency, "idempotency");
    }

    /** Options with the journal's pages prepared ahead ({@link #prepareJournalAhead}). */
    public Options(Durability durability, boolean indexedMerge, int maxGroup, int upsertRetries, int checkpointEvery,
                   int indexRefreshEvery, long foldLagMillis, int foldEvery, long maxUnfoldedBytes,
                   long maxFoldLagMillis, Compaction compaction, Retention retention, Idempotency idempotency,
                   long maxImageRows) {
        this(durability, indexedMerge, maxGroup, upsertRetries, checkpointEvery, indexRefreshEvery, foldLagMillis,
                foldEvery, maxUnfoldedBytes, maxFoldLagMillis, compaction, retention, idempotency, maxImageRows, true);
    }

    /** Options with the default idempotency window. */
    public Options(Durability durability, boolean indexedMerge, int maxGroup, int upsertRetries, int checkpointEvery,
                   int indexRefreshEvery, long foldLagMillis, int foldEvery, long maxUnfoldedBytes,
                   long maxFoldLagMillis, Compaction compaction, Retention retention) {
        this(durability, indexedMerge, maxGroup, upsertRetries, checkpointEvery, indexRefreshEvery, foldLagMillis,
                foldEvery, maxUnfoldedBytes, maxFoldLagMillis, compaction, retention, Idempotency.DEFAULTS,
                DEFAULT_MAX_IMAGE_ROWS);
    }

    /** The idempotency window ({@link Idempotency}). */
    public Options withIdempotency(Idempotency i) {
        return new Options(durability, indexedMerge, maxGroup, upsertRetries, checkpointEvery, indexRefreshEvery,
                foldLagMillis, foldEvery, maxUnfoldedBytes, maxFoldLagMillis, compaction, retention, i, maxImageRows,
                prepareJournalAhead);
    }

    /** Options with the default compaction and retention. */
    public Options(Durability durability, boolean indexedMerge, int maxGroup, int upsertRetries, int checkpointEvery,
                   int indexRefreshEvery, long foldLagMillis, int foldEvery, long maxUnfoldedBytes,
                   long maxFoldLagMillis) {
        this(durability, indexedMerge, maxGroup, upsertRetries, checkpointEvery, indexRefreshEvery, foldLagMillis,
                foldEvery, maxUnfoldedBytes, maxFoldLagMillis, Compaction.DEFAULTS, Retention.DEFAULTS,
                Idempotency.DEFAULTS, DEFAULT_MAX_IMAGE_ROWS);
    }

    /** Automatic compaction ({@link Compaction}). */
    public Options withCompaction(Compaction c) {
        return new Options(durability, indexedMerge, maxGroup, upsertRetries, checkpointEvery, indexRefreshEvery,
                foldLagMillis, foldEvery, maxUnfoldedBytes, maxFoldLagMillis, c, retention, idempotency, maxImageRows,
                prepareJournalAhead);
    }

    /** Version retention ({@link Retention}). */
    public Options withRetention(Retention r) {
        return new Options(durability, indexedMerge, maxGroup, upsertRetries, checkpointEvery, indexRefreshEvery,
                foldLagMillis, foldEvery, maxUnfoldedBytes, maxFoldLagMillis, compaction, r, idempotency, maxImageRows,
                prepareJournalAhead);
    }

    /** Options with the default fold bounds. */
    public Options(Durability durability, boolean indexedMerge, int maxGroup, int upsertRetries, int checkpointEvery,
                   int indexRefreshEvery) {
        this(durability, indexedMerge, maxGroup, upsertRetries, checkpointEvery, indexRefreshEvery, DEFAULT_FOLD_LAG_MILLIS,
                DEFAULT_FOLD_EVERY, DEFAULT_MAX_UNFOLDED_BYTES, lagBoundFor(DEFAULT_FOLD_LAG_MILLIS));
    }

    /**
     * The fold bounds of journal-ack tables: lag, writes, bytes; the lag back-pressure bound becomes its default for
     * {@code lagMillis} ({@link #lagBoundFor}).
     */
    public Options withFolding(long lagMillis, int every, long maxBytes) {
        return new Options(durability, indexedMerge, maxGroup, upsertRetries, checkpointEvery, indexRefreshEvery, lagMillis,
                every, maxBytes, lagBoundFor(lagMillis), compaction, retention, idempotency, maxImageRows,
                prepareJournalAhead);
    }

    /** The lag back-pressure bound of journal-ack tables ({@link #maxFoldLagMillis}). */
    public Options withMaxFoldLag(long millis) {
        return new Options(durability, indexedMerge, maxGroup, upsertRetries, checkpointEvery, indexRefreshEvery, foldLagMillis,
                foldEvery, maxUnfoldedBytes, millis, compaction, retention, idempotency, maxImageRows,
                prepareJournalAhead);
    }

    /** The default {@link #maxFoldLagMillis} for a fold lag: twice it (saturating). */
    public static long lagBoundFor(long foldLagMillis) {
        return foldLagMillis > Long.MAX_VALUE / 2 ? Long.MAX_VALUE : 2 * foldLagMillis;
    }

    /** Options with the default {@link #indexRefreshEvery}. */
    public Options(Durability durability, boolean indexedMerge, int maxGroup, int upsertRetries, int checkpointEvery) {
        this(durability, indexedMerge, maxGroup, upsertRetries, checkpointEvery, DEFAULT_INDEX_REFRESH_EVERY);
    }

    public static Options defaults() {
        return new Options(Durability.POWER_LOSS, true, 256, 3, 10_000, DEFAULT_INDEX_REFRESH_EVERY);
    }

    public Options withIndexRefreshEvery(int n) {
        return new Options(durability, indexedMerge, maxGroup, upsertRetries, checkpointEvery, n, foldLagMillis,
                foldEvery, maxUnfoldedBytes, maxFoldLagMillis, compaction, retention, idempotency, maxImageRows,
                prepareJournalAhead);
    }

    public Options withDurability(Durability d) {
        return new Options(d, indexedMerge, maxGroup, upsertRetries, checkpointEvery, indexRefreshEvery, foldLagMillis,
                foldEvery, maxUnfoldedBytes, maxFoldLagMillis, compaction, retention, idempotency, maxImageRows,
                prepareJournalAhead);
    }

    public Options withIndexedMerge(boolean indexed) {
        return new Options(durability, indexed, maxGroup, upsertRetries, checkpointEvery, indexRefreshEvery, foldLagMillis,
                foldEvery, maxUnfoldedBytes, maxFoldLagMillis, compaction, retention, idempotency, maxImageRows,
                prepareJournalAhead);
    }

    public Options withMaxGroup(int n) {
        return new Options(durability, indexedMerge, n, upsertRetries, checkpointEvery, indexRefreshEvery, foldLagMillis,
                foldEvery, maxUnfoldedBytes, maxFoldLagMillis, compaction, retention, idempotency, maxImageRows,
                prepareJournalAhead);
    }

    /** The bound on the rows the integrity checks' images hold ({@link #maxImageRows}). */
    public Options withMaxImageRows(long rows) {
        return new Options(durability, indexedMerge, maxGroup, upsertRetries, checkpointEvery, indexRefreshEvery, foldLagMillis,
                foldEvery, maxUnfoldedBytes, maxFoldLagMillis, compaction, retention, idempotency, rows,
                prepareJournalAhead);
    }

    public Options withCheckpointEvery(int n) {
        return new Options(durability, indexedMerge, maxGroup, upsertRetries, n, indexRefreshEvery, foldLagMillis,
                foldEvery, maxUnfoldedBytes, maxFoldLagMillis, compaction, retention, idempotency, maxImageRows,
                prepareJournalAhead);
    }

    /** Whether the journal's pages are prepared ahead of its appender ({@link #prepareJournalAhead}). */
    public Options withPrepareJournalAhead(boolean on) {
        return new Options(durability, indexedMerge, maxGroup, upsertRetries, checkpointEvery, indexRefreshEvery, foldLagMillis,
                foldEvery, maxUnfoldedBytes, maxFoldLagMillis, compaction, retention, idempotency, maxImageRows, on);
    }
}
