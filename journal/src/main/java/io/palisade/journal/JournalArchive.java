package io.palisade.journal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.palisade.journal.codec.EventCodec;
import io.palisade.journal.codec.RecordCodec;
import io.palisade.journal.codec.RecordDescriptor;
import net.openhft.chronicle.queue.ExcerptTailer;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueue;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.security.DigestOutputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.NavigableSet;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;

/**
 * The journal's file retention: moves the oldest closed Chronicle files out of the local journal once their rows are
 * released ({@link RowRelease}) and the local journal holds more than a byte budget, keeping for each file the chain
 * anchors that tie it to its neighbours ({@link ArchivedFile}) in {@code journal/archive.log}, and optionally a copy.
 *
 * <p>Invariants:
 * <ul>
 *   <li>The local journal is always a suffix of the whole: files leave in sequence order, oldest first, so the local
 *       journal starts at one sequence ({@link #firstLocalSequence}), one past the last logged file's last record,
 *       and its first record links to that file's {@code lastHash}.</li>
 *   <li>Only files whose every record lies before the row release's progress leave: their journal-ack writes are
 *       folded, a durable checkpoint covers them, and they are older than the retention window, so no reopen,
 *       recovery or read of the graph's present needs them. The writer's open file never leaves.</li>
 *   <li>A file leaves in this order: its copy (when asked) is written, synced and renamed into place; its log line is
 *       appended and synced; then it is deleted and Chronicle's directory listing refreshed. A crash before the log
 *       line leaves the file in the journal (a copy left behind is overwritten by the next run); after it, the next run
 *       deletes the file the log already names. A torn last log line is cut by the next run.</li>
 *   <li>A segment whose every file left is removed (its ready marker first, so a crash leaves an unready directory,
 *       which the next writer's open removes).</li>
 * </ul>
 *
 * <p>{@code archive.log}: one JSON object per line, an {@link ArchivedFile}, appended and fsynced; never rewritten
 * except to cut a torn last line. It grows one line per file (one per five minutes of writes), about 100 KiB a year.
 * Only the writer that holds the lease runs it.
 */
final class JournalArchive {
    static {
        ChronicleSupport.disableAnalytics();
    }

    private static final Logger LOG = LoggerFactory.getLogger(JournalArchive.class);
    private static final ObjectMapper JSON = new ObjectMapper()
            .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);
    private static final HexFormat HEX = HexFormat.of();
    /** Bytes read from the end of the log to find its last line. */
    private static final int TAIL_BYTES = 8192;

    /** The log of archived files, in the journal directory. */
    static final String LOG_FILE = "archive.log";

    /** Where a run is stopped, for crash tests. */
    interface Hook {
        Hook NONE = new Hook() {
        };

        /** The copy (if any) is in place; the log does not name the file yet. */
        default void beforeLog(Path cycleFile) {
        }

        /** The log names the file; it is still in the journal. */
        default void afterLog(Path cycleFile) {
        }

        /** The file is deleted; Chronicle's directory listing still names it. */
        default void afterDelete(Path cycleFile) {
        }
    }

    private final Path journalDir;
    private final Clock clock;
    private final RecordCodec codec = new RecordCodec();
    private final Set<String> reported = new HashSet<>();

    JournalArchive(Path journalDir, Clock clock) {
        this.journalDir = journalDir;
        this.clock = clock;
    }

    // ------------------------------------------------------------------ the log

    /** The first sequence the local journal holds: one past the last archived file's last record; 0 when none left. */
    static long firstLocalSequence(Path journalDir) {
        return last(journalDir).map(f -> f.lastSequence() + 1).orElse(0L);
    }

    /** The last file that left the local journal, from the log's last whole line. */
    static Optional<ArchivedFile> last(Path journalDir) {
        Path log = journalDir.resolve(LOG_FILE);
        try (FileChannel ch = FileChannel.open(log, StandardOpenOption.READ)) {
            long size = ch.size();
            if (size == 0) {
                return Optional.empty();
            }
            int n = (int) Math.min(size, TAIL_BYTES);
            ByteBuffer b = ByteBuffer.allocate(n);
            while (b.hasRemaining() && ch.read(b, size - n + b.position()) > 0) {
                // reading the tail
            }
            String tail = new String(b.array(), 0, b.position(), StandardCharsets.UTF_8);
            String[] lines = tail.split("\n", -1);
            // the text after the last newline is a torn line (or empty): the last whole line is before it
            for (int i = lines.length - 2; i >= 0; i--) {
                Optional<ArchivedFile> f = parse(lines[i]);
                if (f.isPresent()) {
                    return f;
                }
            }
            if (size > TAIL_BYTES) {
                return all(journalDir).stream().reduce((a, z) -> z);
            }
            return Optional.empty();
        } catch (NoSuchFileException e) {
            return Optional.empty();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the journal's archive log " + log, e);
        }
    }

    /** Every file that left the local journal, oldest first (a torn last line is not one). */
    static List<ArchivedFile> all(Path journalDir) {
        Path log = journalDir.resolve(LOG_FILE);
        List<ArchivedFile> out = new ArrayList<>();
        try {
            String text = Files.readString(log, StandardCharsets.UTF_8);
            String[] lines = text.split("\n", -1);
            for (int i = 0; i < lines.length - 1; i++) {
                Optional<ArchivedFile> f = parse(lines[i]);
                if (f.isEmpty()) {
                    throw new io.palisade.fencing.JournalCorruptedException(-1, "line " + (i + 1) + " of "
                            + log + " is not an archived file's record");
                }
                out.add(f.get());
            }
            return out;
        } catch (NoSuchFileException e) {
            return List.of();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the journal's archive log " + log, e);
        }
    }

    private static Optional<ArchivedFile> parse(String line) {
        if (line.isBlank()) {
            return Optional.empty();
        }
        try {
            return Optional.of(JSON.readValue(line, ArchivedFile.class));
        } catch (JsonProcessingException | IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    /** Cuts a torn last line (a crash during an append) so the next append starts a line of its own. */
    private void cutTornLine() throws IOException {
        Path log = journalDir.resolve(LOG_FILE);
        if (!Files.exists(log)) {
            return;
        }
        byte[] all = Files.readAllBytes(log);
        int end = all.length;
        while (end > 0 && all[end - 1] != '\n') {
            end--;
        }
        if (end != all.length) {
            try (FileChannel ch = FileChannel.open(log, StandardOpenOption.WRITE)) {
                ch.truncate(end);
                ch.force(true);
            }
            LOG.warn("journal {}: cut a torn last line of {} ({} bytes)", journalDir, LOG_FILE, all.length - end);
        }
    }

    private void append(ArchivedFile f) throws IOException {
        Path log = journalDir.resolve(LOG_FILE);
        boolean created = !Files.exists(log);
        byte[] line = (JSON.writeValueAsString(f) + "\n").getBytes(StandardCharsets.UTF_8);
        try (FileChannel ch = FileChannel.open(log, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.APPEND)) {
            ByteBuffer b = ByteBuffer.wrap(line);
            while (b.hasRemaining()) {
                ch.write(b);
            }
            ch.force(true);
        }
        if (created) {
            Segments.fsyncDirectory(journalDir);
        }
    }

    // ------------------------------------------------------------------ a run

    /** The ends of one closed file, read through Chronicle. */
    private record Ends(long firstSequence, byte[] previousHash, long lastSequence, byte[] lastHash) {
    }

    /**
     * Moves closed files out of the local journal, oldest first, while the journal's cycle files hold more than
     * {@code keepBytes} and the next file's records all lie before {@code below}.
     *
     * @param below         every record of a file that leaves is before it (the row release's progress)
     * @param keepBytes     the local journal's byte budget (the sum of its cycle files' lengths)
     * @param copyTo        a directory the files are copied to first; null to remove them without a copy
     * @param writerEpoch   the epoch of the writer's own segment, whose open file never leaves
     * @param refreshWriter refreshes the writer's Chronicle directory listing after one of its segment's files left
     */
    ArchiveReport run(long below, long keepBytes, Path copyTo, long writerEpoch, Runnable refreshWriter, Hook hook) {
        try {
            cutTornLine();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot repair the journal's archive log in " + journalDir, e);
        }
        long horizon = firstLocalSequence(journalDir);
        long[] epochs = Segments.ready(journalDir);
        long total = localBytes(epochs);
        int files = 0;
        long bytes = 0;
        outer:
        for (long epoch : epochs) {
            Path dir = Segments.dir(journalDir, epoch);
            boolean writers = epoch == writerEpoch;
            boolean emptied = false;
            try (SingleChronicleQueue q = ChronicleSupport.open(dir, true); ExcerptTailer t = q.createTailer()) {
                if (q.firstIndex() == Long.MAX_VALUE) {
                    continue;
                }
                NavigableSet<Long> cycles = SegmentIndex.cycles(q);
                ExcerptReader reader = new ExcerptReader(t);
                for (long cycle : cycles) {
                    if (writers && cycle == cycles.last()) {
                        break outer;
                    }
                    Path file = dir.resolve(RowRelease.fileName(q.rollCycle(), cycle));
                    long n = SegmentIndex.excerptsInCycle(q, t, cycle, cycles.last());
                    Ends ends = n == 0 ? null : ends(q, t, reader, (int) cycle, n);
                    if (ends == null) {
                        if (reported.add(file.toString())) {
                            LOG.warn("journal {}: file retention stops at {}: its first or last excerpt is not a good "
                                    + "record", journalDir, dir.getFileName() + "/" + file.getFileName());
                        }
                        break outer;
                    }
                    if (ends.lastSequence() < horizon) {
                        // the log already names it: a crash came between its log line and its deletion
                        remove(file, dir, writers, refreshWriter, hook);
                        emptied = cycle == cycles.last();
                        continue;
                    }
                    if (ends.lastSequence() >= below || total <= keepBytes) {
                        break outer;
                    }
                    long size = Files.size(file);
                    String location = null;
                    String sha = null;
                    if (copyTo != null) {
                        Path target = copyTo.resolve(dir.getFileName().toString()).resolve(file.getFileName().toString());
                        sha = copy(file, target);
                        location = target.toString();
                    }
                    hook.beforeLog(file);
                    append(new ArchivedFile(epoch, file.getFileName().toString(), ends.firstSequence(),
                            ends.lastSequence(), HEX.formatHex(ends.previousHash()), HEX.formatHex(ends.lastHash()),
                            size, sha, location, clock.millis()));
                    horizon = ends.lastSequence() + 1;
                    hook.afterLog(file);
                    remove(file, dir, writers, refreshWriter, hook);
                    total -= size;
                    files++;
                    bytes += size;
                    emptied = cycle == cycles.last();
                }
            } catch (IOException e) {
                throw new UncheckedIOException("journal file retention failed in " + dir, e);
            }
            if (emptied && !writers) {
                removeSegment(epoch);
            }
        }
        return new ArchiveReport(files, bytes, horizon, total);
    }

    /** The first and last record of a closed cycle; null when either is not a good record. */
    private Ends ends(SingleChronicleQueue q, ExcerptTailer t, ExcerptReader reader, int cycle, long n) {
        if (!t.moveToIndex(q.rollCycle().toIndex(cycle, 0))) {
            return null;
        }
        int len = reader.next();
        if (len == ExcerptReader.NONE || codec.check(reader.buffer(), 0, len) != null) {
            return null;
        }
        long first = RecordCodec.sequence(reader.buffer(), 0);
        byte[] prev = Arrays.copyOfRange(reader.buffer(), RecordDescriptor.PREVIOUS_HASH_OFFSET,
                RecordDescriptor.PREVIOUS_HASH_OFFSET + RecordDescriptor.HASH_LENGTH);
        if (!t.moveToIndex(q.rollCycle().toIndex(cycle, n - 1))) {
            return null;
        }
        len = reader.next();
        if (len == ExcerptReader.NONE || codec.check(reader.buffer(), 0, len) != null) {
            return null;
        }
        byte[] b = reader.buffer();
        long last = RecordCodec.sequence(b, 0);
        if (last - first != n - 1) {
            return null;
        }
        byte[] hash = new byte[RecordDescriptor.HASH_LENGTH];
        if (RecordCodec.type(b, 0) == EventCodec.ROWS_RELEASED) {
            try {
                hash = ((JournalEvent.RowsReleased) codec.decode(b, 0, len)).recordHash();
            } catch (RuntimeException e) {
                return null;
            }
        } else {
            codec.hash(b, 0, len, hash);
        }
        return new Ends(first, prev, last, hash);
    }

    /** Copies {@code file} durably to {@code target} (temp, fsync, rename, fsync directory); its SHA-256 in hex. */
    private static String copy(Path file, Path target) throws IOException {
        Files.createDirectories(target.getParent());
        Path tmp = target.resolveSibling(target.getFileName() + ".tmp");
        MessageDigest sha;
        try {
            sha = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
        try (InputStream in = Files.newInputStream(file);
             OutputStream out = new DigestOutputStream(Files.newOutputStream(tmp), sha)) {
            in.transferTo(out);
        }
        try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.READ)) {
            ch.force(true);
        }
        Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        Segments.fsyncDirectory(target.getParent());
        return HEX.formatHex(sha.digest());
    }

    /** Deletes a file the log names and tells Chronicle (its listing's lowest cycle moves past the file). */
    private static void remove(Path file, Path dir, boolean writers, Runnable refreshWriter, Hook hook)
            throws IOException {
        Files.deleteIfExists(file);
        Segments.fsyncDirectory(dir);
        hook.afterDelete(file);
        if (writers) {
            refreshWriter.run();
        } else {
            ChronicleSupport.refreshListing(dir);
        }
    }

    /** Removes a segment every file of which left: its marker first (a crash leaves an unready directory). */
    private void removeSegment(long epoch) throws UncheckedIOException {
        try {
            Files.deleteIfExists(Segments.marker(journalDir, epoch));
            Segments.fsyncDirectory(journalDir);
            Segments.deleteTree(Segments.dir(journalDir, epoch));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot remove the emptied journal segment " + epoch, e);
        }
    }

    /** The sum of the lengths of the ready segments' cycle files. */
    private long localBytes(long[] epochs) {
        long total = 0;
        for (long epoch : epochs) {
            try (Stream<Path> s = Files.list(Segments.dir(journalDir, epoch))) {
                for (Path p : s.filter(f -> f.getFileName().toString().endsWith(ChronicleSupport.SUFFIX)).toList()) {
                    total += Files.size(p);
                }
            } catch (NoSuchFileException e) {
                // a segment removed meanwhile
            } catch (IOException e) {
                throw new UncheckedIOException("cannot list journal segment " + epoch, e);
            }
        }
        return total;
    }
}
