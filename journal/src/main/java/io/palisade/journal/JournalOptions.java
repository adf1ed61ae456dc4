package io.palisade.journal;

import java.time.Clock;
import java.util.Objects;

/**
 * Options of a journal writer.
 *
 * @param defaultDurability durability of {@link Journal#append(JournalEvent)} without an explicit mode
 * @param binaryVersion     recorded in {@link JournalEvent.WriterStarted}
 * @param formatStamp       the graph format stamp, recorded in {@link JournalEvent.WriterStarted}
 * @param clock             source of record timestamps (clamped so they never go backwards)
 * @param prepareAhead      whether a thread keeps the cycle file's pages allocated and touched ahead of the appender,
 *                          so a sync writes only the records' pages and no block allocation (docs/journal.md "What a
 *                          sync allocates"); on by default. Turn it off on a copy-on-write file system (btrfs, ZFS),
 *                          where a page written ahead is written again by the records' sync. Durability never depends
 *                          on it
 */
public record JournalOptions(Durability defaultDurability, String binaryVersion, int formatStamp, Clock clock,
                             boolean prepareAhead) {
    public JournalOptions {
        Objects.requireNonNull(defaultDurability, "defaultDurability");
        Objects.requireNonNull(binaryVersion, "binaryVersion");
        Objects.requireNonNull(clock, "clock");
    }

    /** POWER_LOSS by default (DESIGN §4), the system clock, binary version "dev", stamp 0, pages prepared ahead. */
    public static JournalOptions defaults() {
        return new JournalOptions(Durability.POWER_LOSS, "dev", 0, Clock.systemUTC(), true);
    }

    public JournalOptions withDefaultDurability(Durability d) {
        return new JournalOptions(d, binaryVersion, formatStamp, clock, prepareAhead);
    }

    public JournalOptions withBinaryVersion(String v) {
        return new JournalOptions(defaultDurability, v, formatStamp, clock, prepareAhead);
    }

    public JournalOptions withFormatStamp(int stamp) {
        return new JournalOptions(defaultDurability, binaryVersion, stamp, clock, prepareAhead);
    }

    public JournalOptions withClock(Clock c) {
        return new JournalOptions(defaultDurability, binaryVersion, formatStamp, c, prepareAhead);
    }

    /** Whether the cycle file's pages are prepared ahead of the appender ({@link #prepareAhead}). */
    public JournalOptions withPrepareAhead(boolean on) {
        return new JournalOptions(defaultDurability, binaryVersion, formatStamp, clock, on);
    }
}
