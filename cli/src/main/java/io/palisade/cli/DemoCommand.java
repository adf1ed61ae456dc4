package io.palisade.cli;

import io.palisade.coordinator.Catalog;
import io.palisade.coordinator.Graph;
import io.palisade.coordinator.Options;
import io.palisade.coordinator.Palisade;
import io.palisade.coordinator.Receipt;
import io.palisade.coordinator.WriteOptions;
import io.palisade.fencing.KeyConflictException;
import io.palisade.journal.VerificationReport;
import io.palisade.substrate.ArrowRows;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

@Command(name = "demo", mixinStandardHelpOptions = true,
        description = {"Try Palisade in a minute: races, a killed writer, recovery.",
                "It creates a graph, races concurrent writers on the same keys, kills a writer process mid-write "
                        + "(SIGKILL), reopens the graph (recovery runs) and prints what happened, with the commands "
                        + "to look deeper. Without DIR a fresh temporary directory is used (its path is printed)."},
        footer = {"%nExample:%n  palisade demo /tmp/palisade-demo"})
final class DemoCommand implements java.util.concurrent.Callable<Integer> {
    static final String CATALOG = """
            {"tables": [
              {"name": "person", "kind": "node", "columns": [{"name": "id", "type": "string"},
                {"name": "name", "type": "string", "nullable": true}, {"name": "age", "type": "int64", "nullable": true}]},
              {"name": "knows", "kind": "edge", "columns": [{"name": "id", "type": "string"},
                {"name": "src", "type": "string"}, {"name": "dst", "type": "string"}]}
            ]}""";

    @Parameters(index = "0", arity = "0..1", paramLabel = "DIR", description = "Where to create the demo graph (DIR/graph).")
    Path dir;

    private final PrintStream out = System.out;

    @Override
    public Integer call() throws Exception {
        if (dir == null) {
            dir = Files.createTempDirectory("palisade-demo-");
        }
        Files.createDirectories(dir);
        Path graph = dir.resolve("graph").toAbsolutePath();
        if (Files.exists(graph)) {
            throw new CliException(Main.INVALID_INPUT, "demo graph " + graph + " already exists; pass an empty DIR");
        }
        out.println("Palisade demo in " + dir.toAbsolutePath());
        out.println("graph: " + graph);
        out.println();
        Catalog catalog = Catalog.fromJson(CATALOG);
        int threads = 8;
        int rounds = 5;
        int winners = 0;
        int losers = 0;
        List<String> hotIntents = new CopyOnWriteArrayList<>();
        try (Graph g = Palisade.create(graph, catalog, Options.defaults()); BufferAllocator alloc = new RootAllocator()) {
            Catalog.TableDef person = catalog.require("person");
            out.println("1. Strict-insert race: " + threads + " threads insert the SAME 3 new keys at once, " + rounds + " rounds.");
            for (int round = 0; round < rounds; round++) {
                CountDownLatch go = new CountDownLatch(1);
                AtomicInteger won = new AtomicInteger();
                AtomicInteger lost = new AtomicInteger();
                AtomicInteger retried = new AtomicInteger();
                Map<String, String> winner = new ConcurrentHashMap<>();
                List<Thread> ts = new ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    int tid = t;
                    int r = round;
                    ts.add(Thread.ofPlatform().start(() -> {
                        List<Map<String, Object>> rows = new ArrayList<>();
                        for (int k = 0; k < 3; k++) {
                            rows.add(row("race" + r + "-" + k, "thread " + tid, 30 + tid));
                        }
                        try (VectorSchemaRoot root = VectorSchemaRoot.create(person.arrowSchema(), alloc)) {
                            ArrowRows.fill(root, rows);
                            go.await();
                            // one idempotency key per racer: the report and explain link its retry to the loss
                            Receipt rc = g.insert("main", "person", root, WriteOptions.idempotencyKey("race" + r + "-thread" + tid));
                            won.incrementAndGet();
                            winner.put("w", "thread " + tid + " (intent " + rc.intent() + ")");
                        } catch (KeyConflictException e) {
                            lost.incrementAndGet();
                            if (r == 0) { // round 0's losers retry as an upsert: a retry the report shows
                                try (VectorSchemaRoot again = VectorSchemaRoot.create(person.arrowSchema(), alloc)) {
                                    ArrowRows.fill(again, rows);
                                    g.upsert("main", "person", again, WriteOptions.idempotencyKey("race0-thread" + tid));
                                    retried.incrementAndGet();
                                }
                            }
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    }));
                }
                go.countDown();
                for (Thread t : ts) {
                    t.join();
                }
                winners += won.get();
                losers += lost.get();
                out.println("   round " + round + ": keys race" + round + "-0..2 -> " + won.get() + " winner ("
                        + winner.get("w") + "), " + lost.get() + " KeyConflictException"
                        + (retried.get() > 0 ? "; the " + retried.get() + " losers retried as upserts (all applied)" : ""));
            }
            int dups = duplicates(g.scan("main", "person"));
            out.println("   => " + winners + " winners, " + losers + " key conflicts; duplicate ids in the table: " + dups
                    + " (raw Lance on the indexed path lets same-key racers all commit)");
            out.println();

            out.println("2. Upsert race: " + threads + " threads upsert the same key 'hot' 4 times each.");
            CountDownLatch go = new CountDownLatch(1);
            List<Thread> ts = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int tid = t;
                ts.add(Thread.ofPlatform().start(() -> {
                    try {
                        go.await();
                        for (int i = 0; i < 4; i++) {
                            try (VectorSchemaRoot root = VectorSchemaRoot.create(person.arrowSchema(), alloc)) {
                                ArrowRows.fill(root, List.of(row("hot", "thread " + tid + " write " + i, 40 + i)));
                                hotIntents.add(g.upsert("main", "person", root, WriteOptions.NONE).intent());
                            }
                        }
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }));
            }
            go.countDown();
            for (Thread t : ts) {
                t.join();
            }
            Object last = g.scan("main", "person").stream().filter(r -> "hot".equals(r.get("id"))).findFirst()
                    .map(r -> r.get("name")).orElse(null);
            out.println("   => " + hotIntents.size() + " upserts applied in one serial order; 'hot' now says \"" + last
                    + "\" (the last in journal order)");
            out.println();
        }

        out.println("3. A writer child process upserts 400-row batches from 3 threads; it is killed (SIGKILL) mid-write.");
        Map<String, String> acked = new LinkedHashMap<>();
        Path childErr = dir.resolve("writer-child.stderr");
        Process child = spawnWriter(graph, childErr);
        long pid = child.pid();
        CountDownLatch enough = new CountDownLatch(8);
        Thread reader = Thread.ofPlatform().daemon().start(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = in.readLine()) != null) {
                    if (line.startsWith("ACK ")) {
                        String[] p = line.split(" ");
                        acked.put(p[1], p[2]);
                        enough.countDown();
                    }
                }
            } catch (java.io.IOException ignored) {
                // the child was killed
            }
        });
        boolean got = enough.await(90, TimeUnit.SECONDS);
        Thread.sleep(37); // land somewhere inside the next write
        child.destroyForcibly();
        child.waitFor(30, TimeUnit.SECONDS);
        reader.join(2000);
        if (!got && acked.isEmpty()) {
            throw new CliException(Main.INTERNAL, "the writer child (pid " + pid + ") acknowledged nothing; see " + childErr);
        }
        out.println("   child pid " + pid + " acknowledged " + acked.size() + " batches, then was killed (exit "
                + child.exitValue() + ")");
        out.println();

        out.println("4. Reopen the graph: recovery runs before any write is accepted.");
        Map<String, Object> report = RecoverCommand.recover(graph, false);
        for (String l : RecoverCommand.text(report).split("\n")) {
            out.println("   " + l);
        }
        out.println();

        out.println("5. Check what survived.");
        List<Map<String, Object>> rows;
        try (Graph g = Palisade.open(graph, Options.defaults())) {
            rows = g.scan("main", "person");
        }
        Map<String, Integer> perBatch = new HashMap<>();
        for (Map<String, Object> r : rows) {
            String id = String.valueOf(r.get("id"));
            if (id.startsWith("w")) {
                perBatch.merge(id.substring(0, id.lastIndexOf('-')), 1, Integer::sum);
            }
        }
        int ackedPresent = 0;
        for (String b : acked.keySet()) {
            if (perBatch.getOrDefault(b, 0) == 400) {
                ackedPresent++;
            }
        }
        long partial = perBatch.values().stream().filter(n -> n != 400).count();
        long unackedApplied = perBatch.keySet().stream().filter(b -> !acked.containsKey(b)).count();
        out.println("   acknowledged batches fully present: " + ackedPresent + "/" + acked.size());
        out.println("   unacknowledged batches applied whole (rolled forward or committed before the kill): " + unackedApplied);
        out.println("   partially applied batches: " + partial + "; duplicate ids: " + duplicates(rows));
        VerificationReport v = Cli.reader(graph).verify();
        out.println("   journal: " + (v.ok() ? "verified, " + v.records() + " records, CRC32C + hash chain intact"
                : "FAILED at sequence " + v.firstBadSequence() + ": " + v.problem()));
        out.println();

        String pal = launcher();
        out.println("Look deeper:");
        out.println("  " + pal + " audit " + graph + " --format table                 # every journal event");
        out.println("  " + pal + " audit " + graph + " --type intent_completed --format table");
        out.println("  " + pal + " explain " + graph + " --key race0-0 --table person  # the life of a raced key");
        if (!hotIntents.isEmpty()) {
            out.println("  " + pal + " explain " + graph + " " + hotIntents.get(0));
        }
        out.println("  " + pal + " heads " + graph);
        out.println("  " + pal + " replay " + graph + " --at " + report.getOrDefault("journal_end_before", 0L)
                + "        # heads and open intents at the moment of the kill");
        out.println("  " + pal + " audit verify " + graph);
        out.println("  " + pal + " report " + graph + " --html " + dir.toAbsolutePath().resolve("report.html"));
        boolean ok = ackedPresent == acked.size() && partial == 0 && duplicates(rows) == 0 && v.ok();
        out.println();
        out.println(ok ? "All invariants held: no duplicate key, every acknowledged write present, nothing partial."
                : "AN INVARIANT FAILED: see above.");
        return ok ? Main.OK : Main.INTERNAL;
    }

    /**
     * How to run palisade from anywhere: the absolute path of the {@code bin/palisade} beside the jar this runs from
     * (cli/target/palisade-cli-*.jar), else "palisade".
     */
    static String launcher() {
        try {
            Path jar = Path.of(DemoCommand.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            Path bin = jar.toAbsolutePath().getParent().getParent().getParent().resolve("bin/palisade");
            return java.nio.file.Files.isExecutable(bin) ? bin.toString() : "palisade";
        } catch (java.net.URISyntaxException | RuntimeException e) {
            return "palisade";
        }
    }

    private static Map<String, Object> row(String id, String name, long age) {
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("id", id);
        r.put("name", name);
        r.put("age", age);
        return r;
    }

    private static int duplicates(List<Map<String, Object>> rows) {
        Map<Object, Integer> n = new HashMap<>();
        for (Map<String, Object> r : rows) {
            n.merge(r.get("id"), 1, Integer::sum);
        }
        return (int) n.values().stream().filter(c -> c > 1).count();
    }

    /** A child JVM like this one (same java, classpath and JVM flags) running {@code demo-writer}. */
    static Process spawnWriter(Path graph, Path stderr) throws java.io.IOException {
        List<String> cmd = childJava();
        cmd.add(Main.class.getName());
        cmd.add("demo-writer");
        cmd.add(graph.toString());
        return new ProcessBuilder(cmd).redirectError(stderr.toFile()).start();
    }

    static List<String> childJava() {
        String java = ProcessHandle.current().info().command()
                .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        List<String> cmd = new ArrayList<>();
        cmd.add(java);
        cmd.addAll(ManagementFactory.getRuntimeMXBean().getInputArguments());
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        return cmd;
    }
}
