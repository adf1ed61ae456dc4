package io.palisade.journal;

import io.palisade.fencing.CommitStateUnknownException;
import io.palisade.journal.codec.RecordCodec;
import net.openhft.chronicle.queue.ExcerptAppender;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueue;
import net.openhft.chronicle.wire.DocumentContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The embedded journal storage: {@code <graph>/_palisade/journal/}, one Chronicle queue per writer session
 * (see {@link Segments}), the session holding the local {@link WriterLease}.
 */
final class ChronicleStorage implements JournalStorage {
    static {
        ChronicleSupport.disableAnalytics();
    }

    private static final Logger LOG = LoggerFactory.getLogger(ChronicleStorage.class);

    private final Path journalDir;
    private final WriterLease lease;
    private final SingleChronicleQueue queue;
    private final ExcerptAppender appender;
    /** This writer's segment directory (one Chronicle queue). */
    private final Path segmentDir;
    private final ChainState scan;
    /** Keeps read-around off the mapping the appender writes through, so a sync writes only what it covers. */
    private final MappingAdvice mappingAdvice = new MappingAdvice();
    /** Allocates and caches the cycle file's pages ahead of the appender, so a sync writes only its records' pages. */
    /** Keeps the cycle file prepared ahead of the appender; null when the journal's options turn that off. */
    private final Pretoucher pretoucher;
    /** The cycle of {@link #cycleFile}, the file the appender writes (one object per cycle, for the pretoucher). */
    private int fileCycle = Integer.MIN_VALUE;
    private Path cycleFile;
    /** The cycle whose file and queue metadata were last synced with the segment directory. */
    private int metadataSyncedForCycle = Integer.MIN_VALUE;

    /**
     * The time Chronicle rolls by: the timestamp (epoch milliseconds) of the record being appended, never going back;
     * the lease's start before the first.
     */
    private final AtomicLong recordMillis;
    /** This writer's row release (its memory of finished segments); runs are serialised by {@link Journal}. */
    private final RowRelease rowRelease;
    /** This writer's file retention; runs are serialised by {@link Journal}. */
    private final JournalArchive archive;

    private ChronicleStorage(Path journalDir, WriterLease lease, SingleChronicleQueue queue, ChainState scan,
                             AtomicLong recordMillis, boolean prepareAhead) {
        this.recordMillis = recordMillis;
        this.rowRelease = new RowRelease(journalDir);
        this.archive = new JournalArchive(journalDir, Clock.systemUTC());
        this.journalDir = journalDir;
        this.lease = lease;
        this.queue = queue;
        this.appender = queue.createAppender();
        this.appender.singleThreadedCheckDisabled(true);
        this.segmentDir = Segments.dir(journalDir, lease.owner().epoch());
        this.scan = scan;
        this.pretoucher = prepareAhead ? Pretoucher.started("palisade-journal-pretouch") : null;
    }

    /**
     * Takes the writer lease, verifies the journal, removes unready segments and creates this session's segment.
     *
     * @throws io.palisade.fencing.GraphRefusedException     when another live writer holds the lease
     * @throws io.palisade.fencing.JournalCorruptedException on mid-log corruption (the lease is released)
     */
    static ChronicleStorage open(Path palisadeDir, Clock clock, boolean prepareAhead) {
        Path journalDir = palisadeDir.resolve(Journal.DIRECTORY);
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
        WriterLease lease = WriterLease.acquire(palisadeDir, Segments.maxEpoch(journalDir), clock);
        SingleChronicleQueue queue = null;
        try {
            ChainState state = verify(journalDir);
            int leftovers = Segments.deleteAllUnready(journalDir);
            if (leftovers > 0) {
                LOG.info("journal {}: removed {} unready segment(s) left by writers that died while opening",
                        journalDir, leftovers);
            }
            AtomicLong recordMillis = new AtomicLong(lease.owner().since().toEpochMilli());
            queue = ChronicleSupport.openForWriting(Segments.dir(journalDir, lease.owner().epoch()), recordMillis::get);
            return new ChronicleStorage(journalDir, lease, queue, state, recordMillis, prepareAhead);
        } catch (RuntimeException e) {
            if (queue != null) {
                queue.close();
            }
            lease.close();
            throw e;
        }
    }

    /**
     * Verifies the chain from the journal's anchor to its end ({@link ChainAnchor}: the open's cost is what was
     * appended since), or from sequence 0 when there is no anchor or it does not hold.
     *
     * @throws io.palisade.fencing.JournalCorruptedException on mid-log corruption in the range verified
     */
    static ChainState verify(Path journalDir) {
        Optional<ChainAnchor> anchor = ChainAnchor.read(journalDir);
        if (anchor.isPresent()) {
            ChainState s = verifyFrom(journalDir, anchor.get());
            if (s != null) {
                return s;
            }
        }
        try (ChainReader scan = new ChainReader(journalDir, JournalArchive.firstLocalSequence(journalDir), false)) {
            while (scan.poll() != null) {
                // verifying every record
            }
            scan.checkLastSegmentClosed();
            return ChainState.of(scan, scan.lastEpoch(), scan.lastTimestamp());
        }
    }

    /** The chain verified from {@code a}'s record to the end; null (logged) when that record does not hash to it. */
    private static ChainState verifyFrom(Path journalDir, ChainAnchor a) {
        ChainReader scan;
        try {
            scan = new ChainReader(journalDir, a.sequence(), false);
        } catch (IllegalArgumentException e) { // a record the journal no longer holds: a power cut took it
            LOG.warn("journal {}: the chain anchor names sequence {}, which the journal does not hold; verifying from "
                    + "sequence 0", journalDir, a.sequence());
            return null;
        } catch (io.palisade.fencing.JournalArchivedException e) { // the file retention moved it out
            return null;
        }
        try (scan) {
            JournalRecord first = scan.poll();
            if (first == null || first.sequence() != a.sequence() || !a.matches(scan.lastHash())) {
                LOG.warn("journal {}: the record at the chain anchor's sequence {} does not hash to the anchor; "
                        + "verifying from sequence 0", journalDir, a.sequence());
                return null;
            }
            while (scan.poll() != null) {
                // verifying every record after the anchor
            }
            scan.checkLastSegmentClosed();
            return ChainState.of(scan, scan.lastEpoch(), scan.lastTimestamp());
        }
    }

    @Override
    public void anchor(long sequence, byte[] hash) {
        new ChainAnchor(sequence, hash).write(journalDir);
    }

    @Override
    public RowReleaseReport releaseRows(long belowSequence, long olderThanNanos, RowRelease.Hook hook) {
        return rowRelease.run(belowSequence, olderThanNanos, hook);
    }

    @Override
    public ArchiveReport archiveFiles(long below, long keepBytes, Path copyTo, boolean unreleased,
                                      JournalArchive.Hook hook) {
        return archive.run(unreleased ? below : Math.min(below, rowRelease.progress()), keepBytes, copyTo, lease.owner().epoch(),
                queue::refreshDirectoryListing, hook);
    }

    @Override
    public LeaseOwner owner() {
        return lease.owner();
    }

    @Override
    public Optional<LeaseOwner> previousOwner() {
        return lease.previousOwner();
    }

    @Override
    public ChainState scan() {
        return scan;
    }

    /**
     * One Chronicle excerpt per record; one msync for the group when {@code POWER_LOSS}, of the pages the records
     * touched ({@link MappingAdvice}).
     */
    @Override
    public void write(byte[] bytes, int[] offsets, int n, long firstSequence, Durability durability) {
        try {
            for (int i = 0; i < n; i++) {
                long millis = RecordCodec.timestamp(bytes, offsets[i]) / 1_000_000L;
                recordMillis.accumulateAndGet(millis, Math::max);
                try (DocumentContext dc = appender.writingDocument()) {
                    dc.wire().bytes().write(bytes, offsets[i], offsets[i + 1] - offsets[i]);
                }
            }
        } catch (RuntimeException e) {
            throw new CommitStateUnknownException("journal append of sequences " + firstSequence + ".."
                    + (firstSequence + n - 1) + " failed part-way", e);
        }
        mappingAdvice.adviseCurrent(appender);
        if (appender.cycle() != fileCycle) {
            fileCycle = appender.cycle();
            cycleFile = appender.currentFile().toPath();
        }
        if (pretoucher != null) {
            pretoucher.appended(cycleFile, appender.wire().bytes().writePosition());
        }
        if (durability == Durability.POWER_LOSS) {
            sync(firstSequence + n - 1);
        }
    }

    private void sync(long lastSequence) {
        try {
            appender.sync();
            int cycle = appender.cycle();
            if (cycle != metadataSyncedForCycle) {
                // Chronicle writes its metadata.cq4t through a mapping it never syncs: a power cut leaves it
                // empty, and every later read-only open of the segment then waits 1 s for it to be
                // initialised before falling back. It is synced (with the segment directory, which names a
                // new cycle file) at the segment's first sync — before its ready marker — and on every roll.
                Segments.syncQueueMetadata(segmentDir);
                if (metadataSyncedForCycle != Integer.MIN_VALUE) {
                    // the roll wrote Chronicle's end-of-file marker into the file before, which no msync of the
                    // new file covers: without it a reader after a power cut would not move past that file
                    Segments.syncCycleFileBefore(segmentDir, RowRelease.fileName(queue.rollCycle(), cycle));
                }
                metadataSyncedForCycle = cycle;
            }
        } catch (IOException | RuntimeException e) {
            throw new CommitStateUnknownException("journal sync failed; records up to sequence " + lastSequence
                    + " may not be durable", e);
        }
    }

    @Override
    public void started() {
        Segments.markReady(journalDir, lease.owner().epoch());
    }

    @Override
    public RecordSource source() {
        return new ChronicleSource(journalDir);
    }

    @Override
    public String describe() {
        return journalDir.toString();
    }

    /** Chronicle index of the last record appended (tests: durability bookkeeping). */
    long lastIndexAppended() {
        return appender.lastIndexAppended();
    }

    /** Chronicle's record of the last index covered by an msync (tests: durability bookkeeping). */
    long lastIndexMSynced() {
        return queue.lastIndexMSynced();
    }

    @Override
    public void close(boolean flush) {
        try {
            if (flush) {
                appender.sync();
            }
        } finally {
            if (pretoucher != null) {
                pretoucher.close();
            }
            appender.close();
            queue.close();
            lease.close();
        }
    }
}
