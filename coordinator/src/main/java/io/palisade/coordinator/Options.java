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
 */
public record Options(Durability durability, boolean indexedMerge, int maxGroup, int upsertRetries, int checkpointEvery) {

    public Options {
        if (maxGroup < 1 || upsertRetries < 0 || checkpointEvery < 1) {
            throw new IllegalArgumentException("maxGroup >= 1, upsertRetries >= 0, checkpointEvery >= 1");
        }
    }

    public static Options defaults() {
        return new Options(Durability.POWER_LOSS, true, 256, 3, 10_000);
    }

    public Options withDurability(Durability d) {
        return new Options(d, indexedMerge, maxGroup, upsertRetries, checkpointEvery);
    }

    public Options withIndexedMerge(boolean indexed) {
        return new Options(durability, indexed, maxGroup, upsertRetries, checkpointEvery);
    }

    public Options withMaxGroup(int n) {
        return new Options(durability, indexedMerge, n, upsertRetries, checkpointEvery);
    }

    public Options withCheckpointEvery(int n) {
        return new Options(durability, indexedMerge, maxGroup, upsertRetries, n);
    }
}
