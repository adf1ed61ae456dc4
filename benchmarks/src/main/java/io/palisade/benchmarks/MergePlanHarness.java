package io.palisade.benchmarks;

import io.palisade.substrate.KeyedTable;
import io.palisade.substrate.MergeCost;
import io.palisade.substrate.MergePath;
import io.palisade.substrate.TableKind;
import io.palisade.substrate.TableRef;
import io.palisade.substrate.TableStore;
import io.palisade.substrate.lance.LanceTableStore;
import org.apache.arrow.c.ArrowArrayStream;
import org.apache.arrow.c.Data;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;
import org.apache.arrow.vector.types.pojo.Schema;
import org.lance.Dataset;
import org.lance.merge.MergeInsertParams;
import org.lance.merge.MergeInsertResult;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.TreeSet;

/**
 * The crossover of Lance 7.0.0's two merge-insert plans on a keyed table with a BTREE on {@code id}
 * ({@link MergeCost}): a merge-insert UpdateAll of {@code N} distinct random existing keys, on the indexed plan (the
 * table's own) and on the scan plan (the same merge with a by-source {@code DeleteIf "false"}), alternating, in the
 * same run, at each table size. Each merge's updated-row count and the table's row total are checked.
 *
 * <pre>
 * MergePlanHarness [--sizes 100000,1000000] [--batches 256,1000,2000,5000,20000] [--iterations 3] [--dir PATH]
 * </pre>
 * Prints a Markdown table (median milliseconds) and the plan {@link MergeCost#scanCheaper} picks.
 */
public final class MergePlanHarness {

    public static void main(String[] args) throws IOException {
        List<Integer> sizes = List.of(100_000, 1_000_000);
        List<Integer> batches = List.of(256, 1_000, 2_000, 5_000, 20_000);
        int iterations = 3;
        Path dir = null;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--sizes" -> sizes = ints(args[++i]);
                case "--batches" -> batches = ints(args[++i]);
                case "--iterations" -> iterations = Integer.parseInt(args[++i]);
                case "--dir" -> dir = Path.of(args[++i]);
                default -> throw new IllegalArgumentException("unknown argument " + args[i] + "; usage: MergePlanHarness "
                        + "[--sizes 100000,1000000] [--batches 256,1000,2000,5000,20000] [--iterations 3] [--dir PATH]");
            }
        }
        boolean temp = dir == null;
        Path root = temp ? Files.createTempDirectory("palisade-merge-plan") : Files.createDirectories(dir);
        try {
            run(root, sizes, batches, iterations);
        } finally {
            if (temp) {
                JournalBench.delete(root);
            }
        }
    }

    private static List<Integer> ints(String csv) {
        return Arrays.stream(csv.split(",")).map(String::trim).map(Integer::parseInt).toList();
    }

    static void run(Path root, List<Integer> sizes, List<Integer> batches, int iterations) {
        System.out.printf(Locale.ROOT, "iterations=%d java=%s cores=%d%n%n", iterations,
                System.getProperty("java.version"), Runtime.getRuntime().availableProcessors());
        System.out.println("| table rows | N rows | indexed plan median ms | scan plan median ms | scan / indexed | MergeCost picks |");
        System.out.println("|---:|---:|---:|---:|---:|---|");
        SplittableRandom random = new SplittableRandom(42);
        try (BufferAllocator allocator = new RootAllocator(); TableStore store = new LanceTableStore(root.toString())) {
            for (int size : sizes) {
                String table = "t" + size;
                TableRef ref;
                try (KeyedTable t = store.createKeyed(table, TableKind.NODE, schema());
                     VectorSchemaRoot rows = UpsertCostHarness.rows(allocator, 0, size, 0)) {
                    ref = t.insert(rows, MergePath.V2_FENCED).ref();
                }
                try (KeyedTable t = store.openKeyed(table, ref)) {
                    t.createIdIndex();
                }
                String uri = root.resolve(table + ".lance").toString();
                for (int n : batches) {
                    List<Double> indexed = new ArrayList<>();
                    List<Double> scan = new ArrayList<>();
                    for (int i = 0; i < iterations; i++) {
                        indexed.add(mergeOnce(allocator, uri, size, keys(random, size, n), i, false));
                        scan.add(mergeOnce(allocator, uri, size, keys(random, size, n), i, true));
                    }
                    double a = median(indexed);
                    double b = median(scan);
                    System.out.printf(Locale.ROOT, "| %,d | %,d | %.0f | %.0f | %.2f | %s |%n", size, n, a, b, b / a,
                            MergeCost.scanCheaper(n, size) ? "scan" : "indexed");
                    System.out.flush();
                }
            }
        }
    }

    private static Schema schema() {
        try (BufferAllocator a = new RootAllocator(); VectorSchemaRoot r = UpsertCostHarness.rows(a, 0, 0, 0)) {
            return r.getSchema();
        }
    }

    private static long[] keys(SplittableRandom random, int size, int n) {
        TreeSet<Long> out = new TreeSet<>();
        while (out.size() < n) {
            out.add(random.nextLong(size));
        }
        return out.stream().mapToLong(Long::longValue).toArray();
    }

    /** One merge-insert UpdateAll of {@code keys} at the newest version; returns its milliseconds. */
    private static double mergeOnce(BufferAllocator allocator, String uri, int size, long[] keys, long value,
                                    boolean scanPlan) {
        try (Dataset d = Dataset.open().allocator(allocator).uri(uri).build();
             ArrowArrayStream s = stream(allocator, keys, value)) {
            MergeInsertParams p = new MergeInsertParams(List.of("id")).withConflictRetries(0).withMatchedUpdateAll();
            if (scanPlan) {
                p = p.withNotMatchedBySourceDeleteIf("false");
            }
            long t0 = System.nanoTime();
            MergeInsertResult r = d.mergeInsert(p, s);
            double ms = (System.nanoTime() - t0) / 1e6;
            try (Dataset after = r.dataset()) {
                if (r.stats().numUpdatedRows() != keys.length || r.stats().numDeletedRows() != 0
                        || after.countRows() != size) {
                    throw new IllegalStateException("merge of " + keys.length + " keys updated "
                            + r.stats().numUpdatedRows() + ", deleted " + r.stats().numDeletedRows() + ", table now "
                            + after.countRows() + " rows");
                }
            }
            return ms;
        }
    }

    private static ArrowArrayStream stream(BufferAllocator allocator, long[] keys, long value) {
        ByteArrayOutputStream bos = new ByteArrayOutputStream();
        try (VectorSchemaRoot root = UpsertCostHarness.rows(allocator, 0, 0, 0)) {
            VarCharVector id = (VarCharVector) root.getVector("id");
            BigIntVector v = (BigIntVector) root.getVector("v");
            for (int i = 0; i < keys.length; i++) {
                id.setSafe(i, String.format(Locale.ROOT, "k%08d", keys[i]).getBytes(StandardCharsets.UTF_8));
                v.setSafe(i, value);
            }
            root.setRowCount(keys.length);
            try (ArrowStreamWriter w = new ArrowStreamWriter(root, null, bos)) {
                w.start();
                w.writeBatch();
                w.end();
            }
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        ArrowStreamReader r = new ArrowStreamReader(new ByteArrayInputStream(bos.toByteArray()), allocator);
        ArrowArrayStream st = ArrowArrayStream.allocateNew(allocator);
        Data.exportArrayStream(allocator, r, st);
        return st;
    }

    private static double median(List<Double> ms) {
        List<Double> s = new ArrayList<>(ms);
        s.sort(Double::compare);
        return s.get(s.size() / 2);
    }
}
