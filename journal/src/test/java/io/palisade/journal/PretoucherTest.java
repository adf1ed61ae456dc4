package io.palisade.journal;

import net.openhft.chronicle.core.OS;
import net.openhft.posix.MAdviseFlag;
import net.openhft.posix.OpenFlag;
import net.openhft.posix.PosixAPI;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The pretoucher allocates the file's blocks ahead of the write position and never changes a byte: run on the test's
 * thread ({@link Pretoucher#inline}) for what it prepares, and on its own thread against a concurrent writer for what
 * it leaves.
 */
class PretoucherTest {
    private static final long MIB = 1L << 20;
    private static final long PAGE = Pretoucher.PAGE;
    /** Linux's {@code SEEK_HOLE} (the posix library's {@code WhenceFlag} carries another platform's value). */
    private static final int SEEK_HOLE = 4;

    @TempDir
    Path dir;

    @Test
    void preparesTheBytesAheadOfTheWritePositionAndChangesNone() throws Exception {
        Path file = sparse("cycle", 16 * MIB);
        long position = 300_000;
        byte[] written = random(1, (int) position);
        write(file, written);
        byte[] before = sha256(file);
        Pretoucher p = Pretoucher.inline(8 * MIB, 2 * MIB);
        p.appended(file, position);
        int steps = 0;
        while (p.prepare()) {
            steps++;
        }
        long start = roundUp(position);
        assertThat(steps).isEqualTo(4);
        assertThat(p.preparedThrough()).isEqualTo(start + 4 * 2 * MIB).isGreaterThanOrEqualTo(position + 8 * MIB);
        assertThat(p.failed()).isFalse();
        assertThat(sha256(file)).as("the file's bytes").isEqualTo(before);
        assertThat(Files.size(file)).isEqualTo(16 * MIB);
        // the prepared range has its blocks (a hole is where no block is allocated), the rest is still a hole
        assertThat(nextHole(file, start)).isGreaterThanOrEqualTo(p.preparedThrough());
        assertThat(nextHole(file, p.preparedThrough())).isEqualTo(p.preparedThrough());
        p.close();
    }

    @Test
    void stopsAtTheFilesLengthAndGoesOnOnceItGrows() throws Exception {
        Path file = sparse("short", 3 * MIB);
        Pretoucher p = Pretoucher.inline(8 * MIB, 2 * MIB);
        p.appended(file, 100);
        while (p.prepare()) {
            // to the file's end
        }
        assertThat(p.preparedThrough()).isEqualTo(3 * MIB);
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
            raf.setLength(20 * MIB); // as Chronicle grows a cycle file before it maps its next chunk
        }
        p.appended(file, 200);
        while (p.prepare()) {
            // ahead of the write position now
        }
        assertThat(p.preparedThrough()).isGreaterThanOrEqualTo(200 + 8 * MIB).isLessThan(200 + 10 * MIB);
        assertThat(nextHole(file, PAGE)).isGreaterThanOrEqualTo(p.preparedThrough());
        p.close();
    }

    @Test
    void aNewCycleFileIsPreparedFromItsOwnWritePosition() throws Exception {
        Path first = sparse("first", 16 * MIB);
        Path second = sparse("second", 16 * MIB);
        Pretoucher p = Pretoucher.inline(4 * MIB, MIB);
        p.appended(first, 6 * MIB);
        while (p.prepare()) {
            // the first file
        }
        assertThat(p.preparedThrough()).isEqualTo(10 * MIB);
        p.appended(second, 2 * PAGE);
        while (p.prepare()) {
            // the second file, from its own position, not the first file's
        }
        assertThat(p.preparedThrough()).isEqualTo(2 * PAGE + 4 * MIB);
        assertThat(nextHole(second, 0)).isEqualTo(0); // nothing before its write position was touched
        assertThat(nextHole(second, 2 * PAGE)).isGreaterThanOrEqualTo(2 * PAGE + 4 * MIB);
        p.close();
    }

    @Test
    void aFileItCannotOpenEndsThePreparingAndNotTheAppends() {
        Pretoucher p = Pretoucher.inline(4 * MIB, MIB);
        p.appended(dir.resolve("missing"), 0);
        assertThat(p.prepare()).isFalse();
        assertThat(p.failed()).isTrue();
        p.appended(dir.resolve("missing"), PAGE); // the appender's calls go on, doing nothing
        assertThat(p.prepare()).isFalse();
        p.close();
    }

    /**
     * A writer stores bytes through its own mapping while the pretoucher, one page ahead, touches each next page: it
     * reaches the page the writer is about to write, so its compare-and-set meets the writer's stores there. Every
     * byte read back is the byte written.
     */
    @Test
    void aConcurrentWritersBytesAreAllKept() throws Exception {
        long length = 24 * MIB;
        Path file = sparse("raced", length);
        byte[] expected = random(7, (int) length);
        Pretoucher p = Pretoucher.started("test-pretouch", PAGE, PAGE);
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            long address = OS.map(ch, FileChannel.MapMode.READ_WRITE, 0, length);
            try {
                PosixAPI.posix().madvise(address, length, MAdviseFlag.MADV_RANDOM);
                Random r = new Random(11);
                int at = 0;
                while (at < length) {
                    int n = Math.min((int) length - at, 8 + r.nextInt(200));
                    for (int i = 0; i < n; i++) {
                        OS.memory().writeByte(address + at + i, expected[at + i]);
                    }
                    at += n;
                    p.appended(file, at);
                }
            } finally {
                OS.unmap(address, length);
            }
        } finally {
            p.close();
        }
        assertThat(p.failed()).isFalse();
        assertThat(p.preparedThrough()).as("the pretoucher ran alongside").isGreaterThan(0);
        assertThat(Files.readAllBytes(file)).isEqualTo(expected);
    }

    private Path sparse(String name, long length) throws IOException {
        Path file = dir.resolve(name);
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
            raf.setLength(length);
        }
        return file;
    }

    private static void write(Path file, byte[] bytes) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
            ByteBuffer b = ByteBuffer.wrap(bytes);
            while (b.hasRemaining()) {
                ch.write(b, b.position());
            }
            ch.force(false);
        }
    }

    private static byte[] random(long seed, int n) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    private static byte[] sha256(Path file) throws IOException, NoSuchAlgorithmException {
        return MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(file));
    }

    private static long roundUp(long position) {
        return (position + PAGE - 1) & -PAGE;
    }

    /** The offset of the first hole at or after {@code from} (the file's length where there is none). */
    private static long nextHole(Path file, long from) {
        PosixAPI posix = PosixAPI.posix();
        int fd = posix.open(file.toString(), OpenFlag.O_RDONLY.value(), 0);
        assertThat(fd).isGreaterThanOrEqualTo(0);
        try {
            long hole = posix.lseek(fd, from, SEEK_HOLE);
            assertThat(hole).as("lseek SEEK_HOLE, errno %d", posix.lastError()).isGreaterThanOrEqualTo(0);
            return hole;
        } finally {
            posix.close(fd);
        }
    }
}
