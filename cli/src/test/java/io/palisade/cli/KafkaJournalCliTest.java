package io.palisade.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.palisade.journal.KafkaJournalConfig;
import io.palisade.journal.KafkaClusterExtension;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Properties;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The command line on a graph whose journal is on Kafka (one in-process KRaft node for the class): {@code init
 * --journal-kafka} writes {@code _palisade/journal.properties}, and every later command (write, scan, heads, audit,
 * audit verify, replay, explain, report, recover, branch create/list/merge) works from that file alone; a create on
 * a topic that is another graph's journal, or that exists with a lower {@code min.insync.replicas} than asked, is
 * refused (exit 6, JSON error under {@code --json}) and leaves nothing. The option checks that need no broker are
 * {@link InitKafkaOptionsTest}. With {@code --tables s3://...} as well (S3Proxy in this JVM) the graph has both halves
 * off the machine's disk but its catalog and pointers.
 */
class KafkaJournalCliTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    @org.junit.jupiter.api.extension.RegisterExtension
    static final KafkaClusterExtension KAFKA = new KafkaClusterExtension(1);

    @TempDir
    Path tmp;

    private Path catalog() throws Exception {
        Path cat = tmp.resolve("catalog.json");
        Files.writeString(cat, CliRun.CATALOG);
        return cat;
    }

    private static CliRun.Result ok(CliRun.Result r) {
        assertThat(r.code()).as(r.toString()).isZero();
        return r;
    }

    private static CliRun.Result write(String graph, String branch, String mode, String jsonl) {
        return CliRun.runWithInput(jsonl, "write", graph, "--table", "person", "--branch", branch, "--mode", mode);
    }

    @Test
    void everyCommandWorksOnAGraphWhoseJournalInitPutOnKafka() throws Exception {
        Path cat = catalog();
        String graph = tmp.resolve("orders").toString();
        CliRun.Result init = ok(CliRun.run("init", graph, "--catalog", cat.toString(), "--journal-kafka",
                KAFKA.cluster().bootstrapServers(), "--replication", "1", "--min-insync", "1", "--json"));
        JsonNode created = JSON.readTree(init.out());
        String topic = created.at("/journal/topic").asText();
        assertThat(created.at("/journal/storage").asText()).isEqualTo("kafka");
        assertThat(topic).matches("palisade-journal-orders-[0-9a-f]{8}");
        assertThat(KafkaJournalConfig.read(Path.of(graph, "_palisade"))).hasValue(
                new KafkaJournalConfig(KAFKA.cluster().bootstrapServers(), topic, 1, 1, Map.of()));
        assertThat(Path.of(graph, "_palisade", "journal")).as("no Chronicle journal").doesNotExist();

        ok(write(graph, "main", "insert", "{\"id\":\"a\",\"age\":1}\n{\"id\":\"b\",\"age\":2}\n"));
        CliRun.Result conflict = write(graph, "main", "insert", "{\"id\":\"a\",\"age\":9}\n");
        assertThat(conflict.code()).as(conflict.toString()).isEqualTo(Main.KEY_CONFLICT);
        ok(write(graph, "main", "upsert", "{\"id\":\"a\",\"age\":10}\n"));

        CliRun.Result scan = ok(CliRun.run("scan", graph, "--table", "person"));
        assertThat(scan.out().strip().split("\n")).hasSize(2);
        assertThat(scan.out()).contains("\"age\":10").contains("\"age\":2");
        JsonNode heads = JSON.readTree(ok(CliRun.run("heads", graph, "--json")).out());
        long version = heads.get(0).get("version").asLong();
        assertThat(heads.get(0).get("table").asText()).isEqualTo("person");
        assertThat(heads.get(0).get("foreign_versions")).isEmpty();

        JsonNode verify = JSON.readTree(ok(CliRun.run("audit", "verify", graph, "--json")).out());
        long end = verify.get("end_sequence").asLong();
        assertThat(end).isPositive();
        assertThat(ok(CliRun.run("audit", graph, "--type", "intent_completed")).out()).contains("COMMITTED")
                .contains("KEY_CONFLICT"); // the refused strict insert's intent
        JsonNode replay = JSON.readTree(ok(CliRun.run("replay", graph, "--at", Long.toString(end - 1), "--format",
                "json")).out());
        assertThat(replay.toString()).contains("person");
        assertThat(ok(CliRun.run("explain", graph, "--key", "a", "--table", "person")).out()).contains("a");
        Path html = tmp.resolve("report.html");
        ok(CliRun.run("report", graph, "--html", html.toString()));
        assertThat(Files.readString(html)).contains("person");

        ok(CliRun.run("branch", graph, "create", "dev"));
        ok(write(graph, "dev", "insert", "{\"id\":\"c\",\"age\":3}\n"));
        assertThat(ok(CliRun.run("branch", graph, "list")).out()).contains("dev");
        ok(CliRun.run("branch", graph, "merge", "dev", "--into", "main"));
        assertThat(ok(CliRun.run("scan", graph, "--table", "person")).out().strip().split("\n")).hasSize(3);

        JsonNode dry = JSON.readTree(ok(CliRun.run("recover", graph, "--dry-run", "--json")).out());
        assertThat(dry.get("dry_run").asBoolean()).isTrue();
        ok(CliRun.run("recover", graph, "--json"));
        JsonNode after = JSON.readTree(ok(CliRun.run("heads", graph, "--json")).out());
        assertThat(after.toString()).contains("dev");
        assertThat(after.get(0).get("version").asLong()).isGreaterThan(version);
        assertThat(JSON.readTree(ok(CliRun.run("audit", "verify", graph, "--json")).out()).get("ok").asBoolean()).isTrue();
        assertThat(Path.of(graph, "_palisade", "journal")).as("still no Chronicle journal").doesNotExist();

        // a second graph on the first one's topic would append to (and fence the writer of) another graph's journal
        long endBefore = JSON.readTree(ok(CliRun.run("audit", "verify", graph, "--json")).out()).get("end_sequence").asLong();
        String second = tmp.resolve("second").toString();
        CliRun.Result taken = CliRun.run("init", second, "--catalog", cat.toString(), "--journal-kafka",
                KAFKA.cluster().bootstrapServers(), "--journal-topic", topic, "--replication", "1", "--min-insync", "1", "--json");
        assertThat(taken.code()).as(taken.toString()).isEqualTo(Main.REFUSED);
        assertThat(taken.err()).startsWith("palisade: graph refused: journal topic " + topic + " ").contains("is not empty");
        assertThat(JSON.readTree(taken.out()).at("/error/kind").asText()).isEqualTo("graph_refused");
        assertThat(Path.of(second)).doesNotExist();
        assertThat(JSON.readTree(ok(CliRun.run("audit", "verify", graph, "--json")).out()).get("end_sequence").asLong())
                .as("the first graph's journal is untouched").isEqualTo(endBefore);
        ok(write(graph, "main", "insert", "{\"id\":\"d\",\"age\":4}\n")); // its writer was not fenced by the refused init
    }

    @Test
    void initPutsTheTablesOnAnObjectStoreAndTheJournalOnKafkaAtOnce() throws Exception {
        io.palisade.substrate.s3.S3ProxyFixture s3 = io.palisade.substrate.s3.S3ProxyFixture.shared();
        Path storage = tmp.resolve("storage.properties");
        Files.writeString(storage, s3.storageOptions().entrySet().stream().map(e -> e.getKey() + "=" + e.getValue())
                .collect(java.util.stream.Collectors.joining("\n", "", "\n")));
        System.setProperty(io.palisade.coordinator.TableLocation.FILE_PROPERTY, storage.toString());
        try {
            Path cat = catalog();
            String graph = tmp.resolve("both").toString();
            String uri = s3.freshUri();
            CliRun.Result init = ok(CliRun.run("init", graph, "--catalog", cat.toString(), "--tables", uri,
                    "--journal-kafka", KAFKA.cluster().bootstrapServers(), "--replication", "1", "--min-insync", "1"));
            assertThat(init.out()).contains("on " + uri).contains("journal on Kafka topic palisade-journal-both-");
            assertThat(Path.of(graph, "tables")).doesNotExist();
            assertThat(Path.of(graph, "_palisade", "journal")).doesNotExist();
            assertThat(KafkaJournalConfig.read(Path.of(graph, "_palisade"))).isPresent();
            ok(write(graph, "main", "insert", "{\"id\":\"a\",\"age\":1}\n"));
            assertThat(ok(CliRun.run("scan", graph, "--table", "person")).out()).contains("\"id\":\"a\"");
            assertThat(JSON.readTree(ok(CliRun.run("audit", "verify", graph, "--json")).out()).get("ok").asBoolean()).isTrue();
        } finally {
            System.clearProperty(io.palisade.coordinator.TableLocation.FILE_PROPERTY);
        }
    }

    @Test
    void anExistingTopicWithALowerMinInsyncThanAskedIsRefusedAndNothingIsWritten() throws Exception {
        Path cat = catalog();
        String topic = "operator-made-" + System.nanoTime();
        Properties p = new Properties();
        p.put("bootstrap.servers", KAFKA.cluster().bootstrapServers());
        try (Admin admin = Admin.create(p)) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1).configs(Map.of("min.insync.replicas", "1"))))
                    .all().get();
        }
        String graph = tmp.resolve("weak").toString();
        CliRun.Result r = CliRun.run("init", graph, "--catalog", cat.toString(), "--journal-kafka",
                KAFKA.cluster().bootstrapServers(), "--journal-topic", topic, "--replication", "2", "--min-insync", "2");
        assertThat(r.code()).as(r.toString()).isEqualTo(Main.REFUSED);
        assertThat(r.err()).startsWith("palisade: graph refused: journal topic " + topic + " has min.insync.replicas 1,"
                + " below the configured 2");
        try (var s = Files.list(tmp)) {
            assertThat(s.map(x -> x.getFileName().toString())).containsOnly("catalog.json");
        }
        // the same topic with what it offers is an empty journal topic: init takes it
        ok(CliRun.run("init", graph, "--catalog", cat.toString(), "--journal-kafka", KAFKA.cluster().bootstrapServers(),
                "--journal-topic", topic, "--replication", "1", "--min-insync", "1"));
        ok(write(graph, "main", "insert", "{\"id\":\"a\",\"age\":1}\n"));
    }
}
