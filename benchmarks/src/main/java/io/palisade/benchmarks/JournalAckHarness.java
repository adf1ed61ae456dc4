package io.palisade.benchmarks;

import io.palisade.coordinator.Catalog;
import io.palisade.coordinator.Graph;
import io.palisade.coordinator.LoadMode;
import io.palisade.coordinator.Metrics;
import io.palisade.coordinator.Options;
import io.palisade.coordinator.Palisade;
import io.palisade.coordinator.WriteOptions;
import io.palisade.fencing.KeyConflictException;
import io.palisade.fencing.PalisadeException;
import io.palisade.heads.FoldMark;
import io.palisade.journal.Durability;
import io.palisade.journal.Journal;
import io.palisade.journal.JournalEvent;
import io.palisade.journal.JournalCursor;
import io.palisade.journal.JournalOptions;
import io.palisade.journal.JournalReader;
import io.palisade.journal.JournalRecord;
import io.palisade.substrate.KeyedTable;
import io.palisade.substrate.MergePath;
import io.palisade.substrate.TableKind;
import io.palisade.substrate.TableRef;
import io.palisade.substrate.TableStore;
import io.palisade.substrate.lance.LanceTableStore;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;

import javax.management.NotificationEmitter;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryUsage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * The journal-ack whole-process harness (docs/benchmarks.md "Journal-ack tables"): one JVM, one run.
 * <ol>
 *   <li>{@code --jit-warmup} untimed journal-ack upserts and synced appends, alternating, so that the two latency
 *       tables compare both paths with their code compiled ({@link #jitWarmUp}).</li>
 *   <li>Latency of single-row upserts of random existing keys into an N-row table, interleaved per iteration so the
 *       paths share the noise: the coordinator on a journal-ack table ({@code "ack": "journal"}, timed around
 *       {@code Graph.upsert} until the receipt), the coordinator on a table-ack table with the same data, raw Lance
 *       indexed ({@link MergePath#INDEXED_UNFENCED}) with the coordinator's periodic index refresh (an
 *       {@code optimizeIdIndex} every {@link Options#DEFAULT_INDEX_REFRESH_EVERY} commits, not timed: a fair peer),
 *       unsynced and with Palisade's file sync, and the journal's own POWER_LOSS append of the record a journal-ack
 *       write journals (a {@link JournalEvent.WriteJournaled} with the intent of a journal-ack write of the graph
 *       and the same Arrow IPC bytes): the same bytes, synced the same way.</li>
 *   <li>The same journal-ack upsert and synced append back to back on one thread, in alternating blocks of 100
 *       ({@code --iterations} × 10 of each): both paths warm.</li>
 *   <li>Throughput of T writer threads (each of {@code --threads}, e.g. {@code 16,64}) on the journal-ack table for
 *       {@code --seconds}: upserts of random existing keys, then strict inserts of random new keys; with fold lag,
 *       folds and Lance versions per 10,000 writes, fold cost, key lookups, peak heap.</li>
 *   <li>The negative key filter's size at 1M and 10M keys.</li>
 *   <li>A probe of which Lance operations print {@code Index __lance_mem_wal has no fields}: markers
 *       ({@code #probe ...}) go to stderr before each operation, so the log lines can be attributed.</li>
 * </ol>
 *
 * <pre>
 * JournalAckHarness [--rows 1000000] [--iterations 200] [--warmup 10] [--jit-warmup 5000] [--threads 16,64] [--seconds 60]
 *                   [--checkpoint-every 10000] [--fold-every 32768] [--fold-lag-millis 1000] [--table-ack-threads 16] [--in-flight 1] [--dir PATH] [--seed 42]
 * </pre>
 * After the journal-ack phases, {@code --table-ack-threads} writers upsert into the table-ack table for {@code --seconds}
 * (its throughput and the merge plan of each group's commit).
 * {@code --in-flight} K above 1 makes each journal-ack writer thread keep up to K writes in flight through the
 * asynchronous API ({@code upsertAsync}, {@code insertAsync}) instead of waiting for each receipt before the next write:
 * the coordinator's capacity with more writes than threads, reported as its own rows (1, the default, is the
 * synchronous closed loop the targets are measured with).
 * {@code --fold-lag-millis} sets {@link Options#foldLagMillis()} (and the lag bound, twice it), the age of the oldest
 * unfolded write at which a fold starts.
 * {@code --fold-every} sets {@link Options#foldEvery()} (default: the default options'), the unfolded writes at which
 * a fold starts before the lag bound does.
 * {@code --checkpoint-every} sets {@link Options#checkpointEvery()} (default: the default options' 10,000 records):
 * before checkpoint format 3 a heads checkpoint encoded every completed intent of the graph's history, so its cost
 * grew with the writes (docs/benchmarks.md "Journal-ack tables"); since, a checkpoint is mostly a delta of what
 * changed, and a large value shows what checkpoints still cost.
 * <pre>
 * </pre>
 */
public final class JournalAckHarness {

    static final String CATALOG = """
            {"tables": [
              {"name": "item_j", "kind": "node", "ack": "journal", "columns": [{"name": "id", "type": "string"},
                {"name": "v", "type": "int64", "nullable": true}]},
              {"name": "item_t", "kind": "node", "ack": "table", "columns": [{"name": "id", "type": "string"},
                {"name": "v", "type": "int64", "nullable": true}]}]}
            """;
    private static final int LOAD_BATCH = 100_000;
    static final String J = "item_j";
    static final String T = "item_t";

    private static final String USAGE = "JournalAckHarness [--rows 1000000] [--iterations 200] [--warmup 10] "
            + "[--jit-warmup 5000] [--threads 16,64] [--seconds 60] [--checkpoint-every 10000] [--fold-every 32768] "
            + "[--fold-lag-millis 1000] [--table-ack-threads 16] [--in-flight 1] [--dir PATH] [--seed 42]";

    private final PrintStream out;
    private int rows = 1_000_000;
    private int iterations = 200;
    private int warmup = 10;
    private int jitWarmup = 5_000;
    private int[] threads = {16, 64};
    private int seconds = 60;
    private long seed = 42;
    private int checkpointEvery = Options.defaults().checkpointEvery();
    private int foldEvery = Options.defaults().foldEvery();
    private long foldLagMillis = Options.defaults().foldLagMillis();
    private int tableAckThreads = 16;
    private int inFlight = 1;
    private final AtomicLong heapPeak = new AtomicLong();
    private final AtomicLong afterGcPeak = new AtomicLong();
    private final AtomicLong lagPeakMs = new AtomicLong();

    JournalAckHarness(PrintStream out) {
        this.out = out;
    }

    public static void main(String[] args) throws Exception {
        run(args, System.out);
    }

    /** Parses {@code args} (see the class comment) and runs every phase, printing its tables to {@code out}. */
    static void run(String[] args, PrintStream out) throws Exception {
        JournalAckHarness h = new JournalAckHarness(out);
        Path dir = null;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--rows" -> h.rows = Integer.parseInt(args[++i]);
                case "--iterations" -> h.iterations = Integer.parseInt(args[++i]);
                case "--warmup" -> h.warmup = Integer.parseInt(args[++i]);
                case "--jit-warmup" -> h.jitWarmup = Integer.parseInt(args[++i]);
                case "--threads" -> {
                    String[] p = args[++i].split(",");
                    h.threads = new int[p.length];
                    for (int k = 0; k < p.length; k++) {
                        h.threads[k] = Integer.parseInt(p[k].trim());
                    }
                }
                case "--seconds" -> h.seconds = Integer.parseInt(args[++i]);
                case "--checkpoint-every" -> h.checkpointEvery = Integer.parseInt(args[++i]);
                case "--fold-every" -> h.foldEvery = Integer.parseInt(args[++i]);
                case "--fold-lag-millis" -> h.foldLagMillis = Long.parseLong(args[++i]);
                case "--table-ack-threads" -> h.tableAckThreads = Integer.parseInt(args[++i]);
                case "--in-flight" -> h.inFlight = Integer.parseInt(args[++i]);
                case "--seed" -> h.seed = Long.parseLong(args[++i]);
                case "--dir" -> dir = Path.of(args[++i]);
                default -> throw new IllegalArgumentException("unknown argument " + args[i] + "; usage: " + USAGE);
            }
        }
        boolean temp = dir == null;
        Path root = temp ? Files.createTempDirectory("palisade-journal-ack-bench") : Files.createDirectories(dir);
        try {
            h.run(root);
        } finally {
            if (temp) {
                JournalBench.delete(root);
            }
        }
    }

    private static void mark(String what) {
        System.err.println("#probe " + what);
        System.err.flush();
    }

    void run(Path root) throws Exception {
        out.printf(Locale.ROOT, "rows=%,d iterations=%d warmup=%d threads=%s seconds=%d checkpointEvery=%,d foldEvery=%,d java=%s cores=%d maxHeap=%,d MiB load=%.2f%n",
                rows, iterations, warmup, java.util.Arrays.toString(threads), seconds, checkpointEvery, foldEvery, System.getProperty("java.version"),
                Runtime.getRuntime().availableProcessors(), Runtime.getRuntime().maxMemory() >> 20,
                ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
        filterMemory();
        Path graphDir = root.resolve("graph");
        Options defaults = Options.defaults();
        Options options = defaults.withCheckpointEvery(checkpointEvery)
                .withFolding(foldLagMillis, foldEvery, defaults.maxUnfoldedBytes());
        try (BufferAllocator allocator = new RootAllocator();
             TableStore store = new LanceTableStore(root.resolve("raw").toString(), Map.of(), false);
             TableStore synced = new LanceTableStore(root.resolve("raw").toString(), Map.of(), true);
             Journal journal = Journal.open(root.resolve("journal-peer").resolve("_palisade"), JournalOptions.defaults())) {
            mark("load start");
            long t0 = System.nanoTime();
            loadRaw(store, allocator);
            double loadRaw = secs(t0);
            t0 = System.nanoTime();
            try (Graph g = Palisade.create(graphDir, Catalog.fromJson(CATALOG), options)) {
                for (String table : List.of(J, T)) {
                    try (ArrowStreamReader reader = new ArrowStreamReader(new ByteArrayInputStream(loadStream(allocator)), allocator)) {
                        g.load("main", table, reader, LoadMode.MERGE, LOAD_BATCH);
                    }
                    g.optimizeIndex("main", table);
                }
            }
            out.printf(Locale.ROOT, "load seconds: raw indexed %.1f (incl. index build), coordinator %.1f (two tables, Graph.load MERGE "
                    + "in batches of %,d + index refresh)%n", loadRaw, secs(t0), LOAD_BATCH);
            mark("load end");
            startSamplers();
            try (Graph g = Palisade.open(graphDir, options)) {
                upsert(g, allocator, J, 1, 1);
                peerIntent = journalAckIntent(graphDir);
                jitWarmUp(g, journal, allocator);
                mark("latency start");
                latency(g, store, synced, journal, allocator);
                mark("latency end");
                backToBack(g, journal, allocator);
                mark("back-to-back end");
                for (int n : threads) {
                    mark("throughput upsert " + n + " start");
                    throughput(g, options, allocator, n, false);
                    mark("throughput upsert " + n + " end");
                    mark("throughput insert " + n + " start");
                    throughput(g, options, allocator, n, true);
                    mark("throughput insert " + n + " end");
                }
                mark("table-ack throughput start");
                tableAckThroughput(g, allocator, tableAckThreads);
                mark("table-ack throughput end");
                probe(g, allocator, graphDir);
                mark("close start");
            }
            mark("close end");
        }
    }

    private void filterMemory() {
        out.println();
        out.println("negative key filter (KeyBloom at fpp 0.001)");
        out.println("| keys | filter for exactly that many keys | filter the coordinator builds for a table of that many keys (2x) |");
        out.println("|---:|---:|---:|");
        for (long n : new long[]{1_000_000L, 10_000_000L}) {
            out.printf(Locale.ROOT, "| %,d | %,d B (%.2f MiB) | %,d B (%.2f MiB) |%n", n, Metrics.keyFilterBytes(n),
                    Metrics.keyFilterBytes(n) / 1048576.0, Metrics.keyFilterBytesForTable(n),
                    Metrics.keyFilterBytesForTable(n) / 1048576.0);
        }
    }

    private static double secs(long t0) {
        return (System.nanoTime() - t0) / 1e9;
    }

    private byte[] loadStream(BufferAllocator allocator) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (VectorSchemaRoot root = UpsertCostHarness.rows(allocator, 0, 1, 0);
             ArrowStreamWriter w = new ArrowStreamWriter(root, null, bytes)) {
            w.start();
            for (int from = 0; from < rows; from += LOAD_BATCH) {
                int n = Math.min(LOAD_BATCH, rows - from);
                try (VectorSchemaRoot batch = UpsertCostHarness.rows(allocator, from, n, 0)) {
                    root.clear();
                    for (int c = 0; c < root.getFieldVectors().size(); c++) {
                        batch.getVector(c).makeTransferPair(root.getVector(c)).transfer();
                    }
                    root.setRowCount(n);
                    w.writeBatch();
                }
            }
            w.end();
        }
        return bytes.toByteArray();
    }

    private void loadRaw(TableStore store, BufferAllocator allocator) {
        TableRef ref;
        try (KeyedTable t = store.createKeyed("ix", TableKind.NODE, CoordinatorSchema.SCHEMA)) {
            ref = t.ref();
        }
        for (int from = 0; from < rows; from += LOAD_BATCH) {
            int n = Math.min(LOAD_BATCH, rows - from);
            try (KeyedTable t = store.openKeyed("ix", ref); VectorSchemaRoot batch = UpsertCostHarness.rows(allocator, from, n, 0)) {
                ref = t.insert(batch, MergePath.V2_FENCED).ref();
            }
        }
        try (KeyedTable t = store.openKeyed("ix", ref)) {
            t.createIdIndex();
        }
    }

    /** The schema of UpsertCostHarness rows (id Utf8 not null, v Int64). */
    static final class CoordinatorSchema {
        static final org.apache.arrow.vector.types.pojo.Schema SCHEMA = new org.apache.arrow.vector.types.pojo.Schema(List.of(
                org.apache.arrow.vector.types.pojo.Field.notNullable("id", org.apache.arrow.vector.types.pojo.ArrowType.Utf8.INSTANCE),
                org.apache.arrow.vector.types.pojo.Field.nullable("v", new org.apache.arrow.vector.types.pojo.ArrowType.Int(64, true))));
    }

    /** The Arrow IPC stream the coordinator journals for {@code root} (as JournaledRows.encode does). */
    static byte[] ipc(VectorSchemaRoot root) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(256 + root.getRowCount() * 64);
        try (ArrowStreamWriter w = new ArrowStreamWriter(root, null, bytes)) {
            w.start();
            w.writeBatch();
            w.end();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    private static double upsert(Graph g, BufferAllocator allocator, String table, long key, long value) {
        try (VectorSchemaRoot row = UpsertCostHarness.rows(allocator, key, 1, value)) {
            long t0 = System.nanoTime();
            g.upsert("main", table, row);
            return (System.nanoTime() - t0) / 1e6;
        }
    }

    private static double rawUpsert(TableStore store, BufferAllocator allocator, long key, long value) {
        try (VectorSchemaRoot row = UpsertCostHarness.rows(allocator, key, 1, value)) {
            long t0 = System.nanoTime();
            try (KeyedTable t = store.openKeyed("ix", store.latest("ix", TableRef.MAIN))) {
                if (t.upsert(row, MergePath.INDEXED_UNFENCED).updated() != 1) {
                    throw new IllegalStateException("expected one updated row");
                }
            }
            return (System.nanoTime() - t0) / 1e6;
        }
    }

    private static double refresh(TableStore store) {
        long t0 = System.nanoTime();
        try (KeyedTable t = store.openKeyed("ix", store.latest("ix", TableRef.MAIN))) {
            t.optimizeIdIndex();
        }
        return (System.nanoTime() - t0) / 1e6;
    }

    /**
     * The intent of the newest journal-ack write in the graph's journal: the synced-append peer appends a record of its
     * fields with the same rows, the bytes a journal-ack write journals.
     */
    private static JournalEvent.IntentRecorded journalAckIntent(Path graphDir) {
        JournalEvent.IntentRecorded found = null;
        try (JournalReader r = JournalReader.open(graphDir.resolve("_palisade")); JournalCursor c = r.read(0)) {
            for (JournalRecord rec = c.poll(); rec != null; rec = c.poll()) {
                if (rec.event() instanceof JournalEvent.WriteJournaled w) {
                    found = w.intent();
                }
            }
        }
        if (found == null) {
            throw new IllegalStateException("no journal-ack write in the graph's journal");
        }
        return found;
    }

    /** Set once the graph has journaled a journal-ack write (see {@link #journalAckIntent}). */
    private static JournalEvent.IntentRecorded peerIntent;

    private static double append(Journal journal, BufferAllocator allocator, long key, long value, int i) {
        try (VectorSchemaRoot row = UpsertCostHarness.rows(allocator, key, 1, value)) {
            JournalEvent e = new JournalEvent.WriteJournaled(peerIntent, 1, ipc(row));
            long t0 = System.nanoTime();
            journal.append(e, Durability.POWER_LOSS);
            return (System.nanoTime() - t0) / 1e6;
        }
    }

    private void latency(Graph g, TableStore store, TableStore synced, Journal journal, BufferAllocator allocator) {
        SplittableRandom random = new SplittableRandom(seed);
        List<Double> ja = new ArrayList<>();
        List<Double> ta = new ArrayList<>();
        List<Double> raw = new ArrayList<>();
        List<Double> rawSynced = new ArrayList<>();
        List<Double> app = new ArrayList<>();
        List<Double> refreshes = new ArrayList<>();
        int rawCommits = 0;
        int payload;
        try (VectorSchemaRoot row = UpsertCostHarness.rows(allocator, 0, 1, 0)) {
            payload = ipc(row).length;
        }
        Metrics m = g.metrics();
        long folds0 = 0;
        long v0 = 0;
        // the engine's own acknowledgement timer (submission to the receipt's completion), from the measured part on
        io.micrometer.core.instrument.simple.SimpleMeterRegistry engine = new io.micrometer.core.instrument.simple.SimpleMeterRegistry();
        for (int i = 0; i < warmup + iterations; i++) {
            if (i == warmup) {
                folds0 = m.folds();
                v0 = version(g, J);
                m.bindTo(engine);
            }
            long key = random.nextLong(rows);
            double a = upsert(g, allocator, J, key, i);
            double b = upsert(g, allocator, T, key, i);
            double c = rawUpsert(store, allocator, key, i);
            double d = rawUpsert(synced, allocator, key, i);
            double e = append(journal, allocator, key, i, i);
            rawCommits += 2;
            if (rawCommits % (2 * Options.DEFAULT_INDEX_REFRESH_EVERY) == 0) {
                refreshes.add(refresh(store)); // the same refresh the coordinator gives itself, untimed in the writes
            }
            if (i >= warmup) {
                ja.add(a);
                ta.add(b);
                raw.add(c);
                rawSynced.add(d);
                app.add(e);
            }
        }
        CoordinatorLatencyHarness.Stats sj = CoordinatorLatencyHarness.Stats.of(ja);
        CoordinatorLatencyHarness.Stats st = CoordinatorLatencyHarness.Stats.of(ta);
        CoordinatorLatencyHarness.Stats sr = CoordinatorLatencyHarness.Stats.of(raw);
        CoordinatorLatencyHarness.Stats ss = CoordinatorLatencyHarness.Stats.of(rawSynced);
        CoordinatorLatencyHarness.Stats sa = CoordinatorLatencyHarness.Stats.of(app);
        out.println();
        out.printf(Locale.ROOT, "single-row upsert latency, %,d rows, %d upserts of random existing keys, interleaved (ms); "
                + "journaled rows %d B%n", rows, iterations, payload);
        out.println("| path | p50 | p90 | p99 | mean |");
        out.println("|---|---:|---:|---:|---:|");
        row("coordinator, journal-ack table", sj);
        engineRow(engine, "journal");
        row("coordinator, table-ack table", st);
        row("raw Lance indexed + index refresh every 32 commits, nothing synced", sr);
        row("raw Lance indexed + index refresh every 32 commits + Palisade's file sync", ss);
        row("journal synced append (POWER_LOSS) of the same write_journaled record", sa);
        out.printf(Locale.ROOT, "journal-ack p50 / synced append p50: %.2fx (target <= 2x); table-ack / journal-ack p50: %.1fx; "
                + "raw indexed / journal-ack p50: %.1fx; raw refreshes: %d (mean %.0f ms, not in the write times); "
                + "journal-ack folds in the measured part: %d, Lance versions: %d%n", sj.median() / sa.median(),
                st.median() / sj.median(), sr.median() / sj.median(), refreshes.size(),
                refreshes.stream().mapToDouble(Double::doubleValue).average().orElse(0), m.folds() - folds0, version(g, J) - v0);
    }

    /**
     * The same two paths as {@link #latency}'s first and last rows, but back to back: one thread writes blocks of
     * {@link #BLOCK} journal-ack upserts, then {@link #BLOCK} synced appends of the same bytes, {@code --iterations}
     * × 10 writes of each in all, so both paths run warm (no other write between two of the same path) and the blocks
     * alternate to share the noise. The interleaved table above measures a write after 30 ms of other work: a
     * committer parked and caches cold on both sides of its hand-offs.
     */
    private void backToBack(Graph g, Journal journal, BufferAllocator allocator) {
        SplittableRandom random = new SplittableRandom(seed + 1);
        org.HdrHistogram.Histogram ja = new org.HdrHistogram.Histogram(3);
        org.HdrHistogram.Histogram app = new org.HdrHistogram.Histogram(3);
        int total = iterations * 10;
        for (int done = -BLOCK; done < total; done += BLOCK) { // the first block of each is warm-up
            for (int i = 0; i < BLOCK; i++) {
                double a = upsert(g, allocator, J, random.nextLong(rows), i);
                if (done >= 0) {
                    ja.recordValue((long) (a * 1e6));
                }
            }
            for (int i = 0; i < BLOCK; i++) {
                double e = append(journal, allocator, random.nextLong(rows), i, i);
                if (done >= 0) {
                    app.recordValue((long) (e * 1e6));
                }
            }
        }
        out.println();
        out.printf(Locale.ROOT, "single-row upsert latency, back to back on one thread: blocks of %d of each path, %,d writes of "
                + "each (ms)%n", BLOCK, ja.getTotalCount());
        out.println("| path | p50 | p90 | p99 | mean |");
        out.println("|---|---:|---:|---:|---:|");
        hdrRow("coordinator, journal-ack table", ja);
        hdrRow("journal synced append (POWER_LOSS) of the same write_journaled record", app);
        out.printf(Locale.ROOT, "back to back: journal-ack p50 / synced append p50: %.2fx (target <= 2x)%n",
                ja.getValueAtPercentile(50) / (double) Math.max(1, app.getValueAtPercentile(50)));
    }

    private static final int BLOCK = 100;

    /**
     * {@code --jit-warmup} untimed journal-ack upserts and synced appends, alternating: before the latency tables, so
     * that both paths are measured with their code compiled by the JIT, as in a service that has been writing for a
     * while, and neither is measured partly interpreted (the journal-ack path is some fifty methods deep, the append
     * a few; ten warm-up calls leave the first mostly interpreted).
     */
    private void jitWarmUp(Graph g, Journal journal, BufferAllocator allocator) {
        SplittableRandom random = new SplittableRandom(seed + 2);
        long t0 = System.nanoTime();
        for (int i = 0; i < jitWarmup; i++) {
            upsert(g, allocator, J, random.nextLong(rows), i);
            append(journal, allocator, random.nextLong(rows), i, i);
        }
        out.printf(Locale.ROOT, "JIT warm-up: %,d journal-ack upserts and %,d synced appends, untimed, %.1f s%n", jitWarmup,
                jitWarmup, secs(t0));
    }

    private void hdrRow(String name, org.HdrHistogram.Histogram h) {
        out.printf(Locale.ROOT, "| %s | %.2f | %.2f | %.2f | %.2f |%n", name, h.getValueAtPercentile(50) / 1e6,
                h.getValueAtPercentile(90) / 1e6, h.getValueAtPercentile(99) / 1e6, h.getMean() / 1e6);
    }

    /**
     * The engine's acknowledgement timer for {@code ack}: from the write's submission to the completion of its receipt
     * on the committer (no hand-off back to the writer's thread), p50 and p99 as Micrometer estimates them.
     */
    private void engineRow(io.micrometer.core.instrument.MeterRegistry r, String ack) {
        io.micrometer.core.instrument.Timer t = r.get("palisade.write.ack").tags("ack", ack).timer();
        double p50 = Double.NaN;
        double p99 = Double.NaN;
        for (io.micrometer.core.instrument.distribution.ValueAtPercentile v : t.takeSnapshot().percentileValues()) {
            if (v.percentile() == 0.5) {
                p50 = v.value(java.util.concurrent.TimeUnit.MILLISECONDS);
            } else if (v.percentile() == 0.99) {
                p99 = v.value(java.util.concurrent.TimeUnit.MILLISECONDS);
            }
        }
        out.printf(Locale.ROOT, "| · of which in the engine: submission to receipt completed (%,d writes) | %.2f | | %.2f | %.2f |%n",
                t.count(), p50, p99, t.mean(java.util.concurrent.TimeUnit.MILLISECONDS));
    }

    private void row(String name, CoordinatorLatencyHarness.Stats s) {
        out.printf(Locale.ROOT, "| %s | %.2f | %.2f | %.2f | %.2f |%n", name, s.median(), s.p90(), s.p99(), s.mean());
    }

    private static long version(Graph g, String table) {
        return g.state().head("main", table).orElseThrow().version();
    }

    private static long lagMs(Graph g) {
        FoldMark fm = g.state().foldMark("main", J);
        return fm.unfolded() == 0 ? 0 : Math.max(0, System.currentTimeMillis() - fm.oldestNanos() / 1_000_000L);
    }

    private volatile Graph sampled;

    /** Heap (sampled every 20 ms, and after every GC) and the journal-ack table's fold lag. */
    private void startSamplers() {
        Thread t = new Thread(() -> {
            while (true) {
                heapPeak.accumulateAndGet(ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed(), Math::max);
                Graph g = sampled;
                if (g != null) {
                    lagPeakMs.accumulateAndGet(lagMs(g), Math::max);
                }
                try {
                    Thread.sleep(20);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "bench-sampler");
        t.setDaemon(true);
        t.start();
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            if (gc instanceof NotificationEmitter emitter) {
                emitter.addNotificationListener((n, h) -> {
                    if (n.getUserData() instanceof javax.management.openmbean.CompositeData cd) {
                        var info = com.sun.management.GarbageCollectionNotificationInfo.from(cd);
                        long used = 0;
                        for (MemoryUsage u : info.getGcInfo().getMemoryUsageAfterGc().values()) {
                            used += u.getUsed();
                        }
                        afterGcPeak.accumulateAndGet(used, Math::max);
                    }
                }, n -> com.sun.management.GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(n.getType()), null);
            }
        }
    }

    private void throughput(Graph g, Options options, BufferAllocator allocator, int n, boolean inserts) throws Exception {
        System.gc();
        heapPeak.set(0);
        afterGcPeak.set(0);
        lagPeakMs.set(0);
        sampled = g;
        Metrics m = g.metrics();
        long folds0 = m.folds();
        long foldedWrites0 = m.foldedWrites();
        long foldNanos0 = m.foldNanos();
        long foldedRows0 = m.foldedRows();
        long lookups0 = m.keyLookups();
        long fp0 = m.keyFilterFalsePositives();
        long lookupNanos0 = m.keyLookupNanos();
        long builds0 = m.keyFilterBuilds();
        long buildNanos0 = m.keyFilterBuildNanos();
        long maint0 = m.maintenanceCommits();
        long maintNanos0 = m.maintenanceNanos();
        long refreshes0 = m.autoIndexRefreshes();
        long waits0 = m.backPressureWaits();
        long waitNanos0 = m.backPressureNanos();
        long v0 = version(g, J);
        long acks0 = m.journalAcks();
        long groups0 = m.journalAckGroups();
        long durationNanos = seconds * 1_000_000_000L;
        LongAdder ops = new LongAdder();
        LongAdder conflicts = new LongAdder();
        LongAdder failed = new LongAdder();
        AtomicBoolean printed = new AtomicBoolean();
        ExecutorService pool = Executors.newFixedThreadPool(n);
        double secs;
        try {
            long t0 = System.nanoTime();
            List<Future<?>> fs = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                fs.add(pool.submit(() -> {
                    long end = t0 + durationNanos;
                    ThreadLocalRandom r = ThreadLocalRandom.current();
                    Semaphore window = new Semaphore(inFlight);
                    while (System.nanoTime() < end) {
                        long key = inserts ? 10_000_000_000L + r.nextLong(1_000_000_000_000_000L) : r.nextLong(rows);
                        if (inFlight > 1) {
                            window.acquireUninterruptibly();
                            VectorSchemaRoot row = UpsertCostHarness.rows(allocator, key, 1, 7);
                            CompletableFuture<?> f;
                            try {
                                f = inserts ? g.insertAsync("main", J, row, WriteOptions.NONE)
                                        : g.upsertAsync("main", J, row, WriteOptions.NONE);
                            } catch (RuntimeException e) {
                                row.close();
                                window.release();
                                throw e;
                            }
                            f.whenComplete((receipt, e) -> {
                                row.close(); // the write holds its rows until it is acknowledged
                                Throwable cause = e instanceof java.util.concurrent.CompletionException ce ? ce.getCause() : e;
                                if (cause == null) {
                                    ops.increment();
                                } else if (cause instanceof KeyConflictException) {
                                    conflicts.increment();
                                } else {
                                    failed.increment();
                                    if (printed.compareAndSet(false, true)) {
                                        cause.printStackTrace(out);
                                    }
                                }
                                window.release();
                            });
                            continue;
                        }
                        try (VectorSchemaRoot row = UpsertCostHarness.rows(allocator, key, 1, 7)) {
                            if (inserts) {
                                g.insert("main", J, row);
                            } else {
                                g.upsert("main", J, row);
                            }
                            ops.increment();
                        } catch (KeyConflictException e) {
                            conflicts.increment();
                        } catch (PalisadeException e) {
                            failed.increment();
                            if (printed.compareAndSet(false, true)) {
                                e.printStackTrace(out);
                            }
                        }
                    }
                    window.acquireUninterruptibly(inFlight); // every write of this thread answered
                }));
            }
            for (Future<?> f : fs) {
                f.get();
            }
            secs = secs(t0);
        } finally {
            pool.shutdownNow();
        }
        long lagEnd = lagMs(g);
        long unfoldedEnd = g.state().foldMark("main", J).unfolded();
        sampled = null;
        long writes = ops.sum();
        long folds = m.folds() - folds0;
        long versions = version(g, J) - v0;
        double foldSecs = (m.foldNanos() - foldNanos0) / 1e9;
        long foldedRows = m.foldedRows() - foldedRows0;
        double per10k = 10_000.0 / Math.max(1, writes);
        out.println();
        out.printf(Locale.ROOT, "throughput, %d writer threads%s, single-row %s into the %,d-row journal-ack table, %d s%n", n,
                inFlight > 1 ? " with up to " + inFlight + " writes in flight each (asynchronous API)" : "",
                inserts ? "strict inserts of random new keys" : "upserts of random existing keys", rows, seconds);
        out.println("| writes | writes/s | key conflicts | failures | fold lag at end (ms) | unfolded at end | peak fold lag (ms) "
                + "| folds | folds / 10k writes | Lance versions / 10k writes | of which index refreshes | writes folded | rows folded "
                + "| fold time (s) | rows folded / s of fold | mean fold (ms) | peak heap used (MiB) | peak heap after GC (MiB) |");
        out.println("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
        out.printf(Locale.ROOT, "| %,d | %,.0f | %d | %d | %d | %,d | %d | %d | %.2f | %.2f | %d | %,d | %,d | %.1f | %,.0f | %.0f | %,d | %,d |%n",
                writes, writes / secs, conflicts.sum(), failed.sum(), lagEnd, unfoldedEnd, lagPeakMs.get(), folds, folds * per10k,
                versions * per10k, m.autoIndexRefreshes() - refreshes0, m.foldedWrites() - foldedWrites0, foldedRows, foldSecs,
                foldedRows / Math.max(foldSecs, 1e-9), foldSecs * 1e3 / Math.max(1, folds), heapPeak.get() >> 20,
                afterGcPeak.get() >> 20);
        long groups = m.journalAckGroups() - groups0;
        out.printf(Locale.ROOT, "acknowledgement groups (one journal sync each): %,d, %,.0f per s, %.1f writes each%n", groups,
                groups / secs, (m.journalAcks() - acks0) / (double) Math.max(1, groups));
        out.printf(Locale.ROOT, "back-pressure (memory or lag bound): %,d acknowledgement groups waited for a fold, %.1f s "
                + "in all (%.0f %% of the run)%n", m.backPressureWaits() - waits0, (m.backPressureNanos() - waitNanos0) / 1e9,
                100.0 * (m.backPressureNanos() - waitNanos0) / 1e9 / secs);
        out.printf(Locale.ROOT, "configured maxUnfoldedBytes %,d MiB, foldEvery %,d, foldLagMillis %,d, maxFoldLagMillis %,d, "
                + "max heap %,d MiB%n", options.maxUnfoldedBytes() >> 20, options.foldEvery(), options.foldLagMillis(),
                options.maxFoldLagMillis(), Runtime.getRuntime().maxMemory() >> 20);
        if (inserts) {
            out.printf(Locale.ROOT, "key lookups %,d, of which filter false positives %,d (%.4f %% of inserted keys looked up)%n",
                    m.keyLookups() - lookups0, m.keyFilterFalsePositives() - fp0,
                    100.0 * (m.keyLookups() - lookups0) / Math.max(1, writes));
            out.printf(Locale.ROOT, "committer time in key lookups %.2f s (%.1f %% of the run), key filters built %,d in "
                    + "%.2f s%n", (m.keyLookupNanos() - lookupNanos0) / 1e9,
                    100.0 * (m.keyLookupNanos() - lookupNanos0) / 1e9 / secs, m.keyFilterBuilds() - builds0,
                    (m.keyFilterBuildNanos() - buildNanos0) / 1e9);
        }
        out.printf(Locale.ROOT, "maintenance, intent to publication (a journal-ack compaction's or index refresh's Lance work runs off the committer) %.2f s (%.1f %% of the run), "
                + "%,d operations; the longest since the open %,d ms%n", (m.maintenanceNanos() - maintNanos0) / 1e9,
                100.0 * (m.maintenanceNanos() - maintNanos0) / 1e9 / secs, m.maintenanceCommits() - maint0,
                m.maintenanceMaxNanos() / 1_000_000);
    }

    /**
     * {@code n} writer threads upserting single rows of random existing keys into the table-ack table for
     * {@code --seconds}: writes per second, the latency percentiles each writer saw, the table commits (one per
     * group), and the plan Lance ran each group's merge-insert with.
     */
    private void tableAckThroughput(Graph g, BufferAllocator allocator, int n) throws Exception {
        if (n < 1) {
            return;
        }
        Metrics m = g.metrics();
        long commits0 = m.snapshot().substrateCommits();
        long indexed0 = m.mergesIndexed();
        long scanned0 = m.mergesScanned();
        long refreshes0 = m.autoIndexRefreshes();
        long compactions0 = m.autoCompactions();
        org.HdrHistogram.ConcurrentHistogram latencies = new org.HdrHistogram.ConcurrentHistogram(3);
        LongAdder failed = new LongAdder();
        ExecutorService pool = Executors.newFixedThreadPool(n);
        double secs;
        try {
            long t0 = System.nanoTime();
            long end = t0 + seconds * 1_000_000_000L;
            List<Future<?>> fs = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                fs.add(pool.submit(() -> {
                    ThreadLocalRandom r = ThreadLocalRandom.current();
                    while (System.nanoTime() < end) {
                        try (VectorSchemaRoot row = UpsertCostHarness.rows(allocator, r.nextLong(rows), 1, 9)) {
                            long s0 = System.nanoTime();
                            g.upsert("main", T, row);
                            latencies.recordValue(System.nanoTime() - s0);
                        } catch (PalisadeException e) {
                            failed.increment();
                        }
                    }
                }));
            }
            for (Future<?> f : fs) {
                f.get();
            }
            secs = secs(t0);
        } finally {
            pool.shutdownNow();
        }
        long writes = latencies.getTotalCount();
        long commits = m.snapshot().substrateCommits() - commits0;
        out.println();
        out.printf(Locale.ROOT, "table-ack throughput, %d writer threads, single-row upserts of random existing keys into the "
                + "%,d-row table-ack table, %d s%n", n, rows, seconds);
        out.println("| writes | writes/s | failures | p50 (ms) | p99 (ms) | table commits | writes per commit "
                + "| merges on the indexed plan | merges on the scan plan | auto index refreshes | auto compactions |");
        out.println("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
        out.printf(Locale.ROOT, "| %,d | %,.0f | %d | %.2f | %.2f | %,d | %.1f | %,d | %,d | %d | %d |%n", writes, writes / secs,
                failed.sum(), latencies.getValueAtPercentile(50) / 1e6, latencies.getValueAtPercentile(99) / 1e6, commits,
                writes / (double) Math.max(1, commits), m.mergesIndexed() - indexed0, m.mergesScanned() - scanned0,
                m.autoIndexRefreshes() - refreshes0, m.autoCompactions() - compactions0);
    }

    /** One operation of each kind, each after a stderr marker, to attribute Lance's MemWAL index log lines. */
    private void probe(Graph g, BufferAllocator allocator, Path graphDir) throws Exception {
        waitFolded(g);
        try (TableStore s = new LanceTableStore(graphDir.resolve("tables").toString())) {
            mark("open + countRows (substrate, read-only)");
            try (KeyedTable t = s.openKeyed(J, s.latest(J, TableRef.MAIN))) {
                t.countRows();
            }
        }
        mark("Graph.get of 1 key");
        g.get("main", J, List.of("k00000002"));
        mark("Graph.optimizeIndex");
        g.optimizeIndex("main", J);
        mark("Graph.upsert 1 row (journal ack only)");
        upsert(g, allocator, J, 3, 1);
        mark("fold of 1 write (upsert-only merge-insert)");
        waitFolded(g);
        mark("Graph.delete 1 key (journal ack only)");
        g.delete("main", J, List.of("k00000004"));
        mark("fold of 1 delete (merge-insert with by-source delete)");
        waitFolded(g);
        mark("table-ack upsert on the table without MemWAL marker");
        upsert(g, allocator, T, 5, 1);
        mark("probe end");
    }

    private static void waitFolded(Graph g) throws InterruptedException {
        while (g.state().foldMark("main", J).unfolded() > 0) {
            Thread.sleep(10);
        }
    }
}
