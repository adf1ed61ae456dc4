package io.palisade.journal;

import net.openhft.chronicle.bytes.SyncMode;
import net.openhft.chronicle.queue.RollCycles;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueue;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueueBuilder;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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

    private static final Logger LOG = LoggerFactory.getLogger(ChronicleSupport.class);

    /** Chronicle's block size for our queues (its default). */
    static final long BLOCK_SIZE = 64L << 20;
    /** Length Chronicle gives a new cycle file: one block plus a quarter-block overlap (sparse). */
    static final long CYCLE_FILE_LENGTH = BLOCK_SIZE + BLOCK_SIZE / 4;

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
        if (readOnly) {
            int n = Segments.extendShortCycleFiles(dir);
            if (n > 0) {
                LOG.warn("journal segment {}: {} truncated cycle file(s) extended with zeros before reading", dir, n);
            }
        }
        return SingleChronicleQueueBuilder.binary(dir)
                .rollCycle(RollCycles.FAST_DAILY)
                .blockSize(BLOCK_SIZE)
                .syncMode(SyncMode.SYNC)
                .readOnly(readOnly)
                .build();
    }
}
