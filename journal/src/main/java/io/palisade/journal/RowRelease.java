package io.palisade.journal;

import io.palisade.journal.codec.EventCodec;
import io.palisade.journal.codec.RecordCodec;
import io.palisade.journal.codec.RecordDescriptor;
import net.openhft.chronicle.core.time.SetTimeProvider;
import net.openhft.chronicle.queue.ExcerptAppender;
import net.openhft.chronicle.queue.ExcerptTailer;
import net.openhft.chronicle.queue.RollCycle;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueue;
import net.openhft.chronicle.wire.DocumentContext;
import org.agrona.ExpandableArrayBuffer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.NavigableSet;

/**
 * The journal's row release: rewrites each closed Chronicle cycle file whose records all lie before a sequence the
 * caller names, replacing every {@link JournalEvent.RowsRecorded} by a {@link JournalEvent.RowsReleased} and every
 * {@link JournalEvent.WriteJournaled} by a {@link JournalEvent.WriteReleased} at the same sequence, and leaves
 * every other record byte for byte. The caller (the coordinator) names a sequence below which every journal-ack write
 * is folded into its table and covered by a checkpoint, so no reader of the graph's state needs those rows again
 * (docs/journal.md "Row release").
 *
 * <p>Invariants:
 * <ul>
 *   <li>A rewritten file holds the same excerpts at the same Chronicle indices (same count, same order), so sequence
 *       arithmetic ({@link SegmentIndex}) and every anchor stay valid.</li>
 *   <li>A released record keeps the original record's header (sequence, time, epoch, previous hash) and the SHA-256
 *       of the original record, which is what the next record links to: the chain verifies end to end.</li>
 *   <li>A file is replaced by one atomic rename over it, after the new file and its directory entry are durable: a
 *       crash leaves the old file or the new one, never a mix, and at most a work directory that the next run
 *       removes. A reader that mapped the old file reads the old bytes, which hash the same.</li>
 *   <li>Only closed cycles are touched: never the last cycle of the newest segment, which the writer appends to.</li>
 *   <li>A file whose chain does not link inside it, or that Chronicle cannot read to its end, is left as it is and
 *       reported ({@code audit verify} names what is wrong with it).</li>
 * </ul>
 *
 * <p>Progress is kept in {@code rows.released} (the sequence below which every closed file was considered; plain
 * text, replaced atomically), so that a run costs the files closed since the last, not the journal's length. Only
 * the writer that holds the lease runs it.
 */
final class RowRelease {
    static {
        ChronicleSupport.disableAnalytics();
    }

    private static final Logger LOG = LoggerFactory.getLogger(RowRelease.class);

    /** Progress file in the journal directory. */
    static final String PROGRESS_FILE = "rows.released";
    /** Work directory of a file being rewritten; a leftover is removed by the next run. */
    static final String WORK_DIR = "release.work";

    /**
     * Where a run is stopped, for crash tests: after the new file is written and synced, before the rename over the
     * old one; after the rename and the directory's sync, before the progress file moves past it.
     */
    interface Hook {
        Hook NONE = new Hook() {
        };

        default void beforeReplace(Path cycleFile) {
        }

        default void afterReplace(Path cycleFile) {
        }
    }

    private final Path journalDir;
    private final RecordCodec codec = new RecordCodec();
    private final ExpandableArrayBuffer out = new ExpandableArrayBuffer(4096);
    /** Closed segments every file of which was considered: later runs of this writer do not open them again. */
    private final java.util.Set<Long> finishedSegments = new java.util.HashSet<>();
    /** Files left as they were (reported once per writer, not at every run). */
    private final java.util.Set<String> reported = new java.util.HashSet<>();
    private Hook hook = Hook.NONE;

    /**
     * Record bytes one run rewrites at most (it stops after the file that reaches it): a run, and so a close that waits
     * for one, takes seconds however much an older journal has to catch up on; the next checkpoint's run goes on.
     */
    static final long RUN_BUDGET_BYTES = 1L << 30;

    private final long runBudgetBytes;

    RowRelease(Path journalDir) {
        this(journalDir, RUN_BUDGET_BYTES);
    }

    RowRelease(Path journalDir, long runBudgetBytes) {
        this.journalDir = journalDir;
        this.runBudgetBytes = runBudgetBytes;
    }

    /** A run with a crash-test hook. */
    RowReleaseReport run(long belowSequence, long olderThanNanos, Hook hook) {
        this.hook = hook;
        try {
            return run(belowSequence, olderThanNanos);
        } finally {
            this.hook = Hook.NONE;
        }
    }

    /**
     * Releases the rows of every closed file whose records all lie before {@code belowSequence}.
     *
     * @throws UncheckedIOException when a file cannot be rewritten (the old one stays)
     */
    RowReleaseReport run(long belowSequence) {
        return run(belowSequence, Long.MAX_VALUE);
    }

    /**
     * As {@link #run(long)}, and only files whose last record's timestamp is before {@code olderThanNanos}; the run
     * stops at the first younger file (files are in time order).
     */
    RowReleaseReport run(long belowSequence, long olderThanNanos) {
        removeWork();
        long done = progress();
        long[] epochs = Segments.ready(journalDir);
        int files = 0;
        long records = 0;
        long rowBytes = 0;
        long before = 0;
        long after = 0;
        List<String> skipped = new ArrayList<>();
        long considered = done;
        outer:
        for (int s = 0; s < epochs.length; s++) {
            if (finishedSegments.contains(epochs[s])) {
                continue;
            }
            Path dir = Segments.dir(journalDir, epochs[s]);
            try (SingleChronicleQueue q = ChronicleSupport.open(dir, true); ExcerptTailer t = q.createTailer()) {
                if (q.firstIndex() == Long.MAX_VALUE) {
                    continue;
                }
                NavigableSet<Long> cycles = SegmentIndex.cycles(q);
                ExcerptReader reader = new ExcerptReader(t);
                for (long cycle : cycles) {
                    boolean writersCycle = s == epochs.length - 1 && cycle == cycles.last();
                    if (writersCycle) {
                        break outer;
                    }
                    long n;
                    try {
                        n = SegmentIndex.excerptsInCycle(q, t, cycle, cycles.last());
                    } catch (RuntimeException | InternalError e) {
                        // Chronicle cannot count a file whose tail is torn (its index walk faults past the end)
                        skipped.add(dir.getFileName() + "/" + fileName(q.rollCycle(), cycle)
                                + ": Chronicle cannot count its excerpts (" + e.getMessage() + ")");
                        continue;
                    }
                    if (n == 0) {
                        continue;
                    }
                    LastRecord lastRecord = lastRecord(q, t, reader, (int) cycle, n);
                    if (lastRecord == null) {
                        skipped.add(dir.getFileName() + "/" + fileName(q.rollCycle(), cycle)
                                + ": its last excerpt is not a good record");
                        continue;
                    }
                    long last = lastRecord.sequence();
                    if (last < done) {
                        continue;
                    }
                    if (last >= belowSequence || lastRecord.timestampNanos() >= olderThanNanos) {
                        break outer;
                    }
                    Path file = dir.resolve(fileName(q.rollCycle(), cycle));
                    Rewrite r = rewrite(q, t, reader, (int) cycle, n, file);
                    if (r.problem != null) {
                        skipped.add(dir.getFileName() + "/" + file.getFileName() + ": " + r.problem);
                    } else if (r.released > 0) {
                        files++;
                        records += r.released;
                        rowBytes += r.rowBytes;
                        before += r.bytesBefore;
                        after += r.bytesAfter;
                    }
                    considered = last + 1;
                    writeProgress(considered);
                    if (before >= runBudgetBytes) {
                        break outer; // the rest is the next run's
                    }
                }
                if (s < epochs.length - 1) {
                    finishedSegments.add(epochs[s]); // closed, and every file of it considered
                }
            }
        }
        for (String s : skipped) {
            if (reported.add(s)) {
                LOG.warn("journal {}: row release left {} as it is", journalDir, s);
            }
        }
        return new RowReleaseReport(belowSequence, considered, files, records, rowBytes, before, after, skipped);
    }

    /** The sequence and time of a cycle's last record. */
    private record LastRecord(long sequence, long timestampNanos) {
    }

    /** The last record of a cycle of {@code n} excerpts; null when its last excerpt is not a good record. */
    private LastRecord lastRecord(SingleChronicleQueue q, ExcerptTailer t, ExcerptReader reader, int cycle, long n) {
        if (!t.moveToIndex(q.rollCycle().toIndex(cycle, n - 1))) {
            return null;
        }
        int len = reader.next();
        if (len == ExcerptReader.NONE || codec.check(reader.buffer(), 0, len) != null) {
            return null;
        }
        return new LastRecord(RecordCodec.sequence(reader.buffer(), 0), RecordCodec.timestamp(reader.buffer(), 0));
    }

    private record Rewrite(String problem, long released, long rowBytes, long bytesBefore, long bytesAfter) {
        static Rewrite refused(String problem) {
            return new Rewrite(problem, 0, 0, 0, 0);
        }
    }

    /** Whether a record of this type carries rows the release gives back. */
    private static boolean carriesRows(short type) {
        return type == EventCodec.ROWS_RECORDED || type == EventCodec.WRITE_JOURNALED;
    }

    /** Whether any of the cycle's {@code n} excerpts carries rows ({@link #carriesRows}; type codes only). */
    private boolean hasRows(SingleChronicleQueue q, ExcerptTailer t, ExcerptReader reader, int cycle, long n) {
        if (!t.moveToIndex(q.rollCycle().toIndex(cycle, 0))) {
            return false;
        }
        for (long j = 0; j < n; j++) {
            int len = reader.next();
            if (len == ExcerptReader.NONE) {
                return false;
            }
            if (len >= RecordDescriptor.HEADER_LENGTH && carriesRows(RecordCodec.type(reader.buffer(), 0))) {
                return true;
            }
        }
        return false;
    }

    /**
     * When any of the cycle's {@code n} excerpts carries rows ({@code rows_recorded}, {@code write_journaled}),
     * streams the file into the work directory with each of them released (memory: one record at a time), then renames
     * the copy over {@code file}.
     * Every record's framing and CRC are checked, and each released record's hash against the next record's link when
     * that record is in the same file; the other records are copied as they are (verifying their chain is
     * {@code audit verify}'s).
     */
    private Rewrite rewrite(SingleChronicleQueue q, ExcerptTailer t, ExcerptReader reader, int cycle, long n,
                            Path file) {
        RollCycle rc = q.rollCycle();
        if (!hasRows(q, t, reader, cycle, n)) {
            return new Rewrite(null, 0, 0, 0, 0);
        }
        if (!t.moveToIndex(rc.toIndex(cycle, 0))) {
            return Rewrite.refused("Chronicle cannot move to its first excerpt");
        }
        removeWork();
        Path work = journalDir.resolve(WORK_DIR);
        long start = (long) cycle * rc.lengthInMillis();
        SetTimeProvider time = new SetTimeProvider(start * 1_000_000L);
        long released = 0;
        long rowBytes = 0;
        long bytesBefore = 0;
        long bytesAfter = 0;
        String problem = null;
        byte[] linkTo = null;
        byte[] hash = new byte[RecordDescriptor.HASH_LENGTH];
        try (SingleChronicleQueue w = ChronicleSupport.openForRewrite(work, rc, time);
             ExcerptAppender a = w.createAppender()) {
            for (long j = 0; j < n && problem == null; j++) {
                int len;
                try {
                    len = reader.next();
                } catch (RuntimeException | InternalError e) {
                    problem = "Chronicle cannot read excerpt " + j + " (" + e.getMessage() + ")";
                    break;
                }
                if (len == ExcerptReader.NONE) {
                    problem = "Chronicle counts " + n + " excerpts but reads " + j;
                    break;
                }
                byte[] b = reader.buffer();
                bytesBefore += len;
                if (codec.check(b, 0, len) != null) {
                    problem = "excerpt " + j + " is not a good record";
                    break;
                }
                if (linkTo != null && !RecordCodec.previousHashEquals(b, 0, linkTo)) {
                    problem = "the chain does not link at sequence " + RecordCodec.sequence(b, 0);
                    break;
                }
                linkTo = null;
                byte[] bytes = b;
                int length = len;
                if (carriesRows(RecordCodec.type(b, 0))) {
                    JournalEvent original;
                    try {
                        original = codec.decode(b, 0, len);
                    } catch (RuntimeException e) {
                        problem = "record " + RecordCodec.sequence(b, 0) + " does not decode (" + e.getMessage() + ")";
                        break;
                    }
                    codec.hash(b, 0, len, hash);
                    linkTo = hash.clone();
                    byte[] prevField = Arrays.copyOfRange(b, RecordDescriptor.PREVIOUS_HASH_OFFSET,
                            RecordDescriptor.PREVIOUS_HASH_OFFSET + RecordDescriptor.HASH_LENGTH);
                    int rowsLength;
                    JournalEvent replacement;
                    if (original instanceof JournalEvent.WriteJournaled write) {
                        rowsLength = write.rows().length;
                        replacement = new JournalEvent.WriteReleased(write.intent(), write.rowCount(), rowsLength, linkTo);
                    } else {
                        JournalEvent.RowsRecorded rows = (JournalEvent.RowsRecorded) original;
                        rowsLength = rows.rows().length;
                        replacement = new JournalEvent.RowsReleased(rows.intentId(), rows.graphBranch(), rows.table(),
                                rows.rowCount(), rowsLength, linkTo);
                    }
                    length = codec.encode(replacement, RecordCodec.sequence(b, 0), RecordCodec.timestamp(b, 0),
                            RecordCodec.epoch(b, 0), prevField, out);
                    bytes = out.byteArray();
                    released++;
                    rowBytes += rowsLength;
                }
                try (DocumentContext dc = a.writingDocument()) {
                    dc.wire().bytes().write(bytes, 0, length);
                }
                bytesAfter += length;
            }
            if (problem == null) {
                // one excerpt in the next cycle makes Chronicle close this cycle's file with its end-of-file marker, as
                // the writer's roll did; that second file is discarded
                time.currentTimeMillis(start + rc.lengthInMillis());
                try (DocumentContext dc = a.writingDocument()) {
                    dc.wire().bytes().writeByte((byte) 0);
                }
            }
        }
        if (problem != null) {
            removeWork();
            return Rewrite.refused(problem);
        }
        Path rewritten = work.resolve(file.getFileName());
        if (!Files.exists(rewritten)) {
            removeWork();
            return Rewrite.refused("the rewrite produced no file named " + file.getFileName());
        }
        try {
            try (FileChannel ch = FileChannel.open(rewritten, StandardOpenOption.READ)) {
                ch.force(true);
            }
            hook.beforeReplace(file);
            Files.move(rewritten, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            Segments.fsyncDirectory(file.getParent());
            hook.afterReplace(file);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot replace journal file " + file + " by its row-released copy", e);
        }
        removeWork();
        return new Rewrite(null, released, rowBytes, bytesBefore, bytesAfter);
    }

    static String fileName(RollCycle rc, long cycle) {
        return DateTimeFormatter.ofPattern(rc.format()).withZone(ZoneOffset.UTC)
                .format(Instant.ofEpochMilli(cycle * rc.lengthInMillis())) + ChronicleSupport.SUFFIX;
    }

    private void removeWork() {
        Path work = journalDir.resolve(WORK_DIR);
        try {
            Segments.deleteTree(work);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot remove the row release's work directory " + work, e);
        }
    }

    /** The sequence below which every closed file was considered; 0 when none was yet (or the file is unreadable). */
    long progress() {
        Path f = journalDir.resolve(PROGRESS_FILE);
        try {
            String s = Files.readString(f, StandardCharsets.UTF_8).trim();
            return Math.max(0, Long.parseLong(s));
        } catch (NoSuchFileException e) {
            return 0;
        } catch (IOException | NumberFormatException e) {
            LOG.warn("journal {}: {} cannot be read ({}); the row release considers every closed file again",
                    journalDir, PROGRESS_FILE, e.toString());
            return 0;
        }
    }

    private void writeProgress(long below) {
        Path tmp = journalDir.resolve(PROGRESS_FILE + ".tmp");
        try {
            try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                    StandardOpenOption.TRUNCATE_EXISTING)) {
                ch.write(java.nio.ByteBuffer.wrap((below + "\n").getBytes(StandardCharsets.UTF_8)));
                ch.force(true);
            }
            Files.move(tmp, journalDir.resolve(PROGRESS_FILE), StandardCopyOption.ATOMIC_MOVE,
                    StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the row release's progress in " + journalDir, e);
        }
    }
}
