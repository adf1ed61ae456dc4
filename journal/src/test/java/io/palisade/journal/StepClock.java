package io.palisade.journal;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A clock a test moves by hand: a journal writer's record times follow it, and so does the roll of its files (every
 * five minutes of record time), so tests make closed files without waiting. Reading it never moves it.
 */
public final class StepClock extends Clock {
    private final AtomicLong millis;

    /** @param startMillis epoch milliseconds of the first reading */
    public StepClock(long startMillis) {
        this.millis = new AtomicLong(startMillis);
    }

    /** A clock at 2026-01-01T00:00:30Z. */
    public StepClock() {
        this(Instant.parse("2026-01-01T00:00:30Z").toEpochMilli());
    }

    /** Moves the clock {@code ms} milliseconds on. */
    public void advance(long ms) {
        millis.addAndGet(ms);
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        return this;
    }

    @Override
    public Instant instant() {
        return Instant.ofEpochMilli(millis.get());
    }
}
