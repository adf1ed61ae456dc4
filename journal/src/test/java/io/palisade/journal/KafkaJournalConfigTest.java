package io.palisade.journal;

import io.palisade.fencing.ValidationException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
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

    @TempDir
    Path dir;

    /** Kafka's password-typed client properties, plain and listener-scoped, are refused naming the local file. */
    @Test
    void aSecretIsRefusedAsAGraphPropertyWithoutEchoingIt() {
        for (String key : new String[] {"sasl.jaas.config", "ssl.key.password", "ssl.keystore.password",
                "ssl.truststore.password", "listener.name.internal.scram-sha-256.sasl.jaas.config"}) {
            assertThat(KafkaJournalConfig.isSecret(key)).as(key).isTrue();
            assertThatThrownBy(() -> new KafkaJournalConfig("b1:9092", "t", 1, 1, Map.of(key, "hunter2")))
                    .as(key).isInstanceOf(ValidationException.class)
                    .hasMessageContaining("'" + key + "' is a secret")
                    .hasMessageContaining(KafkaJournalConfig.LOCAL_FILE_VARIABLE)
                    .message().doesNotContain("hunter2");
        }
        for (String key : new String[] {"security.protocol", "sasl.mechanism", "ssl.truststore.location",
                "default.api.timeout.ms"}) {
            assertThat(KafkaJournalConfig.isSecret(key)).as(key).isFalse();
        }
    }

    /**
     * The local file's properties reach the producer, the consumers and the admin client (credentials among them),
     * under the ones fencing rests on, and are never written to journal.properties.
     */
    @Test
    void theLocalFileReachesEveryClientAndNeverTheGraph() throws Exception {
        Path local = dir.resolve("kafka-client.properties");
        Files.writeString(local, "sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required "
                + "username=\"u\" password=\"hunter2\";\nsecurity.protocol=SASL_PLAINTEXT\nacks=1\n");
        Path graph = Files.createDirectories(dir.resolve("_palisade"));
        KafkaJournalConfig config = new KafkaJournalConfig("b1:9092", "t", 3, 2, Map.of("sasl.mechanism", "PLAIN"));
        config.write(graph);
        System.setProperty(KafkaJournalConfig.LOCAL_FILE_PROPERTY, local.toString());
        try {
            for (Properties p : new Properties[] {config.producerProperties(), config.consumerProperties(),
                    config.adminProperties()}) {
                assertThat(p.getProperty("sasl.jaas.config")).contains("password=\"hunter2\"");
                assertThat(p.getProperty("security.protocol")).isEqualTo("SASL_PLAINTEXT");
                assertThat(p.getProperty("sasl.mechanism")).isEqualTo("PLAIN");
            }
            assertThat(config.producerProperties().getProperty("acks")).isEqualTo("all");
            KafkaJournalConfig read = KafkaJournalConfig.read(graph).orElseThrow();
            assertThat(read).isEqualTo(config);
            assertThat(read.producerProperties().getProperty("sasl.jaas.config")).contains("hunter2");
        } finally {
            System.clearProperty(KafkaJournalConfig.LOCAL_FILE_PROPERTY);
        }
        assertThat(Files.readString(graph.resolve(KafkaJournalConfig.FILE))).contains("kafka.sasl.mechanism=PLAIN")
                .doesNotContain("hunter2").doesNotContain("jaas").doesNotContain("SASL_PLAINTEXT");
        assertThat(config.producerProperties().getProperty("sasl.jaas.config")).as("no local file: nothing added").isNull();
    }

    @Test
    void aGraphFileHoldingASecretIsRefusedAtOpenAndAMissingLocalFileIsNamed() throws Exception {
        Path graph = Files.createDirectories(dir.resolve("_palisade"));
        Files.writeString(graph.resolve(KafkaJournalConfig.FILE), "storage=kafka\nbootstrap.servers=b1:9092\ntopic=t\n"
                + "kafka.ssl.key.password=hunter2\n");
        assertThatThrownBy(() -> KafkaJournalConfig.read(graph)).isInstanceOf(ValidationException.class)
                .hasMessageContaining("'ssl.key.password' is a secret").message().doesNotContain("hunter2");
        System.setProperty(KafkaJournalConfig.LOCAL_FILE_PROPERTY, dir.resolve("absent.properties").toString());
        try {
            assertThatThrownBy(KafkaJournalConfig::localProperties).isInstanceOf(ValidationException.class)
                    .hasMessageContaining("absent.properties").hasMessageContaining(KafkaJournalConfig.LOCAL_FILE_VARIABLE);
        } finally {
            System.clearProperty(KafkaJournalConfig.LOCAL_FILE_PROPERTY);
        }
    }
}
