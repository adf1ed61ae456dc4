package io.palisade.coordinator.internal;

import io.micrometer.core.instrument.Timer;

import java.util.Arrays;
import java.util.concurrent.TimeUnit;

/**
 * One timed measure of a graph: its own {@link Timer} (count, total and recent maximum, what {@code Metrics} reads)
 * and the timers with percentiles and a histogram that {@link Meters#bind} registered for it in embedders'
 * registries. A recording goes to each of them, with no lookup.
 *
 * <p>Thread-safe: any thread records; binding and unbinding replace the array of bound timers.
 */
public final class Latency {
    private static final Timer[] NONE = {};

    private final Timer own;
    private volatile Timer[] bound = NONE;

    Latency(Timer own) {
        this.own = own;
    }

    /** Records a duration of {@code nanos} nanoseconds. */
    public void record(long nanos) {
        own.record(nanos, TimeUnit.NANOSECONDS);
        for (Timer t : bound) {
            t.record(nanos, TimeUnit.NANOSECONDS);
        }
    }

    /** Durations recorded since the graph was opened. */
    public long count() {
        return own.count();
    }

    /** Their sum, in nanoseconds. */
    public long totalNanos() {
        return (long) own.totalTime(TimeUnit.NANOSECONDS);
    }

    synchronized void bind(Timer timer) {
        Timer[] next = Arrays.copyOf(bound, bound.length + 1);
        next[bound.length] = timer;
        bound = next;
    }

    synchronized void unbindAll() {
        bound = NONE;
    }
}
