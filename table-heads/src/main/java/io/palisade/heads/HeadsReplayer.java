package io.palisade.heads;

import io.palisade.fencing.ValidationException;
import io.palisade.journal.JournalCursor;
import io.palisade.journal.JournalEvent.CheckpointWritten;
import io.palisade.journal.JournalReader;
import io.palisade.journal.JournalRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Rebuilds {@link HeadsState} from a graph's journal: from the newest valid checkpoint plus the journal
 * tail, by full replay, or as of a past sequence or time.
 *
 * <p>A checkpoint is used only if it verifies, covers a sequence the journal still holds (a checkpoint
 * beyond the journal end, e.g. after a torn tail was cut, belongs to a history that no longer exists),
 * and agrees with the digest the journal's {@code CheckpointWritten} record states for it, when the
 * tail holds one. Every checkpoint passed over is reported in {@link Replay#skippedCheckpoints()}.
 * Whatever the checkpoint, the result equals a full replay (the property recovery relies on).
 */
public final class HeadsReplayer {
    private static final Logger LOG = LoggerFactory.getLogger(HeadsReplayer.class);

    private static final Instant EARLIEST_STAMP = Instant.ofEpochSecond(Long.MIN_VALUE / 1_000_000_000L + 1);
    private static final Instant LATEST_STAMP = Instant.ofEpochSecond(Long.MAX_VALUE / 1_000_000_000L - 1);

    private final JournalReader reader;
    private final Checkpoints checkpoints;

    public HeadsReplayer(JournalReader reader, Checkpoints checkpoints) {
        this.reader = Objects.requireNonNull(reader, "reader");
        this.checkpoints = Objects.requireNonNull(checkpoints, "checkpoints");
    }

    /** The replayer of the graph whose {@code _palisade/} directory is {@code palisadeDir}. */
    public static HeadsReplayer of(Path palisadeDir) {
        return new HeadsReplayer(JournalReader.open(palisadeDir), Checkpoints.of(palisadeDir));
    }

    /**
     * A rebuilt state.
     *
     * @param state              the state after the last record replayed
     * @param checkpointSequence the sequence of the checkpoint started from (-1: replayed from the start)
     * @param skippedCheckpoints checkpoints passed over (damaged, beyond the journal end, digest mismatch), newest first
     * @param recordsReplayed    journal records folded on top of the checkpoint
     */
    public record Replay(HeadsState state, long checkpointSequence, List<Checkpoints.Skipped> skippedCheckpoints,
                         long recordsReplayed) {
        public Replay {
            Objects.requireNonNull(state, "state");
            skippedCheckpoints = List.copyOf(skippedCheckpoints);
        }
    }

    /** The current state: newest usable checkpoint + journal tail. */
    public Replay replay() {
        long end = reader.endSequence();
        List<Checkpoints.Skipped> beyond = new ArrayList<>();
        for (Path p : checkpoints.list()) {
            long seq = CheckpointDescriptor.sequenceOf(p.getFileName().toString());
            if (seq >= end) {
                String why = "covers sequence " + seq + " beyond the journal end " + (end - 1)
                        + " (the journal was cut back after it was written, or it belongs to another journal)";
                LOG.warn("skipping checkpoint {}: {}", p, why);
                beyond.add(0, new Checkpoints.Skipped(p, seq, why));
            }
        }
        Replay r = replayTo(end - 1);
        if (beyond.isEmpty()) {
            return r;
        }
        beyond.addAll(r.skippedCheckpoints());
        return new Replay(r.state(), r.checkpointSequence(), beyond, r.recordsReplayed());
    }

    /** The current state by folding every journal record from sequence 0. */
    public HeadsState fullReplay() {
        return foldRange(HeadsState.empty(), reader.endSequence() - 1);
    }

    /**
     * The state as of {@code sequence} (after folding the record at that sequence; -1 gives the empty state),
     * from the newest usable checkpoint at or below it plus replay.
     *
     * @throws ValidationException when the journal does not hold {@code sequence}
     */
    public HeadsState headsAt(long sequence) {
        long end = reader.endSequence();
        if (sequence < -1 || sequence >= end) {
            throw new ValidationException("sequence " + sequence + " is not in the journal [0, " + end + ")");
        }
        return replayTo(sequence).state();
    }

    /** The state as of {@code time}: every record appended at or before it folded (the empty state when none). */
    public HeadsState headsAt(Instant time) {
        // record timestamps are int64 epoch nanoseconds: outside that range every record is after or before
        if (time.isBefore(EARLIEST_STAMP)) {
            return HeadsState.empty();
        }
        if (!time.isBefore(LATEST_STAMP)) {
            return headsAt(reader.endSequence() - 1);
        }
        // the journal looks up the first record at or after a time; the first one strictly after is at time + 1 ns
        OptionalLong after = reader.sequenceAt(time.plusNanos(1));
        long target = after.isPresent() ? after.getAsLong() - 1 : reader.endSequence() - 1;
        return headsAt(target);
    }

    /**
     * Refuses a replay from sequence 0 to {@code target} when the journal's file retention moved the first records
     * out, naming the oldest point that can still be rebuilt (the oldest kept checkpoint).
     */
    private void archivedBefore(long target) {
        long first = reader.firstSequence();
        if (first == 0) {
            return;
        }
        long oldest = Long.MAX_VALUE;
        for (Path p : checkpoints.list()) {
            long seq = CheckpointDescriptor.sequenceOf(p.getFileName().toString());
            if (seq >= first - 1) { // an older one cannot be replayed from: the records after it left
                oldest = Math.min(oldest, seq);
            }
        }
        throw new io.palisade.fencing.JournalArchivedException("the graph's state at sequence " + target
                + " cannot be rebuilt: the journal's file retention moved sequences 0 to " + (first - 1)
                + " out, and no heads checkpoint at or before " + target + " is kept"
                + (oldest == Long.MAX_VALUE ? "" : " (points from the oldest kept checkpoint, sequence " + oldest
                + ", on can be)") + "; the local journal starts at sequence " + first, first, null);
    }

    private Replay replayTo(long target) {
        List<Checkpoints.Skipped> skipped = new ArrayList<>();
        long bound = target;
        while (true) {
            if (bound < 0) {
                archivedBefore(target);
                return new Replay(foldRange(HeadsState.empty(), target), -1, skipped, target + 1);
            }
            Checkpoints.LoadResult lr = checkpoints.loadNewestValidAtOrBelow(bound);
            skipped.addAll(lr.skipped());
            Optional<Checkpoints.Loaded> cp = lr.checkpoint();
            if (cp.isEmpty()) {
                archivedBefore(target);
                return new Replay(foldRange(HeadsState.empty(), target), -1, skipped, target + 1);
            }
            Checkpoints.Loaded loaded = cp.get();
            if (loaded.sequence() < reader.firstSequence() - 1) {
                archivedBefore(target); // the records after it left the local journal
            }
            try {
                HeadsState s = foldRange(loaded.state(), target, loaded.sequence(), loaded.state().digest());
                return new Replay(s, loaded.sequence(), skipped, target - loaded.sequence());
            } catch (DigestMismatch m) {
                LOG.warn("checkpoint {} disagrees with the journal: {}", loaded.file(), m.getMessage());
                skipped.add(new Checkpoints.Skipped(loaded.file(), loaded.sequence(), m.getMessage()));
                bound = loaded.sequence() - 1;
            }
        }
    }

    private HeadsState foldRange(HeadsState from, long target) {
        return foldRange(from, target, -1, null);
    }

    /**
     * Folds records {@code from.lastSequence() + 1 .. target}; when {@code checkedDigest} is given, a
     * {@code CheckpointWritten} for {@code checkedSequence} must state that digest.
     */
    private HeadsState foldRange(HeadsState from, long target, long checkedSequence, String checkedDigest) {
        HeadsState s = from;
        if (s.lastSequence() >= target) {
            return s;
        }
        try (JournalCursor c = reader.read(s.lastSequence() + 1)) {
            JournalRecord r;
            while (s.lastSequence() < target && (r = c.poll()) != null) {
                if (checkedDigest != null && r.event() instanceof CheckpointWritten w
                        && w.coveredSequence() == checkedSequence && !w.headsDigest().equals(checkedDigest)) {
                    throw new DigestMismatch("the journal records digest " + w.headsDigest() + " for sequence "
                            + checkedSequence + " at sequence " + r.sequence() + ", the checkpoint holds " + checkedDigest);
                }
                s = s.apply(r);
            }
        }
        if (s.lastSequence() != target) {
            throw new ValidationException("the journal ended at sequence " + s.lastSequence() + " before " + target);
        }
        return s;
    }

    /** Internal: a checkpoint contradicted by the journal; the replay falls back to an older one. */
    private static final class DigestMismatch extends RuntimeException {
        private static final long serialVersionUID = 1L;

        DigestMismatch(String message) {
            super(message, null, false, false);
        }
    }
}
