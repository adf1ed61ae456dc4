package io.palisade.journal;

import net.openhft.chronicle.bytes.SyncMode;
import net.openhft.chronicle.queue.RollCycles;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueue;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueueBuilder;

import java.nio.file.Path;

/**
 * The one place that builds Chronicle queues. Its static initializer (and that of every public class
 * of this package that reaches Chronicle) sets {@code chronicle.analytics.disable=true} before any
 * Chronicle class initializes: Chronicle otherwise tries to send usage analytics.
 */
final class ChronicleSupport {
    static {
        disableAnalytics();
    }

    private ChronicleSupport() {
    }

    /** Idempotent; called from the static initializers of the classes that lead to Chronicle. */
    static void disableAnalytics() {
        System.setProperty("chronicle.analytics.disable", "true");
    }

    /**
     * A queue on {@code dir}: daily files, {@link SyncMode#SYNC} so that {@code appender.sync()} is a
     * synchronous msync (it is called only for {@link Durability#POWER_LOSS} appends).
     */
    static SingleChronicleQueue open(Path dir, boolean readOnly) {
        return SingleChronicleQueueBuilder.binary(dir)
                .rollCycle(RollCycles.FAST_DAILY)
                .syncMode(SyncMode.SYNC)
                .readOnly(readOnly)
                .build();
    }
}
