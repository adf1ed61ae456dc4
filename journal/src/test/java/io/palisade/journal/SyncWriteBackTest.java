package io.palisade.journal;

import io.palisade.journal.JournalEvent.GraphBranchDeleted;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A {@code POWER_LOSS} sync writes back the pages its records touched, not the large page-cache folio around them
 * ({@link MappingAdvice}). Measured through the appending thread's own I/O accounting: Linux charges the bytes of a
 * page-cache folio to the thread that dirties it, the whole folio at once, so what a group's append dirtied is what
 * its sync has to write.
 *
 * <p>Without the advice, on a kernel with large page-cache folios (XFS, and ext4 in recent 6.x kernels; this suite's
 * machines run 6.18 on ext4), the folios grow with each read-around round and a group's sync dirtied 460 KiB at
 * 30 MiB into the cycle file and 2 MiB from 50 MiB on; with it, 15 KiB throughout. Both of Chronicle's first two mappings of the file are measured (it
 * maps a cycle file one chunk at a time, each inside the append that first needs it). On a kernel without large
 * folios the check holds either way.
 */
class SyncWriteBackTest {
    private static final Path THREAD_IO = Path.of("/proc/thread-self/io");
    /** Records of about 880 bytes, a journal-ack single-row write's size. */
    private static final int NAME_LENGTH = 796;
    private static final int GROUP = 16;

    @TempDir
    Path graph;

    @Test
    void aGroupsSyncDirtiesThePagesItsRecordsTouchedNotAWholeFolio() throws IOException {
        dirtiedByThisThread(); // aborts loudly here, before writing, where it cannot be read
        List<JournalEvent> group = new ArrayList<>();
        for (int i = 0; i < GROUP; i++) {
            group.add(new GraphBranchDeleted(String.format("%0" + NAME_LENGTH + "d", i)));
        }
        long groupBytes = GROUP * (NAME_LENGTH + 80L);
        long chunk = ChronicleSupport.BLOCK_SIZE; // Chronicle maps a cycle file this many bytes at a time
        try (Journal j = Journal.open(graph.resolve("_palisade"), JournalFiles.ONE_CYCLE)) {
            // past where read-around's folios had grown to 460 KiB, in the file's first mapping
            append(j, group, (30L << 20) / groupBytes);
            long firstChunk = dirtiedPerSync(j, group, (20L << 20) / groupBytes);
            append(j, group, (chunk - (50L << 20)) / groupBytes);
            // the second mapping, which Chronicle made inside an append, before it could be advised
            long secondChunk = dirtiedPerSync(j, group, (30L << 20) / groupBytes);
            // the group's own bytes, rounded out to whole pages at both ends, and a page of Chronicle's index
            assertThat(firstChunk).as("bytes dirtied per group of %d records (%d bytes) and its sync, 30-50 MiB into "
                            + "the cycle file", GROUP, groupBytes)
                    .isGreaterThanOrEqualTo(groupBytes / 2)
                    .isLessThanOrEqualTo(groupBytes + 3 * 4096);
            assertThat(secondChunk).as("bytes dirtied per group and its sync, 0-30 MiB into the second chunk")
                    .isGreaterThanOrEqualTo(groupBytes / 2)
                    .isLessThanOrEqualTo(groupBytes + 3 * 4096);
        }
    }

    private static void append(Journal j, List<JournalEvent> group, long groups) {
        for (long g = 0; g < groups; g++) {
            j.appendBatch(group, Durability.POWER_LOSS);
        }
    }

    private static long dirtiedPerSync(Journal j, List<JournalEvent> group, long groups) throws IOException {
        long start = dirtiedByThisThread();
        append(j, group, groups);
        return (dirtiedByThisThread() - start) / groups;
    }

    /** The bytes this thread has dirtied in the page cache ({@code write_bytes}); aborts loudly where unreadable. */
    private static long dirtiedByThisThread() throws IOException {
        if (!Files.isReadable(THREAD_IO)) {
            String line = "[sync-write-back] SKIPPED: " + THREAD_IO + " is not readable here (not Linux, or no task "
                    + "I/O accounting); the journal's sync write-back check did NOT run";
            System.out.println(line);
            System.err.println(line);
            Assumptions.abort(line);
        }
        for (String l : Files.readAllLines(THREAD_IO)) {
            if (l.startsWith("write_bytes:")) {
                return Long.parseLong(l.substring("write_bytes:".length()).trim());
            }
        }
        throw new IllegalStateException(THREAD_IO + " has no write_bytes line");
    }
}
