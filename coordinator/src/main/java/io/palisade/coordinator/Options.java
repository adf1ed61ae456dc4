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
 */
public record Options(Durability durability, boolean indexedMerge, int maxGroup, int upsertRetries, int checkpointEvery,
                      int indexRefreshEvery) {

    /** Default of {@link #indexRefreshEvery}. */
    public static final int DEFAULT_INDEX_REFRESH_EVERY = 32;

    public Options {
        if (maxGroup < 1 || upsertRetries < 0 || checkpointEvery < 1 || indexRefreshEvery < 0) {
            throw new IllegalArgumentException("maxGroup >= 1, upsertRetries >= 0, checkpointEvery >= 1, indexRefreshEvery >= 0");
        }
    }

    /** Options with the default {@link #indexRefreshEvery}. */
    public Options(Durability durability, boolean indexedMerge, int maxGroup, int upsertRetries, int checkpointEvery) {
        this(durability, indexedMerge, maxGroup, upsertRetries, checkpointEvery, DEFAULT_INDEX_REFRESH_EVERY);
    }

    public static Options defaults() {
        return new Options(Durability.POWER_LOSS, true, 256, 3, 10_000, DEFAULT_INDEX_REFRESH_EVERY);
    }

    public Options withIndexRefreshEvery(int n) {
        return new Options(durability, indexedMerge, maxGroup, upsertRetries, checkpointEvery, n);
    }

    public Options withDurability(Durability d) {
        return new Options(d, indexedMerge, maxGroup, upsertRetries, checkpointEvery, indexRefreshEvery);
    }

    public Options withIndexedMerge(boolean indexed) {
        return new Options(durability, indexed, maxGroup, upsertRetries, checkpointEvery, indexRefreshEvery);
    }

    public Options withMaxGroup(int n) {
        return new Options(durability, indexedMerge, n, upsertRetries, checkpointEvery, indexRefreshEvery);
    }

    public Options withCheckpointEvery(int n) {
        return new Options(durability, indexedMerge, maxGroup, upsertRetries, n, indexRefreshEvery);
    }
}
