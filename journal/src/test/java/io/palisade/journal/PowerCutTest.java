package io.palisade.journal;

import io.palisade.journal.JournalEvent.GraphBranchCreated;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A power cut after unsynced appends: the data pages after the last msync are lost (zeroed) while
 * Chronicle's own index pages, which are never synced per append either, happen to survive and still
 * point into the lost region. Every POWER_LOSS-acknowledged record must survive and the journal must
 * reopen for writing (the lost tail is not mid-log corruption).
 */
class PowerCutTest {

    @TempDir
    Path graph;

    @Test
    void recordsAfterTheLastSyncMayBeLostButTheJournalReopensWithEverySyncedRecord() {
        Path palisade = graph.resolve("_palisade");
        long lastSynced = -1;
        try (Journal j = Journal.open(palisade, JournalFiles.ONE_CYCLE)) {
            for (int i = 0; i < 10; i++) {
                lastSynced = j.append(new GraphBranchCreated("synced-" + i, "main", i), Durability.POWER_LOSS);
            }
            for (int i = 0; i < 300; i++) {
                j.append(new GraphBranchCreated("unsynced-" + i, "main", i), Durability.PROCESS_CRASH);
            }
        }
        assertThat(lastSynced).isEqualTo(10);
        Path file = JournalFiles.cycleFile(palisade, 1);
        long from = JournalFiles.recordBounds(file, lastSynced)[1];
        long to = JournalFiles.recordBounds(file, 310)[1];
        JournalFiles.write(file, from, new byte[(int) (to - from)]); // the unsynced data pages are gone

        try (Journal j = Journal.open(palisade, JournalFiles.ONE_CYCLE)) {
            assertThat(j.tornTailCutAtOpen()).get().satisfies(t -> {
                assertThat(t.lastGoodSequence()).isEqualTo(10);
                assertThat(t.reason()).contains("data is lost");
            });
            assertThat(j.endSequence()).isEqualTo(lastSynced + 3); // + WriterStarted + TornTailCut
            try (JournalCursor c = j.reader().read(0)) {
                List<JournalRecord> all = c.drain();
                for (int i = 1; i <= lastSynced; i++) {
                    assertThat(all.get(i).event()).isEqualTo(new GraphBranchCreated("synced-" + (i - 1), "main", i - 1));
                }
                assertThat(all.get((int) lastSynced + 1).event()).isInstanceOf(JournalEvent.WriterStarted.class);
            }
            assertThat(j.reader().verify().ok()).isTrue();
        }
    }
}
