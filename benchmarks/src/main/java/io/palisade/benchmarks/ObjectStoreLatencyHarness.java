package io.palisade.benchmarks;

import io.palisade.coordinator.Catalog;
import io.palisade.coordinator.Graph;
import io.palisade.coordinator.Options;
import io.palisade.coordinator.Palisade;
import io.palisade.coordinator.Row;
import io.palisade.substrate.s3.S3ProxyFixture;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Issue 19: single-row upsert latency of the coordinator ({@code Options.defaults()}) with the tables on local disk
 * vs on an S3-compatible store (S3Proxy in this JVM, loopback, in-memory blobs), in one run, interleaved per iteration
 * so both share the machine's noise. Each graph holds {@code --rows} rows; each iteration upserts one random existing
 * key into each graph, timed around {@code Graph.upsert} (receipt durable). The journal is on local disk in both.
 *
 * <pre>
 * AWS_EC2_METADATA_DISABLED=true java $(cat cli/target/launcher/jvm.options) \
 *   -cp "benchmarks/target/classes:benchmarks/target/lib/*" io.palisade.benchmarks.ObjectStoreLatencyHarness \
 *   --rows 10000 --iterations 200 --warmup 20
 * </pre>
 */
public final class ObjectStoreLatencyHarness {
    private static final String CATALOG = """
            {"tables": [{"name": "item", "kind": "node", "columns": [{"name": "id", "type": "string"},
              {"name": "v", "type": "int64", "nullable": true}]}]}""";

    private ObjectStoreLatencyHarness() {
    }

    public static void main(String[] args) throws Exception {
        int rows = 10_000;
        int iterations = 200;
        int warmup = 20;
        Path dir = null;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--rows" -> rows = Integer.parseInt(args[++i]);
                case "--iterations" -> iterations = Integer.parseInt(args[++i]);
                case "--warmup" -> warmup = Integer.parseInt(args[++i]);
                case "--dir" -> dir = Path.of(args[++i]);
                default -> throw new IllegalArgumentException("unknown option " + args[i]
                        + " (options: --rows N --iterations N --warmup N --dir PATH)");
            }
        }
        Path root = dir != null ? dir : Files.createTempDirectory("palisade-s3-latency-");
        Catalog catalog = Catalog.fromJson(CATALOG);
        Random random = new Random(42);
        try (S3ProxyFixture s3 = S3ProxyFixture.inMemory();
             Graph local = Palisade.create(root.resolve("local"), catalog, Options.defaults());
             Graph remote = Palisade.create(root.resolve("s3"), catalog, Options.defaults(), s3.freshUri(),
                     s3.storageOptions())) {
            for (Graph g : List.of(local, remote)) {
                for (int from = 0; from < rows; from += 5_000) {
                    List<Row> batch = new ArrayList<>();
                    for (int k = from; k < Math.min(rows, from + 5_000); k++) {
                        batch.add(Row.of("id", "k" + k, "v", (long) k));
                    }
                    g.upsert("main", "item", batch);
                }
                g.optimizeIndex("main", "item");
            }
            List<Double> l = new ArrayList<>();
            List<Double> r = new ArrayList<>();
            for (int i = 0; i < warmup + iterations; i++) {
                String key = "k" + random.nextInt(rows);
                double a = time(local, key, i);
                double b = time(remote, key, i);
                if (i >= warmup) {
                    l.add(a);
                    r.add(b);
                }
            }
            System.out.printf("rows=%d iterations=%d warmup=%d%n", rows, iterations, warmup);
            System.out.println("path                         p50 ms   p90 ms   p99 ms   mean ms");
            print("coordinator, local disk", l);
            print("coordinator, S3Proxy", r);
        }
    }

    private static double time(Graph g, String key, int i) {
        long t0 = System.nanoTime();
        g.upsert("main", "item", List.of(Row.of("id", key, "v", (long) i)));
        return (System.nanoTime() - t0) / 1e6;
    }

    private static void print(String name, List<Double> ms) {
        CoordinatorLatencyHarness.Stats st = CoordinatorLatencyHarness.Stats.of(ms);
        System.out.printf("%-26s %8.2f %8.2f %8.2f %9.2f%n", name, st.median(), st.p90(), st.p99(), st.mean());
    }
}
