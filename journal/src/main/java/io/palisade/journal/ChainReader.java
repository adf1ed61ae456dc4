package io.palisade.journal;

import io.palisade.fencing.JournalCorruptedException;
import io.palisade.journal.codec.MalformedPayloadException;
import io.palisade.journal.codec.RecordCodec;
import io.palisade.journal.codec.RecordDescriptor;
import net.openhft.chronicle.queue.ExcerptTailer;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueue;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads the journal in order across segments, checking every record: framing and CRC32C, dense
 * sequence, SHA-256 chain to the previous record, writer epoch equal to the segment's, non-decreasing
 * timestamps, known format version and type code.
 *
 * <p>Bad excerpts: a run of bad excerpts at the end of a segment is a torn tail. When a later segment
 * exists the tail was cut (the next writer continued after the last good record) and is skipped and
 * reported; in the last segment it is an open tail and reading stops before it. A bad excerpt followed
 * by a good one in the same segment is mid-log corruption: {@link JournalCorruptedException} naming the
 * sequence the bad excerpt should have held.
 *
 * <p>Every segment must start with {@code WriterStarted} of its own epoch. A reader started at the first
 * record of a segment other than the first does not check that record's link to the previous segment
 * (it has not read the previous record); {@code JournalReader.verify()} reads from sequence 0 and does.
 *
 * <p>Not thread-safe; one per reading thread.
 */
final class ChainReader implements RecordStream {
    static {
        ChronicleSupport.disableAnalytics();
    }

    private static final Logger LOG = LoggerFactory.getLogger(ChainReader.class);
    private static final long REFRESH_NANOS = 5_000_000L;
    /** Bound on the excerpts probed past a closed segment's readable end. */
    private static final long MAX_PROBES = 1_000_000L;

    private final Path journalDir;
    private final boolean follow;
    private final RecordCodec codec = new RecordCodec();

    private long[] epochs;
    private int segment;
    private SingleChronicleQueue queue;
    private ExcerptReader reader;
    private long lastRefresh;

    private long expectedSequence;
    private byte[] previousHash;   // hash of the record before expectedSequence; null = not known (mid-journal start)
    private long lastEpoch;
    private long lastTimestamp = Long.MIN_VALUE;

    private long badSequence = -1;
    private String badReason;
    private long badCount;
    private long excerptsInSegment;
    private boolean positionedMidSegment;
    private boolean segmentUnreadable;

    /** The first sequence the local journal holds (the file retention moved the ones before out); 0 when none. */
    private final long firstLocal;
    /** The hash the record at {@link #firstLocal} links to (the last archived record's); null when none left. */
    private final byte[] archiveLink;

    private final List<TornTail> cutTails = new ArrayList<>();
    private TornTail openTail;

    /**
     * @param fromSequence the first sequence to return; at most one past the last record
     * @param follow       whether new segments written after this reader opened are picked up
     */
    ChainReader(Path journalDir, long fromSequence, boolean follow) {
        this.journalDir = journalDir;
        this.follow = follow;
        this.epochs = Segments.ready(journalDir);
        this.lastRefresh = System.nanoTime();
        if (fromSequence < 0) {
            throw new IllegalArgumentException("negative sequence " + fromSequence);
        }
        java.util.Optional<ArchivedFile> archived = JournalArchive.last(journalDir);
        this.firstLocal = archived.map(f -> f.lastSequence() + 1).orElse(0L);
        this.archiveLink = archived.map(f -> java.util.HexFormat.of().parseHex(f.lastHash())).orElse(null);
        if (fromSequence < firstLocal) {
            throw archivedError(journalDir, fromSequence, archived.get());
        }
        if (fromSequence == 0) {
            this.expectedSequence = 0;
            this.previousHash = new byte[RecordDescriptor.HASH_LENGTH];
        } else {
            position(fromSequence);
        }
    }

    // ------------------------------------------------------------------ positioning

    private void position(long target) {
        // Binary search for the last segment whose first sequence is <= target.
        int lo = 0;
        int hi = epochs.length - 1;
        int found = -1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            long first = firstSequence(mid);
            // an empty segment (a crash left its marker after its files left) holds nothing: decide by the next one
            while (first == Long.MAX_VALUE && mid < hi) {
                mid++;
                first = firstSequence(mid);
            }
            if (first <= target) {
                found = mid;
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        if (found < 0) {
            throw new IllegalArgumentException("sequence " + target + " is beyond the journal end");
        }
        segment = found;
        openSegment();
        long j = target - firstSequence(found);
        positionedMidSegment = j > 0;
        // Read the record before the target (same segment) to know its hash, so the chain is checked
        // from the first record returned.
        boolean moved = SegmentIndex.moveTo(queue, reader.tailer(), Math.max(0, j - 1));
        if (!moved) {
            throw new IllegalArgumentException("sequence " + target + " is beyond the journal end");
        }
        // the excerpts skipped by the jump count as read for the end-of-segment completeness check
        excerptsInSegment = Math.max(0, j - 1);
        if (j == 0) {
            expectedSequence = target;
            // the first local record still links to the last archived one (its chain anchor)
            previousHash = target == firstLocal && archiveLink != null ? archiveLink.clone() : null;
            return;
        }
        expectedSequence = target - 1;
        previousHash = null;
        JournalRecord before = poll();
        if (before == null || before.sequence() != target - 1) {
            throw new IllegalArgumentException("sequence " + target + " is beyond the journal end");
        }
    }

    /** The refusal of a read from {@code from}, which the file retention moved out of the local journal. */
    static io.palisade.fencing.JournalArchivedException archivedError(Path journalDir, long from, ArchivedFile last) {
        String where = last.copied()
                ? "copied to " + last.archiveDirectory()
                : "removed without a copy (their chain anchors are kept in " + journalDir.resolve(JournalArchive.LOG_FILE)
                + ")";
        return new io.palisade.fencing.JournalArchivedException("journal sequence " + from + " is no longer in the local "
                + "journal: the journal's file retention moved sequences 0 to " + last.lastSequence() + " out ("
                + where + "); the local journal starts at sequence " + (last.lastSequence() + 1),
                last.lastSequence() + 1, last.archiveDirectory());
    }

    /** The first sequence the local journal holds. */
    long firstLocalSequence() {
        return firstLocal;
    }

    /** The sequence of the first record of segment {@code i}; the segment must start with a good record. */
    private long firstSequence(int i) {
        try (SingleChronicleQueue q = ChronicleSupport.open(Segments.dir(journalDir, epochs[i]), true);
             ExcerptTailer t = q.createTailer()) {
            ExcerptReader r = new ExcerptReader(t);
            int n = r.next();
            if (n == ExcerptReader.NONE) {
                return Long.MAX_VALUE;
            }
            String bad = codec.check(r.buffer(), 0, n);
            if (bad != null) {
                throw new JournalCorruptedException(-1, "the first record of segment " + epochs[i] + " is bad: " + bad);
            }
            return RecordCodec.sequence(r.buffer(), 0);
        }
    }

    // ------------------------------------------------------------------ reading

    /** The next record, or {@code null} when none is available now. */
    public JournalRecord poll() {
        while (true) {
            if (reader == null) {
                if (segment >= epochs.length) {
                    refresh(true);
                    if (segment >= epochs.length) {
                        return null;
                    }
                }
                openSegment();
            }
            int n = ExcerptReader.NONE;
            if (!segmentUnreadable) {
                try {
                    n = reader.next();
                } catch (RuntimeException | InternalError e) {
                    // InternalError: the JDK's report of a fault in a mapped-memory access.
                    // Chronicle cannot parse the excerpt headers here: nothing after this point is readable.
                    segmentUnreadable = true;
                    noteBad("storage excerpt unreadable: " + e);
                    n = ExcerptReader.NONE;
                }
            }
            if (n != ExcerptReader.NONE) {
                excerptsInSegment++;
                byte[] b = reader.buffer();
                String bad = codec.check(b, 0, n);
                if (bad != null) {
                    noteBad(bad);
                    continue;
                }
                if (badSequence >= 0) {
                    throw new JournalCorruptedException(badSequence, "record fails its check (" + badReason
                            + ") and good records follow it in segment " + epochs[segment] + " (chronicle index 0x"
                            + Long.toHexString(reader.index()) + "): mid-log corruption");
                }
                return accept(b, n);
            }
            if (!nextSegment()) {
                return null;
            }
        }
    }

    private void noteBad(String reason) {
        noteBad(reason, 1);
    }

    private void noteBad(String reason, long excerpts) {
        if (badSequence < 0) {
            badSequence = expectedSequence;
            badReason = reason;
        }
        badCount += excerpts;
    }

    private JournalRecord accept(byte[] b, int n) {
        long seq = RecordCodec.sequence(b, 0);
        if (seq != expectedSequence) {
            java.util.Optional<ArchivedFile> archived = JournalArchive.last(journalDir);
            if (archived.isPresent() && archived.get().lastSequence() >= expectedSequence) {
                // the file retention moved the files this reader was about to read out while it read
                throw archivedError(journalDir, expectedSequence, archived.get());
            }
            throw new JournalCorruptedException(expectedSequence, "expected sequence " + expectedSequence
                    + " but the record holds " + seq + " (segment " + epochs[segment] + ")");
        }
        if (previousHash != null && !RecordCodec.previousHashEquals(b, 0, previousHash)) {
            throw new JournalCorruptedException(seq, "hash chain broken: the previous-record hash does not match"
                    + " record " + (seq - 1));
        }
        long epoch = RecordCodec.epoch(b, 0);
        if (epoch != epochs[segment] || epoch < lastEpoch) {
            throw new JournalCorruptedException(seq, "record stamped with writer epoch " + epoch
                    + " in the segment of epoch " + epochs[segment]);
        }
        long ts = RecordCodec.timestamp(b, 0);
        if (ts < lastTimestamp) {
            throw new JournalCorruptedException(seq, "timestamp goes backwards");
        }
        JournalRecord rec;
        try {
            rec = new JournalRecord(seq, ts, epoch, codec.decode(b, 0, n));
        } catch (MalformedPayloadException e) {
            throw new JournalCorruptedException(seq, e.getMessage());
        }
        if (excerptsInSegment == 1 && !positionedMidSegment && !(archiveLink != null && seq <= firstLocal)
                && !(rec.event() instanceof JournalEvent.WriterStarted w && w.epoch() == epoch)) {
            throw new JournalCorruptedException(seq, "segment " + epochs[segment]
                    + " does not start with WriterStarted of its epoch");
        }
        if (previousHash == null) {
            previousHash = new byte[RecordDescriptor.HASH_LENGTH];
        }
        if (rec.event() instanceof JournalEvent.Released released) {
            // the chain links to the record the row release replaced (docs/journal.md "Row release")
            System.arraycopy(released.recordHash(), 0, previousHash, 0, RecordDescriptor.HASH_LENGTH);
        } else {
            codec.hash(b, 0, n, previousHash);
        }
        expectedSequence = seq + 1;
        lastEpoch = epoch;
        lastTimestamp = ts;
        return rec;
    }

    /** At the end of the current segment: moves on if a later segment exists. */
    private boolean nextSegment() {
        if (segment == epochs.length - 1) {
            refresh(false);
        }
        if (segment >= epochs.length - 1) {
            openTail = badSequence >= 0
                    ? new TornTail(epochs[segment], badSequence - 1, badCount, badReason) : null;
            return false;
        }
        // A later segment exists, so this one is closed for good: its writer is gone.
        checkCountOfClosedSegment();
        if (badSequence >= 0) {
            TornTail cut = new TornTail(epochs[segment], badSequence - 1, badCount, badReason);
            cutTails.add(cut);
            LOG.debug("skipping the cut tail {}", cut);
        }
        closeSegment();
        segment++;
        return true;
    }

    /**
     * For a reader that reached the end and knows the last segment's writer is gone (the journal writer at
     * open): checks that Chronicle's own count of the segment agrees with what was readable.
     */
    void checkLastSegmentClosed() {
        if (queue != null) {
            checkCountOfClosedSegment();
            openTail = badSequence >= 0
                    ? new TornTail(epochs[segment], badSequence - 1, badCount, badReason) : null;
        }
    }

    /**
     * Compares Chronicle's own excerpt count of a closed segment with what was readable. Chronicle counts
     * through its index pages, which are not synced per append: after a power cut they may list excerpts
     * whose data pages were lost (a lost tail, to be cut), or an excerpt header inside the segment may have
     * been lost, hiding good records behind it (mid-log corruption). The two are told apart by probing, through
     * Chronicle's index, every excerpt past the readable end for a good record of ours. When Chronicle cannot
     * even count (garbage after the last excerpt sends its index walk off the mapping), the bytes after the
     * readable end are a torn tail.
     */
    private void checkCountOfClosedSegment() {
        long counted;
        try {
            counted = queue.entryCount();
        } catch (RuntimeException | InternalError e) {
            noteBad("bytes after the last readable excerpt cannot be parsed by Chronicle: " + e);
            return;
        }
        if (excerptsInSegment >= counted) {
            return;
        }
        long limit = Math.min(counted, excerptsInSegment + MAX_PROBES);
        try (ExcerptTailer probe = queue.createTailer()) {
            ExcerptReader r = new ExcerptReader(probe);
            for (long j = excerptsInSegment; j < limit; j++) {
                int n;
                try {
                    if (!SegmentIndex.moveTo(queue, probe, j)) {
                        continue;
                    }
                    n = r.next();
                } catch (RuntimeException | InternalError e) {
                    continue;
                }
                if (n != ExcerptReader.NONE && codec.check(r.buffer(), 0, n) == null) {
                    throw new JournalCorruptedException(expectedSequence, "segment " + epochs[segment]
                            + ": an unreadable excerpt header hides good records (sequence "
                            + RecordCodec.sequence(r.buffer(), 0) + " found through Chronicle's index at excerpt " + j
                            + ", but reading stops after " + excerptsInSegment + ")");
                }
            }
        }
        noteBad("Chronicle's index lists " + (counted - excerptsInSegment)
                + " excerpt(s) past the readable end whose data is lost", counted - excerptsInSegment);
    }

    private void refresh(boolean force) {
        if (!follow) {
            return;
        }
        long now = System.nanoTime();
        if (!force && now - lastRefresh < REFRESH_NANOS) {
            return;
        }
        lastRefresh = now;
        long[] latest = Segments.ready(journalDir);
        if (latest.length > epochs.length) {
            epochs = latest;
        }
    }

    private void openSegment() {
        queue = ChronicleSupport.open(Segments.dir(journalDir, epochs[segment]), true);
        reader = new ExcerptReader(queue.createTailer());
        badSequence = -1;
        badReason = null;
        badCount = 0;
        excerptsInSegment = 0;
        positionedMidSegment = false;
        segmentUnreadable = false;
        openTail = null;
    }

    private void closeSegment() {
        if (reader != null) {
            reader.tailer().close();
            reader = null;
        }
        if (queue != null) {
            queue.close();
            queue = null;
        }
    }

    // ------------------------------------------------------------------ state after reading

    /** The sequence the next good record must hold. */
    public long expectedSequence() {
        return expectedSequence;
    }

    /** SHA-256 of the last record returned (all zero before sequence 0); null if unknown. */
    public byte[] lastHash() {
        return previousHash == null ? null : previousHash.clone();
    }

    long lastEpoch() {
        return lastEpoch;
    }

    long lastTimestamp() {
        return lastTimestamp;
    }

    /** Torn tails skipped because a later writer cut them. */
    public List<TornTail> cutTails() {
        return List.copyOf(cutTails);
    }

    /** The torn tail at the end of the journal that no writer has cut yet, or null. */
    public TornTail openTail() {
        return openTail;
    }

    @Override
    public void close() {
        closeSegment();
    }
}
