package io.palisade.journal;

import io.palisade.journal.codec.RecordDescriptor;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.stream.Stream;

/**
 * Test access to the bytes of journal segments, to damage them as a crash, a power cut or a bad disk
 * would. Only ever used on a closed journal (no Chronicle handle open on the files).
 */
final class JournalFiles {
    private static final int SCAN_LIMIT = 8 * 1024 * 1024;

    /**
     * Writer options whose clock stands still, so that each writer session's segment is one Chronicle cycle file
     * ({@link #cycleFile}) however long the test runs.
     */
    static final JournalOptions ONE_CYCLE = JournalOptions.defaults()
            .withClock(java.time.Clock.fixed(java.time.Instant.parse("2026-01-01T00:01:00Z"), java.time.ZoneOffset.UTC));

    private JournalFiles() {
    }

    static Path segmentDir(Path palisade, long epoch) {
        return Segments.dir(palisade.resolve(Journal.DIRECTORY), epoch);
    }

    /** The one Chronicle cycle file of a segment. */
    static Path cycleFile(Path palisade, long epoch) {
        try (Stream<Path> s = Files.list(segmentDir(palisade, epoch))) {
            List<Path> files = s.filter(p -> p.toString().endsWith(".cq4")).toList();
            if (files.size() != 1) {
                throw new IllegalStateException("expected one cycle file, found " + files);
            }
            return files.get(0);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** [start, end) of the record holding {@code seq} in a cycle file (our record, not Chronicle's 4-byte header). */
    static long[] recordBounds(Path cycleFile, long seq) {
        try (FileChannel ch = FileChannel.open(cycleFile, StandardOpenOption.READ)) {
            int n = (int) Math.min(ch.size(), SCAN_LIMIT);
            ByteBuffer b = ByteBuffer.allocate(n).order(ByteOrder.LITTLE_ENDIAN);
            while (b.hasRemaining() && ch.read(b) > 0) {
                // read the head of the file
            }
            for (int i = 0; i + RecordDescriptor.HEADER_LENGTH <= n; i++) {
                if (b.getInt(i) == RecordDescriptor.MAGIC && b.getLong(i + RecordDescriptor.SEQUENCE_OFFSET) == seq) {
                    int payload = b.getInt(i + RecordDescriptor.PAYLOAD_LENGTH_OFFSET);
                    return new long[] {i, i + RecordDescriptor.recordLength(payload)};
                }
            }
            throw new IllegalStateException("record " + seq + " not found in " + cycleFile);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static void flipBit(Path file, long offset, int bit) {
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
            f.seek(offset);
            int v = f.read();
            f.seek(offset);
            f.write(v ^ (1 << bit));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static void write(Path file, long offset, byte[] bytes) {
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
            f.seek(offset);
            f.write(bytes);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Copies a closed journal's {@code _palisade} directory to {@code to}, keeping only the first
     * {@code keep} bytes of the given cycle file (a truncated file). Other files are copied whole.
     */
    static void copyTruncated(Path palisade, Path to, Path cycleFile, long keep) {
        try (Stream<Path> walk = Files.walk(palisade)) {
            for (Path p : walk.toList()) {
                Path target = to.resolve(palisade.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(target);
                } else if (p.equals(cycleFile)) {
                    copyPrefix(p, target, keep);
                } else if (p.toString().endsWith(".cq4")) {
                    copyPrefix(p, target, Math.min(Files.size(p), usedLength(p)));
                } else {
                    Files.copy(p, target);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The file length up to its last non-zero byte (Chronicle files are sparse and mostly zero). */
    private static long usedLength(Path p) throws IOException {
        try (FileChannel ch = FileChannel.open(p, StandardOpenOption.READ)) {
            int n = (int) Math.min(ch.size(), SCAN_LIMIT);
            ByteBuffer b = ByteBuffer.allocate(n);
            while (b.hasRemaining() && ch.read(b) > 0) {
                // read the head
            }
            int last = n - 1;
            while (last >= 0 && b.get(last) == 0) {
                last--;
            }
            return last + 1;
        }
    }

    private static void copyPrefix(Path from, Path to, long n) throws IOException {
        try (FileChannel in = FileChannel.open(from, StandardOpenOption.READ);
             FileChannel out = FileChannel.open(to, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            long done = 0;
            while (done < n) {
                done += in.transferTo(done, n - done, out);
            }
        }
    }
}
