package io.palisade.journal;

import io.palisade.fencing.GraphRefusedException;
import io.palisade.journal.JournalEvent.GraphBranchCreated;
import io.palisade.journal.JournalEvent.GraphBranchDeleted;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Chronicle-specific basics; the storage-independent contract is {@link JournalContractTest}. */
class JournalBasicsTest {

    @TempDir
    Path graph;

    private Path palisade() {
        return graph.resolve("_palisade");
    }

    @Test
    void powerLossAppendsAreMsyncedBeforeReturningAndProcessCrashAppendsAreNot() {
        try (Journal j = Journal.open(palisade(), JournalOptions.defaults())) {
            j.append(new GraphBranchCreated("a", "main", 0), Durability.POWER_LOSS);
            long synced = j.lastChronicleIndexMSynced();
            assertThat(synced).isEqualTo(j.lastChronicleIndexAppended());
            j.append(new GraphBranchCreated("b", "main", 0), Durability.PROCESS_CRASH);
            assertThat(j.lastChronicleIndexMSynced()).isEqualTo(synced).isLessThan(j.lastChronicleIndexAppended());
            List<JournalEvent> batch = new ArrayList<>();
            for (int i = 0; i < 10; i++) {
                batch.add(new GraphBranchDeleted("c" + i));
            }
            j.appendBatch(batch, Durability.POWER_LOSS);
            assertThat(j.lastChronicleIndexMSynced()).isEqualTo(j.lastChronicleIndexAppended());
        }
    }

    @Test
    void aSegmentLeftUnreadyByAWriterThatDiedWhileOpeningIsIgnoredAndRemoved() throws Exception {
        try (Journal j = Journal.open(palisade(), JournalOptions.defaults())) {
            j.append(new GraphBranchCreated("b", "main", 0));
        }
        Path journalDir = palisade().resolve(Journal.DIRECTORY);
        Path leftover = Segments.dir(journalDir, 7);
        java.nio.file.Files.createDirectories(leftover);
        java.nio.file.Files.write(leftover.resolve("20260101F.cq4"), new byte[] {1, 2, 3});
        try (Journal j = Journal.open(palisade(), JournalOptions.defaults())) {
            assertThat(j.epoch()).isEqualTo(8); // above every epoch ever used, ready or not
            assertThat(j.endSequence()).isEqualTo(3);
            assertThat(leftover).doesNotExist();
        }
        assertThat(Segments.ready(journalDir)).containsExactly(1L, 8L);
    }

    @Test
    void secondWriterInTheSameProcessIsRefusedNamingTheHolder() {
        try (Journal j = Journal.open(palisade(), JournalOptions.defaults())) {
            assertThatThrownBy(() -> Journal.open(palisade(), JournalOptions.defaults()))
                    .isInstanceOf(GraphRefusedException.class)
                    .hasMessageContaining("pid " + ProcessHandle.current().pid())
                    .hasMessageContaining("epoch " + j.epoch());
        }
        try (Journal j = Journal.open(palisade(), JournalOptions.defaults())) {
            assertThat(j.epoch()).isEqualTo(2);
            assertThat(j.previousOwner()).get().extracting(LeaseOwner::epoch).isEqualTo(1L);
        }
    }

    @Test
    void pagesArePreparedAheadByAThreadOfTheirOwnUnlessTheOptionsTurnItOff() {
        long before = preparingThreads();
        try (Journal j = Journal.open(palisade(), JournalOptions.defaults().withPrepareAhead(false))) {
            j.append(new GraphBranchCreated("a", "main", 0), Durability.POWER_LOSS);
            assertThat(preparingThreads()).as("threads preparing pages, turned off").isEqualTo(before);
        }
        try (Journal j = Journal.open(palisade(), JournalOptions.defaults())) {
            j.append(new GraphBranchCreated("b", "main", 0), Durability.POWER_LOSS);
            assertThat(preparingThreads()).as("threads preparing pages, on by default").isEqualTo(before + 1);
            assertThat(j.endSequence()).isEqualTo(4);
        }
        assertThat(preparingThreads()).as("threads preparing pages after the close").isEqualTo(before);
    }

    private static long preparingThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.isAlive() && t.getName().equals("palisade-journal-pretouch")).count();
    }
}
