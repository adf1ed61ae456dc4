package io.palisade.journal;

import io.palisade.fencing.GraphRefusedException;
import io.palisade.journal.JournalEvent.GraphBranchCreated;
import io.palisade.journal.JournalEvent.GraphBranchDeleted;
import io.palisade.journal.JournalEvent.WriterStarted;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class JournalBasicsTest {

    @TempDir
    Path graph;

    private Path palisade() {
        return graph.resolve("_palisade");
    }

    @Test
    void appendedRecordsReadBackInOrderWithDenseSequencesAcrossReopen() {
        try (Journal j = Journal.open(palisade(), JournalOptions.defaults())) {
            assertThat(j.endSequence()).isEqualTo(1); // WriterStarted
            assertThat(j.append(new GraphBranchCreated("b1", "main", 0))).isEqualTo(1);
            assertThat(j.append(new GraphBranchDeleted("b1"), Durability.PROCESS_CRASH)).isEqualTo(2);
        }
        try (Journal j = Journal.open(palisade(), JournalOptions.defaults())) {
            assertThat(j.epoch()).isEqualTo(2);
            assertThat(j.append(new GraphBranchCreated("b2", "main", 3))).isEqualTo(4);
        }
        try (JournalReader r = JournalReader.open(palisade()); JournalCursor c = r.read(0)) {
            List<JournalRecord> all = c.drain();
            assertThat(all).extracting(JournalRecord::sequence).containsExactly(0L, 1L, 2L, 3L, 4L);
            assertThat(all).extracting(JournalRecord::writerEpoch).containsExactly(1L, 1L, 1L, 2L, 2L);
            assertThat(all.get(0).event()).isInstanceOf(WriterStarted.class);
            assertThat(((WriterStarted) all.get(3).event()).epoch()).isEqualTo(2);
            assertThat(all.get(2).event()).isEqualTo(new GraphBranchDeleted("b1"));
            assertThat(all.get(4).event()).isEqualTo(new GraphBranchCreated("b2", "main", 3));
            assertThat(r.endSequence()).isEqualTo(5);
            VerificationReport v = r.verify();
            assertThat(v.ok()).isTrue();
            assertThat(v.records()).isEqualTo(5);
            assertThat(v.openTail()).isNull();
        }
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
    void batchAppendAssignsConsecutiveSequences() {
        try (Journal j = Journal.open(palisade(), JournalOptions.defaults())) {
            List<JournalEvent> batch = new ArrayList<>();
            for (int i = 0; i < 64; i++) {
                batch.add(new GraphBranchCreated("b" + i, "main", i));
            }
            assertThat(j.appendBatch(batch, Durability.POWER_LOSS)).isEqualTo(1);
            assertThat(j.endSequence()).isEqualTo(65);
            try (JournalCursor c = j.reader().read(1)) {
                List<JournalRecord> got = c.drain();
                assertThat(got).hasSize(64);
                assertThat(got.get(63).event()).isEqualTo(new GraphBranchCreated("b63", "main", 63));
            }
        }
    }

    @Test
    void aBatchWithAnEventThatCannotBeJournaledWritesNothing() {
        try (Journal j = Journal.open(palisade(), JournalOptions.defaults())) {
            JournalEvent tooLarge = new JournalEvent.IntentRecorded("i", null, LogicalOperation.INSERT, "main", "t",
                    new ExpectedBase("main", 1, 1, 0), new byte[65 * 1024 * 1024], null,
                    new HeadTransition("main", "t", null, new TableHead("main", 2, 1, 0)));
            List<JournalEvent> batch = List.of(new GraphBranchCreated("ok", "main", 0), tooLarge);
            assertThatThrownBy(() -> j.appendBatch(batch, Durability.POWER_LOSS))
                    .isInstanceOf(io.palisade.fencing.ValidationException.class);
            assertThat(j.endSequence()).isEqualTo(1);
            assertThat(j.append(new GraphBranchDeleted("next"))).isEqualTo(1);
            try (JournalCursor c = j.reader().read(0)) {
                assertThat(c.drain()).extracting(JournalRecord::event).last().isEqualTo(new GraphBranchDeleted("next"));
            }
        }
    }

    @Test
    void lookupBySequenceAndByTime() {
        AtomicLong millis = new AtomicLong(1_700_000_000_000L);
        Clock clock = new Clock() {
            @Override
            public ZoneOffset getZone() {
                return ZoneOffset.UTC;
            }

            @Override
            public Clock withZone(java.time.ZoneId zone) {
                return this;
            }

            @Override
            public Instant instant() {
                return Instant.ofEpochMilli(millis.getAndAdd(1000));
            }
        };
        try (Journal j = Journal.open(palisade(), JournalOptions.defaults().withClock(clock))) {
            for (int i = 0; i < 300; i++) {
                j.append(new GraphBranchCreated("b" + i, "main", i), Durability.PROCESS_CRASH);
            }
            JournalReader r = j.reader();
            assertThat(r.record(150)).get().extracting(JournalRecord::event)
                    .isEqualTo(new GraphBranchCreated("b149", "main", 149));
            assertThat(r.record(301)).isEmpty();
            // the lease took the first tick: record k was stamped at 1_700_000_000_000 + 1000 (k + 1) ms
            assertThat(r.sequenceAt(Instant.ofEpochMilli(1_700_000_000_000L + 100_500))).hasValue(100);
            assertThat(r.sequenceAt(Instant.ofEpochMilli(1_700_000_000_000L + 100_000))).hasValue(99);
            assertThat(r.record(99)).get().extracting(JournalRecord::time)
                    .isEqualTo(Instant.ofEpochMilli(1_700_000_000_000L + 100_000));
            assertThat(r.sequenceAt(Instant.ofEpochMilli(0))).hasValue(0);
            assertThat(r.sequenceAt(Instant.ofEpochMilli(1_800_000_000_000L))).isEmpty();
            try (JournalCursor c = r.read(Instant.ofEpochMilli(1_700_000_000_000L + 299_000))) {
                assertThat(c.drain()).extracting(JournalRecord::sequence).containsExactly(298L, 299L, 300L);
            }
        }
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
}
