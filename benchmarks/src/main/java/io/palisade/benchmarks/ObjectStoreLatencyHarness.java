package io.palisade.benchmarks;

import io.palisade.coordinator.Catalog;
import io.palisade.coordinator.Graph;
import io.palisade.coordinator.Options;
import io.palisade.coordinator.Palisade;
import io.palisade.substrate.s3.S3ProxyFixture;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * The coordinator ({@code Options.defaults()}: POWER_LOSS journal, BTREE on {@code id}, group commit) with
 * its tables on local disk vs on an S3-compatible store (S3ProxyFixture: S3Proxy in this JVM, loopback, in-memory
 * blobs, SigV4 with explicit keys), in one run. The journal is Chronicle on local disk in both; both graphs hold
 * {@code --rows} rows and have the same index and durability, so the store is the only difference.
 * {@link GraphWorkload#compare} runs single-row upsert latency (interleaved per iteration) and {@code --writers}-thread
 * throughput ({@code --rounds} alternating rounds of {@code --seconds} per graph).
 *
 * <pre>
 * AWS_EC2_METADATA_DISABLED=true java $(cat cli/target/launcher/jvm.options) \
 *   -cp "benchmarks/target/classes:benchmarks/target/lib/*" io.palisade.benchmarks.ObjectStoreLatencyHarness \
 *   [--rows 10000] [--iterations 200] [--warmup 20] [--writers 16] [--seconds 15] [--rounds 2] [--dir PATH] [--seed 42]
 * </pre>
 */
public final class ObjectStoreLatencyHarness {
    private ObjectStoreLatencyHarness() {
    }

    public static void main(String[] args) throws Exception {
        Path[] dirOption = new Path[1];
        GraphWorkload.Settings o = GraphWorkload.Settings.parse(args, 200, 20,
                java.util.Map.of("--dir", v -> dirOption[0] = Path.of(v)), "--dir PATH");
        Path dir = dirOption[0];
        if (!"true".equals(System.getenv("AWS_EC2_METADATA_DISABLED"))) {
            System.err.println("warning: AWS_EC2_METADATA_DISABLED is not true; set it so no credential lookup leaves loopback");
        }
        Path root = dir != null ? dir : Files.createTempDirectory("palisade-s3-latency-");
        Catalog catalog = Catalog.fromJson(GraphWorkload.CATALOG);
        System.out.println(o.header(""));
        try (BufferAllocator allocator = new RootAllocator();
             S3ProxyFixture s3 = S3ProxyFixture.inMemory();
             Graph local = Palisade.create(root.resolve("local"), catalog, Options.defaults());
             Graph remote = Palisade.create(root.resolve("s3"), catalog, Options.defaults(), s3.freshUri(),
                     s3.storageOptions())) {
            long t0 = System.nanoTime();
            GraphWorkload.loadAndIndex(local, allocator, o.rows);
            double loadLocal = (System.nanoTime() - t0) / 1e9;
            t0 = System.nanoTime();
            GraphWorkload.loadAndIndex(remote, allocator, o.rows);
            double loadRemote = (System.nanoTime() - t0) / 1e9;
            System.out.printf(Locale.ROOT, "load + index refresh seconds: local disk %.1f, S3Proxy %.1f%n", loadLocal, loadRemote);
            GraphWorkload.compare(System.out, List.of(new GraphWorkload.Named("coordinator, tables on local disk", local),
                            new GraphWorkload.Named("coordinator, tables on S3Proxy", remote)), allocator, o.rows, o.warmup,
                    o.iterations, o.writers, o.seconds, o.rounds, o.seed);
        } finally {
            if (dir == null) {
                JournalBench.delete(root);
            }
        }
    }
}
