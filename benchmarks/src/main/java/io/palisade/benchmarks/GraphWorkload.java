package io.palisade.benchmarks;

import io.palisade.coordinator.Graph;
import io.palisade.coordinator.Metrics;
import io.palisade.fencing.PalisadeException;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.LongAdder;

/**
 * The coordinator workloads the whole-process harnesses share (CoordinatorLatencyHarness, ObjectStoreLatencyHarness,
 * KafkaCoordinatorHarness), so that graphs compared across harnesses run the same code: one table {@code item}
 * ({@code id} string key {@code k%08d}, {@code v} int64), loaded with upserts and then index-refreshed, single-row
 * upserts of random existing keys timed around {@code Graph.upsert} (receipt durable), and T writer threads doing
 * such upserts for a fixed duration.
 *
 * <p>{@link #compare} runs one set of graphs side by side: latency interleaved per iteration (every graph upserts the
 * same key in turn, so all share the machine's noise), then throughput in alternating rounds (graph 1, graph 2, ...,
 * graph 1, ...), summed per graph, so a load spike from another process hits all graphs alike.
 */
final class GraphWorkload {
    /** The catalog every harness graph uses: the rows of {@link UpsertCostHarness#rows}. */
    static final String CATALOG = """
            {"tables": [{"name": "item", "kind": "node", "columns": [{"name": "id", "type": "string"},
              {"name": "v", "type": "int64", "nullable": true}]}]}
            """;
    static final int LOAD_BATCH = 100_000;

    private GraphWorkload() {
    }

    /** A graph under comparison and the name its rows print under. */
    record Named(String name, Graph graph) {
    }

    /** Upserts {@code rows} new keys in batches of {@link #LOAD_BATCH}; the index is not refreshed. */
    static void load(Graph g, BufferAllocator allocator, int rows) {
        for (int from = 0; from < rows; from += LOAD_BATCH) {
            int n = Math.min(LOAD_BATCH, rows - from);
            try (VectorSchemaRoot batch = UpsertCostHarness.rows(allocator, from, n, 0)) {
                // upsert, not the strict insert: a strict insert on the indexed path first looks up every key
                // (IN-list scans of 512 keys), which makes a bulk load quadratic; the keys are all new anyway
                g.upsert("main", "item", batch);
            }
        }
    }

    /** {@link #load}, then extends the BTREE (built on the empty table at create) over the loaded rows. */
    static void loadAndIndex(Graph g, BufferAllocator allocator, int rows) {
        load(g, allocator, rows);
        g.optimizeIndex("main", "item"); // journaled, planned and judged maintenance (docs/coordinator.md)
    }

    /** One single-row upsert of {@code key}, in milliseconds until the receipt. */
    static double upsert(Graph g, BufferAllocator allocator, long key, long value) {
        try (VectorSchemaRoot row = UpsertCostHarness.rows(allocator, key, 1, value)) {
            long t0 = System.nanoTime();
            g.upsert("main", "item", row);
            return (System.nanoTime() - t0) / 1e6;
        }
    }

    /** One graph's throughput run: acknowledged upserts, failed ones, wall seconds, and its commit profile. */
    record Throughput(long upserts, long failures, double seconds, Profile profile) {
        Throughput {
            if (upserts < 0 || failures < 0 || seconds < 0) {
                throw new IllegalArgumentException("negative throughput figures: " + upserts + ", " + failures + ", " + seconds);
            }
        }

        static final Throughput NONE = new Throughput(0, 0, 0, Profile.NONE);

        double perSecond() {
            return seconds == 0 ? 0 : upserts / seconds;
        }

        /** Two rounds of the same graph as one: counts and seconds add, the profile is their weighted union. */
        Throughput plus(Throughput o) {
            return new Throughput(upserts + o.upserts, failures + o.failures, seconds + o.seconds, profile.plus(o.profile));
        }
    }

    /**
     * The coordinator's commits between two metrics snapshots of one graph: writes, substrate commits (groups) and the
     * total time in each phase. Additive ({@link #plus}), so rounds of one graph sum; the means divide by groups.
     */
    record Profile(long writes, long groups, double phaseAMicros, double phaseBMicros, double phaseCDMicros,
                   long writeConflicts, long retries) {
        static final Profile NONE = new Profile(0, 0, 0, 0, 0, 0, 0);

        Profile {
            if (writes < 0 || groups < 0 || writeConflicts < 0 || retries < 0) {
                throw new IllegalArgumentException("a profile counts forward: " + writes + " writes, " + groups + " groups");
            }
        }

        /** What happened between {@code a} and the later {@code b} (Metrics keeps per-commit means; undone here). */
        static Profile between(Metrics.Snapshot a, Metrics.Snapshot b) {
            return new Profile(b.commits() - a.commits(), b.substrateCommits() - a.substrateCommits(),
                    b.meanPhaseAMicros() * b.substrateCommits() - a.meanPhaseAMicros() * a.substrateCommits(),
                    b.meanPhaseBMicros() * b.substrateCommits() - a.meanPhaseBMicros() * a.substrateCommits(),
                    b.meanPhaseCDMicros() * b.substrateCommits() - a.meanPhaseCDMicros() * a.substrateCommits(),
                    b.writeConflicts() - a.writeConflicts(), b.retries() - a.retries());
        }

        Profile plus(Profile o) {
            return new Profile(writes + o.writes, groups + o.groups, phaseAMicros + o.phaseAMicros,
                    phaseBMicros + o.phaseBMicros, phaseCDMicros + o.phaseCDMicros, writeConflicts + o.writeConflicts,
                    retries + o.retries);
        }

        double meanGroup() {
            return groups == 0 ? 0 : (double) writes / groups;
        }

        double meanPhaseAMillis() {
            return groups == 0 ? 0 : phaseAMicros / groups / 1e3;
        }

        double meanPhaseBMillis() {
            return groups == 0 ? 0 : phaseBMicros / groups / 1e3;
        }

        double meanPhaseCDMillis() {
            return groups == 0 ? 0 : phaseCDMicros / groups / 1e3;
        }
    }

    /** {@code threads} threads upsert random keys of {@code [0, rows)} into {@code g} for {@code nanos}. */
    static Throughput throughput(Graph g, BufferAllocator allocator, int rows, int threads, long nanos) throws Exception {
        Metrics.Snapshot m0 = g.metrics().snapshot();
        LongAdder ok = new LongAdder();
        LongAdder failed = new LongAdder();
        double secs = runThreads(threads, () -> {
            long end = System.nanoTime() + nanos;
            while (System.nanoTime() < end) {
                try (VectorSchemaRoot row = UpsertCostHarness.rows(allocator, ThreadLocalRandom.current().nextLong(rows), 1, 7)) {
                    g.upsert("main", "item", row);
                    ok.increment();
                } catch (PalisadeException e) {
                    failed.increment();
                }
            }
        });
        return new Throughput(ok.sum(), failed.sum(), secs, Profile.between(m0, g.metrics().snapshot()));
    }

    /** Runs {@code body} on {@code threads} threads at once; wall seconds until the last returns. */
    static double runThreads(int threads, Runnable body) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            long t0 = System.nanoTime();
            List<Future<?>> fs = new ArrayList<>();
            for (int i = 0; i < threads; i++) {
                fs.add(pool.submit(body));
            }
            for (Future<?> f : fs) {
                f.get();
            }
            return (System.nanoTime() - t0) / 1e9;
        } finally {
            pool.shutdownNow();
        }
    }

    /**
     * Latency then throughput of {@code graphs} side by side (see the class comment), printed as Markdown tables.
     * Every graph must hold {@code rows} loaded rows.
     */
    static void compare(PrintStream out, List<Named> graphs, BufferAllocator allocator, int rows, int warmup,
                        int iterations, int writers, int seconds, int rounds, long seed) throws Exception {
        SplittableRandom random = new SplittableRandom(seed);
        List<List<Double>> lat = new ArrayList<>();
        graphs.forEach(g -> lat.add(new ArrayList<>()));
        List<Metrics.Snapshot> m0 = new ArrayList<>();
        for (int i = 0; i < warmup + iterations; i++) {
            if (i == warmup) {
                graphs.forEach(g -> m0.add(g.graph().metrics().snapshot()));
            }
            long key = random.nextLong(rows);
            for (int k = 0; k < graphs.size(); k++) {
                double ms = upsert(graphs.get(k).graph(), allocator, key, i);
                if (i >= warmup) {
                    lat.get(k).add(ms);
                }
            }
        }
        out.println();
        out.printf(Locale.ROOT, "load average after the latency phase: %.1f%n", loadAverage());
        out.printf(Locale.ROOT, "single-row upsert latency, %,d rows, %d upserts of random existing keys after %d warm-up, "
                + "interleaved (ms)%n", rows, iterations, warmup);
        out.println("| graph | p50 | p90 | p99 | mean | phase A | phase B | phase C-D |");
        out.println("|---|---:|---:|---:|---:|---:|---:|---:|");
        for (int k = 0; k < graphs.size(); k++) {
            CoordinatorLatencyHarness.Stats s = CoordinatorLatencyHarness.Stats.of(lat.get(k));
            Profile p = Profile.between(m0.get(k), graphs.get(k).graph().metrics().snapshot());
            out.printf(Locale.ROOT, "| %s | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f |%n", graphs.get(k).name(),
                    s.median(), s.p90(), s.p99(), s.mean(), p.meanPhaseAMillis(), p.meanPhaseBMillis(), p.meanPhaseCDMillis());
        }

        List<Throughput> tput = new ArrayList<>();
        graphs.forEach(g -> tput.add(Throughput.NONE));
        long nanos = seconds * 1_000_000_000L;
        for (int r = 0; r < rounds; r++) {
            for (int k = 0; k < graphs.size(); k++) {
                tput.set(k, tput.get(k).plus(throughput(graphs.get(k).graph(), allocator, rows, writers, nanos)));
            }
        }
        out.println();
        out.printf(Locale.ROOT, "load average after the throughput phase: %.1f%n", loadAverage());
        out.printf(Locale.ROOT, "throughput, %d writer threads, single-row upserts of random existing keys, %d alternating "
                + "round(s) of %d s per graph, %,d rows%n", writers, rounds, seconds, rows);
        out.println("| graph | upserts | upserts/s | failures | commits | mean group | phase A ms | phase B ms | phase C-D ms "
                + "| write conflicts | retries |");
        out.println("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
        for (int k = 0; k < graphs.size(); k++) {
            Throughput t = tput.get(k);
            Profile p = t.profile();
            out.printf(Locale.ROOT, "| %s | %,d | %.1f | %d | %,d | %.1f | %.1f | %.1f | %.1f | %d | %d |%n",
                    graphs.get(k).name(), t.upserts(), t.perSecond(), t.failures(), p.groups(), p.meanGroup(),
                    p.meanPhaseAMillis(), p.meanPhaseBMillis(), p.meanPhaseCDMillis(), p.writeConflicts(), p.retries());
        }
        for (int k = 1; k < graphs.size(); k++) {
            out.printf(Locale.ROOT, "%s / %s: latency p50 %.2fx, throughput %.2fx%n", graphs.get(k).name(),
                    graphs.get(0).name(), CoordinatorLatencyHarness.Stats.of(lat.get(k)).median()
                            / CoordinatorLatencyHarness.Stats.of(lat.get(0)).median(),
                    tput.get(k).perSecond() / Math.max(tput.get(0).perSecond(), 1e-9));
        }
    }

    /** {@code value} parsed as an integer of at least 1, else a clear error naming {@code option}. */
    static int positive(String option, String value) {
        return atLeast(option, value, 1);
    }

    /** {@code value} parsed as an integer of at least {@code min}, else a clear error naming {@code option}. */
    static int atLeast(String option, String value, int min) {
        int v;
        try {
            v = Integer.parseInt(value.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(option + " takes a whole number, not '" + value + "'");
        }
        if (v < min) {
            throw new IllegalArgumentException(option + " must be at least " + min + ", not " + v);
        }
        return v;
    }

    /** A comma-separated list of {@link #positive} numbers (e.g. {@code --brokers 1,3}). */
    static List<Integer> positives(String option, String value) {
        List<Integer> out = new ArrayList<>();
        for (String part : value.split(",", -1)) {
            out.add(positive(option, part));
        }
        return List.copyOf(out);
    }

    /** The 1-minute load average, or -1 where the platform has none (printed beside every run). */
    static double loadAverage() {
        return java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
    }

    /**
     * The options every comparison harness takes ({@code --rows --iterations --warmup --writers --seconds --rounds
     * --seed}) with its defaults; a harness's own options go to the handlers of {@link #parse}.
     */
    static final class Settings {
        int rows = 10_000;
        int iterations;
        int warmup;
        int writers = 16;
        int seconds = 15;
        int rounds = 2;
        long seed = 42;

        private Settings(int iterations, int warmup) {
            this.iterations = iterations;
            this.warmup = warmup;
        }

        /**
         * Parses {@code args} over the defaults (and {@code iterations}, {@code warmup}); an option named in
         * {@code extra} gets its value through its handler. A missing value or an unknown option is a clear error
         * that names the options ({@code extraUsage}: the harness's own, e.g. {@code "--dir PATH"}).
         */
        static Settings parse(String[] args, int iterations, int warmup,
                              java.util.Map<String, java.util.function.Consumer<String>> extra, String extraUsage) {
            String usage = "options: --rows N --iterations N --warmup N --writers N --seconds N --rounds N --seed N "
                    + extraUsage;
            Settings s = new Settings(iterations, warmup);
            for (int i = 0; i < args.length; i++) {
                if (i + 1 >= args.length) {
                    throw new IllegalArgumentException("option " + args[i] + " needs a value (" + usage.trim() + ")");
                }
                String value = args[++i];
                switch (args[i - 1]) {
                    case "--rows" -> s.rows = positive("--rows", value);
                    case "--iterations" -> s.iterations = positive("--iterations", value);
                    case "--warmup" -> s.warmup = atLeast("--warmup", value, 0);
                    case "--writers" -> s.writers = positive("--writers", value);
                    case "--seconds" -> s.seconds = positive("--seconds", value);
                    case "--rounds" -> s.rounds = positive("--rounds", value);
                    case "--seed" -> s.seed = Long.parseLong(value);
                    default -> {
                        java.util.function.Consumer<String> handler = extra.get(args[i - 1]);
                        if (handler == null) {
                            throw new IllegalArgumentException("unknown option " + args[i - 1] + " (" + usage.trim() + ")");
                        }
                        handler.accept(value);
                    }
                }
            }
            return s;
        }

        /** The run's header line: the settings, then {@code more}, the JVM and the machine's load. */
        String header(String more) {
            return String.format(Locale.ROOT, "rows=%,d iterations=%d warmup=%d writers=%d seconds=%d rounds=%d %sjava=%s "
                            + "cores=%d load average %.1f", rows, iterations, warmup, writers, seconds, rounds,
                    more.isEmpty() ? "" : more + " ", System.getProperty("java.version"),
                    Runtime.getRuntime().availableProcessors(), loadAverage());
        }
    }
}
