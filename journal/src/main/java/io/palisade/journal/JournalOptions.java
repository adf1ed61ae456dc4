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
 */
public record JournalOptions(Durability defaultDurability, String binaryVersion, int formatStamp, Clock clock) {
    public JournalOptions {
        Objects.requireNonNull(defaultDurability, "defaultDurability");
        Objects.requireNonNull(binaryVersion, "binaryVersion");
        Objects.requireNonNull(clock, "clock");
    }

    /** POWER_LOSS by default (DESIGN §4), the system clock, binary version "dev", stamp 0. */
    public static JournalOptions defaults() {
        return new JournalOptions(Durability.POWER_LOSS, "dev", 0, Clock.systemUTC());
    }

    public JournalOptions withDefaultDurability(Durability d) {
        return new JournalOptions(d, binaryVersion, formatStamp, clock);
    }

    public JournalOptions withBinaryVersion(String v) {
        return new JournalOptions(defaultDurability, v, formatStamp, clock);
    }

    public JournalOptions withFormatStamp(int stamp) {
        return new JournalOptions(defaultDurability, binaryVersion, stamp, clock);
    }

    public JournalOptions withClock(Clock c) {
        return new JournalOptions(defaultDurability, binaryVersion, formatStamp, c);
    }
}
