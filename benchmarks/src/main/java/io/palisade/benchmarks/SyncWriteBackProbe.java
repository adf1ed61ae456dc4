package io.palisade.benchmarks;

import io.palisade.journal.Durability;
import io.palisade.journal.Journal;
import io.palisade.journal.JournalEvent;
import io.palisade.journal.JournalOptions;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * What a {@code POWER_LOSS} journal sync writes back, by position in the cycle file (docs/benchmarks.md "The
 * journal's syncs wrote whole large folios"). One thread appends groups of {@code --group} records of about 880
 * bytes (a journal-ack single-row write's size) with one sync each, until {@code --mib} MiB are journaled, and prints
 * every 8 MiB the bytes the appends dirtied per sync and the time per append and sync. The dirtied bytes come from
 * the thread's own I/O accounting ({@code /proc/thread-self/io} {@code write_bytes}: Linux charges a page-cache
 * folio's bytes, the whole folio, to the thread that dirties it), so they are what each sync has to write.
 *
 * <p>Usage: {@code SyncWriteBackProbe [--mib 150] [--group 13]}. Put another build's journal jar first on the class
 * path to measure that build.
 */
public final class SyncWriteBackProbe {
    private static final String USAGE = "--mib N, --group N";
    private static final Path THREAD_IO = Path.of("/proc/thread-self/io");
    private static final int NAME_LENGTH = 796;
    private static final long RECORD_BYTES = NAME_LENGTH + 80L;

    private SyncWriteBackProbe() {
    }

    public static void main(String[] args) throws IOException {
        int mib = 150;
        int group = 13;
        for (int i = 0; i < args.length; i += 2) {
            if (i + 1 >= args.length) {
                throw new IllegalArgumentException("option " + args[i] + " needs a value (" + USAGE + ")");
            }
            switch (args[i]) {
                case "--mib" -> mib = GraphWorkload.positive("--mib", args[i + 1]);
                case "--group" -> group = GraphWorkload.positive("--group", args[i + 1]);
                default -> throw new IllegalArgumentException("unknown option " + args[i] + " (" + USAGE + ")");
            }
        }
        if (!Files.isReadable(THREAD_IO)) {
            System.out.println(THREAD_IO + " is not readable here (not Linux, or no task I/O accounting): nothing to "
                    + "measure");
            return;
        }
        List<JournalEvent> batch = new ArrayList<>();
        for (int i = 0; i < group; i++) {
            batch.add(new JournalEvent.GraphBranchDeleted(String.format(Locale.ROOT, "%0" + NAME_LENGTH + "d", i)));
        }
        long perGroup = group * RECORD_BYTES;
        long groups = ((long) mib << 20) / perGroup;
        long every = (8L << 20) / perGroup;
        System.out.printf(Locale.ROOT, "groups of %d records (%,d bytes), one POWER_LOSS sync each, %d MiB; load "
                + "average %.1f%n", group, perGroup, mib, GraphWorkload.loadAverage());
        System.out.println("| journaled (MiB) | KiB dirtied per sync | ms per append and sync |");
        System.out.println("|---:|---:|---:|");
        Path dir = Files.createTempDirectory("sync-write-back");
        try (Journal j = Journal.open(dir.resolve("_palisade"), JournalOptions.defaults())) {
            long first = dirtied();
            long lastBytes = first;
            long lastNanos = System.nanoTime();
            for (long g = 1; g <= groups; g++) {
                j.appendBatch(batch, Durability.POWER_LOSS);
                if (g % every == 0 || g == groups) {
                    long bytes = dirtied();
                    long nanos = System.nanoTime();
                    long n = g % every == 0 ? every : g % every;
                    System.out.printf(Locale.ROOT, "| %.0f | %.1f | %.3f |%n", g * perGroup / 1048576.0,
                            (bytes - lastBytes) / 1024.0 / n, (nanos - lastNanos) / 1e6 / n);
                    lastBytes = bytes;
                    lastNanos = nanos;
                }
            }
            System.out.printf(Locale.ROOT, "all %,d syncs: %.1f KiB dirtied per sync%n", groups,
                    (dirtied() - first) / 1024.0 / groups);
        } finally {
            JournalBench.delete(dir);
        }
    }

    private static long dirtied() throws IOException {
        for (String l : Files.readAllLines(THREAD_IO)) {
            if (l.startsWith("write_bytes:")) {
                return Long.parseLong(l.substring("write_bytes:".length()).trim());
            }
        }
        throw new IllegalStateException(THREAD_IO + " has no write_bytes line");
    }
}
