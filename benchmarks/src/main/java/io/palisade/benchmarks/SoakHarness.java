package io.palisade.benchmarks;

import io.palisade.coordinator.Catalog;
import io.palisade.coordinator.Graph;
import io.palisade.coordinator.Metrics;
import io.palisade.coordinator.Options;
import io.palisade.coordinator.Palisade;
import io.palisade.coordinator.TableLocation;
import io.palisade.heads.FoldMark;
import io.palisade.journal.Journal;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

import java.io.PrintStream;
import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;

/**
 * Steady load over time (docs/benchmarks.md "Steady state: the soak harness"): one graph, one keyed table
 * {@code item} ({@code id} string {@code k%08d}, {@code v} int64, {@code payload} a 64-character string),
 * table-ack or journal-ack, preloaded with {@code --rows} rows in upserts of {@value #LOAD_BATCH} and index-refreshed;
 * then {@code --writers} closed-loop threads upsert single rows of random existing keys for {@code --seconds}, with
 * {@code Options.defaults()} (what a user gets). Every {@code --window-seconds} the harness prints a {@link SoakWindow}:
 * throughput and latency of the window, then what the writer has left behind so far (Lance versions kept, files and
 * bytes of the table's directory by subdirectory, journal bytes, heap after a full collection, folds and fold lag).
 * At the end it closes the graph, reopens it, reads 3 keys and upserts one row, each timed, and prints a
 * {@link SoakSummary}. Only the coordinator's public API is used; it measures and changes nothing.
 *
 * <pre>
 * SoakHarness [--ack table|journal] [--rows 100000] [--writers 16] [--seconds 1800] [--window-seconds 60]
 *             [--warmup-seconds 120] [--out FILE.csv] [--dir PATH]
 * </pre>
 * Without {@code --dir} the graph is made in a temporary directory and deleted at the end.
 */
public final class SoakHarness {
    static final String TABLE = "item";
    static final int LOAD_BATCH = 10_000;
    static final int PAYLOAD_CHARS = 64;
    /** Bytes of a row's values: the 9-byte UTF-8 key, the 8-byte {@code v}, the 64-byte payload. */
    static final int ROW_VALUE_BYTES = 9 + Long.BYTES + PAYLOAD_CHARS;
    private static final String USAGE = "--ack table|journal --window-seconds N --warmup-seconds N --out FILE --dir PATH";

    /** What one run is asked to do. */
    record Config(String ack, int rows, int writers, int seconds, int windowSeconds, int warmupSeconds, Path out) {
        Config {
            if (!ack.equals("table") && !ack.equals("journal")) {
                throw new IllegalArgumentException("--ack is table or journal, not '" + ack + "'");
            }
            if (windowSeconds > seconds) {
                throw new IllegalArgumentException("--window-seconds (" + windowSeconds + ") must not exceed --seconds ("
                        + seconds + ")");
            }
        }

        String catalogJson() {
            return """
                    {"tables": [{"name": "%s", "kind": "node", "ack": "%s", "columns": [{"name": "id", "type": "string"},
                      {"name": "v", "type": "int64", "nullable": true}, {"name": "payload", "type": "string"}]}]}
                    """.formatted(TABLE, ack);
        }
    }

    /** What one run measured: its windows and summary. */
    record Result(List<SoakWindow> windows, SoakSummary summary) {
    }

    private final Config config;
    private final PrintStream out;
    private final Options options;

    SoakHarness(Config config, PrintStream out) {
        this(config, out, Options.defaults());
    }

    /** A run with other options than the defaults (the short soak of the test suite: tighter retention). */
    SoakHarness(Config config, PrintStream out, Options options) {
        this.config = config;
        this.out = out;
        this.options = options;
    }

    public static void main(String[] args) throws Exception {
        String[] ack = {"table"};
        int[] window = {60};
        int[] warmup = {120};
        Path[] csv = {null};
        Path[] dir = {null};
        // this harness's defaults go first, so that the caller's options override them
        String[] all = new String[args.length + 4];
        System.arraycopy(new String[] {"--rows", "100000", "--seconds", "1800"}, 0, all, 0, 4);
        System.arraycopy(args, 0, all, 4, args.length);
        GraphWorkload.Settings s = GraphWorkload.Settings.parse(all, 1, 0, Map.of(
                "--ack", v -> ack[0] = v,
                "--window-seconds", v -> window[0] = GraphWorkload.positive("--window-seconds", v),
                "--warmup-seconds", v -> warmup[0] = GraphWorkload.atLeast("--warmup-seconds", v, 0),
                "--out", v -> csv[0] = Path.of(v),
                "--dir", v -> dir[0] = Path.of(v)), USAGE);
        Config config = new Config(ack[0], s.rows, s.writers, s.seconds, window[0], warmup[0], csv[0]);
        boolean temp = dir[0] == null;
        Path root = temp ? Files.createTempDirectory("palisade-soak") : Files.createDirectories(dir[0]);
        try {
            new SoakHarness(config, System.out).run(root.resolve("graph"));
        } finally {
            if (temp) {
                JournalBench.delete(root);
            }
        }
    }

    /** The live-data estimate: {@code rows} rows of {@link #ROW_VALUE_BYTES} bytes of values each, uncompressed. */
    static long liveBytes(int rows) {
        return (long) rows * ROW_VALUE_BYTES;
    }

    /** The Lance directory of the graph's table (local tables only). */
    static Path tableDir(Path graph) {
        return Path.of(TableLocation.of(graph).uri()).resolve(TABLE + ".lance");
    }

    /** The directory of the graph's journal files. */
    static Path journalDir(Path graph) {
        return graph.resolve("_palisade").resolve(Journal.DIRECTORY);
    }

    /** Creates the graph at {@code graph} (which must not exist), runs the soak and the reopen, prints and returns. */
    Result run(Path graph) throws Exception {
        out.printf(Locale.ROOT, "ack=%s rows=%,d writers=%d seconds=%d window=%d s warmup=%d s java=%s cores=%d "
                        + "maxHeap=%,d MiB load average %.1f%n", config.ack(), config.rows(), config.writers(),
                config.seconds(), config.windowSeconds(), config.warmupSeconds(), System.getProperty("java.version"),
                Runtime.getRuntime().availableProcessors(), Runtime.getRuntime().maxMemory() >> 20,
                GraphWorkload.loadAverage());
        Catalog catalog = Catalog.fromJson(config.catalogJson());
        Schema schema = catalog.require(TABLE).arrowSchema();
        List<SoakWindow> windows;
        double closeMillis;
        try (BufferAllocator allocator = new RootAllocator();
             PrintWriter csv = config.out() == null ? null : new PrintWriter(Files.newBufferedWriter(config.out()))) {
            Graph g = Palisade.create(graph, catalog, options);
            try {
                long t0 = System.nanoTime();
                preload(g, allocator, schema);
                out.printf(Locale.ROOT, "preload: %,d rows in upserts of %,d + index refresh, %.1f s; table %s%n",
                        config.rows(), LOAD_BATCH, (System.nanoTime() - t0) / 1e9, describe(DiskUsage.of(tableDir(graph))));
                if (csv != null) {
                    csv.println(SoakWindow.csvHeader());
                }
                windows = soak(g, allocator, schema, csv);
            } catch (Exception | Error e) {
                g.close();
                throw e;
            }
            long t0 = System.nanoTime();
            g.close(); // a journal-ack table folds its tail here
            closeMillis = (System.nanoTime() - t0) / 1e6;
        }
        SoakSummary summary = SoakSummary.of(windows, config.warmupSeconds(), reopen(graph, schema, closeMillis));
        out.println();
        out.print(summary.text());
        return new Result(windows, summary);
    }

    private static String describe(DiskUsage d) {
        return String.format(Locale.ROOT, "%,d files, %.1f MiB, %,d versions", d.files(), SoakWindow.mib(d.bytes()), d.manifests());
    }

    private void preload(Graph g, BufferAllocator allocator, Schema schema) {
        for (int from = 0; from < config.rows(); from += LOAD_BATCH) {
            try (VectorSchemaRoot batch = rows(allocator, schema, from, Math.min(LOAD_BATCH, config.rows() - from), 0)) {
                g.upsert("main", TABLE, batch);
            }
        }
        g.optimizeIndex("main", TABLE); // extends the BTREE made on the empty table over the loaded rows
    }

    /** {@code count} rows of keys {@code from, from + 1, ...}, {@code v = value}, random 64-character hex payloads. */
    static VectorSchemaRoot rows(BufferAllocator allocator, Schema schema, long from, int count, long value) {
        VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator);
        VarCharVector id = (VarCharVector) root.getVector("id");
        BigIntVector v = (BigIntVector) root.getVector("v");
        VarCharVector payload = (VarCharVector) root.getVector("payload");
        id.allocateNew((long) count * 9, count);
        v.allocateNew(count);
        payload.allocateNew((long) count * PAYLOAD_CHARS, count);
        ThreadLocalRandom random = ThreadLocalRandom.current();
        byte[] p = new byte[PAYLOAD_CHARS];
        for (int i = 0; i < count; i++) {
            id.setSafe(i, key(from + i).getBytes(StandardCharsets.UTF_8));
            v.set(i, value);
            for (int c = 0; c < PAYLOAD_CHARS; c++) {
                p[c] = (byte) Character.forDigit(random.nextInt(16), 16);
            }
            payload.setSafe(i, p);
        }
        root.setRowCount(count);
        return root;
    }

    static String key(long n) {
        return String.format(Locale.ROOT, "k%08d", n);
    }

    private List<SoakWindow> soak(Graph g, BufferAllocator allocator, Schema schema, PrintWriter csv) throws Exception {
        Recorder latencies = new Recorder(3); // microseconds, auto-resizing
        LongAdder failures = new LongAdder();
        AtomicBoolean stop = new AtomicBoolean();
        AtomicBoolean reported = new AtomicBoolean();
        ExecutorService pool = Executors.newFixedThreadPool(config.writers());
        List<SoakWindow> windows = new ArrayList<>();
        try {
            List<Future<?>> writers = new ArrayList<>();
            for (int i = 0; i < config.writers(); i++) {
                writers.add(pool.submit(() -> write(g, allocator, schema, latencies, failures, stop, reported)));
            }
            out.println();
            out.println(SoakWindow.header());
            Sample previous = Sample.of(g, failures);
            long start = System.nanoTime();
            long windowNanos = TimeUnit.SECONDS.toNanos(config.windowSeconds());
            for (int w = 1; (long) w * config.windowSeconds() <= config.seconds(); w++) {
                long due = start + w * windowNanos;
                for (long left = due - System.nanoTime(); left > 0; left = due - System.nanoTime()) {
                    TimeUnit.NANOSECONDS.sleep(left);
                }
                Histogram h = latencies.getIntervalHistogram();
                Sample now = Sample.of(g, failures);
                SoakWindow win = measure(g, w, h, previous, now);
                previous = now;
                windows.add(win);
                out.println(win.row());
                out.flush();
                if (csv != null) {
                    csv.println(win.csv());
                    csv.flush();
                }
            }
            stop.set(true);
            for (Future<?> f : writers) {
                f.get();
            }
        } finally {
            stop.set(true);
            pool.shutdown();
            if (!pool.awaitTermination(1, TimeUnit.MINUTES)) {
                pool.shutdownNow();
            }
        }
        return windows;
    }

    /** One closed-loop writer: upserts one random existing key at a time until {@code stop}. */
    private void write(Graph g, BufferAllocator allocator, Schema schema, Recorder latencies, LongAdder failures,
                       AtomicBoolean stop, AtomicBoolean reported) {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        while (!stop.get()) {
            try (VectorSchemaRoot row = rows(allocator, schema, random.nextLong(config.rows()), 1, random.nextLong())) {
                long t0 = System.nanoTime();
                g.upsert("main", TABLE, row);
                latencies.recordValue(Math.max(1, (System.nanoTime() - t0) / 1_000));
            } catch (RuntimeException e) {
                failures.increment();
                if (reported.compareAndSet(false, true)) {
                    out.println("first failed upsert (later ones are only counted):");
                    e.printStackTrace(out);
                }
            }
        }
    }

    /** The graph's counters and the clock at one moment. */
    private record Sample(long nanos, long failures, Metrics.Snapshot snapshot, long folds, long indexRefreshes,
                          long backPressureWaits) {
        static Sample of(Graph g, LongAdder failures) {
            Metrics m = g.metrics();
            return new Sample(System.nanoTime(), failures.sum(), m.snapshot(), m.folds(), m.autoIndexRefreshes(),
                    m.backPressureWaits());
        }
    }

    private SoakWindow measure(Graph g, int index, Histogram h, Sample a, Sample b) {
        long t0 = System.nanoTime();
        FoldMark mark = g.state().foldMark("main", TABLE);
        long lag = mark.unfolded() == 0 ? 0 : Math.max(0, System.currentTimeMillis() - mark.oldestNanos() / 1_000_000L);
        long head = g.state().head("main", TABLE).orElseThrow().version();
        System.gc();
        long heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
        Path graph = g.path();
        DiskUsage table = DiskUsage.of(tableDir(graph));
        long journal = DiskUsage.of(journalDir(graph)).bytes();
        long journalAllocated = DiskUsage.allocatedBytes(journalDir(graph));
        long palisadeAllocated = DiskUsage.allocatedBytes(journalDir(graph).getParent());
        long sampleMillis = (System.nanoTime() - t0) / 1_000_000;
        int end = index * config.windowSeconds();
        return new SoakWindow(index, end - config.windowSeconds(), end, (b.nanos() - a.nanos()) / 1e9,
                h.getTotalCount(), b.failures() - a.failures(), h.getValueAtPercentile(50) / 1e3,
                h.getValueAtPercentile(99) / 1e3, b.snapshot().substrateCommits() - a.snapshot().substrateCommits(), head,
                table, liveBytes(config.rows()), journal, journalAllocated, palisadeAllocated, heap, b.folds() - a.folds(), lag, mark.unfolded(),
                b.indexRefreshes() - a.indexRefreshes(), b.backPressureWaits() - a.backPressureWaits(), sampleMillis);
    }

    /** Opens the closed graph again and times its first read and write; the reopened graph is closed untimed. */
    private SoakSummary.Reopen reopen(Path graph, Schema schema, double closeMillis) {
        long t0 = System.nanoTime();
        try (Graph g = Palisade.open(graph, options); BufferAllocator allocator = new RootAllocator()) {
            double openMillis = (System.nanoTime() - t0) / 1e6;
            List<String> keys = List.of(key(0), key(config.rows() / 2), key(config.rows() - 1));
            t0 = System.nanoTime();
            int found = g.get("main", TABLE, keys).size();
            double getMillis = (System.nanoTime() - t0) / 1e6;
            try (VectorSchemaRoot row = rows(allocator, schema, 1, 1, 1)) {
                t0 = System.nanoTime();
                g.upsert("main", TABLE, row);
                double upsertMillis = (System.nanoTime() - t0) / 1e6;
                return new SoakSummary.Reopen(closeMillis, openMillis, keys.size(), found, getMillis, upsertMillis);
            }
        }
    }
}
