package io.palisade.benchmarks;

import io.palisade.coordinator.Catalog;
import io.palisade.coordinator.Options;
import io.palisade.coordinator.Palisade;
import io.palisade.journal.KafkaJournalConfig;
import io.palisade.journal.KafkaTestCluster;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The coordinator end to end ({@code Options.defaults()}: POWER_LOSS journal, BTREE on {@code id}, group
 * commit) with its journal on Chronicle vs on Kafka, tables on local disk in all, in one run: what a user of the
 * docs/scale-out.md deployment feels. One graph on Chronicle, and one graph per entry of {@code --brokers} (default
 * {@code 3}: 3 brokers + 1 controller, replication 3, {@code min.insync.replicas} 2) on an in-process KRaft cluster
 * ({@link KafkaTestCluster}) of that size. All graphs hold {@code --rows} rows; {@link GraphWorkload#compare} runs
 * single-row upsert latency (interleaved per iteration) and {@code --writers}-thread throughput ({@code --rounds}
 * alternating rounds of {@code --seconds} per graph).
 *
 * <pre>
 * java $(cat cli/target/launcher/jvm.options) -Dorg.slf4j.simpleLogger.defaultLogLevel=warn \
 *   -cp "benchmarks/target/classes:benchmarks/target/lib/*" io.palisade.benchmarks.KafkaCoordinatorHarness \
 *   [--rows 10000] [--iterations 100] [--warmup 10] [--writers 16] [--seconds 15] [--rounds 2] [--brokers 3] [--seed 42]
 * </pre>
 */
public final class KafkaCoordinatorHarness {
    private KafkaCoordinatorHarness() {
    }

    public static void main(String[] args) throws Exception {
        List<List<Integer>> brokersOption = new ArrayList<>(List.of(List.of(3)));
        GraphWorkload.Settings o = GraphWorkload.Settings.parse(args, 100, 10,
                java.util.Map.of("--brokers", v -> brokersOption.set(0, GraphWorkload.positives("--brokers", v))),
                "--brokers N[,N...]");
        List<Integer> brokers = brokersOption.get(0);
        System.out.println(o.header("brokers=" + brokers));
        Path root = Files.createTempDirectory("palisade-kafka-coordinator-");
        Catalog catalog = Catalog.fromJson(GraphWorkload.CATALOG);
        List<KafkaTestCluster> clusters = new ArrayList<>();
        List<GraphWorkload.Named> graphs = new ArrayList<>();
        try (BufferAllocator allocator = new RootAllocator()) {
            graphs.add(new GraphWorkload.Named("coordinator, journal on Chronicle",
                    Palisade.create(root.resolve("chronicle"), catalog, Options.defaults())));
            for (int n : brokers) {
                long t0 = System.nanoTime();
                KafkaTestCluster c = KafkaTestCluster.start(n);
                clusters.add(c);
                KafkaJournalConfig journal = c.newJournal("bench-" + n);
                graphs.add(new GraphWorkload.Named(n == 1 ? "coordinator, journal on Kafka (1 node, replication 1)"
                        : String.format(Locale.ROOT, "coordinator, journal on Kafka (%d brokers + 1 controller, "
                        + "replication %d, min.insync %d)", n, journal.replicationFactor(), journal.minInsyncReplicas()),
                        Palisade.create(root.resolve("kafka-" + n), catalog, Options.defaults(), journal)));
                System.out.printf(Locale.ROOT, "cluster of %d broker(s) up and graph created in %.1f s%n", n,
                        (System.nanoTime() - t0) / 1e9);
            }
            for (GraphWorkload.Named g : graphs) {
                long t0 = System.nanoTime();
                GraphWorkload.loadAndIndex(g.graph(), allocator, o.rows);
                System.out.printf(Locale.ROOT, "load + index refresh of %s: %.1f s%n", g.name(), (System.nanoTime() - t0) / 1e9);
            }
            GraphWorkload.compare(System.out, graphs, allocator, o.rows, o.warmup, o.iterations, o.writers, o.seconds, o.rounds,
                    o.seed);
        } finally {
            for (GraphWorkload.Named g : graphs) {
                g.graph().close();
            }
            for (KafkaTestCluster c : clusters) {
                c.close();
            }
            JournalBench.delete(root);
        }
    }
}
