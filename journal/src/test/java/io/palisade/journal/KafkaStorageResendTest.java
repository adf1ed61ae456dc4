package io.palisade.journal;

import io.palisade.fencing.CommitStateUnknownException;
import io.palisade.fencing.WriterFencedException;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.InvalidTxnStateException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The Kafka journal's write of one group as one transaction, against Kafka's {@link MockProducer}: a transaction the
 * broker refuses and that is then aborted is sent again, so its records are committed exactly once; one that cannot
 * be aborted, or is refused every time, is a {@link CommitStateUnknownException}; a fenced writer is never resent.
 */
class KafkaStorageResendTest {
    private static final KafkaJournalConfig CONFIG = KafkaJournalConfig.forNewGraph("127.0.0.1:1", "resend");
    private static final LeaseOwner OWNER = new LeaseOwner(1, "host", Instant.EPOCH, 3, "token");
    private static final List<String> RECORDS = List.of("a", "bb", "ccc");

    /** A producer whose first {@code refusals} commits fail as Kafka's broker-side state check fails them. */
    static final class RefusingProducer extends MockProducer<byte[], byte[]> {
        int refusals;
        int commitsTried;

        RefusingProducer(int refusals) {
            super(true, null, new ByteArraySerializer(), new ByteArraySerializer());
            this.refusals = refusals;
            initTransactions();
        }

        @Override
        public void commitTransaction() {
            commitsTried++;
            if (refusals-- > 0) {
                throw new InvalidTxnStateException("The producer attempted a transactional operation in an invalid state.");
            }
            super.commitTransaction();
        }
    }

    private static void write(KafkaStorage storage) {
        StringBuilder all = new StringBuilder();
        int[] offsets = new int[RECORDS.size() + 1];
        for (int i = 0; i < RECORDS.size(); i++) {
            all.append(RECORDS.get(i));
            offsets[i + 1] = all.length();
        }
        storage.write(all.toString().getBytes(StandardCharsets.UTF_8), offsets, RECORDS.size(), 40, Durability.POWER_LOSS);
    }

    private static List<String> committed(MockProducer<byte[], byte[]> p) {
        return p.history().stream().map(ProducerRecord::value).map(v -> new String(v, StandardCharsets.UTF_8)).toList();
    }

    @Test
    void aRefusedTransactionThatWasAbortedIsSentAgainAndCommittedOnce() {
        RefusingProducer p = new RefusingProducer(KafkaStorage.ATTEMPTS - 1);
        write(KafkaStorage.over(CONFIG, p, OWNER));
        assertThat(p.commitsTried).isEqualTo(KafkaStorage.ATTEMPTS);
        assertThat(p.commitCount()).isEqualTo(1);
        assertThat(committed(p)).containsExactlyElementsOf(RECORDS);
        assertThat(p.transactionInFlight()).isFalse();
    }

    @Test
    void aTransactionRefusedAtEveryAttemptIsAbortedAndReportedWithNothingCommitted() {
        RefusingProducer p = new RefusingProducer(Integer.MAX_VALUE);
        assertThatThrownBy(() -> write(KafkaStorage.over(CONFIG, p, OWNER)))
                .isInstanceOf(CommitStateUnknownException.class)
                .hasMessageContaining("sequences 40..42 was aborted after " + KafkaStorage.ATTEMPTS + " attempts");
        assertThat(p.commitsTried).isEqualTo(KafkaStorage.ATTEMPTS);
        assertThat(p.commitCount()).isZero();
        assertThat(committed(p)).isEmpty();
    }

    @Test
    void aTransactionThatCannotBeAbortedIsNotSentAgain() {
        RefusingProducer p = new RefusingProducer(1);
        p.abortTransactionException = new IllegalStateException("the producer is in a fatal error state");
        assertThatThrownBy(() -> write(KafkaStorage.over(CONFIG, p, OWNER)))
                .isInstanceOf(CommitStateUnknownException.class)
                .hasMessageContaining("may or may not have been committed");
        assertThat(p.commitsTried).isEqualTo(1);
    }

    @Test
    void aFencedWriterIsNotSentAgain() {
        RefusingProducer p = new RefusingProducer(0);
        p.fenceProducer();
        assertThatThrownBy(() -> write(KafkaStorage.over(CONFIG, p, OWNER)))
                .isInstanceOf(WriterFencedException.class)
                .hasMessageContaining("epoch 3").hasMessageContaining("sequences 40..42 are not part of the journal");
        assertThat(p.commitsTried).isZero();
        assertThat(committed(p)).isEmpty();
    }
}
