package io.palisade.coordinator.internal;

import io.palisade.coordinator.Options;
import io.palisade.coordinator.Retention;
import io.palisade.heads.Checkpoints;
import io.palisade.heads.GraphBranch;
import io.palisade.heads.HeadsState;
import io.palisade.heads.OpenIntent;
import io.palisade.journal.ArchiveReport;
import io.palisade.journal.Journal;
import io.palisade.journal.RowReleaseReport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

/**
 * What the graph asks of its journal after each heads checkpoint: the row release (docs/journal.md "Row release"), then
 * the file retention (docs/journal.md "File retention"). Both run off the committer thread
 * ({@code palisade-journal-release}), one run at a time; a run asked for while one is in progress runs after it (the
 * newest asked for only), so the close's last checkpoint's run happens before the journal closes. Inline under the
 * stepped committer of the deterministic simulation. A failure is logged and counted; the rows and files then stay,
 * and the next checkpoint's run retries.
 *
 * <p>Invariants of the sequences it names:
 * <ul>
 *   <li>Rows are released only before the checkpoint's sequence and before every unfolded journal-ack write, and only
 *       in files older than {@link Retention#window()}: no read of the graph's present, nor a replay from this
 *       checkpoint, nor one from sequence 0 (whose folds are journaled) needs them.</li>
 *   <li>Files leave only while the local journal holds more than {@link Retention#journalBytes()} (the byte budget
 *       cuts into the retention window, as the version count bound cuts into its time bound), and only before the
 *       oldest of the newest checkpoints a load falls back through ({@link Checkpoints#keep()}; none before two
 *       exist): a reopen, and one that falls back from a damaged newest checkpoint, still finds every record it
 *       replays. And only before every unfolded journal-ack write (the fold reads their rows), every graph branch's
 *       fork (a merge reads what both sides changed since it), and every open intent (recovery reads on from an
 *       unfinished load's intent). Under the budget nothing leaves, and the anchors ({@link RetentionAnchors}) keep
 *       checkpoints that rebuild any point of the window quickly.</li>
 * </ul>
 */
final class JournalRetention {
    private static final Logger LOG = LoggerFactory.getLogger(JournalRetention.class);

    private final Journal journal;
    private final Options options;
    private final Meters meters;
    /** Null: runs inline (the deterministic simulation). */
    private final ExecutorService runner;
    private final AtomicBoolean running = new AtomicBoolean();
    /** The newest run asked for and not started yet: {releaseBelow, archiveBelow}; null when none. */
    private final AtomicReference<long[]> pending = new AtomicReference<>();
    private final Checkpoints checkpoints;
    /** The graph's anchors for reading its past, kept beside the newest checkpoints ({@link Checkpoints#keepAlso}). */
    private final RetentionAnchors anchors;
    /** The first sequence the local journal holds, as the file retention's last run left it (0 before one moved any). */
    private final java.util.concurrent.atomic.AtomicLong firstLocal = new java.util.concurrent.atomic.AtomicLong();

    JournalRetention(Journal journal, Checkpoints checkpoints, Options options, Meters meters, boolean inline) {
        this.checkpoints = checkpoints;
        this.journal = journal;
        this.options = options;
        this.meters = meters;
        this.anchors = new RetentionAnchors(options.retention().window().toNanos());
        this.runner = inline ? null : Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "palisade-journal-release");
            t.setDaemon(true);
            return t;
        });
    }

    /**
     * Called on the committer thread once the checkpoint of {@code written} at {@code checkpointSequence} is durable
     * and journaled.
     *
     * @param releaseBelow the smaller of one past the checkpoint's sequence and the oldest unfolded write's intent
     */
    void afterCheckpoint(long checkpointSequence, long releaseBelow, HeadsState written) {
        if (journal.onKafka() || releaseBelow <= 0 || !options.retention().auto()) {
            return;
        }
        long now = journal.lastTimestampNanos();
        if (!anchorsRead) {
            readAnchors();
        }
        anchors.checkpointed(checkpointSequence, now);
        anchors.dropBefore(firstLocal.get() - 1); // a replay from one of them would read records no longer local
        checkpoints.keepAlso(anchors.sequences());
        long archiveBelow = archiveBelow(releaseBelow, fallback(), written);
        if (runner == null) {
            run(releaseBelow, archiveBelow);
            return;
        }
        pending.set(new long[] {releaseBelow, archiveBelow});
        if (running.compareAndSet(false, true)) {
            try {
                runner.execute(this::drain);
            } catch (RejectedExecutionException e) {
                running.set(false); // closing
            }
        }
    }

    private boolean anchorsRead;

    /**
     * Takes the anchors over from the checkpoints an earlier writer kept (their times are their records' in the
     * journal). Without this a writer's first checkpoints would prune them, and the window's past could not be rebuilt
     * until a window later.
     */
    private void readAnchors() {
        anchorsRead = true;
        try (io.palisade.journal.JournalReader reader = journal.reader()) {
            for (java.nio.file.Path p : checkpoints.list()) {
                long seq = Checkpoints.sequenceOf(p);
                java.util.Optional<io.palisade.journal.JournalRecord> r = seq < 0 ? java.util.Optional.empty()
                        : reader.record(seq);
                if (r.isPresent()) {
                    anchors.takeOver(seq, r.get().timestampNanos());
                }
            }
        } catch (RuntimeException e) {
            LOG.warn("cannot read the times of the kept checkpoints ({}); the journal's file retention starts its anchors "
                    + "anew", e.toString());
            anchors.clear();
        }
    }

    /** Runs the newest run asked for, and again while a newer one was asked for meanwhile. */
    private void drain() {
        while (true) {
            try {
                long[] r = pending.getAndSet(null);
                if (r != null) {
                    run(r[0], r[1]);
                }
            } finally {
                running.set(false);
            }
            if (pending.get() == null || !running.compareAndSet(false, true)) {
                return;
            }
        }
    }

    /**
     * The sequence before which journal files may leave the local journal (the second invariant above), given the
     * oldest of the newest checkpoints a load falls back through ({@code fallback}, -1: fewer than two yet); 0: none.
     */
    private static long archiveBelow(long releaseBelow, long fallback, HeadsState written) {
        if (fallback < 0) {
            return 0;
        }
        long below = Math.min(releaseBelow, fallback + 1);
        for (GraphBranch b : written.branches().values()) {
            if (b.fromSequence() >= 0) {
                below = Math.min(below, b.fromSequence() + 1);
            }
        }
        List<OpenIntent> open = written.openIntents();
        return open.isEmpty() ? below : Math.min(below, open.get(0).recordedAt());
    }

    /**
     * The oldest of the newest {@link Checkpoints#keep()} checkpoints on disk (a load falls back through them, newest
     * first), or -1 when fewer than two are there: with one, a load that finds it damaged replays from sequence 0.
     */
    private long fallback() {
        List<Long> sequences = new ArrayList<>();
        for (java.nio.file.Path p : checkpoints.list()) {
            long s = Checkpoints.sequenceOf(p);
            if (s >= 0) {
                sequences.add(s);
            }
        }
        if (sequences.size() < 2) {
            return -1;
        }
        Collections.sort(sequences);
        return sequences.get(Math.max(0, sequences.size() - checkpoints.keep()));
    }

    private void run(long releaseBelow, long archiveBelow) {
        Retention retention = options.retention();
        try {
            RowReleaseReport r = journal.releaseRows(releaseBelow, retention.window());
            meters.journalRowsReleased.increment(r.records());
            meters.journalRowBytesReleased.increment(r.bytesFreed());
            if (r.files() > 0) {
                LOG.debug("journal row release below sequence {}: {} file(s), {} write(s), {} row bytes", releaseBelow,
                        r.files(), r.records(), r.rowBytes());
            }
            if (archiveBelow > 0 && retention.journalBytes() != Long.MAX_VALUE) {
                ArchiveReport a = journal.archiveFilesUnreleased(archiveBelow, retention.journalBytes(),
                        retention.journalArchive());
                firstLocal.accumulateAndGet(a.firstLocalSequence(), Math::max);
                meters.journalFilesArchived.increment(a.files());
                meters.journalBytesArchived.increment(a.bytes());
                if (a.files() > 0) {
                    LOG.info("journal file retention: {} file(s), {} bytes left the local journal{}; it starts at "
                            + "sequence {} and holds {} bytes", a.files(), a.bytes(),
                            retention.journalArchive() == null ? "" : " (copied to " + retention.journalArchive() + ")",
                            a.firstLocalSequence(), a.localBytes());
                }
            }
        } catch (io.palisade.journal.JournalClosedException e) {
            // the journal closed or was fenced meanwhile: the next writer goes on
        } catch (RuntimeException e) {
            meters.journalReleaseFailures.increment();
            LOG.warn("journal row release or file retention below sequence {} failed; the rows and files stay in the "
                    + "journal: {}", releaseBelow, e.toString());
        }
    }

    /** Stops the runs, waiting for one in progress (and the one asked for after it); the journal closes after. */
    void close() {
        if (runner != null) {
            runner.shutdown();
            try {
                runner.awaitTermination(1, TimeUnit.MINUTES);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
