package io.palisade.journal;

import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.Properties;

import static org.assertj.core.api.Assertions.assertThat;

/** Client properties of a Kafka journal pass through, except those fencing and durability rest on. */
class KafkaJournalConfigTest {
    private static final KafkaJournalConfig CONFIG = new KafkaJournalConfig("127.0.0.1:9092", "palisade-g-1", 3, 2,
            Map.of("transactional.id", "someone-else", "acks", "1", "enable.idempotence", "false",
                    "isolation.level", "read_uncommitted", "allow.auto.create.topics", "true",
                    "security.protocol", "PLAINTEXT"));

    @Test
    void theProducerKeepsTheGraphsTransactionalIdAndFullAcknowledgement() {
        Properties p = CONFIG.producerProperties();
        assertThat(p.getProperty("transactional.id")).isEqualTo(CONFIG.transactionalId()).isNotEqualTo("someone-else");
        assertThat(p.getProperty("acks")).isEqualTo("all");
        assertThat(p.getProperty("enable.idempotence")).isEqualTo("true");
        assertThat(p.getProperty("security.protocol")).isEqualTo("PLAINTEXT");
    }

    @Test
    void consumersReadCommittedTransactionsOnlyAndNeverCreateTheTopic() {
        Properties p = CONFIG.consumerProperties();
        assertThat(p.getProperty("isolation.level")).isEqualTo("read_committed");
        assertThat(p.getProperty("allow.auto.create.topics")).isEqualTo("false");
        assertThat(p.getProperty("security.protocol")).isEqualTo("PLAINTEXT");
    }
}
