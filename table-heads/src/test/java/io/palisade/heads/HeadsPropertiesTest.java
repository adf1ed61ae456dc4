package io.palisade.heads;

import io.palisade.journal.JournalRecord;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.longs;

/** Fold properties over random consistent journals ({@link Scenario}). */
class HeadsPropertiesTest {

    @Test
    void incrementalStateMatchesTheIndependentModelAndFullReplay() {
        qt().withExamples(150).forAll(longs().all(), integers().between(1, 600))
                .checkAssert(HeadsPropertiesTest::incrementalStateMatchesTheIndependentModelAndFullReplay);
    }

    private static void incrementalStateMatchesTheIndependentModelAndFullReplay(long seed, int steps) {
        Scenario sc = Scenario.inMemory(seed);
        sc.generate(steps);
        List<JournalRecord> all = sc.toRecords(0);
        HeadsState running = HeadsState.empty();
        for (JournalRecord r : all) {
            running = running.apply(r);
        }
        HeadsState incremental = running;
        assertThat(Scenario.actualHeads(incremental)).isEqualTo(sc.expectedHeads());
        assertThat(incremental.openIntents()).extracting(OpenIntent::intentId)
                .containsExactlyInAnyOrderElementsOf(sc.openIntentIds());
        sc.receipts.forEach((key, intent) ->
                assertThat(incremental.receipt(key)).get().extracting(IntentReceipt::intentId).isEqualTo(intent));
        HeadsState full = HeadsState.replay(HeadsState.empty(), all);
        assertThat(full).isEqualTo(incremental);
        assertThat(full.digest()).isEqualTo(incremental.digest());
    }

    @Test
    void checkpointAtARandomPointPlusTailEqualsFullReplay() {
        qt().withExamples(150).forAll(longs().all(), integers().between(1, 600), integers().between(0, 1000))
                .checkAssert(HeadsPropertiesTest::checkpointAtARandomPointPlusTailEqualsFullReplay);
    }

    private static void checkpointAtARandomPointPlusTailEqualsFullReplay(long seed, int steps, int cutPermille) {
        List<JournalRecord> records = Scenario.records(seed, steps);
        HeadsState full = HeadsState.replay(HeadsState.empty(), records);
        int cut = (int) ((long) (records.size() - 1) * cutPermille / 1000); // checkpoint covers [0, cut]
        HeadsState prefix = HeadsState.replay(HeadsState.empty(), records.subList(0, cut + 1));
        byte[] image = CheckpointCodec.encode(prefix);
        HeadsState restored = CheckpointCodec.decode(image, java.nio.file.Path.of("mem"), cut);
        assertThat(restored).isEqualTo(prefix);
        assertThat(CheckpointCodec.encode(restored)).isEqualTo(image); // canonical bytes
        HeadsState resumed = HeadsState.replay(restored, records.subList(cut + 1, records.size()));
        assertThat(resumed.digest()).isEqualTo(full.digest());
        assertThat(resumed).isEqualTo(full);
    }

    @Test
    void foldsOneHundredThousandRecords() {
        List<JournalRecord> records = Scenario.records(7, 120_000);
        assertThat(records.size()).isGreaterThanOrEqualTo(100_000);
        HeadsState s = null;
        for (int round = 0; round < 3; round++) { // logged for information only: tests never assert timings
            long t0 = System.nanoTime();
            s = HeadsState.replay(HeadsState.empty(), records);
            long millis = (System.nanoTime() - t0) / 1_000_000;
            org.slf4j.LoggerFactory.getLogger(HeadsPropertiesTest.class)
                    .info("round {}: folded {} records in {} ms: {}", round, records.size(), millis, s);
        }
        assertThat(s.lastSequence()).isEqualTo(records.size() - 1);
        // the state keeps exactly the intents completed after the last checkpoint it applied, not the history
        long checkpoint = s.lastCheckpointSequence();
        long completions = records.stream().filter(r -> r.event() instanceof io.palisade.journal.JournalEvent.IntentCompleted)
                .count();
        long afterCheckpoint = records.stream().filter(r -> r.sequence() > checkpoint
                && r.event() instanceof io.palisade.journal.JournalEvent.IntentCompleted).count();
        assertThat(checkpoint).as("the scenario checkpoints").isGreaterThan(0);
        assertThat(completions).isGreaterThan(10_000);
        assertThat(s.completedCount()).isEqualTo((int) afterCheckpoint).isLessThan((int) completions);
        HeadsState again = CheckpointCodec.decode(CheckpointCodec.encode(s), java.nio.file.Path.of("mem"), s.lastSequence());
        assertThat(again).isEqualTo(s);
    }
}
