package io.palisade.journal;

import net.openhft.chronicle.bytes.SyncMode;
import net.openhft.chronicle.core.time.TimeProvider;
import net.openhft.chronicle.queue.RollCycle;
import net.openhft.chronicle.queue.RollCycles;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueue;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueueBuilder;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.stream.Stream;

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
     * The roll cycle of the segments this build writes: a new Chronicle file every five minutes of the writer's clock,
     * so that a long writer session leaves closed files behind for the row release ({@link RowRelease}) to rewrite.
     * Segments written before it roll daily ({@link RollCycles#FAST_DAILY}); a reader takes each segment's cycle from
     * its files' names.
     */
    static final RollCycles WRITE_CYCLE = RollCycles.FIVE_MINUTELY;
    /** The roll cycle of segments written before {@link #WRITE_CYCLE}. */
    static final RollCycles LEGACY_CYCLE = RollCycles.FAST_DAILY;

    /**
     * A read-only queue on {@code dir}, in the segment's own roll cycle; {@link SyncMode#SYNC} as the writer's. A
     * truncated cycle file is first extended with zeros ({@link Segments#extendShortCycleFiles}).
     */
    static SingleChronicleQueue open(Path dir, boolean readOnly) {
        if (readOnly) {
            int n = Segments.extendShortCycleFiles(dir);
            if (n > 0) {
                LOG.warn("journal segment {}: {} truncated cycle file(s) extended with zeros before reading", dir, n);
            }
        }
        SingleChronicleQueue q = builder(dir, cycleOf(dir)).readOnly(readOnly).build();
        if (!readOnly || listingHolds(q)) {
            return q;
        }
        // the file retention deleted the file Chronicle's listing names as the lowest cycle and has not refreshed the
        // listing yet (or crashed before it did): refresh it here, then read
        q.close();
        refreshListing(dir);
        return builder(dir, cycleOf(dir)).readOnly(true).build();
    }

    /** Whether every cycle Chronicle's directory listing names between its lowest and highest has its file. */
    private static boolean listingHolds(SingleChronicleQueue q) {
        try {
            if (q.firstIndex() != Long.MAX_VALUE) {
                q.listCyclesBetween(q.firstCycle(), q.lastCycle());
            }
            return true;
        } catch (IllegalStateException e) {
            return false;
        }
    }

    /**
     * Makes Chronicle's directory listing of the segment in {@code dir} (its lowest and highest cycle, kept in the
     * queue's metadata file) agree with the cycle files present, after the file retention deleted the oldest. A
     * read-only queue cannot: this opens the queue writable, without an appender, so nothing is appended.
     */
    static void refreshListing(Path dir) {
        if (!Files.isDirectory(dir)) {
            return; // removed meanwhile: a writable open would create it again
        }
        try (SingleChronicleQueue q = builder(dir, cycleOf(dir)).build()) {
            q.refreshDirectoryListing();
        }
    }

    /**
     * The writer's queue on a new segment directory: {@link #WRITE_CYCLE}, rolled by {@code time} (the writer sets it
     * to each record's own timestamp before appending it, so a file holds the records stamped in its five minutes),
     * {@link SyncMode#SYNC} so that {@code appender.sync()} is a synchronous msync (called only for
     * {@link Durability#POWER_LOSS} appends).
     */
    static SingleChronicleQueue openForWriting(Path dir, TimeProvider time) {
        return builder(dir, WRITE_CYCLE).timeProvider(time).build();
    }

    /** A queue for rewriting one cycle file of a segment of {@code cycle}, its clock set at that cycle's start. */
    static SingleChronicleQueue openForRewrite(Path dir, RollCycle cycle, TimeProvider time) {
        return builder(dir, cycle).timeProvider(time).build();
    }

    private static SingleChronicleQueueBuilder builder(Path dir, RollCycle cycle) {
        return SingleChronicleQueueBuilder.binary(dir)
                .rollCycle(cycle)
                .blockSize(BLOCK_SIZE)
                .syncMode(SyncMode.SYNC);
    }

    /**
     * The roll cycle of the segment in {@code dir}, from its cycle files' names ({@code 20261205F.cq4} daily,
     * {@code 20261205-0035V.cq4} every five minutes); a segment without a cycle file yet is the writer's.
     */
    static RollCycle cycleOf(Path dir) {
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString())
                    .filter(n -> n.endsWith(SUFFIX))
                    .findFirst()
                    .map(n -> n.charAt(n.length() - SUFFIX.length() - 1) == LEGACY_MARK ? (RollCycle) LEGACY_CYCLE
                            : WRITE_CYCLE)
                    .orElse(WRITE_CYCLE);
        } catch (NoSuchFileException e) {
            return WRITE_CYCLE;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list journal segment " + dir, e);
        }
    }

    static final String SUFFIX = ".cq4";
    /** The last character of a daily cycle file's name before {@link #SUFFIX} ({@code yyyyMMdd'F'}). */
    private static final char LEGACY_MARK = 'F';
}
