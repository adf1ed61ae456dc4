package io.palisade.journal;

import java.util.Objects;

/**
 * A tail of storage excerpts that failed their record check (incomplete or torn by a power cut) at
 * the end of the segment of writer epoch {@code segmentEpoch}, after {@code lastGoodSequence}.
 * Either cut (the next writer continued the journal after {@code lastGoodSequence} in a new segment;
 * the excerpts are never returned) or still open (no writer has opened since).
 *
 * @param lastGoodSequence the last good sequence before the tail (-1 when none)
 * @param excerpts         how many excerpts failed
 * @param reason           why the first of them failed
 */
public record TornTail(long segmentEpoch, long lastGoodSequence, long excerpts, String reason) {
    public TornTail {
        Objects.requireNonNull(reason, "reason");
    }
}
