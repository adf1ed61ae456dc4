package io.palisade.journal;

import io.palisade.fencing.CommitStateUnknownException;
import io.palisade.fencing.ValidationException;
import io.palisade.fencing.WriterFencedException;
import io.palisade.journal.codec.RecordCodec;
import org.agrona.ExpandableArrayBuffer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The journal writer of one graph: the only appender. The records' bytes (framing, CRC32C, SHA-256 chain, dense
 * sequences, writer epoch) are made here, the same for every storage; where they go is a {@link JournalStorage}:
 *
 * <ul>
 *   <li>Chronicle (the embedded default): {@code <graph>/_palisade/writer.lease} and {@code <graph>/_palisade/journal/},
 *       one Chronicle queue per writer session (see {@link Segments});</li>
 *   <li>Kafka, when {@code <graph>/_palisade/journal.properties} names a topic ({@link KafkaJournalConfig}): one
 *       single-partition replicated topic per graph, written by a transactional producer that fences the previous
 *       writer (docs/journal.md "Kafka").</li>
 * </ul>
 *
 * <p>Invariants:
 * <ul>
 *   <li>Sequences are dense: 0, 1, 2, ... across sessions; each record carries the SHA-256 of the one
 *       before it and the writer's epoch (its fencing token).</li>
 *   <li>{@link #open} verifies the whole journal first. Mid-log corruption refuses the open with
 *       {@link io.palisade.fencing.JournalCorruptedException}; a torn tail (Chronicle) is cut back: the new session
 *       continues after the last good record in its own segment, and journals {@link JournalEvent.TornTailCut}.</li>
 *   <li>An append returns only when the record is durable in the requested {@link Durability}. If an
 *       append fails part-way the journal refuses further appends ({@link CommitStateUnknownException}):
 *       reopen it, which re-verifies the tail. A writer fenced by a newer one fails this and every later append
 *       with {@link WriterFencedException}.</li>
 * </ul>
 * Appends are serialised by this object's monitor; readers use their own cursors.
 */
public final class Journal implements AutoCloseable {
    static {
        ChronicleSupport.disableAnalytics();
    }

    private static final Logger LOG = LoggerFactory.getLogger(Journal.class);

    /** The journal directory inside {@code _palisade/}. */
    /** Held by a row release, and by {@link #close} so that it waits for one (taken before {@code this}). */
    private final Object releaseLock = new Object();
    public static final String DIRECTORY = "journal";

    private final Path palisadeDir;
    private final JournalOptions options;
    private final JournalStorage storage;
    private final RecordCodec codec = new RecordCodec();
    private final ExpandableArrayBuffer buffer = new ExpandableArrayBuffer(64 * 1024);
    private int[] offsets = new int[65];
    private final List<TornTail> cutTails;
    private final TornTail cutAtOpen;

    private long nextSequence;
    private final byte[] lastHash;
    private long lastTimestamp;
    private boolean failed;
    private WriterFencedException fenced;
    private boolean closed;

    private Journal(Path palisadeDir, JournalOptions options, JournalStorage storage) {
        this.palisadeDir = palisadeDir;
        this.options = options;
        this.storage = storage;
        ChainState scan = storage.scan();
        this.nextSequence = scan.nextSequence();
        this.lastHash = scan.lastHash().clone();
        this.lastTimestamp = scan.lastTimestamp();
        this.cutTails = scan.cutTails();
        this.cutAtOpen = scan.openTail();
    }

    /**
     * Checks, before a new graph is created with its journal on {@code config}'s topic, that the topic is absent or an
     * empty journal topic: a create never appends to (nor fences the writer of) another graph's journal. Writes nothing.
     *
     * @throws io.palisade.fencing.GraphRefusedException the topic holds records, has more than one partition, a lower
     *                                                   {@code min.insync.replicas} than configured or unclean leader
     *                                                   election; or no broker answered
     */
    public static void checkNewKafkaTopic(KafkaJournalConfig config) {
        KafkaStorage.checkNewTopic(config);
    }

    /**
     * Opens the journal of the graph whose {@code _palisade/} directory is {@code palisadeDir} for writing, on the
     * storage {@code _palisade/journal.properties} names (Chronicle when there is none): takes the writer lease
     * (Chronicle) or fences the previous writer (Kafka), verifies the journal, cuts a torn tail, and appends
     * {@link JournalEvent.WriterStarted} (and {@link JournalEvent.TornTailCut} when a tail was cut).
     *
     * @throws io.palisade.fencing.GraphRefusedException     when another live writer holds the lease (Chronicle)
     * @throws io.palisade.fencing.JournalCorruptedException on mid-log corruption (the lease is released)
     * @throws WriterFencedException                         when a newer writer fenced this one while it opened
     */
    public static Journal open(Path palisadeDir, JournalOptions options) {
        return open(palisadeDir, options, false);
    }

    /**
     * {@link #open(Path, JournalOptions)} for a graph being created: after the storage is this writer's (the lease
     * taken, or on Kafka the previous producer fenced and the topic read to its end under this writer's epoch), the
     * journal must hold no record, else nothing is appended and the open is refused. On Kafka this closes the race
     * that {@link #checkNewKafkaTopic}'s read-only check leaves between two creates naming one topic: the create that
     * fences second sees the first one's committed records and is refused, and one whose first transaction is fenced
     * by another create fails its start with {@link WriterFencedException}; neither appends to the other's journal.
     *
     * @throws io.palisade.fencing.GraphRefusedException the journal already holds records (nothing was appended)
     */
    public static Journal openNew(Path palisadeDir, JournalOptions options) {
        return open(palisadeDir, options, true);
    }

    private static Journal open(Path palisadeDir, JournalOptions options, boolean mustBeEmpty) {
        Optional<KafkaJournalConfig> kafka = KafkaJournalConfig.read(palisadeDir);
        JournalStorage storage = kafka.isPresent()
                ? KafkaStorage.open(kafka.get(), options.clock())
                : ChronicleStorage.open(palisadeDir, options.clock(), options.prepareAhead());
        try {
            Journal journal = new Journal(palisadeDir, options, storage);
            if (mustBeEmpty && journal.nextSequence != 0) {
                throw new io.palisade.fencing.GraphRefusedException("journal " + storage.describe() + " already holds "
                        + journal.nextSequence + " record(s): it is another graph's journal, or that of a create that "
                        + "raced this one or did not finish; nothing was written to it");
            }
            journal.start();
            return journal;
        } catch (RuntimeException e) {
            storage.close(false);
            throw e;
        }
    }

    private void start() {
        LeaseOwner o = storage.owner();
        List<JournalEvent> first = new ArrayList<>(2);
        first.add(new JournalEvent.WriterStarted(o.epoch(), o.token(), o.pid(), o.host(), options.binaryVersion(),
                options.formatStamp()));
        if (cutAtOpen != null) {
            LOG.warn("journal {}: torn tail cut back to sequence {}: {} excerpt(s) of segment {} failed their check ({})",
                    storage.describe(), cutAtOpen.lastGoodSequence(), cutAtOpen.excerpts(), cutAtOpen.segmentEpoch(),
                    cutAtOpen.reason());
            first.add(new JournalEvent.TornTailCut(cutAtOpen.segmentEpoch(), cutAtOpen.lastGoodSequence(),
                    cutAtOpen.excerpts(), cutAtOpen.reason()));
        }
        appendBatch(first, Durability.POWER_LOSS);
        storage.started();
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
        long epoch = storage.owner().epoch();
        int pos = 0;
        try {
            for (int i = 0; i < n; i++) {
                if (events.get(i) instanceof JournalEvent.Released) {
                    throw new IllegalArgumentException("rows_released and write_released are written by the row "
                            + "release only, in place of a rows_recorded or write_journaled record; never appended");
                }
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
        // 2. Write them as one group: one sync (Chronicle) or one transaction (Kafka) for all of them.
        try {
            storage.write(buffer.byteArray(), offsets, n, first, durability);
        } catch (WriterFencedException e) {
            failed = true;
            fenced = e;
            throw e;
        } catch (CommitStateUnknownException e) {
            failed = true;
            throw e;
        } catch (RuntimeException e) {
            failed = true;
            throw new CommitStateUnknownException("journal append of sequences " + first + ".." + (first + n - 1)
                    + " failed part-way", e);
        }
        System.arraycopy(hash, 0, lastHash, 0, hash.length);
        lastTimestamp = ts;
        nextSequence = first + n;
        return first;
    }

    /**
     * Makes the newest record the journal's chain anchor ({@link ChainAnchor}): the next writer's open verifies the
     * chain from it instead of from sequence 0. Call it only once that record is durable (a {@code POWER_LOSS} append
     * returned); an anchor a power cut made stale is detected at the open, which then verifies from sequence 0. A
     * failure to write it is logged, never thrown: the anchor only saves time. Only the Chronicle storage keeps one.
     */
    public synchronized void anchor() {
        if (closed || failed || fenced != null || nextSequence == 0) {
            return;
        }
        try {
            storage.anchor(nextSequence - 1, lastHash.clone());
        } catch (RuntimeException e) {
            LOG.warn("journal {}: the chain anchor at sequence {} was not written ({}); the next open verifies from "
                    + "an older anchor or from sequence 0", storage.describe(), nextSequence - 1, e.toString());
        }
    }

    private void checkWritable() {
        if (closed) {
            throw new IllegalStateException("journal " + storage.describe() + " is closed");
        }
        if (fenced != null) {
            throw new WriterFencedException("journal " + storage.describe() + ": this writer (epoch " + epoch()
                    + ") was fenced by a newer writer; it can append nothing more", fenced);
        }
        if (failed) {
            throw new CommitStateUnknownException("journal " + storage.describe() + " failed earlier; reopen it", null);
        }
    }

    /** Whether a newer writer fenced this one (every append now fails with {@link WriterFencedException}). */
    public synchronized boolean fenced() {
        return fenced != null;
    }

    /** One past the last appended sequence. */
    public synchronized long endSequence() {
        return nextSequence;
    }

    /** This writer's epoch (fencing token), stamped on every record it appends. */
    public long epoch() {
        return storage.owner().epoch();
    }

    public LeaseOwner owner() {
        return storage.owner();
    }

    /** The owner this writer took the graph over from, if any. */
    public Optional<LeaseOwner> previousOwner() {
        return storage.previousOwner();
    }

    /** Whether the journal is on Kafka (else on Chronicle, with the local writer lease). */
    public boolean onKafka() {
        return switch (storage) {
            case ChronicleStorage c -> false;
            case KafkaStorage k -> true;
        };
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
    /** The journal time of the newest record (epoch nanoseconds; the writer's clock, never going back). */
    public synchronized long lastTimestampNanos() {
        return lastTimestamp;
    }

    public synchronized String chainHead() {
        return java.util.HexFormat.of().formatHex(lastHash);
    }

    /** Chronicle index of the last record appended (tests: durability bookkeeping); -1 on Kafka. */
    synchronized long lastChronicleIndexAppended() {
        return switch (storage) {
            case ChronicleStorage c -> c.lastIndexAppended();
            case KafkaStorage k -> -1;
        };
    }

    /** Chronicle's record of the last index covered by an msync (tests: durability bookkeeping); -1 on Kafka. */
    synchronized long lastChronicleIndexMSynced() {
        return switch (storage) {
            case ChronicleStorage c -> c.lastIndexMSynced();
            case KafkaStorage k -> -1;
        };
    }

    /** A read-only view of this journal (its own storage handles; safe while appending). */
    public JournalReader reader() {
        return new JournalReader(storage.source());
    }

    public Path palisadeDirectory() {
        return palisadeDir;
    }

    /**
     * The journal's row release (docs/journal.md "Row release"): replaces every {@code rows_recorded} record in the
     * closed files whose records all lie before {@code belowSequence} by a {@code rows_released} record that keeps
     * the original's hash, so the chain still verifies and the rows stop costing disk. The caller guarantees that no
     * reader of the graph's state needs those rows again: every journal-ack write before {@code belowSequence} is
     * folded into its table and a durable checkpoint covers it. Runs beside appends (it touches only files the writer
     * has closed); one run at a time; {@link #close} waits for a run in progress.
     *
     * @throws JournalClosedException when the journal is closed, failed or fenced (this writer no longer owns it)
     */
    public RowReleaseReport releaseRows(long belowSequence) {
        return releaseRows(belowSequence, java.time.Duration.ZERO, RowRelease.Hook.NONE);
    }

    /**
     * {@link #releaseRows(long)}, keeping the rows of every file whose last record is younger than {@code keep} in the
     * journal's own time (the newest record's timestamp): the window in which reads of the past still find them.
     */
    public RowReleaseReport releaseRows(long belowSequence, java.time.Duration keep) {
        return releaseRows(belowSequence, keep, RowRelease.Hook.NONE);
    }

    RowReleaseReport releaseRows(long belowSequence, java.time.Duration keep, RowRelease.Hook hook) {
        long olderThanNanos;
        synchronized (releaseLock) {
            synchronized (this) {
                if (closed || failed || fenced != null) {
                    throw new JournalClosedException("journal " + storage.describe() + " is closed, failed or fenced: "
                            + "only its live writer releases rows");
                }
                belowSequence = Math.min(belowSequence, nextSequence);
                olderThanNanos = keep.isZero() ? Long.MAX_VALUE : lastTimestamp - keep.toNanos();
            }
            return storage.releaseRows(belowSequence, olderThanNanos, hook);
        }
    }

    /**
     * The journal's file retention (docs/journal.md "File retention"): while the local journal's files hold more than
     * {@code keepBytes}, moves the oldest closed file whose records all lie before {@code below} and whose rows the row
     * release has released out of it (the caller names a sequence no checkpoint it may fall back to replays from
     * before), copying it to
     * {@code copyTo} first when that is not null, and logs its chain anchors in {@code journal/archive.log}. Run after
     * {@link #releaseRows}: only files the release has gone past leave, so only what no reopen, recovery or read of the
     * graph's present needs. Reads from before the first local sequence then throw
     * {@link io.palisade.fencing.JournalArchivedException}; {@code audit verify} verifies the archived range through its
     * anchors (and the copies when kept). Kafka journals move nothing.
     *
     * @throws JournalClosedException when the journal is closed, failed or fenced
     */
    public ArchiveReport archiveFiles(long below, long keepBytes, Path copyTo) {
        return archiveFiles(below, keepBytes, copyTo, false, JournalArchive.Hook.NONE);
    }

    /**
     * {@link #archiveFiles(long, long, Path)}, and files whose rows the row release has not reached (younger than its
     * window) leave too: the byte budget cutting into the retention window. The caller vouches for {@code below} alone:
     * every journal-ack write before it is folded, and a durable checkpoint it may fall back to covers it.
     *
     * @throws JournalClosedException when the journal is closed, failed or fenced
     */
    public ArchiveReport archiveFilesUnreleased(long below, long keepBytes, Path copyTo) {
        return archiveFiles(below, keepBytes, copyTo, true, JournalArchive.Hook.NONE);
    }

    ArchiveReport archiveFiles(long below, long keepBytes, Path copyTo, JournalArchive.Hook hook) {
        return archiveFiles(below, keepBytes, copyTo, false, hook);
    }

    ArchiveReport archiveFiles(long below, long keepBytes, Path copyTo, boolean unreleased, JournalArchive.Hook hook) {
        if (keepBytes < 0) {
            throw new IllegalArgumentException("a journal byte budget is >= 0");
        }
        synchronized (releaseLock) {
            synchronized (this) {
                if (closed || failed || fenced != null) {
                    throw new JournalClosedException("journal " + storage.describe() + " is closed, failed or fenced: "
                            + "only its live writer moves files out");
                }
            }
            return storage.archiveFiles(below, keepBytes, copyTo, unreleased, hook);
        }
    }

    /** Syncs and closes the storage (releasing the lease on Chronicle), after a row release in progress. Idempotent. */
    @Override
    public void close() {
        synchronized (releaseLock) {
            synchronized (this) {
                if (closed) {
                    return;
                }
                closed = true;
                storage.close(!failed);
            }
        }
    }
}
