package io.palisade.journal;

import net.openhft.chronicle.core.OS;
import net.openhft.posix.MAdviseFlag;
import net.openhft.posix.MMapFlag;
import net.openhft.posix.MMapProt;
import net.openhft.posix.MSyncFlag;
import net.openhft.posix.OpenFlag;
import net.openhft.posix.PosixAPI;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.locks.LockSupport;

/**
 * Prepares the bytes of the appender's cycle file ahead of its write position, on a thread of its own, so that a sync
 * of the records later written there writes those pages and nothing else.
 *
 * <p><b>Why.</b> Chronicle's cycle file is sparse: each page the appender first writes is a hole. The sync of a group
 * whose records reach a new page then allocates its block, and on ext4 the fsync behind the msync also writes the
 * inode and the allocation's metadata buffers, each a synchronous write of its own, before the cache flush: three
 * writes a sync instead of one. Measured on this project's machine kind (a VM, ext4 without a journal, 6.18): a lone
 * 5.6 KiB msync took 0.21 ms and 75–85 µs of kernel CPU into holes, 0.12–0.14 ms and 40–45 µs into prepared pages;
 * 16 journal-ack writers acknowledged 28–41 % more writes a second (docs/benchmarks.md "The journal's syncs allocated
 * blocks").
 *
 * <p><b>What a step does</b>, for the next {@link #step} bytes past what it prepared (never before the write position
 * it was last told, never past the file's current length): {@code fallocate} the range (the blocks are reserved, so no
 * later write into it can fail for space with a signal), map it with random-access advice (each page comes into the
 * page cache alone, as {@link MappingAdvice} keeps the appender's pages), touch every page with an atomic
 * compare-and-set of a zero word with zero, msync the range and unmap it. The blocks are then allocated and written,
 * and the pages are in memory, clean and single: the appender's later write into one is a minor fault, and its sync
 * writes the page alone.
 *
 * <p><b>Invariants.</b>
 * <ul>
 *   <li>It never changes a byte of the file. The compare-and-set writes zero only where the word was zero, atomically
 *       with any store of the appender to that word (a word the appender wrote stays as it wrote it); the fallocate
 *       keeps the file's length and the content of every byte.</li>
 *   <li>It never touches past the file's length as it read it just before the step. Chronicle only ever extends a
 *       cycle file (it maps the next chunk after growing the file), and nothing in Palisade truncates the file a
 *       writer appends to, so a page below that length stays backed while it is mapped.</li>
 *   <li>The appender's durability never depends on it: a sync of records written into pages it has not prepared
 *       allocates and writes what they need, as before. It only moves that work ahead of the sync.</li>
 * </ul>
 *
 * <p>The first failure (no native calls here, a file system without {@code fallocate}, no space) is logged once and
 * ends the preparing for this journal; the appends go on as they did without it. A cycle file keeps at most
 * {@link #ahead} prepared bytes past its last record when the queue rolls to the next one (allocated zeros, counted by
 * {@code du}, not by the file's length).
 */
final class Pretoucher implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Pretoucher.class);
    /** How far ahead of the write position the file is kept prepared. */
    static final long DEFAULT_AHEAD = 8L << 20;
    /** The bytes one step prepares. */
    static final long DEFAULT_STEP = 2L << 20;
    /** The unit of a mapping's offset and of the touches: the OS's page. */
    static final long PAGE = OS.pageSize();

    private final long ahead;
    private final long step;
    private final Thread thread;

    /** The appender's file and write position (the committer's view), published by {@link #appended}. */
    private volatile Path file;
    private volatile long position;
    /**
     * The end of the prepared range of {@link #file} (0 until its first step), as the appender's thread reads it to
     * decide when to wake the preparing thread.
     */
    private volatile long prepared;
    private volatile boolean closed;
    private volatile boolean failed;

    // the preparing thread's own state: the file it prepares, open, and the end of its prepared range
    private Path preparedFile;
    private int fd = -1;
    private long preparedEnd;

    /** A pretoucher with its own thread, started; {@link #close} stops it. */
    static Pretoucher started(String name) {
        return started(name, DEFAULT_AHEAD, DEFAULT_STEP);
    }

    /** A pretoucher with its own thread, keeping {@code ahead} bytes prepared, {@code step} at a time (tests). */
    static Pretoucher started(String name, long ahead, long step) {
        Pretoucher p = new Pretoucher(ahead, step, true, name);
        p.thread.start();
        return p;
    }

    /** A pretoucher without a thread (tests): {@link #prepare()} does the preparing on the caller's thread. */
    static Pretoucher inline(long ahead, long step) {
        return new Pretoucher(ahead, step, false, null);
    }

    private Pretoucher(long ahead, long step, boolean threaded, String name) {
        if (step <= 0 || step % PAGE != 0 || ahead < step) {
            throw new IllegalArgumentException("step must be a positive multiple of the page (" + PAGE
                    + " bytes) and ahead at least a step");
        }
        this.ahead = ahead;
        this.step = step;
        this.thread = threaded ? new Thread(this::run, name) : null;
        if (thread != null) {
            thread.setDaemon(true);
        }
    }

    /**
     * The appender wrote up to {@code position} of {@code file} (called after each append, by the appender's thread;
     * {@code file} is the same object while the cycle is). Wakes the preparing thread once more than a step of the
     * prepared range was used up.
     */
    void appended(Path file, long position) {
        if (failed) {
            return;
        }
        this.position = position;
        if (file != this.file) {
            this.file = file;
            this.prepared = 0;
            wake();
        } else if (position + ahead - step >= prepared) {
            wake();
        }
    }

    private void wake() {
        if (thread != null) {
            LockSupport.unpark(thread);
        }
    }

    /** The end of the range prepared in the file last prepared (tests). */
    long preparedThrough() {
        return preparedEnd;
    }

    /** Whether a failure ended the preparing (tests). */
    boolean failed() {
        return failed;
    }

    private void run() {
        while (!closed && !failed) {
            if (!prepare()) {
                LockSupport.park(this);
            }
        }
        closeFile();
    }

    /**
     * One step, when the current file is not prepared {@link #ahead} past the write position; whether it prepared
     * anything.
     */
    boolean prepare() {
        Path f = file;
        if (f == null || failed || closed) {
            return false;
        }
        long pos = position;
        try {
            if (f != preparedFile) {
                closeFile();
                fd = PosixAPI.posix().open(f.toString(), OpenFlag.O_RDWR.value(), 0);
                if (fd < 0) {
                    throw new IllegalStateException("open failed, errno " + PosixAPI.posix().lastError());
                }
                preparedFile = f;
                preparedEnd = 0;
            }
            long done = Math.max(preparedEnd, (pos + PAGE - 1) & -PAGE);
            if (done >= pos + ahead) {
                return false;
            }
            long end = Math.min(done + step, Files.size(f) & -PAGE);
            if (end <= done) {
                return false; // the file is not long enough yet: Chronicle grows it when it maps its next chunk
            }
            touch(done, end - done);
            preparedEnd = end;
            prepared = end;
            return true;
        } catch (RuntimeException | LinkageError | java.io.IOException e) {
            failed = true;
            closeFile();
            LOG.warn("journal: stopped preparing the pages ahead of the appender in {} ({}); syncs go on allocating "
                    + "the blocks they write", f, e.toString());
            return false;
        }
    }

    private void touch(long offset, long length) {
        PosixAPI posix = PosixAPI.posix();
        int rc = posix.fallocate(fd, 0, offset, length);
        if (rc != 0) {
            throw new IllegalStateException("fallocate of " + length + " bytes at " + offset + " failed, errno "
                    + posix.lastError());
        }
        long address = posix.mmap(0, length, MMapProt.PROT_READ_WRITE, MMapFlag.SHARED, fd, offset);
        if (address == -1 || address == 0) {
            throw new IllegalStateException("mmap of " + length + " bytes at " + offset + " failed, errno "
                    + posix.lastError());
        }
        try {
            if (posix.madvise(address, length, MAdviseFlag.MADV_RANDOM) != 0) {
                // without it the touches would read around into large folios, which the appender's syncs would then
                // write back whole (MappingAdvice): better not to prepare at all
                throw new IllegalStateException("madvise of " + length + " bytes at " + offset + " refused, errno "
                        + posix.lastError());
            }
            for (long p = 0; p < length; p += PAGE) {
                OS.memory().compareAndSwapLong(address + p, 0L, 0L);
            }
            if (posix.msync(address, length, MSyncFlag.MS_SYNC) != 0) {
                throw new IllegalStateException("msync of " + length + " bytes at " + offset + " failed, errno "
                        + posix.lastError());
            }
        } finally {
            posix.munmap(address, length);
        }
    }

    private void closeFile() {
        if (fd >= 0) {
            PosixAPI.posix().close(fd);
            fd = -1;
        }
        preparedFile = null;
    }

    /** Stops the preparing thread and waits for its step in progress. */
    @Override
    public void close() {
        closed = true;
        if (thread == null) {
            closeFile();
            return;
        }
        LockSupport.unpark(thread);
        boolean interrupted = false;
        while (thread.isAlive()) {
            try {
                thread.join();
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
