package io.palisade.heads;

import io.palisade.fencing.ValidationException;
import io.palisade.journal.JournalRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class CheckpointsTest {
    @TempDir
    Path palisade;

    private final List<JournalRecord> records = Scenario.records(11, 400);

    private HeadsState at(long seq) {
        return HeadsState.replay(HeadsState.empty(), records.subList(0, (int) seq + 1));
    }

    @Test
    void writeThenReloadRoundTripsTheWholeState() {
        Checkpoints cps = Checkpoints.of(palisade);
        HeadsState s = at(records.size() - 1);
        Checkpoints.Written w = cps.write(s);
        assertThat(w.file()).isEqualTo(palisade.resolve("checkpoints").resolve("heads-" + s.lastSequence() + ".ckpt"));
        assertThat(w.headsDigest()).isEqualTo(s.digest());
        assertThat(w.sequence()).isEqualTo(s.lastSequence());

        Checkpoints.LoadResult lr = Checkpoints.loadNewestValid(palisade.resolve("checkpoints"));
        assertThat(lr.skipped()).isEmpty();
        Checkpoints.Loaded loaded = lr.checkpoint().orElseThrow();
        assertThat(loaded.sequence()).isEqualTo(s.lastSequence());
        assertThat(loaded.state()).isEqualTo(s);
        assertThat(loaded.state().digest()).isEqualTo(s.digest());
        assertThat(loaded.state().openIntents()).isEqualTo(s.openIntents());
    }

    @Test
    void keepsOnlyTheNewestCheckpointsAndRemovesTemporaries() throws IOException {
        Checkpoints cps = new Checkpoints(palisade.resolve("checkpoints"), 3);
        for (long seq : new long[] {50, 100, 150, 200, 250}) {
            cps.write(at(seq));
        }
        Files.write(cps.directory().resolve("heads-300.ckpt.tmp"), new byte[] {1, 2, 3}); // a crash mid-write
        assertThat(cps.list()).extracting(p -> p.getFileName().toString())
                .containsExactly("heads-150.ckpt", "heads-200.ckpt", "heads-250.ckpt");
        assertThat(cps.loadNewestValid().checkpoint()).get().extracting(Checkpoints.Loaded::sequence).isEqualTo(250L);
        cps.write(at(300));
        try (var files = Files.list(cps.directory())) {
            assertThat(files.map(p -> p.getFileName().toString()))
                    .containsExactlyInAnyOrder("heads-200.ckpt", "heads-250.ckpt", "heads-300.ckpt");
        }
    }

    @Test
    void flippedByteIsSkippedAndReportedAndThePreviousOneIsUsed() throws IOException {
        Checkpoints cps = Checkpoints.of(palisade);
        cps.write(at(100));
        Path newest = cps.write(at(200)).file();
        byte[] b = Files.readAllBytes(newest);
        b[b.length / 2] ^= 0x40;
        Files.write(newest, b);

        Checkpoints.LoadResult lr = cps.loadNewestValid();
        assertThat(lr.checkpoint()).get().extracting(Checkpoints.Loaded::sequence).isEqualTo(100L);
        assertThat(lr.checkpoint().orElseThrow().state()).isEqualTo(at(100));
        assertThat(lr.skipped()).singleElement().satisfies(s -> {
            assertThat(s.file()).isEqualTo(newest);
            assertThat(s.sequence()).isEqualTo(200L);
            assertThat(s.reason()).contains("CRC32C");
        });
        assertThatThrownBy(() -> Checkpoints.read(newest)).isInstanceOf(CheckpointDamagedException.class)
                .hasMessageContaining(newest.toString());
    }

    @Test
    void truncatedAndMisnamedCheckpointsAreSkippedAndReported() throws IOException {
        Checkpoints cps = Checkpoints.of(palisade);
        cps.write(at(100));
        Path p200 = cps.write(at(200)).file();
        Path p300 = cps.write(at(300)).file();
        byte[] b = Files.readAllBytes(p300);
        Files.write(p300, java.util.Arrays.copyOf(b, b.length - 9)); // torn write
        Files.move(p200, cps.directory().resolve("heads-250.ckpt")); // covers 200, named 250
        Files.write(cps.directory().resolve("heads-400.ckpt"), new byte[5]); // shorter than a header

        Checkpoints.LoadResult lr = cps.loadNewestValid();
        assertThat(lr.checkpoint()).get().extracting(Checkpoints.Loaded::sequence).isEqualTo(100L);
        assertThat(lr.skipped()).extracting(Checkpoints.Skipped::sequence).containsExactly(400L, 300L, 250L);
        assertThat(lr.skipped()).extracting(Checkpoints.Skipped::reason)
                .satisfiesExactly(r -> assertThat(r).contains("short file"),
                        r -> assertThat(r).contains("length mismatch"),
                        r -> assertThat(r).contains("named for 250"));
    }

    @Test
    void noCheckpointAtAllIsAnEmptyResult() {
        Checkpoints.LoadResult lr = Checkpoints.of(palisade).loadNewestValid();
        assertThat(lr.checkpoint()).isEmpty();
        assertThat(lr.skipped()).isEmpty();
    }

    @Test
    void loadAtOrBelowIgnoresNewerCheckpoints() {
        Checkpoints cps = Checkpoints.of(palisade);
        cps.write(at(100));
        cps.write(at(200));
        assertThat(cps.loadNewestValidAtOrBelow(199).checkpoint()).get()
                .extracting(Checkpoints.Loaded::sequence).isEqualTo(100L);
        assertThat(cps.loadNewestValidAtOrBelow(99).checkpoint()).isEmpty();
    }

    @Test
    void shortWriteIsRejectedAndLeavesNoCheckpoint() {
        Checkpoints.Sink stopsAfter100Bytes = (ch, src) -> {
            if (ch.position() >= 100) {
                return 0;
            }
            int n = Math.min(src.remaining(), 100 - (int) ch.position());
            var slice = src.slice().limit(n);
            int w = ch.write(slice);
            src.position(src.position() + w);
            return w;
        };
        Checkpoints cps = new Checkpoints(palisade.resolve("checkpoints"), 3, stopsAfter100Bytes);
        assertThatThrownBy(() -> cps.write(at(100))).isInstanceOf(CheckpointException.class)
                .hasMessageContaining("short write");
        assertThat(cps.list()).isEmpty();
        assertThat(palisade.resolve("checkpoints").resolve("heads-100.ckpt.tmp")).doesNotExist();
    }

    @Test
    void theEmptyStateIsNotCheckpointed() {
        assertThatThrownBy(() -> Checkpoints.of(palisade).write(HeadsState.empty()))
                .isInstanceOf(ValidationException.class);
    }
}
