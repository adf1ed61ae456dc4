package io.palisade.journal;

import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;

/** Random event lists survive the real storage path: append (single and batch), close, reopen, read. */
class StorageRoundTripPropertiesTest {

    static Gen<List<JournalEvent>> eventLists() {
        return lists().of(EventGens.anyEvent()).ofSizeBetween(1, 40);
    }

    @Test
    void eventsReadBackEqualAfterReopen() {
        qt().withExamples(15).forAll(eventLists(), integers().between(1, 8))
                .checkAssert(StorageRoundTripPropertiesTest::eventsReadBackEqualAfterReopen);
    }

    private static void eventsReadBackEqualAfterReopen(List<JournalEvent> events, int batchSize) {
        try {
            Path dir = Files.createTempDirectory("journal-prop");
            try {
                roundTrip(dir.resolve("_palisade"), events, batchSize);
            } finally {
                try (var walk = Files.walk(dir)) {
                    for (Path p : walk.sorted(java.util.Comparator.reverseOrder()).toList()) {
                        Files.delete(p);
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void roundTrip(Path palisade, List<JournalEvent> events, int batchSize) {
        try (Journal j = Journal.open(palisade, JournalOptions.defaults())) {
            List<JournalEvent> batch = new ArrayList<>();
            for (JournalEvent e : events) {
                batch.add(e);
                if (batch.size() == batchSize) {
                    j.appendBatch(batch, batchSize % 2 == 0 ? Durability.POWER_LOSS : Durability.PROCESS_CRASH);
                    batch.clear();
                }
            }
            j.appendBatch(batch, Durability.PROCESS_CRASH);
        }
        try (Journal j = Journal.open(palisade, JournalOptions.defaults()); JournalCursor c = j.reader().read(1)) {
            List<JournalRecord> got = c.drain();
            assertThat(got).hasSize(events.size() + 1); // + the second session's WriterStarted
            for (int i = 0; i < events.size(); i++) {
                assertThat(got.get(i).event()).isEqualTo(events.get(i));
                assertThat(got.get(i).sequence()).isEqualTo(i + 1);
            }
            assertThat(j.reader().verify().ok()).isTrue();
        }
    }
}
