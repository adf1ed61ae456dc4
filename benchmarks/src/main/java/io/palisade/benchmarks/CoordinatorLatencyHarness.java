package io.palisade.benchmarks;

import io.palisade.coordinator.Catalog;
import io.palisade.coordinator.Graph;
import io.palisade.coordinator.Metrics;
import io.palisade.coordinator.Options;
import io.palisade.coordinator.Palisade;
import io.palisade.fencing.PalisadeException;
import io.palisade.fencing.WriteConflictException;
import io.palisade.substrate.CommitResult;
import io.palisade.substrate.KeyedTable;
import io.palisade.substrate.MergePath;
import io.palisade.substrate.TableKind;
import io.palisade.substrate.TableRef;
import io.palisade.substrate.TableStore;
import io.palisade.substrate.lance.LanceTableStore;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.LongAdder;
import java.util.stream.Stream;

/**
 * The coordinator's whole-process harness: the coordinator (Options.defaults(): POWER_LOSS journal, BTREE on
 * {@code id}, group commit) against raw Lance through the substrate, in the same JVM and run.
 * <ol>
 *   <li>Latency of single-row upserts of random existing keys into an N-row keyed table: coordinator
 *       vs raw v2 path (no index, {@link MergePath#V2_FENCED}) vs raw indexed path
 *       ({@link MergePath#INDEXED_UNFENCED}) vs the raw indexed path with Palisade's file sync (the same
 *       fsyncs the coordinator makes before it acknowledges, docs/lance-surface.md "Durability": the
 *       peer at the same durability, and the difference to the unsynced raw path is the sync's cost),
 *       interleaved per iteration so they share the noise. A raw
 *       write is timed from opening the table at its newest version to the commit (what a raw writer
 *       must do); a coordinator write is timed around {@code Graph.upsert} (receipt durable).</li>
 *   <li>Throughput of T writer threads doing single-row upserts of random keys for a fixed duration:
 *       coordinator (group commit) vs T threads calling raw Lance merge-insert on the indexed table,
 *       each opening the newest version and retrying on {@link WriteConflictException}.</li>
 * </ol>
 * The coordinator creates its BTREE on the empty table, so after loading the harness extends it over
 * the loaded rows with {@code Graph.optimizeIndex} (a journaled maintenance operation). The latency
 * of a few upserts before that refresh is printed too.
 *
 * <pre>
 * CoordinatorLatencyHarness [--rows 1000000] [--iterations 200] [--warmup 10] [--threads 16]
 *                           [--seconds 20] [--stale-iterations 10] [--dir PATH] [--seed 42]
 * </pre>
 */
public final class CoordinatorLatencyHarness {

    private static final Schema SCHEMA = new Schema(List.of(
            Field.notNullable("id", ArrowType.Utf8.INSTANCE),
            Field.nullable("v", new ArrowType.Int(64, true))));
    private static final String CATALOG = GraphWorkload.CATALOG;
    private static final int LOAD_BATCH = GraphWorkload.LOAD_BATCH;

    private final PrintStream out = System.out;
    private int rows = 1_000_000;
    private int iterations = 200;
    private int warmup = 10;
    private int threads = 16;
    private int seconds = 20;
    private int staleIterations = 10;
    private long seed = 42;

    public static void main(String[] args) throws Exception {
        CoordinatorLatencyHarness h = new CoordinatorLatencyHarness();
        Path dir = null;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--rows" -> h.rows = Integer.parseInt(args[++i]);
                case "--iterations" -> h.iterations = Integer.parseInt(args[++i]);
                case "--warmup" -> h.warmup = Integer.parseInt(args[++i]);
                case "--threads" -> h.threads = Integer.parseInt(args[++i]);
                case "--seconds" -> h.seconds = Integer.parseInt(args[++i]);
                case "--stale-iterations" -> h.staleIterations = Integer.parseInt(args[++i]);
                case "--seed" -> h.seed = Long.parseLong(args[++i]);
                case "--dir" -> dir = Path.of(args[++i]);
                default -> throw new IllegalArgumentException("unknown argument " + args[i] + "; usage: CoordinatorLatencyHarness "
                        + "[--rows 1000000] [--iterations 200] [--warmup 10] [--threads 16] [--seconds 20] "
                        + "[--stale-iterations 10] [--dir PATH] [--seed 42]");
            }
        }
        boolean temp = dir == null;
        Path root = temp ? Files.createTempDirectory("palisade-coordinator-bench") : Files.createDirectories(dir);
        try {
            h.run(root);
        } finally {
            if (temp) {
                deleteRecursively(root);
            }
        }
    }

    record Stats(double median, double p90, double p99, double mean) {
        static Stats of(List<Double> ms) {
            List<Double> s = new ArrayList<>(ms);
            s.sort(Comparator.naturalOrder());
            return new Stats(q(s, 0.5), q(s, 0.9), q(s, 0.99), s.stream().mapToDouble(Double::doubleValue).average().orElse(0));
        }

        private static double q(List<Double> sorted, double q) {
            double pos = q * (sorted.size() - 1);
            int lo = (int) Math.floor(pos);
            int hi = (int) Math.ceil(pos);
            return sorted.get(lo) + (sorted.get(hi) - sorted.get(lo)) * (pos - lo);
        }
    }

    void run(Path root) throws Exception {
        out.printf(Locale.ROOT, "rows=%,d iterations=%d warmup=%d threads=%d seconds=%d java=%s cores=%d%n", rows, iterations,
                warmup, threads, seconds, System.getProperty("java.version"), Runtime.getRuntime().availableProcessors());
        Path graphDir = root.resolve("graph");
        // raw Lance as raw users run it: nothing synced (Lance 7.0.0 never fsyncs); `synced` is the same tables
        // through a store that fsyncs each commit's files, as the coordinator's does
        try (BufferAllocator allocator = new RootAllocator();
             TableStore store = new LanceTableStore(root.resolve("raw").toString(), java.util.Map.of(), false);
             TableStore synced = new LanceTableStore(root.resolve("raw").toString(), java.util.Map.of(), true)) {
            long t0 = System.nanoTime();
            loadRaw(store, allocator, "v2", false);
            double loadV2 = secs(t0);
            t0 = System.nanoTime();
            loadRaw(store, allocator, "ix", true);
            double loadIx = secs(t0);
            t0 = System.nanoTime();
            List<Double> stale = loadCoordinator(graphDir, allocator);
            double loadCoord = secs(t0);
            out.printf(Locale.ROOT, "load seconds: raw v2 %.1f, raw indexed %.1f (incl. index build), coordinator %.1f "
                    + "(Graph.upsert in batches of %,d + index refresh + reopen)%n", loadV2, loadIx, loadCoord, LOAD_BATCH);
            if (!stale.isEmpty()) {
                Stats s = Stats.of(stale);
                out.printf(Locale.ROOT, "coordinator upsert before the index refresh (BTREE covers 0 of %,d rows): median %.1f ms, "
                        + "p90 %.1f ms over %d%n", rows, s.median(), s.p90(), stale.size());
            }

            try (Graph g = Palisade.open(graphDir, Options.defaults())) {
                latency(g, store, synced, allocator);
                throughput(g, store, allocator);
            }
        }
    }

    private static double secs(long t0) {
        return (System.nanoTime() - t0) / 1e9;
    }

    private void loadRaw(TableStore store, BufferAllocator allocator, String table, boolean indexed) {
        TableRef ref;
        try (KeyedTable t = store.createKeyed(table, TableKind.NODE, SCHEMA)) {
            ref = t.ref();
        }
        for (int from = 0; from < rows; from += LOAD_BATCH) {
            int n = Math.min(LOAD_BATCH, rows - from);
            try (KeyedTable t = store.openKeyed(table, ref); VectorSchemaRoot batch = UpsertCostHarness.rows(allocator, from, n, 0)) {
                ref = t.insert(batch, MergePath.V2_FENCED).ref();
            }
        }
        if (indexed) {
            try (KeyedTable t = store.openKeyed(table, ref)) {
                t.createIdIndex();
            }
        }
    }

    /** Loads the graph, times a few upserts while the index covers nothing, refreshes the index, adopts it. */
    private List<Double> loadCoordinator(Path graphDir, BufferAllocator allocator) {
        List<Double> stale = new ArrayList<>();
        SplittableRandom random = new SplittableRandom(seed + 1);
        try (Graph g = Palisade.create(graphDir, Catalog.fromJson(CATALOG), Options.defaults())) {
            GraphWorkload.load(g, allocator, rows);
            for (int i = 0; i < staleIterations; i++) {
                stale.add(coordinatorUpsert(g, allocator, random.nextLong(rows), -1));
            }
            g.optimizeIndex("main", "item"); // journaled, planned and judged maintenance (docs/coordinator.md)
        }
        return stale;
    }

    private static double coordinatorUpsert(Graph g, BufferAllocator allocator, long key, long value) {
        return GraphWorkload.upsert(g, allocator, key, value);
    }

    private static double rawUpsert(TableStore store, BufferAllocator allocator, String table, long key, long value, MergePath path) {
        try (VectorSchemaRoot row = UpsertCostHarness.rows(allocator, key, 1, value)) {
            long t0 = System.nanoTime();
            CommitResult r;
            try (KeyedTable t = store.openKeyed(table, store.latest(table, TableRef.MAIN))) {
                r = t.upsert(row, path);
            }
            double ms = (System.nanoTime() - t0) / 1e6;
            if (r.updated() != 1) {
                throw new IllegalStateException("expected one updated row, got " + r);
            }
            return ms;
        }
    }

    private void latency(Graph g, TableStore store, TableStore synced, BufferAllocator allocator) {
        SplittableRandom random = new SplittableRandom(seed);
        List<Double> coord = new ArrayList<>();
        List<Double> v2 = new ArrayList<>();
        List<Double> ix = new ArrayList<>();
        List<Double> ixSynced = new ArrayList<>();
        Metrics.Snapshot m0 = null;
        for (int i = 0; i < warmup + iterations; i++) {
            if (i == warmup) {
                m0 = g.metrics().snapshot();
            }
            long key = random.nextLong(rows);
            double c = coordinatorUpsert(g, allocator, key, i);
            double a = rawUpsert(store, allocator, "v2", key, i, MergePath.V2_FENCED);
            double b = rawUpsert(store, allocator, "ix", key, i, MergePath.INDEXED_UNFENCED);
            double d = rawUpsert(synced, allocator, "ix", key, i, MergePath.INDEXED_UNFENCED);
            if (i >= warmup) {
                coord.add(c);
                v2.add(a);
                ix.add(b);
                ixSynced.add(d);
            }
        }
        Stats sc = Stats.of(coord);
        Stats s2 = Stats.of(v2);
        Stats si = Stats.of(ix);
        Stats sd = Stats.of(ixSynced);
        out.println();
        out.printf(Locale.ROOT, "single-row upsert latency, %,d rows, %d upserts of random existing keys (ms)%n", rows, iterations);
        out.println("| path | median | p90 | p99 | mean |");
        out.println("|---|---:|---:|---:|---:|");
        row("coordinator (Options.defaults())", sc);
        row("raw Lance indexed (INDEXED_UNFENCED), nothing synced", si);
        row("raw Lance indexed + Palisade's file sync (same durability as the coordinator)", sd);
        row("raw Lance v2 (V2_FENCED, no index)", s2);
        out.printf(Locale.ROOT, "coordinator / raw indexed (median): %.2fx (target <= 1.25x); raw v2 / coordinator (median): %.1fx "
                + "(target >= 5x)%n", sc.median() / si.median(), s2.median() / sc.median());
        out.printf(Locale.ROOT, "file sync cost per commit (median, synced - unsynced raw indexed): %.1f ms (%.2fx); "
                + "coordinator / raw indexed synced (median, same durability): %.2fx%n", sd.median() - si.median(),
                sd.median() / si.median(), sc.median() / sd.median());
        phases("latency phase", m0, g.metrics().snapshot());
    }

    private void row(String name, Stats s) {
        out.printf(Locale.ROOT, "| %s | %.1f | %.1f | %.1f | %.1f |%n", name, s.median(), s.p90(), s.p99(), s.mean());
    }

    private void phases(String what, Metrics.Snapshot a, Metrics.Snapshot b) {
        long groups = b.substrateCommits() - a.substrateCommits();
        long commits = b.commits() - a.commits();
        double pa = (b.meanPhaseAMicros() * b.substrateCommits() - a.meanPhaseAMicros() * a.substrateCommits()) / Math.max(1, groups);
        double pb = (b.meanPhaseBMicros() * b.substrateCommits() - a.meanPhaseBMicros() * a.substrateCommits()) / Math.max(1, groups);
        double pc = (b.meanPhaseCDMicros() * b.substrateCommits() - a.meanPhaseCDMicros() * a.substrateCommits()) / Math.max(1, groups);
        out.printf(Locale.ROOT, "coordinator %s profile: %,d writes in %,d substrate commits (mean group %.1f, largest %d); mean per commit: "
                        + "phase A (intent journal sync) %.1f ms, phase B (Lance merge-insert) %.1f ms, phase C-D (publish + complete sync) %.1f ms; "
                        + "write conflicts %d, retries %d%n", what, commits, groups, (double) commits / Math.max(1, groups),
                b.largestGroup(), pa / 1e3, pb / 1e3, pc / 1e3, b.writeConflicts() - a.writeConflicts(), b.retries() - a.retries());
    }

    private void throughput(Graph g, TableStore store, BufferAllocator allocator) throws Exception {
        long durationNanos = seconds * 1_000_000_000L;
        // coordinator: every thread upserts random keys through the graph
        Metrics.Snapshot m0 = g.metrics().snapshot();
        GraphWorkload.Throughput coord = GraphWorkload.throughput(g, allocator, rows, threads, durationNanos);
        Metrics.Snapshot m1 = g.metrics().snapshot();

        // raw: every thread opens the newest version and merge-inserts, retrying on conflicts
        LongAdder rawOps = new LongAdder();
        LongAdder rawRetries = new LongAdder();
        LongAdder rawOther = new LongAdder();
        double rawSecs = runThreads(() -> {
            long end = System.nanoTime() + durationNanos;
            while (System.nanoTime() < end) {
                try (VectorSchemaRoot row = UpsertCostHarness.rows(allocator, ThreadLocalRandom.current().nextLong(rows), 1, 7)) {
                    while (System.nanoTime() < end) {
                        try (KeyedTable t = store.openKeyed("ix", store.latest("ix", TableRef.MAIN))) {
                            t.upsert(row, MergePath.INDEXED_UNFENCED);
                            rawOps.increment();
                            break;
                        } catch (WriteConflictException e) {
                            rawRetries.increment();
                        } catch (PalisadeException e) {
                            rawOther.increment();
                        }
                    }
                }
            }
        });
        long rawRows;
        try (KeyedTable t = store.openKeyed("ix", store.latest("ix", TableRef.MAIN))) {
            rawRows = t.countRows();
        }
        double coordTput = coord.perSecond();
        double rawTput = rawOps.sum() / rawSecs;
        out.println();
        out.printf(Locale.ROOT, "throughput, %d writer threads, single-row upserts of random keys, %d s each, %,d rows%n", threads,
                seconds, rows);
        out.println("| writer | upserts | upserts/s | retries on conflict | other failures |");
        out.println("|---|---:|---:|---:|---:|");
        out.printf(Locale.ROOT, "| coordinator (group commit) | %,d | %.1f | %d | %d |%n", coord.upserts(), coordTput,
                m1.retries() - m0.retries(), coord.failures());
        out.printf(Locale.ROOT, "| raw Lance indexed merge-insert + retry | %,d | %.1f | %,d | %d |%n", rawOps.sum(), rawTput,
                rawRetries.sum(), rawOther.sum());
        out.printf(Locale.ROOT, "coordinator / raw throughput: %.1fx (target >= 20x); raw table rows after its run: %,d (%,d duplicate ids)%n",
                coordTput / Math.max(rawTput, 1e-9), rawTput == 0 ? 0 : rawRows, rawRows - rows);
        phases("throughput phase", m0, m1);
    }

    private double runThreads(Runnable body) throws Exception {
        return GraphWorkload.runThreads(threads, body);
    }

    private static void deleteRecursively(Path root) throws IOException {
        try (Stream<Path> walk = Files.walk(root)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
