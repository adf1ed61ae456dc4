package io.palisade.journal;

import io.palisade.fencing.GraphRefusedException;
import io.palisade.fencing.ValidationException;
import io.palisade.fencing.WriterFencedException;
import io.palisade.journal.JournalEvent.GraphBranchCreated;
import io.palisade.journal.JournalEvent.GraphBranchDeleted;
import io.palisade.journal.JournalEvent.WriterStarted;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The journal contract every storage keeps (docs/journal.md "Storages"): dense sequences across writer sessions,
 * the hash chain, group commit, all-or-nothing batches, lookups by sequence and time, following readers, and
 * exclusion of a second writer. Run against Chronicle ({@link ChronicleJournalContractTest}) and Kafka
 * ({@link KafkaJournalContractTest}); the storage's files or topic are chosen by {@link #prepare}.
 */
abstract class JournalContractTest {

    @TempDir
    Path graph;

    /** How a second writer of the same graph is kept from interleaving with the first. */
    enum Exclusion {
        /** the second open is refused while the first holds the local lease (Chronicle) */
        REFUSED_AT_OPEN,
        /** the second open fences the first, whose next append fails (Kafka) */
        FIRST_FENCED
    }

    /** Puts the journal of the graph whose {@code _palisade/} directory is {@code palisade} on this storage. */
    abstract void prepare(Path palisade);

    abstract Exclusion exclusion();

    /** Records per writer session in the follow test (Kafka's per-record transactions cost milliseconds). */
    abstract int followRecordsPerSession();

    Path palisade() {
        Path p = graph.resolve("_palisade");
        if (!java.nio.file.Files.exists(p.resolve(KafkaJournalConfig.FILE))) {
            prepare(p);
        }
        return p;
    }

    @Test
    void appendedRecordsReadBackInOrderWithDenseSequencesAcrossReopen() {
        try (Journal j = Journal.open(palisade(), JournalOptions.defaults())) {
            assertThat(j.endSequence()).isEqualTo(1); // WriterStarted
            assertThat(j.append(new GraphBranchCreated("b1", "main", 0))).isEqualTo(1);
            assertThat(j.append(new GraphBranchDeleted("b1"), Durability.PROCESS_CRASH)).isEqualTo(2);
        }
        String head;
        try (Journal j = Journal.open(palisade(), JournalOptions.defaults())) {
            assertThat(j.epoch()).isEqualTo(2);
            assertThat(j.previousOwner()).get().extracting(LeaseOwner::epoch).isEqualTo(1L);
            assertThat(j.append(new GraphBranchCreated("b2", "main", 3))).isEqualTo(4);
            head = j.chainHead();
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
            assertThat(v.lastHash()).isEqualTo(head);
            assertThat(r.recordHash(4)).hasValue(head);
            assertThat(r.recordHash(5)).isEmpty();
        }
    }

    @Test
    void batchAppendAssignsConsecutiveSequences() {
        try (Journal j = Journal.open(palisade(), JournalOptions.defaults())) {
            List<JournalEvent> batch = new ArrayList<>();
            for (int i = 0; i < 64; i++) {
                batch.add(new GraphBranchCreated("b" + i, "main", i));
            }
            assertThat(j.appendBatch(batch, Durability.POWER_LOSS)).isEqualTo(1);
            assertThat(j.appendBatch(List.of(), Durability.POWER_LOSS)).isEqualTo(65);
            assertThat(j.endSequence()).isEqualTo(65);
            try (JournalCursor c = j.reader().read(1)) {
                List<JournalRecord> got = c.drain();
                assertThat(got).hasSize(64);
                assertThat(got.get(63).event()).isEqualTo(new GraphBranchCreated("b63", "main", 63));
            }
            try (JournalCursor c = j.reader().read(40)) {
                assertThat(c.drain()).extracting(JournalRecord::sequence).first().isEqualTo(40L);
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
                    .isInstanceOf(ValidationException.class);
            assertThat(j.endSequence()).isEqualTo(1);
            assertThat(j.append(new GraphBranchDeleted("next"))).isEqualTo(1);
            try (JournalCursor c = j.reader().read(0)) {
                List<JournalRecord> all = c.drain();
                assertThat(all).extracting(JournalRecord::sequence).containsExactly(0L, 1L);
                assertThat(all.get(0).event()).isInstanceOf(WriterStarted.class);
                assertThat(all.get(1).event()).isEqualTo(new GraphBranchDeleted("next"));
            }
        }
    }

    @Test
    void lookupBySequenceAndByTime() {
        AtomicLong millis = new AtomicLong(1_700_000_000_000L);
        Clock clock = steppingClock(millis);
        try (Journal j = Journal.open(palisade(), JournalOptions.defaults().withClock(clock))) {
            List<JournalEvent> batch = new ArrayList<>();
            for (int i = 0; i < 300; i++) {
                batch.add(new GraphBranchCreated("b" + i, "main", i));
            }
            j.appendBatch(batch, Durability.PROCESS_CRASH);
            JournalReader r = j.reader();
            assertThat(r.record(150)).get().extracting(JournalRecord::event)
                    .isEqualTo(new GraphBranchCreated("b149", "main", 149));
            assertThat(r.record(301)).isEmpty();
            // the open took the first tick: record k was stamped at 1_700_000_000_000 + 1000 (k + 1) ms
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
    void followerSeesEveryRecordInOrderWhileTheWriterAppendsAndAcrossWriterSessions() throws Exception {
        Path palisade = palisade();
        int perSession = followRecordsPerSession();
        try (Journal first = Journal.open(palisade, JournalOptions.defaults())) {
            JournalReader reader = first.reader();
            CompletableFuture<List<JournalRecord>> followed = CompletableFuture.supplyAsync(() -> {
                List<JournalRecord> got = new ArrayList<>();
                try (JournalCursor c = reader.follow(0)) {
                    // 1 WriterStarted + perSession events, twice
                    while (got.size() < 2 * (perSession + 1)) {
                        JournalRecord r = c.take(Duration.ofSeconds(30));
                        if (r == null) {
                            break;
                        }
                        got.add(r);
                    }
                }
                return got;
            });
            append(first, 0, perSession);
            first.close();
            // A new writer session: the follower moves on to it.
            try (Journal second = Journal.open(palisade, JournalOptions.defaults())) {
                append(second, perSession, perSession);
            }
            List<JournalRecord> got = followed.get(60, TimeUnit.SECONDS);
            assertThat(got).hasSize(2 * (perSession + 1));
            for (int i = 0; i < got.size(); i++) {
                assertThat(got.get(i).sequence()).isEqualTo(i);
            }
            assertThat(got.get(0).event()).isInstanceOf(WriterStarted.class);
            assertThat(got.get(perSession + 1).event()).isInstanceOf(WriterStarted.class);
            assertThat(got.get(perSession + 1).writerEpoch()).isEqualTo(2);
            assertThat(got.get(perSession + 2).event()).isEqualTo(new GraphBranchCreated("b" + perSession, "main", perSession));
            assertThat(got.get(got.size() - 1).event())
                    .isEqualTo(new GraphBranchCreated("b" + (2 * perSession - 1), "main", 2 * perSession - 1));
        }
    }

    @Test
    void followerFromTheEndSeesOnlyNewRecords() {
        try (Journal j = Journal.open(palisade(), JournalOptions.defaults())) {
            append(j, 0, 10);
            try (JournalCursor c = j.reader().follow(j.endSequence())) {
                assertThat(c.poll()).isNull();
                append(j, 10, 2);
                assertThat(c.take(Duration.ofSeconds(10)).event()).isEqualTo(new GraphBranchCreated("b10", "main", 10));
                assertThat(c.take(Duration.ofSeconds(10)).sequence()).isEqualTo(12);
                assertThat(c.poll()).isNull();
            }
        }
    }

    @Test
    void followerFromATimeStartsAtTheFirstRecordAppendedAtOrAfterIt() {
        AtomicLong millis = new AtomicLong(1_700_000_000_000L);
        Clock clock = steppingClock(millis);
        try (Journal j = Journal.open(palisade(), JournalOptions.defaults().withClock(clock))) {
            append(j, 0, 5);
            Instant cut = Instant.ofEpochMilli(millis.get() - 500);
            j.append(new GraphBranchCreated("late", "main", 0));
            try (JournalCursor c = j.reader().follow(cut)) {
                assertThat(c.take(Duration.ofSeconds(10)).event()).isEqualTo(new GraphBranchCreated("late", "main", 0));
                assertThat(c.poll()).isNull();
                j.append(new GraphBranchCreated("later", "main", 0));
                assertThat(c.take(Duration.ofSeconds(10)).event()).isEqualTo(new GraphBranchCreated("later", "main", 0));
            }
        }
    }

    @Test
    void aSecondWriterNeverInterleavesWithTheFirst() {
        Journal first = Journal.open(palisade(), JournalOptions.defaults());
        try {
            first.append(new GraphBranchCreated("before", "main", 0));
            switch (exclusion()) {
                case REFUSED_AT_OPEN -> {
                    assertThatThrownBy(() -> Journal.open(palisade(), JournalOptions.defaults()))
                            .isInstanceOf(GraphRefusedException.class)
                            .hasMessageContaining("epoch " + first.epoch());
                    first.append(new GraphBranchCreated("still-mine", "main", 0));
                    first.close();
                    try (Journal second = Journal.open(palisade(), JournalOptions.defaults())) {
                        assertThat(second.epoch()).isEqualTo(2);
                        assertThat(second.endSequence()).isEqualTo(4);
                    }
                }
                case FIRST_FENCED -> {
                    try (Journal second = Journal.open(palisade(), JournalOptions.defaults())) {
                        assertThat(second.epoch()).isEqualTo(2);
                        assertThat(second.endSequence()).isEqualTo(3); // WriterStarted, before, WriterStarted
                        assertThatThrownBy(() -> first.append(new GraphBranchCreated("zombie", "main", 0)))
                                .isInstanceOf(WriterFencedException.class);
                        assertThatThrownBy(() -> first.appendBatch(List.of(new GraphBranchDeleted("zombie2")),
                                Durability.POWER_LOSS)).isInstanceOf(WriterFencedException.class);
                        assertThat(second.append(new GraphBranchCreated("after", "main", 0))).isEqualTo(3);
                    }
                    try (JournalReader r = JournalReader.open(palisade()); JournalCursor c = r.read(0)) {
                        List<JournalRecord> all = c.drain();
                        assertThat(all).extracting(JournalRecord::event).doesNotContain(
                                new GraphBranchCreated("zombie", "main", 0), new GraphBranchDeleted("zombie2"));
                        assertThat(all).extracting(JournalRecord::sequence).containsExactly(0L, 1L, 2L, 3L);
                        assertThat(all).extracting(JournalRecord::writerEpoch).containsExactly(1L, 1L, 2L, 2L);
                        assertThat(r.verify().ok()).isTrue();
                    }
                }
            }
        } finally {
            first.close();
        }
    }

    static void append(Journal j, int from, int n) {
        List<JournalEvent> batch = new ArrayList<>();
        for (int i = from; i < from + n; i++) {
            GraphBranchCreated e = new GraphBranchCreated("b" + i, "main", i);
            if (i % 3 == 0) {
                j.append(e, i % 2 == 0 ? Durability.PROCESS_CRASH : Durability.POWER_LOSS);
            } else {
                batch.add(e);
                if (batch.size() == 16) {
                    j.appendBatch(batch, Durability.POWER_LOSS);
                    batch.clear();
                }
            }
        }
        j.appendBatch(batch, Durability.PROCESS_CRASH);
    }

    /** A clock that reads {@code millis} and moves it one second on at every reading. */
    private static Clock steppingClock(AtomicLong millis) {
        return new Clock() {
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
    }
}
