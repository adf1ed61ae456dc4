package io.palisade.journal;

import java.util.List;
import java.util.Objects;

/**
 * Where a journal continues, as the writer's verifying scan at open found it.
 *
 * @param nextSequence  the sequence of the next record (dense, from 0)
 * @param lastHash      SHA-256 of the last good record (zero bytes for an empty journal)
 * @param lastTimestamp timestamp of the last good record ({@link Long#MIN_VALUE} when none)
 * @param lastEpoch     writer epoch of the last good record (0 when none)
 * @param cutTails      torn tails earlier writers cut
 * @param openTail      the torn tail this open cuts, or null
 */
record ChainState(long nextSequence, byte[] lastHash, long lastTimestamp, long lastEpoch, List<TornTail> cutTails,
                  TornTail openTail) {
    ChainState {
        Objects.requireNonNull(lastHash, "lastHash");
        cutTails = List.copyOf(cutTails);
    }

    static ChainState of(RecordStream scan, long lastEpoch, long lastTimestamp) {
        byte[] hash = scan.lastHash();
        if (hash == null) {
            throw new IllegalStateException("the scan at open read from sequence 0 and must know the last hash");
        }
        return new ChainState(scan.expectedSequence(), hash, lastTimestamp, lastEpoch, scan.cutTails(), scan.openTail());
    }
}
