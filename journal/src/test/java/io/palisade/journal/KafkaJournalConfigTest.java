package io.palisade.journal;

import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.Properties;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Client properties of a Kafka journal pass through, except those fencing and durability rest on; the bootstrap
 * servers are host:port entries.
 */
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

    @Test
    void bootstrapServersAreHostPortEntries() {
        for (String ok : new String[] {"b1:9092", "b1:9092,b2:9093", "b1:9092, b2:9093", "[::1]:9092", "10.0.0.1:65535"}) {
            assertThat(new KafkaJournalConfig(ok, "t", 1, 1, Map.of()).bootstrapServers()).isEqualTo(ok);
        }
        for (String bad : new String[] {"", " ", "b1", "b1:", ":9092", "b1:0", "b1:65536", "b1:90x2", "b1:9092,", ",b1:9092"}) {
            assertThatThrownBy(() -> new KafkaJournalConfig(bad, "t", 1, 1, Map.of())).as("'%s'", bad)
                    .isInstanceOf(io.palisade.fencing.ValidationException.class).hasMessageContaining("bootstrap.servers");
        }
    }
}
