package io.palisade.journal;

import io.palisade.fencing.GraphRefusedException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.time.Instant;
import java.util.Optional;
import java.util.Properties;
import java.util.UUID;

/**
 * The exclusive writer lease of one graph: an OS file lock on {@code _palisade/writer.lease} plus the
 * owner record stored in that same file.
 *
 * <p>Invariants:
 * <ul>
 *   <li>At most one process holds the lock at a time (the OS enforces it; it is released when the
 *       holder exits, however it exits). A live holder is never overridden: a second process, or a
 *       second open in the same process, gets {@link GraphRefusedException} naming the holder.</li>
 *   <li>The epoch increases with every new holder: {@code max(previous owner epoch, floor) + 1}, and
 *       the owner record carrying it is forced to disk before {@link #acquire} returns.</li>
 *   <li>A holder that died leaves its owner record behind; the next acquirer takes over cleanly and
 *       reports it as {@link #previousOwner()}.</li>
 * </ul>
 */
public final class WriterLease implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(WriterLease.class);

    /** The lease file inside a graph's {@code _palisade/} directory. */
    public static final String FILE_NAME = "writer.lease";

    private final Path file;
    private final FileChannel channel;
    private final FileLock lock;
    private final LeaseOwner owner;
    private final LeaseOwner previousOwner;

    private WriterLease(Path file, FileChannel channel, FileLock lock, LeaseOwner owner, LeaseOwner previousOwner) {
        this.file = file;
        this.channel = channel;
        this.lock = lock;
        this.owner = owner;
        this.previousOwner = previousOwner;
    }

    /**
     * Takes the lease of the graph whose {@code _palisade/} directory is {@code palisadeDir}.
     *
     * @param floorEpoch the new epoch is greater than this too (the journal passes the highest epoch it holds)
     * @throws GraphRefusedException when another live process (or this one) holds the lease
     */
    public static WriterLease acquire(Path palisadeDir, long floorEpoch, Clock clock) {
        Path file = palisadeDir.resolve(FILE_NAME);
        FileChannel channel = null;
        try {
            Files.createDirectories(palisadeDir);
            channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ,
                    StandardOpenOption.WRITE);
            FileLock lock;
            try {
                lock = channel.tryLock();
            } catch (OverlappingFileLockException e) {
                lock = null;
            }
            if (lock == null) {
                LeaseOwner holder = read(channel);
                channel.close();
                throw new GraphRefusedException("graph " + palisadeDir.getParent() + " is held by another writer: "
                        + (holder == null ? "owner record not yet written" : holder.describe()));
            }
            LeaseOwner previous = read(channel);
            long epoch = Math.max(previous == null ? 0 : previous.epoch(), floorEpoch) + 1;
            LeaseOwner owner = new LeaseOwner(ProcessHandle.current().pid(), hostName(), clock.instant(), epoch,
                    UUID.randomUUID().toString());
            write(channel, owner);
            if (previous != null) {
                // the lock was free, so the previous owner no longer holds it: it exited, was killed, or (same pid)
                // is this process, which closed the graph and opened it again
                LOG.info("writer lease of {} taken; the previous owner ({}) {}; new epoch {}", palisadeDir,
                        previous.describe(), previous.pid() == owner.pid() && previous.host().equals(owner.host())
                                ? "was this process, which released it" : "released it or is gone", epoch);
            }
            return new WriterLease(file, channel, lock, owner, previous);
        } catch (IOException e) {
            closeQuietly(channel);
            throw new UncheckedIOException("cannot take the writer lease " + file, e);
        } catch (RuntimeException e) {
            closeQuietly(channel);
            throw e;
        }
    }

    /** The owner record of a lease file, whether or not anyone holds it now. */
    public static Optional<LeaseOwner> readOwner(Path palisadeDir) {
        Path file = palisadeDir.resolve(FILE_NAME);
        if (!Files.exists(file)) {
            return Optional.empty();
        }
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            return Optional.ofNullable(read(ch));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The owner of the lease if a process holds it now, else empty; takes nothing. Probes the OS lock with a shared
     * lock on a read-only handle, released at once: it conflicts with a holder's exclusive lock and with nothing else.
     * Within the holding process it answers the holder too.
     */
    public static Optional<LeaseOwner> holder(Path palisadeDir) {
        Path file = palisadeDir.resolve(FILE_NAME);
        if (!Files.exists(file)) {
            return Optional.empty();
        }
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            FileLock probe;
            try {
                probe = ch.tryLock(0, Long.MAX_VALUE, true);
            } catch (OverlappingFileLockException e) {
                probe = null; // this process holds it
            }
            if (probe != null) {
                probe.release();
                return Optional.empty();
            }
            return Optional.ofNullable(read(ch));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the writer lease " + file, e);
        }
    }

    public LeaseOwner owner() {
        return owner;
    }

    /** The owner record found when the lease was taken (a holder that closed or died), if any. */
    public Optional<LeaseOwner> previousOwner() {
        return Optional.ofNullable(previousOwner);
    }

    public boolean isValid() {
        return lock.isValid();
    }

    /** Releases the lock. The owner record stays (it carries the last epoch). */
    @Override
    public void close() {
        try {
            if (lock.isValid()) {
                lock.release();
            }
            channel.close();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot release the writer lease " + file, e);
        }
    }

    private static LeaseOwner read(FileChannel ch) throws IOException {
        long size = ch.size();
        if (size == 0 || size > 64 * 1024) {
            return null;
        }
        ByteBuffer buf = ByteBuffer.allocate((int) size);
        while (buf.hasRemaining() && ch.read(buf, buf.position()) > 0) {
            // read fully
        }
        Properties p = new Properties();
        p.load(new java.io.StringReader(new String(buf.array(), 0, buf.position(), StandardCharsets.UTF_8)));
        try {
            return new LeaseOwner(Long.parseLong(p.getProperty("pid")), p.getProperty("host"),
                    Instant.parse(p.getProperty("since")), Long.parseLong(p.getProperty("epoch")),
                    p.getProperty("token"));
        } catch (RuntimeException e) {
            // A holder killed while writing its record leaves it torn. Its epoch was never used by a
            // journal record (the journal floor covers every epoch that was), so it is safe to ignore.
            LOG.warn("unreadable writer lease owner record {} ignored: {}", p, e.toString());
            return null;
        }
    }

    private static void write(FileChannel ch, LeaseOwner o) throws IOException {
        String text = "pid=" + o.pid() + "\nhost=" + o.host() + "\nsince=" + o.since() + "\nepoch=" + o.epoch()
                + "\ntoken=" + o.token() + "\n";
        ByteBuffer buf = ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8));
        ch.truncate(0);
        long pos = 0;
        while (buf.hasRemaining()) {
            pos += ch.write(buf, pos);
        }
        ch.force(true);
    }

    static String hostName() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (IOException e) {
            String env = System.getenv("HOSTNAME");
            return env == null ? "unknown" : env;
        }
    }

    private static void closeQuietly(FileChannel ch) {
        if (ch != null) {
            try {
                ch.close();
            } catch (IOException ignored) {
                // already failing
            }
        }
    }
}
