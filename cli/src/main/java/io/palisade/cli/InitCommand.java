package io.palisade.cli;

import io.palisade.coordinator.Catalog;
import io.palisade.coordinator.Graph;
import io.palisade.coordinator.Options;
import io.palisade.coordinator.Palisade;
import io.palisade.journal.KafkaJournalConfig;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.Callable;

@Command(name = "init", mixinStandardHelpOptions = true,
        description = {"Create a graph from a catalog of node, edge and append-only tables.",
                "The graph is built beside GRAPH and renamed into place, so a failed create leaves nothing behind.",
                "With --journal-kafka the graph's journal is a replicated Kafka topic instead of the embedded Chronicle "
                        + "one; GRAPH/_palisade/journal.properties records where it is (never a credential: those come from "
                        + "the file named by PALISADE_KAFKA_FILE), and every later command reads it from there "
                        + "(docs/scale-out.md)."},
        footer = {"%nExample:%n  palisade init GRAPH --catalog catalog.json",
                "  PALISADE_STORAGE_FILE=s3.properties palisade init GRAPH --catalog catalog.json --tables s3://bucket/g1",
                "  palisade init GRAPH --catalog catalog.json --journal-kafka broker1:9092,broker2:9092,broker3:9092"})
final class InitCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "GRAPH", description = "Directory of the new graph.")
    Path graph;

    @Option(names = "--catalog", required = true, paramLabel = "FILE", description = "The catalog JSON.")
    Path catalog;

    @Option(names = "--tables", paramLabel = "URI", description = {"Keep the tables on an object store "
            + "(s3://bucket/prefix) instead of GRAPH/tables; the journal and lease stay in GRAPH. Storage options "
            + "(credentials, endpoint) come from the file named by PALISADE_STORAGE_FILE and from PALISADE_STORAGE_* "
            + "variables, never from the graph (docs/scale-out.md)."})
    String tables;

    @ArgGroup(exclusive = false, heading = "%nJournal on Kafka (all but --journal-kafka need it):%n")
    KafkaOptions kafka;

    @picocli.CommandLine.Mixin
    OutputFormat output = new OutputFormat();

    /**
     * The Kafka journal options; picocli makes {@code --journal-kafka} required as soon as any of them is given. The
     * defaults are those of {@link KafkaJournalConfig#forNewGraph}: a fresh topic named after the graph, replication 3,
     * {@code min.insync.replicas} 2.
     */
    static final class KafkaOptions {
        @Option(names = "--journal-kafka", required = true, paramLabel = "HOST:PORT[,...]",
                description = "Put the journal on the Kafka cluster with these bootstrap servers.")
        String bootstrapServers;

        @Option(names = "--journal-topic", paramLabel = "NAME", description = "The journal topic: absent or empty, "
                + "one partition (default: palisade-journal-<graph name>-<8 random hex digits>, created by init).")
        String topic;

        @Option(names = "--replication", paramLabel = "N", defaultValue = "3",
                description = "Replicas of the topic when init creates it (default: ${DEFAULT-VALUE}; a one-broker cluster "
                        + "needs --replication 1 --min-insync 1).")
        int replication;

        @Option(names = "--min-insync", paramLabel = "N", defaultValue = "2", description = "The topic's "
                + "min.insync.replicas: an acknowledged write is on at least N brokers; at most --replication "
                + "(default: ${DEFAULT-VALUE}).")
        int minInsync;

        @Option(names = "--kafka-property", paramLabel = "KEY=VALUE", description = "A Kafka client property for "
                + "every client of the journal (security.protocol, default.api.timeout.ms, ...), repeatable; written to "
                + "journal.properties. It cannot change transactional.id, acks, idempotence or isolation.level, and "
                + "cannot be a secret (sasl.jaas.config, ssl.*.password): put those in a Kafka client properties file "
                + "named by PALISADE_KAFKA_FILE, read on this machine by every command and never written to the graph.")
        Map<String, String> clientProperties = new TreeMap<>();

        /**
         * The journal configuration these options give for the graph at {@code graph}; bad input (an empty or
         * malformed bootstrap list, an illegal topic name, {@code min.insync.replicas} above the replication) is a
         * {@link io.palisade.fencing.ValidationException}, before anything is written or any broker is asked.
         */
        KafkaJournalConfig config(Path graph) {
            Path name = graph.toAbsolutePath().normalize().getFileName();
            KafkaJournalConfig base = KafkaJournalConfig.forNewGraph(bootstrapServers, name == null ? "graph" : name.toString());
            return new KafkaJournalConfig(bootstrapServers, topic == null ? base.topic() : topic, replication, minInsync,
                    clientProperties);
        }
    }

    /** The journal configuration of the new graph; empty for the embedded Chronicle journal. */
    Optional<KafkaJournalConfig> journal() {
        return kafka == null ? Optional.empty() : Optional.of(kafka.config(graph));
    }

    @Override
    public Integer call() {
        OutputFormat.Format format = output.resolve(OutputFormat.Format.table);
        Optional<KafkaJournalConfig> journal = journal(); // validated before the catalog is read or anything written
        Catalog c = Catalog.read(catalog);
        try (Graph g = create(c, journal)) {
            switch (format) {
                case table -> System.out.println("created graph " + graph + " with tables "
                        + c.tables().stream().map(t -> t.name() + " (" + t.kind().json() + ")").toList()
                        + (tables == null ? "" : " on " + tables)
                        + journal.map(k -> "; journal on Kafka topic " + k.topic() + " at " + k.bootstrapServers()
                        + " (replication " + k.replicationFactor() + ", min.insync.replicas " + k.minInsyncReplicas()
                        + ")").orElse(""));
                case json -> {
                    Cli.printJson(System.out, document(c, journal));
                    Main.jsonPrinted = true;
                }
                case jsonl -> {
                    System.out.println(Cli.toJson(document(c, journal)));
                    Main.jsonPrinted = true;
                }
            }
        }
        return Main.OK;
    }

    private Graph create(Catalog c, Optional<KafkaJournalConfig> journal) {
        if (journal.isEmpty()) {
            return tables == null ? Palisade.create(graph, c, Options.defaults())
                    : Palisade.create(graph, c, Options.defaults(), tables, Map.of());
        }
        return tables == null ? Palisade.create(graph, c, Options.defaults(), journal.get())
                : Palisade.create(graph, c, Options.defaults(), tables, Map.of(), journal.get());
    }

    private Map<String, Object> document(Catalog c, Optional<KafkaJournalConfig> journal) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("graph", graph.toString());
        List<Map<String, Object>> ts = c.tables().stream().map(t -> {
            Map<String, Object> x = new LinkedHashMap<>();
            x.put("name", t.name());
            x.put("kind", t.kind().json());
            return x;
        }).toList();
        m.put("tables", ts);
        m.put("tables_uri", tables);
        Map<String, Object> j = new LinkedHashMap<>();
        j.put("storage", journal.isPresent() ? "kafka" : "chronicle");
        journal.ifPresent(k -> {
            j.put("bootstrap_servers", k.bootstrapServers());
            j.put("topic", k.topic());
            j.put("replication_factor", k.replicationFactor());
            j.put("min_insync_replicas", k.minInsyncReplicas());
        });
        m.put("journal", j);
        return m;
    }
}
