package io.palisade.journal;

import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Random event lists survive the real storage path: append (single and batch), close, reopen, read. */
class StorageRoundTripPropertiesTest {

    @Provide
    Arbitrary<List<JournalEvent>> eventLists() {
        return EventArbitraries.anyEvent().list().ofMinSize(1).ofMaxSize(40);
    }

    @Property(tries = 15)
    void eventsReadBackEqualAfterReopen(@ForAll("eventLists") List<JournalEvent> events,
                                        @ForAll @IntRange(min = 1, max = 8) int batchSize) throws IOException {
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
