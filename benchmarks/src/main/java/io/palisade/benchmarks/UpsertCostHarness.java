package io.palisade.benchmarks;

import io.palisade.substrate.CommitResult;
import io.palisade.substrate.KeyedTable;
import io.palisade.substrate.MergePath;
import io.palisade.substrate.TableKind;
import io.palisade.substrate.TableRef;
import io.palisade.substrate.TableStore;
import io.palisade.substrate.lance.LanceTableStore;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.stream.Stream;

/**
 * RFC-023 §11.4 cost gate: latency of a single-row upsert into an N-row keyed Lance table, on the
 * v2 (fenced) merge path versus the indexed (BTREE on {@code id}, unfenced) path, in the same run.
 * Each measured write is one {@link KeyedTable#upsert} of one existing key (an update) from a handle
 * opened at the newest version; the indexed path's index refresh ({@link KeyedTable#optimizeIdIndex})
 * is timed separately after each write.
 *
 * <pre>
 * UpsertCostHarness [--sizes 10000,100000,1000000] [--iterations 30] [--warmup 5] [--dir PATH] [--seed 42]
 * </pre>
 * Prints a Markdown table (median and p90 in milliseconds). Tables are written under {@code --dir}
 * (default: a temporary directory, deleted afterwards).
 */
public final class UpsertCostHarness {

    private static final Schema SCHEMA = new Schema(List.of(
            Field.notNullable("id", ArrowType.Utf8.INSTANCE),
            Field.nullable("v", new ArrowType.Int(64, true))));

    private final int iterations;
    private final int warmup;
    private final SplittableRandom random;
    private final PrintStream out;

    UpsertCostHarness(int iterations, int warmup, long seed, PrintStream out) {
        this.iterations = iterations;
        this.warmup = warmup;
        this.random = new SplittableRandom(seed);
        this.out = out;
    }

    public static void main(String[] args) throws IOException {
        List<Integer> sizes = List.of(10_000, 100_000);
        int iterations = 30;
        int warmup = 5;
        long seed = 42;
        Path dir = null;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--sizes" -> sizes = Arrays.stream(args[++i].split(",")).map(String::trim).map(Integer::parseInt).toList();
                case "--iterations" -> iterations = Integer.parseInt(args[++i]);
                case "--warmup" -> warmup = Integer.parseInt(args[++i]);
                case "--seed" -> seed = Long.parseLong(args[++i]);
                case "--dir" -> dir = Path.of(args[++i]);
                default -> throw new IllegalArgumentException("unknown argument " + args[i]
                        + "; usage: UpsertCostHarness [--sizes 10000,100000] [--iterations 30] [--warmup 5] [--dir PATH] [--seed 42]");
            }
        }
        boolean temp = dir == null;
        Path root = temp ? Files.createTempDirectory("palisade-upsert-cost") : Files.createDirectories(dir);
        UpsertCostHarness h = new UpsertCostHarness(iterations, warmup, seed, System.out);
        try {
            h.run(root, sizes);
        } finally {
            if (temp) {
                deleteRecursively(root);
            }
        }
    }

    record Stats(double median, double p90) {
        static Stats of(List<Double> ms) {
            List<Double> s = new ArrayList<>(ms);
            s.sort(Comparator.naturalOrder());
            return new Stats(quantile(s, 0.5), quantile(s, 0.9));
        }

        private static double quantile(List<Double> sorted, double q) {
            double pos = q * (sorted.size() - 1);
            int lo = (int) Math.floor(pos);
            int hi = (int) Math.ceil(pos);
            return sorted.get(lo) + (sorted.get(hi) - sorted.get(lo)) * (pos - lo);
        }
    }

    void run(Path root, List<Integer> sizes) {
        out.printf(Locale.ROOT, "iterations=%d warmup=%d java=%s cores=%d%n", iterations, warmup,
                System.getProperty("java.version"), Runtime.getRuntime().availableProcessors());
        out.println();
        out.println("| rows | v2 upsert median ms | v2 p90 ms | indexed upsert median ms | indexed p90 ms | v2 / indexed (median) | index optimize median ms | index optimize p90 ms | load s (v2 / indexed) |");
        out.println("|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
        try (BufferAllocator allocator = new RootAllocator(); TableStore store = new LanceTableStore(root.toString())) {
            for (int n : sizes) {
                long t0 = System.nanoTime();
                TableRef v2 = load(store, allocator, "v2_" + n, n, false);
                double loadV2 = (System.nanoTime() - t0) / 1e9;
                t0 = System.nanoTime();
                TableRef ix = load(store, allocator, "ix_" + n, n, true);
                double loadIx = (System.nanoTime() - t0) / 1e9;
                List<Double> v2Ms = new ArrayList<>();
                List<Double> ixMs = new ArrayList<>();
                List<Double> optMs = new ArrayList<>();
                for (int i = 0; i < warmup + iterations; i++) {
                    boolean measured = i >= warmup;
                    long key = random.nextLong(n);
                    double a = upsertOnce(store, allocator, "v2_" + n, key, i, MergePath.V2_FENCED);
                    double b = upsertOnce(store, allocator, "ix_" + n, key, i, MergePath.INDEXED_UNFENCED);
                    double c = optimizeOnce(store, "ix_" + n);
                    if (measured) {
                        v2Ms.add(a);
                        ixMs.add(b);
                        optMs.add(c);
                    }
                }
                Stats s2 = Stats.of(v2Ms);
                Stats si = Stats.of(ixMs);
                Stats so = Stats.of(optMs);
                out.printf(Locale.ROOT, "| %,d | %.1f | %.1f | %.1f | %.1f | %.1fx | %.1f | %.1f | %.1f / %.1f |%n",
                        n, s2.median(), s2.p90(), si.median(), si.p90(), s2.median() / si.median(),
                        so.median(), so.p90(), loadV2, loadIx);
                out.flush();
                if (v2 == null || ix == null) {
                    throw new IllegalStateException("tables not loaded");
                }
            }
        }
    }

    private static TableRef load(TableStore store, BufferAllocator allocator, String table, int n, boolean indexed) {
        TableRef ref;
        try (KeyedTable t = store.createKeyed(table, TableKind.NODE, SCHEMA);
             VectorSchemaRoot rows = rows(allocator, 0, n, 0)) {
            ref = t.insert(rows, MergePath.V2_FENCED).ref();
        }
        if (indexed) {
            try (KeyedTable t = store.openKeyed(table, ref)) {
                ref = t.createIdIndex().ref();
            }
        }
        return ref;
    }

    private static double upsertOnce(TableStore store, BufferAllocator allocator, String table, long key, long value,
                                     MergePath path) {
        try (KeyedTable t = store.openKeyed(table, store.latest(table, TableRef.MAIN));
             VectorSchemaRoot row = rows(allocator, key, 1, value)) {
            long t0 = System.nanoTime();
            CommitResult r = t.upsert(row, path);
            double ms = (System.nanoTime() - t0) / 1e6;
            if (r.updated() != 1) {
                throw new IllegalStateException("expected one updated row, got " + r);
            }
            return ms;
        }
    }

    private static double optimizeOnce(TableStore store, String table) {
        try (KeyedTable t = store.openKeyed(table, store.latest(table, TableRef.MAIN))) {
            long t0 = System.nanoTime();
            t.optimizeIdIndex();
            return (System.nanoTime() - t0) / 1e6;
        }
    }

    /** Rows with ids {@code k<from>..k<from+count-1>} (zero-padded) and value {@code value}. */
    static VectorSchemaRoot rows(BufferAllocator allocator, long from, int count, long value) {
        VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, allocator);
        VarCharVector id = (VarCharVector) root.getVector("id");
        BigIntVector v = (BigIntVector) root.getVector("v");
        id.allocateNew((long) count * 9, count);
        v.allocateNew(count);
        for (int i = 0; i < count; i++) {
            id.setSafe(i, String.format(Locale.ROOT, "k%08d", from + i).getBytes(StandardCharsets.UTF_8));
            v.set(i, value);
        }
        root.setRowCount(count);
        return root;
    }

    private static void deleteRecursively(Path root) throws IOException {
        try (Stream<Path> walk = Files.walk(root)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
