package io.palisade.journal;

import io.palisade.fencing.WriterFencedException;
import io.palisade.journal.JournalEvent.GraphBranchCreated;
import io.palisade.journal.codec.RecordCodec;
import org.agrona.ExpandableArrayBuffer;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.InvalidProducerEpochException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.KafkaException;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The journal contract on Kafka (one in-process KRaft node for the class), and what is Kafka's own: a writer killed
 * mid-transaction leaves an open transaction, which the next writer's start aborts (the Kafka form of a torn tail).
 */
class KafkaJournalContractTest extends JournalContractTest {
    @org.junit.jupiter.api.extension.RegisterExtension
    static final KafkaClusterExtension KAFKA = new KafkaClusterExtension(1);

    @Override
    void prepare(Path palisade) {
        KAFKA.cluster().newJournal(graph.getFileName().toString()).write(palisade);
    }

    @Override
    Exclusion exclusion() {
        return Exclusion.FIRST_FENCED;
    }

    @Override
    int followRecordsPerSession() {
        return 150;
    }

    @Test
    void aTransactionLeftOpenByAKilledWriterIsAbortedByTheNextWriterAndNeverRead() throws Exception {
        Path palisade = palisade();
        KafkaJournalConfig config = KafkaJournalConfig.read(palisade).orElseThrow();
        String head;
        try (Journal j = Journal.open(palisade, JournalOptions.defaults())) {
            j.append(new GraphBranchCreated("acknowledged", "main", 0));
            head = j.chainHead();
        }
        // A writer of epoch 2 killed mid-group: its producer began a transaction and sent a well-formed next record.
        KafkaProducer<byte[], byte[]> killed = new KafkaProducer<>(config.producerProperties());
        killed.initTransactions();
        killed.beginTransaction();
        ExpandableArrayBuffer buf = new ExpandableArrayBuffer(256);
        int len = new RecordCodec().encode(new JournalEvent.WriterStarted(2, "t", 1, "h", "dev", 0), 2,
                System.currentTimeMillis() * 1_000_000L, 2, HexFormat.of().parseHex(head), buf);
        killed.send(new ProducerRecord<>(config.topic(), 0, null, Arrays.copyOf(buf.byteArray(), len))).get();
        killed.flush();
        try (Journal j = Journal.open(palisade, JournalOptions.defaults())) {
            assertThat(j.endSequence()).isEqualTo(3); // the open's WriterStarted took sequence 2
            assertThat(j.epoch()).isEqualTo(2);
            assertThat(j.tornTailCutAtOpen()).isEmpty();
            j.append(new GraphBranchCreated("next", "main", 0));
        } finally {
            killed.close(Duration.ZERO);
        }
        try (JournalReader r = JournalReader.open(palisade); JournalCursor c = r.read(0)) {
            List<JournalRecord> all = c.drain();
            assertThat(all).extracting(JournalRecord::sequence).containsExactly(0L, 1L, 2L, 3L);
            assertThat(all.get(2).event()).isInstanceOf(JournalEvent.WriterStarted.class);
            assertThat(((JournalEvent.WriterStarted) all.get(2).event()).ownerToken()).isNotEqualTo("t");
            assertThat(r.verify().ok()).isTrue();
        }
    }

    @Test
    void aTopicThatAllowsUncleanLeaderElectionIsRefusedAndNothingIsWritten() throws Exception {
        KafkaJournalConfig config = KAFKA.cluster().newJournal("unclean");
        try (org.apache.kafka.clients.admin.Admin admin = org.apache.kafka.clients.admin.Admin.create(config.adminProperties())) {
            admin.createTopics(List.of(new org.apache.kafka.clients.admin.NewTopic(config.topic(), 1,
                    (short) config.replicationFactor()).configs(java.util.Map.of("unclean.leader.election.enable", "true"))))
                    .all().get();
        }
        Path palisade = graph.resolve("unclean").resolve("_palisade");
        java.nio.file.Files.createDirectories(palisade);
        config.write(palisade);
        assertThatThrownBy(() -> Journal.open(palisade, JournalOptions.defaults()))
                .isInstanceOf(io.palisade.fencing.GraphRefusedException.class)
                .hasMessageContaining("unclean leader election");
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(config.consumerProperties())) {
            org.apache.kafka.common.TopicPartition tp = new org.apache.kafka.common.TopicPartition(config.topic(), 0);
            assertThat(c.endOffsets(List.of(tp)).get(tp)).as("records in the refused topic").isZero();
        }
    }

    /**
     * Two creates naming one topic both pass {@link Journal#checkNewKafkaTopic} (read-only, before either writes); the
     * one that opens second fences the first's producer, reads the first's committed records under its own epoch and
     * is refused with nothing appended; the first's next append fails typed, and its journal is whole and reopens.
     */
    @Test
    void twoCreatesOnOneTopicThatBothPassedTheReadOnlyCheckNeverShareAJournal() throws Exception {
        KafkaJournalConfig config = KAFKA.cluster().newJournal("raced");
        Path a = java.nio.file.Files.createDirectories(graph.resolve("raced-a").resolve("_palisade"));
        Path b = java.nio.file.Files.createDirectories(graph.resolve("raced-b").resolve("_palisade"));
        config.write(a);
        config.write(b);
        Journal.checkNewKafkaTopic(config);
        Journal.checkNewKafkaTopic(config);
        try (Journal first = Journal.openNew(a, JournalOptions.defaults())) {
            first.append(new GraphBranchCreated("of-a", "main", 0));
            assertThatThrownBy(() -> Journal.openNew(b, JournalOptions.defaults()))
                    .isInstanceOf(io.palisade.fencing.GraphRefusedException.class)
                    .isNotInstanceOf(WriterFencedException.class)
                    .hasMessageContaining(config.topic()).hasMessageContaining("already holds 2 record(s)")
                    .hasMessageContaining("nothing was written");
            assertThatThrownBy(() -> first.append(new GraphBranchCreated("after", "main", 0)))
                    .isInstanceOf(WriterFencedException.class);
        }
        try (JournalReader r = JournalReader.open(a); JournalCursor c = r.read(0)) {
            List<JournalRecord> all = c.drain();
            assertThat(all).extracting(JournalRecord::sequence).containsExactly(0L, 1L);
            assertThat(all.get(1).event()).isEqualTo(new GraphBranchCreated("of-a", "main", 0));
            assertThat(r.verify().ok()).isTrue();
        }
        try (Journal again = Journal.open(a, JournalOptions.defaults())) {
            assertThat(again.endSequence()).isEqualTo(3);
        }
    }

    @Test
    void bothFormsOfAFencedProducerAreTheOneFencedError() {
        assertThat(KafkaStorage.isFenced(new ProducerFencedException("idle"))).isTrue();
        assertThat(KafkaStorage.isFenced(new KafkaException("commit failed", new InvalidProducerEpochException("mid"))))
                .isTrue();
        assertThat(KafkaStorage.isFenced(new KafkaException("broker down"))).isFalse();
        assertThat(WriterFencedException.class).isAssignableTo(io.palisade.fencing.GraphRefusedException.class);
    }
}
