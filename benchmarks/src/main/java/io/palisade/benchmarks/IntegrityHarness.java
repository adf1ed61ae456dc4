package io.palisade.benchmarks;

import io.palisade.coordinator.Catalog;
import io.palisade.coordinator.Graph;
import io.palisade.coordinator.Options;
import io.palisade.coordinator.Palisade;
import io.palisade.coordinator.Row;
import io.palisade.fencing.PalisadeException;
import io.palisade.substrate.ArrowRows;
import org.HdrHistogram.Histogram;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;

import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

/**
 * The cost of the integrity checks (docs/integrity.md), in one run, on two graphs with the same tables and rows: one
 * whose catalog declares {@code person.email} unique and {@code works_at}'s endpoints ({@code src} person, {@code dst}
 * company), one that declares neither. Both are table-ack unless {@code --ack journal}.
 * <ol>
 *   <li>Each graph gets {@code --rows} persons (every one with an email), 1,000 companies and {@code --rows} edges,
 *       written as inserts of {@code --batch} rows (a bulk load does not check, so it is refused on the checked graph).</li>
 *   <li>Memory: heap used after a full GC before and after the checked graph builds its images (one person insert,
 *       one refused delete of a person with an edge), and the time of those two writes.</li>
 *   <li>Latency, interleaved per iteration between the graphs: a single-row edge insert, a single-row person insert
 *       with a new email, a delete of a person without edges: p50 and p99.</li>
 *   <li>Throughput: {@code --threads} writers inserting single edges for {@code --seconds}, on each graph.</li>
 *   <li>Graph transactions (docs/transactions.md): a transaction of one person and two edges to it against the same
 *       three rows written as three single writes, interleaved, p50 and p99 on each graph; then {@code --threads}
 *       writers committing such transactions for {@code --seconds}, on each graph.</li>
 * </ol>
 * With {@code --soak-seconds} it runs only a soak of graph transactions on the checked graph instead: {@code --threads}
 * writers, each hiring (a person and two edges) and, every other transaction, firing the person it hired two
 * transactions before (its edges and the person, deleted together), so the tables stay about their size; per window
 * the transactions per second, their p99, the heap after a full GC, the images built, and the journal's and the
 * tables' bytes on disk.
 *
 * <pre>
 * IntegrityHarness [--rows 1000000] [--batch 100000] [--iterations 200] [--threads 16] [--seconds 15] [--ack table]
 *                  [--dir PATH] [--soak-seconds N [--window-seconds 30]]
 * </pre>
 */
public final class IntegrityHarness {
    private int rows = 1_000_000;
    private int batch = 100_000;
    private int iterations = 200;
    private int threads = 16;
    private int seconds = 15;
    private String ack = "table";
    private Path dir;
    private int soakSeconds;
    private int windowSeconds = 30;
    private final PrintStream out = System.out;

    public static void main(String[] args) throws Exception {
        IntegrityHarness h = new IntegrityHarness();
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--rows" -> h.rows = Integer.parseInt(args[++i]);
                case "--batch" -> h.batch = Integer.parseInt(args[++i]);
                case "--iterations" -> h.iterations = Integer.parseInt(args[++i]);
                case "--threads" -> h.threads = Integer.parseInt(args[++i]);
                case "--seconds" -> h.seconds = Integer.parseInt(args[++i]);
                case "--ack" -> h.ack = args[++i];
                case "--dir" -> h.dir = Path.of(args[++i]);
                case "--soak-seconds" -> h.soakSeconds = Integer.parseInt(args[++i]);
                case "--window-seconds" -> h.windowSeconds = Integer.parseInt(args[++i]);
                default -> throw new IllegalArgumentException("usage: IntegrityHarness [--rows N] [--batch N] "
                        + "[--iterations N] [--threads N] [--seconds N] [--ack table|journal] [--dir PATH] "
                        + "[--soak-seconds N [--window-seconds N]]");
            }
        }
        h.run();
    }

    private String catalog(boolean checked) {
        return """
                {"tables": [
                  {"name": "person", "kind": "node", "ack": "%1$s", %2$s "columns": [
                    {"name": "id", "type": "string"}, {"name": "email", "type": "string", "nullable": true}]},
                  {"name": "company", "kind": "node", "ack": "%1$s", "columns": [{"name": "id", "type": "string"}]},
                  {"name": "works_at", "kind": "edge", "ack": "%1$s", %3$s "columns": [
                    {"name": "id", "type": "string"}, {"name": "src", "type": "string"}, {"name": "dst", "type": "string"}]}
                ]}""".formatted(ack, checked ? "\"unique\": [\"email\"]," : "",
                checked ? "\"src\": \"person\", \"dst\": \"company\"," : "");
    }

    private void run() throws Exception {
        Path root = dir != null ? dir : Files.createTempDirectory("palisade-integrity-");
        out.printf(Locale.ROOT, "rows=%,d batch=%,d iterations=%d threads=%d seconds=%d ack=%s java=%s cores=%d maxHeap=%,d MiB%n",
                rows, batch, iterations, threads, seconds, ack, System.getProperty("java.version"),
                Runtime.getRuntime().availableProcessors(), Runtime.getRuntime().maxMemory() >> 20);
        Options options = Options.defaults();
        try (BufferAllocator allocator = new RootAllocator()) {
            for (boolean checked : new boolean[] {true, false}) {
                try (Graph g = Palisade.create(root.resolve(checked ? "checked" : "free"), Catalog.fromJson(catalog(checked)),
                        options)) {
                    long t = System.nanoTime();
                    fill(g, allocator);
                    out.printf(Locale.ROOT, "%s: %,d persons, 1,000 companies, %,d edges written in %.1f s%n",
                            checked ? "checked" : "unchecked", rows, rows, (System.nanoTime() - t) / 1e9);
                }
            }
        }
        // reopened: the checked graph's images are built by the first writes that need them, measured here
        try (Graph checked = Palisade.open(root.resolve("checked"), options);
             Graph free = Palisade.open(root.resolve("free"), options)) {
            if (soakSeconds > 0) {
                soak(checked, root.resolve("checked"));
                return;
            }
            memory(checked);
            latency(checked, free);
            throughput(checked, free);
            transactionLatency(checked, free);
            transactionThroughput(checked, free);
        } finally {
            if (dir == null) {
                deleteTree(root);
            }
        }
    }

    private void fill(Graph g, BufferAllocator allocator) {
        List<Row> companies = new ArrayList<>();
        for (int c = 0; c < 1000; c++) {
            companies.add(Row.of("id", "c" + c));
        }
        g.insert("main", "company", companies);
        for (String table : List.of("person", "works_at")) {
            for (int from = 0; from < rows; from += batch) {
                int n = Math.min(batch, rows - from);
                try (VectorSchemaRoot r = VectorSchemaRoot.create(g.catalog().require(table).arrowSchema(), allocator)) {
                    List<Map<String, Object>> rs = new ArrayList<>(n);
                    for (int i = from; i < from + n; i++) {
                        Map<String, Object> m = new HashMap<>();
                        if (table.equals("person")) {
                            m.put("id", "p" + i);
                            m.put("email", "user" + i + "@example.com");
                        } else {
                            m.put("id", "e" + i);
                            m.put("src", "p" + i);
                            m.put("dst", "c" + (i % 1000));
                        }
                        rs.add(m);
                    }
                    ArrowRows.fill(r, rs);
                    g.insert("main", table, r);
                }
            }
        }
        g.optimizeIndex("main", "person");
        g.optimizeIndex("main", "works_at");
    }

    private static long usedAfterGc() {
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    private final AtomicLong next = new AtomicLong();

    private void memory(Graph checked) {
        long before = usedAfterGc();
        long t = System.nanoTime();
        checked.insert("main", "person", List.of(Row.of("id", "q" + next.incrementAndGet(), "email", "new" + next.get() + "@example.com")));
        long personImage = System.nanoTime() - t;
        long afterPerson = usedAfterGc();
        t = System.nanoTime();
        try {
            checked.delete("main", "person", List.of("p0"));
            throw new IllegalStateException("the delete of a person with an edge was not refused");
        } catch (PalisadeException expected) {
            // refused: p0 has the edge e0
        }
        long edgeImage = System.nanoTime() - t;
        long afterEdges = usedAfterGc();
        t = System.nanoTime();
        checked.insert("main", "works_at", List.of(Row.of("id", "w" + next.incrementAndGet(), "src", "p1", "dst", "c1")));
        long companyImage = System.nanoTime() - t;
        long afterCompany = usedAfterGc();
        out.printf(Locale.ROOT, "%nimages, built by the first write that needs each, heap used after a full GC (%,d MiB before)%n",
                before >> 20);
        out.println("| image | rows | columns | built by | time (ms) | heap (MiB) | bytes per row |");
        out.println("|---|---:|---|---|---:|---:|---:|");
        out.printf(Locale.ROOT, "| person | %,d | id, email (unique) | a person insert | %.0f | %,d | %,d |%n", rows,
                personImage / 1e6, (afterPerson - before) >> 20, (afterPerson - before) / rows);
        out.printf(Locale.ROOT, "| works_at | %,d | id, src, dst (counted) | a refused person delete | %.0f | %,d | %,d |%n", rows,
                edgeImage / 1e6, (afterEdges - afterPerson) >> 20, (afterEdges - afterPerson) / rows);
        out.printf(Locale.ROOT, "| company | 1,000 | id | an edge insert | %.0f | %,d | %,d |%n",
                companyImage / 1e6, (afterCompany - afterEdges) >> 20, (afterCompany - afterEdges) / 1000);
    }

    private void latency(Graph checked, Graph free) {
        Histogram[][] h = new Histogram[3][2];
        for (Histogram[] x : h) {
            x[0] = new Histogram(3);
            x[1] = new Histogram(3);
        }
        Graph[] graphs = {checked, free};
        for (int i = 0; i < iterations + 10; i++) {
            for (int gi = 0; gi < 2; gi++) {
                Graph g = graphs[gi];
                long n = next.incrementAndGet();
                long t0 = System.nanoTime();
                g.insert("main", "works_at", List.of(Row.of("id", "x" + n, "src", "p" + (n % rows), "dst", "c" + (n % 1000))));
                long t1 = System.nanoTime();
                g.insert("main", "person", List.of(Row.of("id", "y" + n, "email", "y" + n + "@example.com")));
                long t2 = System.nanoTime();
                g.delete("main", "person", List.of("y" + n));
                long t3 = System.nanoTime();
                if (i >= 10) {
                    h[0][gi].recordValue((t1 - t0) / 1000);
                    h[1][gi].recordValue((t2 - t1) / 1000);
                    h[2][gi].recordValue((t3 - t2) / 1000);
                }
            }
        }
        out.printf(Locale.ROOT, "%nlatency, single-row writes, %d iterations interleaved between the graphs (ms)%n", iterations);
        out.println("| write | checked p50 | unchecked p50 | ratio | checked p99 | unchecked p99 |");
        out.println("|---|---:|---:|---:|---:|---:|");
        String[] names = {"edge insert (endpoints looked up)", "person insert (unique email)", "person delete (edges looked up)"};
        for (int k = 0; k < 3; k++) {
            double c50 = h[k][0].getValueAtPercentile(50) / 1000.0;
            double f50 = h[k][1].getValueAtPercentile(50) / 1000.0;
            out.printf(Locale.ROOT, "| %s | %.2f | %.2f | %.2f | %.2f | %.2f |%n", names[k], c50, f50, c50 / f50,
                    h[k][0].getValueAtPercentile(99) / 1000.0, h[k][1].getValueAtPercentile(99) / 1000.0);
        }
    }

    private void throughput(Graph checked, Graph free) throws Exception {
        out.printf(Locale.ROOT, "%nthroughput, %d writers inserting single edges for %d s%n", threads, seconds);
        out.println("| graph | writes/s | refused |");
        out.println("|---|---:|---:|");
        for (Graph g : List.of(checked, free, checked, free)) {
            ExecutorService pool = Executors.newFixedThreadPool(threads);
            long end = System.nanoTime() + seconds * 1_000_000_000L;
            AtomicLong done = new AtomicLong();
            AtomicLong refused = new AtomicLong();
            List<Future<?>> fs = new ArrayList<>();
            for (int w = 0; w < threads; w++) {
                fs.add(pool.submit(() -> {
                    while (System.nanoTime() < end) {
                        long n = next.incrementAndGet();
                        try {
                            g.insert("main", "works_at", List.of(Row.of("id", "z" + n, "src", "p" + (n % rows), "dst", "c" + (n % 1000))));
                            done.incrementAndGet();
                        } catch (PalisadeException e) {
                            refused.incrementAndGet();
                        }
                    }
                }));
            }
            for (Future<?> f : fs) {
                f.get();
            }
            pool.shutdown();
            out.printf(Locale.ROOT, "| %s | %,.0f | %d |%n", g == checked ? "checked" : "unchecked",
                    done.get() / (double) seconds, refused.get());
        }
    }

    /** One person and two edges naming it (and two companies): {@code n} makes the ids new. */
    private void hire(Graph g, long n, boolean transaction) {
        Row person = Row.of("id", "t" + n, "email", "t" + n + "@example.com");
        Row e1 = Row.of("id", "ta" + n, "src", "t" + n, "dst", "c" + (n % 1000));
        Row e2 = Row.of("id", "tb" + n, "src", "t" + n, "dst", "c" + ((n + 1) % 1000));
        if (transaction) {
            g.transaction("main").insert("person", List.of(person)).insert("works_at", List.of(e1, e2)).commit();
        } else {
            g.insert("main", "person", List.of(person));
            g.insert("main", "works_at", List.of(e1));
            g.insert("main", "works_at", List.of(e2));
        }
    }

    private void transactionLatency(Graph checked, Graph free) {
        Histogram[][] h = new Histogram[2][2]; // [transaction, three writes][checked, free]
        for (Histogram[] x : h) {
            x[0] = new Histogram(3);
            x[1] = new Histogram(3);
        }
        Graph[] graphs = {checked, free};
        for (int i = 0; i < iterations + 10; i++) {
            for (int gi = 0; gi < 2; gi++) {
                for (int k = 0; k < 2; k++) {
                    long t0 = System.nanoTime();
                    hire(graphs[gi], next.incrementAndGet(), k == 0);
                    if (i >= 10) {
                        h[k][gi].recordValue((System.nanoTime() - t0) / 1000);
                    }
                }
            }
        }
        out.printf(Locale.ROOT, "%ngraph transactions: one person and two edges, %d iterations interleaved (ms)%n",
                iterations);
        out.println("| graph | transaction p50 | three single writes p50 | ratio | transaction p99 | three writes p99 |");
        out.println("|---|---:|---:|---:|---:|---:|");
        for (int gi = 0; gi < 2; gi++) {
            double t50 = h[0][gi].getValueAtPercentile(50) / 1000.0;
            double s50 = h[1][gi].getValueAtPercentile(50) / 1000.0;
            out.printf(Locale.ROOT, "| %s | %.2f | %.2f | %.2f | %.2f | %.2f |%n", gi == 0 ? "checked" : "unchecked",
                    t50, s50, t50 / s50, h[0][gi].getValueAtPercentile(99) / 1000.0,
                    h[1][gi].getValueAtPercentile(99) / 1000.0);
        }
    }

    private void transactionThroughput(Graph checked, Graph free) throws Exception {
        out.printf(Locale.ROOT, "%ngraph transactions, %d writers each committing one person and two edges for %d s%n",
                threads, seconds);
        out.println("| graph | transactions/s | rows/s | refused |");
        out.println("|---|---:|---:|---:|");
        for (Graph g : List.of(checked, free, checked, free)) {
            ExecutorService pool = Executors.newFixedThreadPool(threads);
            long end = System.nanoTime() + seconds * 1_000_000_000L;
            AtomicLong done = new AtomicLong();
            AtomicLong refused = new AtomicLong();
            List<Future<?>> fs = new ArrayList<>();
            for (int w = 0; w < threads; w++) {
                fs.add(pool.submit(() -> {
                    while (System.nanoTime() < end) {
                        try {
                            hire(g, next.incrementAndGet(), true);
                            done.incrementAndGet();
                        } catch (PalisadeException e) {
                            refused.incrementAndGet();
                        }
                    }
                }));
            }
            for (Future<?> f : fs) {
                f.get();
            }
            pool.shutdown();
            out.printf(Locale.ROOT, "| %s | %,.0f | %,.0f | %d |%n", g == checked ? "checked" : "unchecked",
                    done.get() / (double) seconds, 3 * done.get() / (double) seconds, refused.get());
        }
    }

    private void soak(Graph g, Path graphDir) throws Exception {
        out.printf(Locale.ROOT, "%nsoak: %d writers, graph transactions (hire; every other one fires an earlier hire), %d s in "
                + "%d s windows%n", threads, soakSeconds, windowSeconds);
        out.println("| window end (s) | transactions/s | p99 ms | heap after GC MiB | image builds | journal MiB | tables MiB |");
        out.println("|---:|---:|---:|---:|---:|---:|---:|");
        org.HdrHistogram.Recorder recorder = new org.HdrHistogram.Recorder(3);
        AtomicLong done = new AtomicLong();
        long start = System.nanoTime();
        long end = start + soakSeconds * 1_000_000_000L;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        List<Future<?>> fs = new ArrayList<>();
        for (int w = 0; w < threads; w++) {
            fs.add(pool.submit(() -> {
                java.util.ArrayDeque<Long> hired = new java.util.ArrayDeque<>();
                while (System.nanoTime() < end) {
                    long t0 = System.nanoTime();
                    if (hired.size() >= 2 && (done.get() & 1) == 0) {
                        long n = hired.pollFirst();
                        g.transaction("main").delete("works_at", List.of("ta" + n, "tb" + n))
                                .delete("person", List.of("t" + n)).commit();
                    } else {
                        long n = next.incrementAndGet();
                        hire(g, n, true);
                        hired.addLast(n);
                    }
                    recorder.recordValue((System.nanoTime() - t0) / 1000);
                    done.incrementAndGet();
                }
                return null;
            }));
        }
        long windowEnd = start;
        long before = 0;
        while (windowEnd < end) {
            windowEnd = Math.min(end, windowEnd + windowSeconds * 1_000_000_000L);
            Thread.sleep(Math.max(0, (windowEnd - System.nanoTime()) / 1_000_000));
            long n = done.get();
            Histogram h = recorder.getIntervalHistogram();
            out.printf(Locale.ROOT, "| %d | %,.0f | %.2f | %,d | %d | %,.0f | %,.0f |%n", (windowEnd - start) / 1_000_000_000L,
                    (n - before) / (double) windowSeconds, h.getValueAtPercentile(99) / 1000.0, usedAfterGc() >> 20,
                    g.metrics().integrityImageBuilds(), bytes(graphDir.resolve("_palisade")) / 1048576.0,
                    bytes(graphDir.resolve("tables")) / 1048576.0);
            before = n;
        }
        for (Future<?> f : fs) {
            f.get();
        }
        pool.shutdown();
    }

    /** The file lengths under {@code dir} (a file the graph removes during the walk is left out). */
    private static long bytes(Path dir) {
        return DiskUsage.of(dir).bytes();
    }

    private static void deleteTree(Path root) throws IOException {
        try (Stream<Path> s = Files.walk(root)) {
            s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }
}
