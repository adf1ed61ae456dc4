package io.palisade.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.palisade.journal.KafkaJournalConfig;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code palisade init --journal-kafka ...} without a broker: what the options give (the topic named after the graph,
 * replication and {@code min.insync.replicas}, client properties), and bad input refused with a typed error, its exit
 * code, a JSON error under {@code --json} and nothing written (no graph directory, no staging directory beside it).
 * The Kafka half with a broker is {@link KafkaJournalCliTest}.
 */
class InitKafkaOptionsTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path tmp;
    Path catalog;

    @BeforeEach
    void catalog() throws Exception {
        catalog = tmp.resolve("catalog.json");
        Files.writeString(catalog, CliRun.CATALOG);
    }

    private static InitCommand parse(String... args) {
        InitCommand c = new InitCommand();
        new CommandLine(c).parseArgs(args);
        return c;
    }

    @Test
    void theDefaultsAreAFreshTopicNamedAfterTheGraphWithReplicationThreeAndMinInsyncTwo() {
        KafkaJournalConfig k = parse(tmp.resolve("orders east").toString(), "--catalog", "c.json",
                "--journal-kafka", "b1:9092,b2:9092").journal().orElseThrow();
        assertThat(k.bootstrapServers()).isEqualTo("b1:9092,b2:9092");
        assertThat(k.topic()).matches("palisade-journal-orders_east-[0-9a-f]{8}");
        assertThat(k.replicationFactor()).isEqualTo(3);
        assertThat(k.minInsyncReplicas()).isEqualTo(2);
        assertThat(k.clientProperties()).isEmpty();
        assertThat(parse("g", "--catalog", "c.json").journal()).as("no --journal-kafka: Chronicle").isEmpty();
    }

    @Test
    void topicReplicationMinInsyncAndClientPropertiesAreTakenAsGiven() {
        KafkaJournalConfig k = parse("g", "--catalog", "c.json", "--journal-kafka", "[::1]:9093", "--journal-topic",
                "orders.journal", "--replication", "1", "--min-insync", "1", "--kafka-property",
                "security.protocol=PLAINTEXT", "--kafka-property", "default.api.timeout.ms=5000").journal().orElseThrow();
        assertThat(k).isEqualTo(new KafkaJournalConfig("[::1]:9093", "orders.journal", 1, 1,
                Map.of("security.protocol", "PLAINTEXT", "default.api.timeout.ms", "5000")));
    }

    private CliRun.Result init(String graph, String... more) {
        String[] args = new String[4 + more.length];
        args[0] = "init";
        args[1] = tmp.resolve(graph).toString();
        args[2] = "--catalog";
        args[3] = catalog.toString();
        System.arraycopy(more, 0, args, 4, more.length);
        return CliRun.run(args);
    }

    /** Nothing of the graph exists: neither it nor a staging directory beside it. */
    private void nothingWritten(String graph) throws Exception {
        assertThat(tmp.resolve(graph)).doesNotExist();
        try (var s = Files.list(tmp)) {
            assertThat(s.map(p -> p.getFileName().toString())).as("no staging directory").containsOnly("catalog.json");
        }
    }

    private static void validation(CliRun.Result r, String... words) {
        assertThat(r.code()).as(r.toString()).isEqualTo(Main.INVALID_INPUT);
        assertThat(r.err()).as(r.toString()).startsWith("palisade: validation: ").contains(words)
                .contains("(nothing written)").doesNotContain("Exception");
    }

    @Test
    void badBootstrapServersAreInvalidInputAndWriteNothing() throws Exception {
        validation(init("g", "--journal-kafka", ""), "bootstrap.servers");
        validation(init("g", "--journal-kafka", "  "), "bootstrap.servers");
        validation(init("g", "--journal-kafka", "broker1"), "'broker1' is not host:port");
        validation(init("g", "--journal-kafka", "b1:9092,"), "'' is not host:port");
        validation(init("g", "--journal-kafka", "b1:99999"), "'b1:99999' is not host:port");
        validation(init("g", "--journal-kafka", ":9092"), "':9092' is not host:port");
        nothingWritten("g");
    }

    @Test
    void minInsyncAboveReplicationAndABadTopicAreInvalidInputWithAJsonErrorUnderJson() throws Exception {
        validation(init("g", "--journal-kafka", "b1:9092", "--replication", "1"),
                "min.insync.replicas (2) <= replication.factor (1)");
        validation(init("g", "--journal-kafka", "b1:9092", "--replication", "0", "--min-insync", "0"),
                "need 1 <= min.insync.replicas");
        validation(init("g", "--journal-kafka", "b1:9092", "--journal-topic", "no spaces"),
                "'no spaces' is not a legal Kafka topic name");
        CliRun.Result j = init("g", "--journal-kafka", "b1:9092", "--replication", "2", "--min-insync", "3", "--json");
        assertThat(j.code()).as(j.toString()).isEqualTo(Main.INVALID_INPUT);
        JsonNode err = JSON.readTree(j.out()).get("error");
        assertThat(err.get("code").asInt()).isEqualTo(Main.INVALID_INPUT);
        assertThat(err.get("kind").asText()).isEqualTo("validation");
        assertThat(err.get("message").asText()).contains("min.insync.replicas (3) <= replication.factor (2)");
        nothingWritten("g");
    }

    @Test
    void aSecretKafkaPropertyIsInvalidInputNamingTheLocalFileAndWritesNothing() throws Exception {
        CliRun.Result r = init("g", "--journal-kafka", "b1:9092", "--kafka-property", "security.protocol=SASL_SSL",
                "--kafka-property", "sasl.jaas.config=LoginModule required password=\"hunter2\";");
        validation(r, "'sasl.jaas.config' is a secret", KafkaJournalConfig.LOCAL_FILE_VARIABLE);
        assertThat(r.err() + r.out()).doesNotContain("hunter2");
        nothingWritten("g");
    }

    @Test
    void kafkaOptionsWithoutJournalKafkaAreAUsageError() throws Exception {
        for (String[] opts : new String[][] {{"--journal-topic", "t"}, {"--replication", "1"}, {"--min-insync", "1"},
                {"--kafka-property", "a=b"}}) {
            CliRun.Result r = init("g", opts);
            assertThat(r.code()).as(r.toString()).isEqualTo(Main.USAGE);
            assertThat(r.err()).as(r.toString()).contains("--journal-kafka").doesNotContain("Exception");
        }
        nothingWritten("g");
    }

    @Test
    void unreachableBrokersAreRefusedAndWriteNothing() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort(); // closed again: nothing listens there
        }
        CliRun.Result r = init("g", "--journal-kafka", "127.0.0.1:" + port, "--replication", "1", "--min-insync", "1",
                "--kafka-property", "default.api.timeout.ms=1500", "--kafka-property", "request.timeout.ms=1000", "--json");
        assertThat(r.code()).as(r.toString()).isEqualTo(Main.REFUSED);
        // the error line (the Kafka client's own warnings are logging, off in a launched command)
        assertThat(r.err().lines().filter(l -> l.startsWith("palisade: ")).toList()).as(r.toString()).singleElement()
                .asString().startsWith("palisade: graph refused: journal topic palisade-journal-g-")
                .contains("at 127.0.0.1:" + port).contains("no broker answered in time");
        JsonNode err = JSON.readTree(r.out()).get("error");
        assertThat(err.get("kind").asText()).isEqualTo("graph_refused");
        assertThat(err.get("code").asInt()).isEqualTo(Main.REFUSED);
        nothingWritten("g");
    }

    @Test
    void helpShowsTheJournalOptionsAsAGroupWithAnExample() {
        CliRun.Result h = CliRun.run("init", "--help");
        assertThat(h.code()).isZero();
        assertThat(h.out().replaceAll("\\s+", " ")).contains("Journal on Kafka").contains("--journal-kafka=HOST:PORT[,...]")
                .contains("--journal-topic=NAME").contains("--replication=N").contains("--min-insync=N")
                .contains("--kafka-property=KEY=VALUE").contains("(default: 3; a one-broker cluster needs --replication 1 --min-insync 1)").contains("(default: 2)")
                .contains("palisade init GRAPH --catalog catalog.json --journal-kafka");
    }
}
