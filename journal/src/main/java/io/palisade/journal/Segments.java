package io.palisade.journal;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * Journal segments: one Chronicle queue directory per writer session, named after the writer's lease
 * epoch ({@code epoch-0000000000000000007}), so a queue file is only ever appended to by the process
 * that created it. A segment becomes part of the journal when its {@code .ready} marker exists; the
 * writer creates the marker after the segment's first record ({@code WriterStarted}) is durable.
 * Directories without a marker are leftovers of a writer that died while opening and hold no
 * acknowledged record.
 */
final class Segments {
    static final String PREFIX = "epoch-";
    static final String READY = ".ready";

    private Segments() {
    }

    static Path dir(Path journalDir, long epoch) {
        return journalDir.resolve(String.format("%s%019d", PREFIX, epoch));
    }

    static Path marker(Path journalDir, long epoch) {
        return journalDir.resolve(String.format("%s%019d%s", PREFIX, epoch, READY));
    }

    /** Epochs of the ready segments, ascending. */
    static long[] ready(Path journalDir) {
        if (!Files.isDirectory(journalDir)) {
            return new long[0];
        }
        try (Stream<Path> s = Files.list(journalDir)) {
            long[] out = s.map(p -> p.getFileName().toString())
                    .filter(n -> n.startsWith(PREFIX) && n.endsWith(READY))
                    .mapToLong(n -> Long.parseLong(n.substring(PREFIX.length(), n.length() - READY.length())))
                    .toArray();
            Arrays.sort(out);
            return out;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list journal " + journalDir, e);
        }
    }

    /** The highest epoch with a segment directory or marker, ready or not; 0 when none. */
    static long maxEpoch(Path journalDir) {
        if (!Files.isDirectory(journalDir)) {
            return 0;
        }
        try (Stream<Path> s = Files.list(journalDir)) {
            return s.map(p -> p.getFileName().toString())
                    .filter(n -> n.startsWith(PREFIX))
                    .mapToLong(n -> Long.parseLong(n.substring(PREFIX.length(), PREFIX.length() + 19)))
                    .max().orElse(0);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list journal " + journalDir, e);
        }
    }

    /** Creates the ready marker of a segment durably (file, then the directory entry). */
    static void markReady(Path journalDir, long epoch) {
        try {
            Path m = marker(journalDir, epoch);
            try (FileChannel ch = FileChannel.open(m, StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
                ch.force(true);
            }
            fsyncDirectory(journalDir);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot mark journal segment " + epoch + " ready", e);
        }
    }

    /**
     * Removes every segment directory without a marker: leftovers of writers that died while opening.
     * Only the lease holder may call it (no other writer can be opening a segment meanwhile).
     */
    static int deleteAllUnready(Path journalDir) {
        if (!Files.isDirectory(journalDir)) {
            return 0;
        }
        int n = 0;
        try (Stream<Path> s = Files.list(journalDir)) {
            for (Path p : s.toList()) {
                String name = p.getFileName().toString();
                if (name.startsWith(PREFIX) && !name.endsWith(READY) && Files.isDirectory(p)
                        && !Files.exists(journalDir.resolve(name + READY))) {
                    deleteUnready(journalDir, Long.parseLong(name.substring(PREFIX.length())));
                    n++;
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list journal " + journalDir, e);
        }
        return n;
    }

    /** Removes a leftover segment directory without a marker. */
    static void deleteUnready(Path journalDir, long epoch) {
        Path d = dir(journalDir, epoch);
        try {
            deleteTree(d);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot remove unready journal segment " + d, e);
        }
    }

    /** Removes a directory and everything in it; nothing when it does not exist. */
    static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(dir)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }

    /**
     * Extends any cycle file of a segment that is shorter than Chronicle's first mapping (one block plus
     * its overlap) with zeros. Chronicle creates every cycle file at that length (sparse), so a shorter one
     * was truncated by a crash or by hand; mapping it read-only would fault past the end of the file.
     * Extending with zeros changes no content: zeros are what the lost bytes read as to Chronicle (an
     * excerpt header of zero is the end of the queue). Returns the number of files extended.
     */
    static int extendShortCycleFiles(Path segmentDir) {
        if (!Files.isDirectory(segmentDir)) {
            return 0;
        }
        int extended = 0;
        try (Stream<Path> s = Files.list(segmentDir)) {
            for (Path p : s.filter(f -> f.toString().endsWith(".cq4")).toList()) {
                long size;
                try {
                    size = Files.size(p);
                } catch (java.nio.file.NoSuchFileException gone) {
                    continue; // the file retention removed it meanwhile
                }
                if (size < ChronicleSupport.CYCLE_FILE_LENGTH) {
                    try (FileChannel ch = FileChannel.open(p, StandardOpenOption.WRITE)) {
                        ch.write(java.nio.ByteBuffer.allocate(1), ChronicleSupport.CYCLE_FILE_LENGTH - 1);
                        ch.force(true);
                    }
                    extended++;
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot repair short cycle files in " + segmentDir, e);
        }
        return extended;
    }

    /** Chronicle's per-queue metadata file (its table store). */
    static final String QUEUE_METADATA = "metadata.cq4t";

    /**
     * Makes a segment's Chronicle metadata file and the segment directory's entries durable (fsync of the file,
     * whose pages Chronicle writes through a mapping, then of the directory).
     */
    static void syncQueueMetadata(Path segmentDir) throws IOException {
        Path meta = segmentDir.resolve(QUEUE_METADATA);
        if (Files.exists(meta)) {
            try (FileChannel ch = FileChannel.open(meta, StandardOpenOption.READ)) {
                ch.force(true);
            }
        }
        fsyncDirectory(segmentDir);
    }

    /** Fsyncs the cycle file whose name comes last before {@code currentFile}'s (the one the writer rolled from). */
    static void syncCycleFileBefore(Path segmentDir, String currentFile) throws IOException {
        Path before = null;
        try (Stream<Path> s = Files.list(segmentDir)) {
            for (Path p : s.filter(f -> f.getFileName().toString().endsWith(ChronicleSupport.SUFFIX)).toList()) {
                String n = p.getFileName().toString();
                if (n.compareTo(currentFile) < 0 && (before == null || n.compareTo(before.getFileName().toString()) > 0)) {
                    before = p;
                }
            }
        }
        if (before != null) {
            try (FileChannel ch = FileChannel.open(before, StandardOpenOption.READ)) {
                ch.force(true);
            }
        }
    }

    static void fsyncDirectory(Path dir) throws IOException {
        try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
            ch.force(true);
        }
    }
}
