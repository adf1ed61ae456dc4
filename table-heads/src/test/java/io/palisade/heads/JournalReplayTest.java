package io.palisade.heads;

import io.palisade.fencing.ValidationException;
import io.palisade.journal.Durability;
import io.palisade.journal.Journal;
import io.palisade.journal.JournalCursor;
import io.palisade.journal.JournalEvent;
import io.palisade.journal.JournalEvent.CheckpointWritten;
import io.palisade.journal.JournalOptions;
import io.palisade.journal.JournalReader;
import io.palisade.journal.JournalRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Heads rebuilt from the real Chronicle-backed journal: checkpoint + tail == full replay, across a reopen. */
class JournalReplayTest {
    @TempDir
    Path graph;

    private Path palisade() {
        return graph.resolve("_palisade");
    }

    /** Every call one second later than the one before: strictly increasing record timestamps. */
    private static Clock ticking() {
        AtomicLong millis = new AtomicLong(1_700_000_000_000L);
        return new Clock() {
            @Override
            public ZoneOffset getZone() {
                return ZoneOffset.UTC;
            }

            @Override
            public Clock withZone(ZoneId zone) {
                return this;
            }

            @Override
            public Instant instant() {
                return Instant.ofEpochMilli(millis.getAndAdd(1000));
            }
        };
    }

    private JournalOptions options(Clock clock) {
        return JournalOptions.defaults().withDefaultDurability(Durability.PROCESS_CRASH).withClock(clock);
    }

    private static void appendAll(Journal j, Scenario sc, int steps) {
        sc.resync(j.endSequence());
        long expected = j.endSequence();
        for (JournalEvent e : sc.generate(steps)) {
            assertThat(j.append(e)).isEqualTo(expected++);
        }
    }

    private List<JournalRecord> allRecords() {
        try (JournalCursor c = JournalReader.open(palisade()).read(0)) {
            return c.drain();
        }
    }

    @Test
    void checkpointPlusTailEqualsFullReplayAfterCloseAndReopen() throws IOException {
        Clock clock = ticking();
        Scenario sc = new Scenario(5, 1, true);
        try (Journal j = Journal.open(palisade(), options(clock))) {
            appendAll(j, sc, 300);
        }
        Checkpoints.Written written;
        try (Journal j = Journal.open(palisade(), options(clock))) { // close and reopen: a new writer session
            appendAll(j, sc, 150);
            HeadsState now = HeadsReplayer.of(palisade()).fullReplay(); // read while the writer appends
            written = Checkpoints.of(palisade()).write(now);
            j.append(new CheckpointWritten(written.sequence(), written.file().getFileName().toString(),
                    written.headsDigest()));
            appendAll(j, sc, 300);
        }
        // the checkpoint and the tail are in the last segment: see the disabled test below for the journal bug
        // that breaks a tail spanning segments
        HeadsReplayer replayer = HeadsReplayer.of(palisade());
        HeadsReplayer.Replay r = replayer.replay();
        HeadsState full = replayer.fullReplay();
        long end = JournalReader.open(palisade()).endSequence();
        assertThat(r.checkpointSequence()).isEqualTo(written.sequence());
        assertThat(r.skippedCheckpoints()).isEmpty();
        assertThat(r.recordsReplayed()).isEqualTo(end - 1 - written.sequence());
        assertThat(r.state().lastSequence()).isEqualTo(end - 1);
        assertThat(r.state().digest()).isEqualTo(full.digest());
        assertThat(r.state()).isEqualTo(full);
        assertThat(full.writerEpoch()).isEqualTo(2);
        assertThat(full.lastCheckpointSequence()).isEqualTo(written.sequence());
        assertThat(Scenario.actualHeads(full)).isEqualTo(sc.expectedHeads());

        List<JournalRecord> records = allRecords();
        for (long seq : new long[] {-1, 0, written.sequence() - 7, written.sequence(), written.sequence() + 33, end - 1}) {
            assertThat(replayer.headsAt(seq))
                    .isEqualTo(HeadsState.replay(HeadsState.empty(), records.subList(0, (int) seq + 1)));
        }
        long m = written.sequence() + 20;
        JournalRecord mid = records.get((int) m);
        assertThat(replayer.headsAt(mid.time())).isEqualTo(replayer.headsAt(m));
        assertThat(replayer.headsAt(mid.time().minusNanos(1))).isEqualTo(replayer.headsAt(m - 1));
        assertThat(replayer.headsAt(Instant.EPOCH)).isEqualTo(HeadsState.empty());
        assertThat(replayer.headsAt(Instant.MIN)).isEqualTo(HeadsState.empty());
        assertThat(replayer.headsAt(Instant.MAX.minusSeconds(1))).isEqualTo(full);
        assertThatThrownBy(() -> replayer.headsAt(end)).isInstanceOf(ValidationException.class);

        // a newer checkpoint damaged on disk: skipped and reported, the previous one used, same result
        Path newer = Checkpoints.of(palisade()).write(replayer.headsAt(end - 5)).file();
        byte[] b = Files.readAllBytes(newer);
        b[40] ^= 1;
        Files.write(newer, b);
        HeadsReplayer reopened = HeadsReplayer.of(palisade());
        HeadsReplayer.Replay again = reopened.replay();
        assertThat(again.checkpointSequence()).isEqualTo(written.sequence());
        assertThat(again.skippedCheckpoints()).singleElement().satisfies(s -> {
            assertThat(s.file()).isEqualTo(newer);
            assertThat(s.reason()).contains("CRC32C");
        });
        assertThat(again.state()).isEqualTo(full);
    }

    /**
     * A checkpoint written before a writer restart, then the tail read across the next writer session's
     * segment (a reader positioned mid-segment must count the excerpts it skipped).
     */
    @Test
    void checkpointPlusTailAcrossWriterSessions() {
        Clock clock = ticking();
        Scenario sc = new Scenario(5, 1, true);
        Checkpoints.Written written;
        try (Journal j = Journal.open(palisade(), options(clock))) {
            appendAll(j, sc, 300);
            written = Checkpoints.of(palisade()).write(HeadsReplayer.of(palisade()).fullReplay());
            j.append(new CheckpointWritten(written.sequence(), written.file().getFileName().toString(),
                    written.headsDigest()));
            appendAll(j, sc, 100);
        }
        try (Journal j = Journal.open(palisade(), options(clock))) {
            appendAll(j, sc, 200);
        }
        HeadsReplayer replayer = HeadsReplayer.of(palisade());
        HeadsReplayer.Replay r = replayer.replay();
        assertThat(r.checkpointSequence()).isEqualTo(written.sequence());
        assertThat(r.state()).isEqualTo(replayer.fullReplay());
    }

    @Test
    void checkpointContradictedByTheJournalOrBeyondItsEndIsSkipped() throws IOException {
        Scenario sc = new Scenario(9, 1, true);
        Checkpoints.Written written;
        try (Journal j = Journal.open(palisade(), options(ticking()))) {
            appendAll(j, sc, 200);
            written = Checkpoints.of(palisade()).write(HeadsReplayer.of(palisade()).fullReplay());
            j.append(new CheckpointWritten(written.sequence(), written.file().getFileName().toString(),
                    written.headsDigest()));
            appendAll(j, sc, 100);
        }
        // a valid checkpoint file of another history under the same sequence
        List<JournalRecord> other = Scenario.records(77, 2000);
        HeadsState foreign = HeadsState.replay(HeadsState.empty(), other.subList(0, (int) written.sequence() + 1));
        assertThat(foreign.digest()).isNotEqualTo(written.headsDigest());
        Path dir = Checkpoints.of(palisade()).directory();
        Files.delete(written.file());
        new Checkpoints(dir, 10).write(foreign);
        // and one beyond the journal's end (e.g. a tail was cut after it was written)
        new Checkpoints(dir, 10).write(HeadsState.replay(HeadsState.empty(), other.subList(0, 1500)));

        HeadsReplayer replayer = HeadsReplayer.of(palisade());
        HeadsReplayer.Replay r = replayer.replay();
        assertThat(r.checkpointSequence()).isEqualTo(-1);
        assertThat(r.skippedCheckpoints()).extracting(Checkpoints.Skipped::sequence)
                .containsExactly(1499L, written.sequence());
        assertThat(r.skippedCheckpoints().get(0).reason()).contains("beyond the journal end");
        assertThat(r.skippedCheckpoints().get(1).reason()).contains("digest");
        assertThat(r.state()).isEqualTo(replayer.fullReplay());
    }
}
