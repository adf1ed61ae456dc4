package io.palisade.journal;

import java.time.Instant;
import java.util.Objects;

/**
 * One event as read back from the journal, with its header fields.
 *
 * @param sequence       dense journal sequence (0, 1, 2, ... with no gaps)
 * @param timestampNanos epoch nanoseconds at append; non-decreasing along the journal
 * @param writerEpoch    lease epoch of the writer that appended it; non-decreasing along the journal
 * @param event          the event
 */
public record JournalRecord(long sequence, long timestampNanos, long writerEpoch, JournalEvent event) {
    public JournalRecord {
        Objects.requireNonNull(event, "event");
    }

    /** The append time. */
    public Instant time() {
        return Instant.ofEpochSecond(Math.floorDiv(timestampNanos, 1_000_000_000L),
                Math.floorMod(timestampNanos, 1_000_000_000L));
    }

    static long nanos(Instant t) {
        return Math.addExact(Math.multiplyExact(t.getEpochSecond(), 1_000_000_000L), t.getNano());
    }
}
