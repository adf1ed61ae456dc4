package io.palisade.journal;

import io.palisade.fencing.CommitStateUnknownException;
import io.palisade.fencing.ValidationException;
import io.palisade.journal.codec.RecordCodec;
import net.openhft.chronicle.queue.ExcerptAppender;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueue;
import net.openhft.chronicle.wire.DocumentContext;
import org.agrona.ExpandableArrayBuffer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The journal writer of one graph: the only appender, holding the writer lease.
 *
 * <p>Layout: {@code <graph>/_palisade/writer.lease} and {@code <graph>/_palisade/journal/}, which holds
 * one Chronicle queue per writer session (see {@link Segments}).
 *
 * <p>Invariants:
 * <ul>
 *   <li>Sequences are dense: 0, 1, 2, ... across sessions; each record carries the SHA-256 of the one
 *       before it and the writer's lease epoch.</li>
 *   <li>{@link #open} verifies the whole journal first. Mid-log corruption refuses the open with
 *       {@link io.palisade.fencing.JournalCorruptedException}; a torn tail is cut back: the new session
 *       continues after the last good record in its own segment, and journals {@link JournalEvent.TornTailCut}.</li>
 *   <li>An append returns only when the record is durable in the requested {@link Durability}. If an
 *       append fails part-way the journal refuses further appends ({@link CommitStateUnknownException}):
 *       reopen it, which re-verifies the tail.</li>
 * </ul>
 * Appends are serialised by this object's monitor; readers use their own cursors.
 */
public final class Journal implements AutoCloseable {
    static {
        ChronicleSupport.disableAnalytics();
    }

    private static final Logger LOG = LoggerFactory.getLogger(Journal.class);

    /** The journal directory inside {@code _palisade/}. */
    public static final String DIRECTORY = "journal";

    private final Path palisadeDir;
    private final Path journalDir;
    private final JournalOptions options;
    private final WriterLease lease;
    private final SingleChronicleQueue queue;
    private final ExcerptAppender appender;
    /** This writer's segment directory (one Chronicle queue). */
    private final Path segmentDir;
    /** The cycle whose file and queue metadata were last synced with the segment directory. */
    private int metadataSyncedForCycle = Integer.MIN_VALUE;
    private final RecordCodec codec = new RecordCodec();
    private final ExpandableArrayBuffer buffer = new ExpandableArrayBuffer(64 * 1024);
    private int[] offsets = new int[65];
    private final List<TornTail> cutTails;
    private final TornTail cutAtOpen;

    private long nextSequence;
    private final byte[] lastHash;
    private long lastTimestamp;
    private boolean failed;
    private boolean closed;

    private Journal(Path palisadeDir, JournalOptions options, WriterLease lease, SingleChronicleQueue queue,
                    ChainReader scan) {
        this.palisadeDir = palisadeDir;
        this.journalDir = palisadeDir.resolve(DIRECTORY);
        this.options = options;
        this.lease = lease;
        this.queue = queue;
        this.appender = queue.createAppender();
        this.segmentDir = Segments.dir(journalDir, lease.owner().epoch());
        this.appender.singleThreadedCheckDisabled(true);
        this.nextSequence = scan.expectedSequence();
        this.lastHash = scan.lastHash();
        this.lastTimestamp = scan.lastTimestamp();
        this.cutTails = scan.cutTails();
        this.cutAtOpen = scan.openTail();
    }

    /**
     * Opens the journal of the graph whose {@code _palisade/} directory is {@code palisadeDir} for writing:
     * takes the writer lease, verifies the journal, cuts a torn tail, starts a segment for this session
     * and appends {@link JournalEvent.WriterStarted} (and {@link JournalEvent.TornTailCut} when a tail was cut).
     *
     * @throws io.palisade.fencing.GraphRefusedException     when another live writer holds the lease
     * @throws io.palisade.fencing.JournalCorruptedException on mid-log corruption (the lease is released)
     */
    public static Journal open(Path palisadeDir, JournalOptions options) {
        Path journalDir = palisadeDir.resolve(DIRECTORY);
        try {
            if (!Files.isDirectory(journalDir)) {
                Files.createDirectories(journalDir);
                // the new directory's entry, and its parent's, must survive a power cut like the records in it
                Segments.fsyncDirectory(palisadeDir);
                if (palisadeDir.toAbsolutePath().getParent() != null) {
                    Segments.fsyncDirectory(palisadeDir.toAbsolutePath().getParent());
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create " + journalDir, e);
        }
        WriterLease lease = WriterLease.acquire(palisadeDir, Segments.maxEpoch(journalDir), options.clock());
        SingleChronicleQueue queue = null;
        try {
            Journal journal;
            try (ChainReader scan = new ChainReader(journalDir, 0, false)) {
                while (scan.poll() != null) {
                    // verifying every record
                }
                scan.checkLastSegmentClosed();
                int leftovers = Segments.deleteAllUnready(journalDir);
                if (leftovers > 0) {
                    LOG.info("journal {}: removed {} unready segment(s) left by writers that died while opening",
                            journalDir, leftovers);
                }
                queue = ChronicleSupport.open(Segments.dir(journalDir, lease.owner().epoch()), false);
                journal = new Journal(palisadeDir, options, lease, queue, scan);
            }
            journal.start();
            return journal;
        } catch (RuntimeException e) {
            if (queue != null) {
                queue.close();
            }
            lease.close();
            throw e;
        }
    }

    private void start() {
        LeaseOwner o = lease.owner();
        List<JournalEvent> first = new ArrayList<>(2);
        first.add(new JournalEvent.WriterStarted(o.epoch(), o.token(), o.pid(), o.host(), options.binaryVersion(),
                options.formatStamp()));
        if (cutAtOpen != null) {
            LOG.warn("journal {}: torn tail cut back to sequence {}: {} excerpt(s) of segment {} failed their check ({})",
                    journalDir, cutAtOpen.lastGoodSequence(), cutAtOpen.excerpts(), cutAtOpen.segmentEpoch(),
                    cutAtOpen.reason());
            first.add(new JournalEvent.TornTailCut(cutAtOpen.segmentEpoch(), cutAtOpen.lastGoodSequence(),
                    cutAtOpen.excerpts(), cutAtOpen.reason()));
        }
        appendBatch(first, Durability.POWER_LOSS);
        Segments.markReady(journalDir, o.epoch());
    }

    /** Appends with the default durability; returns the record's sequence. */
    public long append(JournalEvent event) {
        return append(event, options.defaultDurability());
    }

    /** Appends one record; returns its sequence once it is durable in {@code durability}. */
    public synchronized long append(JournalEvent event, Durability durability) {
        return appendBatch(List.of(event), durability);
    }

    /**
     * Appends the events as consecutive records with one sync for all of them (group commit); returns the
     * first sequence. Every event is encoded before any is written, so an event that cannot be journaled
     * ({@link ValidationException}) leaves nothing written. Empty input appends nothing and returns the
     * next sequence.
     */
    public synchronized long appendBatch(List<? extends JournalEvent> events, Durability durability) {
        checkWritable();
        long first = nextSequence;
        int n = events.size();
        if (n == 0) {
            return first;
        }
        if (offsets.length < n + 1) {
            offsets = new int[Math.max(n + 1, offsets.length * 2)];
        }
        // 1. Encode the whole batch (sequences, timestamps, hash chain) without touching the queue.
        byte[] hash = lastHash.clone();
        long ts = lastTimestamp;
        long epoch = lease.owner().epoch();
        int pos = 0;
        try {
            for (int i = 0; i < n; i++) {
                ts = Math.max(JournalRecord.nanos(options.clock().instant()), ts);
                offsets[i] = pos;
                int length = codec.encode(events.get(i), first + i, ts, epoch, hash, buffer, pos);
                codec.hash(buffer.byteArray(), pos, length, hash);
                pos += length;
            }
        } catch (IllegalArgumentException | IndexOutOfBoundsException e) {
            throw new ValidationException("event cannot be journaled: " + e.getMessage(), e);
        }
        offsets[n] = pos;
        // 2. Write them, one Chronicle excerpt each; 3. sync once.
        byte[] bytes = buffer.byteArray();
        try {
            for (int i = 0; i < n; i++) {
                try (DocumentContext dc = appender.writingDocument()) {
                    dc.wire().bytes().write(bytes, offsets[i], offsets[i + 1] - offsets[i]);
                }
            }
        } catch (RuntimeException e) {
            failed = true;
            throw new CommitStateUnknownException("journal append of sequences " + first + ".." + (first + n - 1)
                    + " failed part-way", e);
        }
        System.arraycopy(hash, 0, lastHash, 0, hash.length);
        lastTimestamp = ts;
        nextSequence = first + n;
        if (durability == Durability.POWER_LOSS) {
            sync();
        }
        return first;
    }

    private void sync() {
        try {
            appender.sync();
            int cycle = appender.cycle();
            if (cycle != metadataSyncedForCycle) {
                // Chronicle writes its metadata.cq4t through a mapping it never syncs: a power cut leaves it
                // empty, and every later read-only open of the segment then waits 1 s for it to be
                // initialised before falling back. It is synced (with the segment directory, which names a
                // new cycle file) at the segment's first sync — before its ready marker — and on every roll.
                Segments.syncQueueMetadata(segmentDir);
                metadataSyncedForCycle = cycle;
            }
        } catch (IOException e) {
            failed = true;
            throw new CommitStateUnknownException("journal sync failed; records up to sequence " + (nextSequence - 1)
                    + " may not be durable", e);
        } catch (RuntimeException e) {
            failed = true;
            throw new CommitStateUnknownException("journal sync failed; records up to sequence " + (nextSequence - 1)
                    + " may not be durable", e);
        }
    }

    private void checkWritable() {
        if (closed) {
            throw new IllegalStateException("journal " + journalDir + " is closed");
        }
        if (failed) {
            throw new CommitStateUnknownException("journal " + journalDir + " failed earlier; reopen it", null);
        }
    }

    /** One past the last appended sequence. */
    public synchronized long endSequence() {
        return nextSequence;
    }

    /** This writer's lease epoch, stamped on every record it appends. */
    public long epoch() {
        return lease.owner().epoch();
    }

    public LeaseOwner owner() {
        return lease.owner();
    }

    /** The owner this writer took the lease over from, if any. */
    public Optional<LeaseOwner> previousOwner() {
        return lease.previousOwner();
    }

    /** The torn tail this open cut back, if any. */
    public Optional<TornTail> tornTailCutAtOpen() {
        return Optional.ofNullable(cutAtOpen);
    }

    /** Earlier torn tails (cut by earlier writers) seen while verifying at open. */
    public List<TornTail> earlierCutTails() {
        return cutTails;
    }

    /** SHA-256 (hex) of the last appended record: the head of the hash chain. */
    public synchronized String chainHead() {
        return java.util.HexFormat.of().formatHex(lastHash);
    }

    /** Chronicle index of the last record appended (tests: durability bookkeeping). */
    synchronized long lastChronicleIndexAppended() {
        return appender.lastIndexAppended();
    }

    /** Chronicle's record of the last index covered by an msync (tests: durability bookkeeping). */
    synchronized long lastChronicleIndexMSynced() {
        return queue.lastIndexMSynced();
    }

    /** A read-only view of this journal (its own Chronicle handles; safe while appending). */
    public JournalReader reader() {
        return JournalReader.open(palisadeDir);
    }

    public Path palisadeDirectory() {
        return palisadeDir;
    }

    /** Syncs, closes the queue and releases the lease. Idempotent. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            if (!failed) {
                appender.sync();
            }
        } finally {
            appender.close();
            queue.close();
            lease.close();
        }
    }
}
