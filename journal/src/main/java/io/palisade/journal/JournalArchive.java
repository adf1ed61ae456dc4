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
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
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
 * The journal's file retention: moves the oldest closed Chronicle files out of the local journal once the local
 * journal holds more than a byte budget and their rows are released ({@link RowRelease}) or the caller lets the budget
 * cut into the retention window, keeping for each file the chain
 * anchors that tie it to its neighbours ({@link ArchivedFile}) in {@code journal/archive.log}, and optionally a copy.
 *
 * <p>Invariants:
 * <ul>
 *   <li>The local journal is always a suffix of the whole: files leave in sequence order, oldest first, so the local
 *       journal starts at one sequence ({@link #firstLocalSequence}), one past the last logged file's last record,
 *       and its first record links to that file's {@code lastHash}.</li>
 *   <li>Only files whose every record lies before the caller's bound leave: their journal-ack writes are folded and
 *       a durable checkpoint the writer may fall back to covers them, so no reopen, recovery or read of the graph's
 *       present needs them. Unless the caller lets the byte budget cut into the retention window
 *       ({@link Journal#archiveFilesUnreleased}), the bound is also the row release's progress, so they are older
 *       than the window too. The writer's open file never leaves.</li>
 *   <li>A file leaves in this order: its copy (when asked) is written, synced and renamed into place; its log line is
 *       appended and synced; then it is deleted and Chronicle's directory listing refreshed. A crash before the log
 *       line leaves the file in the journal (a copy left behind is overwritten by the next run); after it, the next run
 *       deletes the file the log already names. A torn last log line is cut by the next run.</li>
 *   <li>A segment whose every file left is removed (its ready marker first, so a crash leaves an unready directory,
 *       which the next writer's open removes).</li>
 * </ul>
 *
 * <p>{@code archive.log}: one JSON object per line, an {@link ArchivedFile}, appended and fsynced; never rewritten
 * except to cut a torn last line. It grows one line per file: about 350 bytes per five minutes of writes, 37 MB a year;
 * readers read its last line only.
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
        try (FileChannel ch = FileChannel.open(log, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            long size = ch.size();
            long end = size;
            ByteBuffer b = ByteBuffer.allocate(TAIL_BYTES);
            // back from the end to the last newline: only the log's tail is read
            search:
            while (end > 0) {
                long from = Math.max(0, end - TAIL_BYTES);
                b.clear().limit((int) (end - from));
                while (b.hasRemaining() && ch.read(b, from + b.position()) > 0) {
                    // reading the chunk
                }
                for (int i = b.position() - 1; i >= 0; i--) {
                    if (b.get(i) == '\n') {
                        end = from + i + 1;
                        break search;
                    }
                }
                end = from;
            }
            if (end != size) {
                ch.truncate(end);
                ch.force(true);
                LOG.warn("journal {}: cut a torn last line of {} ({} bytes)", journalDir, LOG_FILE, size - end);
            }
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

    /** What a walk of one closed file found: its first and last good record, and the bytes it uses. */
    private record Scan(long firstSequence, byte[] previousHash, long lastSequence, byte[] lastHash, long usedBytes,
                        String problem) {
        static Scan refused(String problem) {
            return new Scan(-1, null, -1, null, 0, problem);
        }
    }

    /** Record bytes one run walks at most (it stops after the file that reaches it); the next run goes on. */
    static final long RUN_BUDGET_BYTES = 1L << 30;

    /**
     * Moves closed files out of the local journal, oldest first, while the journal's cycle files use more than
     * {@code keepBytes} and the next file's records all lie before {@code below}.
     *
     * @param below         every record of a file that leaves is before it (the caller's bound, and the row release's
     *                      progress unless the budget cuts into the window)
     * @param keepBytes     the local journal's byte budget (the bytes its cycle files use, to their last excerpt)
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
        Path copies = copyTo == null ? null : copyTo.toAbsolutePath();
        Optional<ArchivedFile> lastLogged = last(journalDir);
        long horizon = lastLogged.map(f -> f.lastSequence() + 1).orElse(0L);
        long[] epochs = Segments.ready(journalDir);
        long total = localBytes(epochs);
        int files = 0;
        long bytes = 0;
        long walked = 0;
        outer:
        for (long epoch : epochs) {
            Path dir = Segments.dir(journalDir, epoch);
            boolean writers = epoch == writerEpoch;
            boolean empty = false;
            try (SingleChronicleQueue q = ChronicleSupport.open(dir, true); ExcerptTailer t = q.createTailer()) {
                empty = q.firstIndex() == Long.MAX_VALUE;
                NavigableSet<Long> cycles = empty ? new java.util.TreeSet<>() : SegmentIndex.cycles(q);
                ExcerptReader reader = new ExcerptReader(t);
                for (long cycle : cycles) {
                    boolean segmentsLast = cycle == cycles.last();
                    if (writers && segmentsLast) {
                        break outer;
                    }
                    Path file = dir.resolve(RowRelease.fileName(q.rollCycle(), cycle));
                    String name = dir.getFileName() + "/" + file.getFileName();
                    long n = count(q, t, cycle, cycles.last()); // -1: Chronicle cannot count it (a torn tail)
                    // cheap first: the last excerpt's sequence through Chronicle's index (-1: not a good record)
                    long lastSeq = lastSequence(q, t, reader, (int) cycle, n);
                    if (lastSeq < 0 || lastSeq >= horizon) {
                        if (total <= keepBytes || lastSeq >= below) {
                            break outer;
                        }
                    }
                    Scan scan = scan(q, t, reader, (int) cycle, n, segmentsLast && !writers);
                    walked += scan.usedBytes();
                    if (scan.problem() != null) {
                        warnOnce(file, "file retention stops at " + name + ": " + scan.problem()
                                + " (audit verify names the damage)");
                        break outer;
                    }
                    if (scan.lastSequence() < horizon) {
                        // the log names it already, if a crash came between its log line and its deletion
                        ArchivedFile logged = lastLogged.orElseThrow();
                        if (logged.epoch() != epoch || !logged.file().equals(file.getFileName().toString())
                                || logged.lastSequence() != scan.lastSequence()) {
                            warnOnce(file, "file retention stops at " + name + ": it lies before the archive log's "
                                    + "last file (" + logged.epoch() + "/" + logged.file() + ", sequences "
                                    + logged.firstSequence() + ".." + logged.lastSequence() + ") but is not that file");
                            break outer;
                        }
                        if (remove(file, dir, epoch, segmentsLast && !writers, writers, refreshWriter, hook)) {
                            continue outer;
                        }
                        continue;
                    }
                    if (scan.lastSequence() >= below || total <= keepBytes) {
                        break outer;
                    }
                    String link = lastLogged.map(ArchivedFile::lastHash).orElse(ZEROS);
                    if (scan.firstSequence() != horizon || !HEX.formatHex(scan.previousHash()).equalsIgnoreCase(link)) {
                        warnOnce(file, "file retention stops at " + name + ": it does not continue the archive log "
                                + "(its first record, sequence " + scan.firstSequence() + ", should be " + horizon
                                + " and link to " + link + ")");
                        break outer;
                    }
                    String location = null;
                    String sha = null;
                    if (copies != null) {
                        Path target = copies.resolve(dir.getFileName().toString()).resolve(file.getFileName().toString());
                        sha = copy(file, target);
                        location = target.toString();
                    }
                    hook.beforeLog(file);
                    ArchivedFile entry = new ArchivedFile(epoch, file.getFileName().toString(), scan.firstSequence(),
                            scan.lastSequence(), HEX.formatHex(scan.previousHash()), HEX.formatHex(scan.lastHash()),
                            scan.usedBytes(), sha, location, clock.millis());
                    append(entry);
                    lastLogged = Optional.of(entry);
                    horizon = scan.lastSequence() + 1;
                    hook.afterLog(file);
                    total -= scan.usedBytes();
                    files++;
                    bytes += scan.usedBytes();
                    boolean segmentGone = remove(file, dir, epoch, segmentsLast && !writers, writers, refreshWriter,
                            hook);
                    if (walked >= RUN_BUDGET_BYTES) {
                        break outer; // the rest is the next run's
                    }
                    if (segmentGone) {
                        continue outer;
                    }
                }
            } catch (IOException e) {
                throw new UncheckedIOException("journal file retention failed in " + dir + ": " + e.getMessage(), e);
            }
            if (empty && !writers) {
                // a ready segment holds at least its WriterStarted: an empty one lost its files to this retention
                // before its marker went
                removeSegment(epoch);
            }
        }
        return new ArchiveReport(files, bytes, horizon, total);
    }

    /** The previous-hash field of sequence 0, in hex. */
    static final String ZEROS = "0".repeat(2 * RecordDescriptor.HASH_LENGTH);

    private void warnOnce(Path file, String message) {
        if (reported.add(file.toString())) {
            LOG.warn("journal {}: {}", journalDir, message);
        }
    }

    /** A cycle's excerpt count; -1 when Chronicle cannot count them (its index walk faults on a torn tail). */
    private static long count(SingleChronicleQueue q, ExcerptTailer t, long cycle, long lastCycle) {
        try {
            return SegmentIndex.excerptsInCycle(q, t, cycle, lastCycle);
        } catch (RuntimeException | InternalError e) {
            return -1;
        }
    }

    /** The sequence of a cycle's last excerpt, through Chronicle's index; -1 when it is not a good record. */
    private long lastSequence(SingleChronicleQueue q, ExcerptTailer t, ExcerptReader reader, int cycle, long n) {
        try {
            if (n <= 0 || !t.moveToIndex(q.rollCycle().toIndex(cycle, n - 1))) {
                return -1;
            }
            int len = reader.next();
            if (len == ExcerptReader.NONE || codec.check(reader.buffer(), 0, len) != null) {
                return -1;
            }
            return RecordCodec.sequence(reader.buffer(), 0);
        } catch (RuntimeException | InternalError e) {
            return -1;
        }
    }

    /**
     * Walks every excerpt of a closed cycle: each must be a good record (CRC), their sequences dense. The last cycle of
     * a closed segment may end in a torn tail (bad excerpts after its last good record, which the next writer cut and
     * every reader skips); its last record is then the last good one.
     */
    private Scan scan(SingleChronicleQueue q, ExcerptTailer t, ExcerptReader reader, int cycle, long n,
                      boolean mayEndTorn) {
        if (n == 0) {
            return Scan.refused("Chronicle counts no excerpt in it");
        }
        if (n < 0 && !mayEndTorn) {
            return Scan.refused("Chronicle cannot count its excerpts");
        }
        if (!t.moveToIndex(q.rollCycle().toIndex(cycle, 0))) {
            return Scan.refused("Chronicle cannot move to its first excerpt");
        }
        long first = -1;
        long last = -1;
        long lastGoodAt = -1;
        long used = 0;
        byte[] prev = null;
        boolean torn = false;
        for (long j = 0; n < 0 || j < n; j++) {
            int len;
            try {
                len = reader.next();
            } catch (RuntimeException | InternalError e) {
                if (mayEndTorn) {
                    break; // nothing after an unreadable excerpt header is readable: a torn tail
                }
                return Scan.refused("Chronicle cannot read excerpt " + j + " (" + e.getMessage() + ")");
            }
            if (len == ExcerptReader.NONE) {
                if (mayEndTorn) {
                    break;
                }
                return Scan.refused("Chronicle counts " + n + " excerpts but reads " + j);
            }

            boolean good = codec.check(reader.buffer(), 0, len) == null;
            if (!good) {
                if (!mayEndTorn) {
                    return Scan.refused("excerpt " + j + " is not a good record");
                }
                torn = true;
                continue;
            }
            if (torn) {
                return Scan.refused("a good record follows a bad excerpt at sequence " + (last + 1));
            }
            long seq = RecordCodec.sequence(reader.buffer(), 0);
            if (first < 0) {
                first = seq;
                prev = Arrays.copyOfRange(reader.buffer(), RecordDescriptor.PREVIOUS_HASH_OFFSET,
                        RecordDescriptor.PREVIOUS_HASH_OFFSET + RecordDescriptor.HASH_LENGTH);
            } else if (seq != last + 1) {
                return Scan.refused("sequence " + seq + " follows " + last);
            }
            last = seq;
            lastGoodAt = j;
            used = reader.endPosition();
        }
        if (first < 0) {
            return Scan.refused("it holds no good record");
        }
        // the link the next file's first record holds: the last good record's hash
        if (!t.moveToIndex(q.rollCycle().toIndex(cycle, lastGoodAt))) {
            return Scan.refused("Chronicle cannot move back to excerpt " + lastGoodAt);
        }
        int len = reader.next();
        return new Scan(first, prev, last, linkOf(reader.buffer(), len), used, null);
    }

    /** What the record after the one in {@code b} links to: its hash, or the kept hash of a released record. */
    private byte[] linkOf(byte[] b, int len) {
        byte[] hash = new byte[RecordDescriptor.HASH_LENGTH];
        short type = RecordCodec.type(b, 0);
        if (type == EventCodec.ROWS_RELEASED || type == EventCodec.WRITE_RELEASED) {
            // a good record (its CRC checked) decodes; the kept hash is what the next record links to
            hash = ((JournalEvent.Released) codec.decode(b, 0, len)).recordHash();
        } else {
            codec.hash(b, 0, len, hash);
        }
        return hash;
    }

    /** Bytes a copy moves at a time; an all-zero chunk is skipped, so the copy stays as sparse as the file. */
    private static final int COPY_CHUNK = 1 << 20;

    /**
     * Copies {@code file} durably to {@code target} (temp, fsync, rename, fsync of each directory it created), keeping
     * it sparse; its SHA-256 in hex. A copy already at {@code target} with other contents is refused: another graph's
     * archive, or another file of this one, is never overwritten (a copy left by a crash before its log line has the
     * same contents).
     */
    private static String copy(Path file, Path target) throws IOException {
        createDirectoriesDurably(target.getParent());
        Path tmp = target.resolveSibling(target.getFileName() + ".tmp");
        MessageDigest sha = sha256();
        try (FileChannel in = FileChannel.open(file, StandardOpenOption.READ);
             FileChannel out = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                     StandardOpenOption.TRUNCATE_EXISTING)) {
            long size = in.size();
            ByteBuffer b = ByteBuffer.allocate(COPY_CHUNK);
            for (long pos = 0; pos < size; ) {
                b.clear();
                int n = in.read(b, pos);
                if (n <= 0) {
                    throw new IOException("short read of " + file + " at " + pos + " of " + size);
                }
                sha.update(b.array(), 0, n);
                if (!allZero(b.array(), n)) {
                    ByteBuffer w = ByteBuffer.wrap(b.array(), 0, n);
                    long at = pos;
                    while (w.hasRemaining()) {
                        at += out.write(w, at);
                    }
                }
                pos += n;
            }
            if (out.size() < size) {
                out.write(ByteBuffer.allocate(1), size - 1); // the length, with the hole before it
            }
            out.force(true);
        }
        String hex = HEX.formatHex(sha.digest());
        if (Files.exists(target) && !sha256Of(target).equals(hex)) {
            Files.deleteIfExists(tmp);
            throw new IOException("a different journal file is already archived at " + target + ": another graph's "
                    + "archive directory? Each graph needs its own");
        }
        Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        Segments.fsyncDirectory(target.getParent());
        return hex;
    }

    private static boolean allZero(byte[] b, int n) {
        for (int i = 0; i < n; i++) {
            if (b[i] != 0) {
                return false;
            }
        }
        return true;
    }

    /** Creates {@code dir} and its missing parents, syncing each parent's entry of a directory it created. */
    private static void createDirectoriesDurably(Path dir) throws IOException {
        if (Files.isDirectory(dir)) {
            return;
        }
        createDirectoriesDurably(dir.getParent());
        Files.createDirectories(dir);
        Segments.fsyncDirectory(dir.getParent());
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The hex SHA-256 of a file's bytes. */
    static String sha256Of(Path file) throws IOException {
        MessageDigest sha = sha256();
        try (InputStream in = Files.newInputStream(file)) {
            byte[] b = new byte[COPY_CHUNK];
            for (int n = in.read(b); n > 0; n = in.read(b)) {
                sha.update(b, 0, n);
            }
        }
        return HEX.formatHex(sha.digest());
    }

    /**
     * Deletes a file the log names and tells Chronicle (its listing's lowest cycle moves past the file). The last file
     * of a closed segment takes the segment with it, its ready marker first: a crash then leaves an unready directory,
     * which readers ignore and the next writer's open removes. Returns whether the segment went.
     */
    private boolean remove(Path file, Path dir, long epoch, boolean segmentsLast, boolean writers,
                           Runnable refreshWriter, Hook hook) throws IOException {
        if (segmentsLast) {
            removeSegment(epoch);
            hook.afterDelete(file);
            return true;
        }
        Files.deleteIfExists(file);
        Segments.fsyncDirectory(dir);
        hook.afterDelete(file);
        if (writers) {
            refreshWriter.run();
        } else {
            ChronicleSupport.refreshListing(dir);
        }
        return false;
    }

    /** Removes a segment: its marker first (a crash leaves an unready directory). */
    private void removeSegment(long epoch) {
        try {
            Files.deleteIfExists(Segments.marker(journalDir, epoch));
            Segments.fsyncDirectory(journalDir);
            Segments.deleteTree(Segments.dir(journalDir, epoch));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot remove the emptied journal segment " + epoch, e);
        }
    }

    /**
     * The bytes the ready segments' cycle files use: to the end of each file's last excerpt (a cycle file is created
     * sparse at {@link ChronicleSupport#CYCLE_FILE_LENGTH}, so its length says little), its length when Chronicle
     * cannot tell.
     */
    private long localBytes(long[] epochs) {
        long total = 0;
        for (long epoch : epochs) {
            Path dir = Segments.dir(journalDir, epoch);
            if (!Files.isDirectory(dir)) {
                continue;
            }
            try (SingleChronicleQueue q = ChronicleSupport.open(dir, true); ExcerptTailer t = q.createTailer()) {
                if (q.firstIndex() == Long.MAX_VALUE) {
                    continue;
                }
                NavigableSet<Long> cycles = SegmentIndex.cycles(q);
                ExcerptReader reader = new ExcerptReader(t);
                for (long cycle : cycles) {
                    total += usedBytes(q, t, reader, dir, cycle, count(q, t, cycle, cycles.last()));
                }
            }
        }
        return total;
    }

    /**
     * The bytes a cycle file uses: to the end of its last excerpt; none when it holds none yet (Chronicle creates a
     * file, sparse at its full block length, as the writer rolls onto it); its length only when Chronicle cannot count
     * its excerpts (a torn tail).
     */
    private static long usedBytes(SingleChronicleQueue q, ExcerptTailer t, ExcerptReader reader, Path dir, long cycle,
                                  long n) {
        if (n == 0) {
            return 0;
        }
        try {
            if (n > 0 && t.moveToIndex(q.rollCycle().toIndex((int) cycle, n - 1)) && reader.next() != ExcerptReader.NONE) {
                return reader.endPosition();
            }
        } catch (RuntimeException | InternalError e) {
            // a torn tail Chronicle cannot parse: the file's length below
        }
        try {
            return Files.size(dir.resolve(RowRelease.fileName(q.rollCycle(), cycle)));
        } catch (IOException e) {
            return 0; // removed meanwhile
        }
    }

}
