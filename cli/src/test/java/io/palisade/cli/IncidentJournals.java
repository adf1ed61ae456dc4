package io.palisade.cli;

import io.palisade.coordinator.Catalog;
import io.palisade.coordinator.Graph;
import io.palisade.coordinator.Options;
import io.palisade.coordinator.Palisade;
import io.palisade.coordinator.Receipt;
import io.palisade.coordinator.WriteOptions;
import io.palisade.fencing.KeyConflictException;
import io.palisade.fencing.MergeConflictException;
import io.palisade.fencing.PalisadeException;
import io.palisade.heads.PhaseCrashPoints;
import io.palisade.journal.JournalEvent;
import io.palisade.journal.JournalRecord;
import io.palisade.substrate.ArrowRows;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The incident graph, built reproducibly for tests and benchmarks: {@value #THREADS} threads of random
 * strict inserts (single and grouped: several inserts submitted at once, so the committer commits them as one group),
 * upserts and deletes over {@value #KEYS} keys ({@code e0} .. {@code e299}) per table, on three tables ({@code person}
 * and {@code knows} acknowledged at the table commit, {@code tag} acknowledged from the journal); then a writer child
 * JVM (the demo's {@code demo-writer}) halted like SIGKILL at a Lance commit while it writes and the recovery at the next open; a graph branch
 * {@code feature}; a strict insert that conflicts and its retry with the same idempotency key ({@value #RETRY_KEY});
 * a merge of {@code feature} into {@code main} that conflicts on {@value #MERGE_KEY}; {@value #HOT_LOSERS} strict
 * inserts that lose on {@value #HOT_KEY} the same way; and more random writes on both
 * branches until the journal holds about the requested number of events.
 *
 * <p>Sized by its event count ({@link #DEFAULT_EVENTS} for the journal, {@link #SMALL_EVENTS} for fast unit
 * tests). Each size is built at most once per JVM into {@code target/incident-journals/events-N} (removed and rebuilt
 * at its first use in the JVM; with {@code -Dpalisade.incident.reuse=true} a complete earlier build is reused, for a
 * benchmark that runs the command line on it). The random choices are seeded; thread interleaving is not, so two
 * builds hold the same kinds of events in about the same numbers, not the same journal.
 *
 * <p>{@code main(String[])} builds one: {@code IncidentJournals [events] [dir]}.
 */
public final class IncidentJournals {
    public static final int DEFAULT_EVENTS = 16_000;
    public static final int SMALL_EVENTS = 450;
    static final int THREADS = 8;
    static final int KEYS = 300;
    /** The idempotency key of the conflicting strict insert and of its retry (an upsert). */
    public static final String RETRY_KEY = "retry-after-conflict";
    /** The key the retried insert conflicts on (present before it). */
    public static final String RETRY_ROW = "e7";
    /** The key both branches change, so that the merge conflicts. */
    public static final String MERGE_KEY = "e11";
    public static final String BRANCH = "feature";
    /** The key {@value #HOT_LOSERS} strict inserts lose on one after another, the same way (explain's compact form). */
    public static final String HOT_KEY = "e13";
    static final int HOT_LOSERS = 16;
    static final List<String> TABLES = List.of("person", "knows", "tag");

    static final String CATALOG = """
            {"tables": [
              {"name": "person", "kind": "node", "columns": [{"name": "id", "type": "string"},
                {"name": "name", "type": "string", "nullable": true}, {"name": "age", "type": "int64", "nullable": true}]},
              {"name": "knows", "kind": "edge", "columns": [{"name": "id", "type": "string"},
                {"name": "src", "type": "string"}, {"name": "dst", "type": "string"}]},
              {"name": "tag", "kind": "node", "ack": "journal", "columns": [{"name": "id", "type": "string"},
                {"name": "label", "type": "string", "nullable": true}]}
            ]}""";

    /**
     * A built incident graph and what the build knows about it.
     *
     * @param graph        the graph directory
     * @param events       the journal's record count
     * @param killedPid    the pid of the writer child that died at its crash point
     * @param killedAcks   how many batches the child acknowledged before it died at its crash point
     */
    public record Incident(Path graph, long events, long killedPid, int killedAcks) {
    }

    private static final Map<Integer, Incident> BUILT = new HashMap<>();

    private IncidentJournals() {
    }

    /** The incident graph of about {@code events} journal events, built at its first use in this JVM. */
    public static synchronized Incident of(int events) {
        Incident i = BUILT.get(events);
        if (i == null) {
            Path dir = Path.of(System.getProperty("palisade.incident.dir", "target/incident-journals"))
                    .toAbsolutePath().resolve("events-" + events);
            try {
                i = Boolean.getBoolean("palisade.incident.reuse") ? reuse(dir) : null;
                if (i == null) {
                    i = build(dir, events);
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while building the incident graph", e);
            }
            BUILT.put(events, i);
        }
        return i;
    }

    public static void main(String[] args) throws Exception {
        int events = args.length > 0 ? Integer.parseInt(args[0]) : DEFAULT_EVENTS;
        if (args.length > 1) {
            System.setProperty("palisade.incident.dir", args[1]);
        }
        long t0 = System.nanoTime();
        Incident i = of(events);
        System.out.println(i.graph() + " " + i.events() + " events, built in "
                + TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - t0) + " s");
    }

    private static Incident reuse(Path dir) throws IOException {
        Path done = dir.resolve("complete");
        if (!Files.exists(done)) {
            return null;
        }
        String[] f = Files.readString(done).trim().split(" ");
        return new Incident(dir.resolve("graph"), Long.parseLong(f[0]), Long.parseLong(f[1]), Integer.parseInt(f[2]));
    }

    private static Incident build(Path dir, int events) throws IOException, InterruptedException {
        delete(dir);
        Files.createDirectories(dir);
        Path graph = dir.resolve("graph");
        Catalog catalog = Catalog.fromJson(CATALOG);
        long firstPhase = Math.max(60, events * 45L / 100);
        try (Graph g = Palisade.create(graph, catalog, Options.defaults()); BufferAllocator alloc = new RootAllocator()) {
            random(g, alloc, firstPhase, 1, false);
        }
        long[] kill = killWriterChild(dir, graph);
        try (Graph g = Palisade.open(graph, Options.defaults()); BufferAllocator alloc = new RootAllocator()) {
            g.createBranch(BRANCH, "main");
            retryAfterConflict(g);
            mergeConflict(g);
            hotKeyLosers(g);
            random(g, alloc, events, 2, true);
        }
        long total = Cli.reader(graph).verify().records();
        Files.writeString(dir.resolve("complete"), total + " " + kill[0] + " " + kill[1] + "\n");
        return new Incident(graph, total, kill[0], (int) kill[1]);
    }

    /** Random writes from {@value #THREADS} threads until the journal's last sequence reaches {@code until}. */
    private static void random(Graph g, BufferAllocator alloc, long until, long seed, boolean branches)
            throws InterruptedException {
        CountDownLatch go = new CountDownLatch(1);
        List<Thread> ts = new ArrayList<>();
        List<Throwable> failures = new java.util.concurrent.CopyOnWriteArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            Random rnd = new Random(seed * 1_000 + t);
            int tid = t;
            ts.add(Thread.ofPlatform().name("incident-writer-" + t).start(() -> {
                try {
                    go.await();
                    for (int n = 0; g.state().lastSequence() < until; n++) {
                        String branch = branches && rnd.nextInt(4) == 0 ? BRANCH : "main";
                        String table = TABLES.get(rnd.nextInt(TABLES.size()));
                        int op = rnd.nextInt(100);
                        try {
                            if (op < 15) {
                                groupedInserts(g, alloc, rnd, branch, table, tid, n);
                            } else if (op < 45) {
                                try (VectorSchemaRoot r = root(g, alloc, table, keys(rnd, 1 + rnd.nextInt(3)), tid, n)) {
                                    g.insert(branch, table, r, WriteOptions.NONE);
                                }
                            } else if (op < 80) {
                                try (VectorSchemaRoot r = root(g, alloc, table, keys(rnd, 1 + rnd.nextInt(3)), tid, n)) {
                                    g.upsert(branch, table, r, WriteOptions.NONE);
                                }
                            } else {
                                g.delete(branch, table, keys(rnd, 1 + rnd.nextInt(2)));
                            }
                        } catch (PalisadeException | CompletionException expected) {
                            // conflicts are the point of the workload
                        }
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } catch (Throwable e) {
                    failures.add(e);
                }
            }));
        }
        go.countDown();
        for (Thread t : ts) {
            t.join();
        }
        if (!failures.isEmpty()) {
            throw new IllegalStateException("an incident writer failed", failures.get(0));
        }
    }

    /** Three strict inserts of 2-3 keys each submitted at once: the committer takes them as one group. */
    private static void groupedInserts(Graph g, BufferAllocator alloc, Random rnd, String branch, String table, int tid,
                                       int n) {
        List<VectorSchemaRoot> roots = new ArrayList<>();
        List<CompletableFuture<Receipt>> fs = new ArrayList<>();
        try {
            for (int i = 0; i < 3; i++) {
                VectorSchemaRoot r = root(g, alloc, table, keys(rnd, 2 + rnd.nextInt(2)), tid, n);
                roots.add(r);
                fs.add(g.insertAsync(branch, table, r, WriteOptions.NONE));
            }
            for (CompletableFuture<Receipt> f : fs) {
                try {
                    f.join();
                } catch (CompletionException expected) {
                    // a key conflict of one of the group
                }
            }
        } finally {
            roots.forEach(VectorSchemaRoot::close);
        }
    }

    private static List<String> keys(Random rnd, int n) {
        List<String> ks = new ArrayList<>();
        while (ks.size() < n) {
            String k = "e" + rnd.nextInt(KEYS);
            if (!ks.contains(k)) {
                ks.add(k);
            }
        }
        return ks;
    }

    private static VectorSchemaRoot root(Graph g, BufferAllocator alloc, String table, List<String> keys, int tid, int n) {
        List<Map<String, Object>> rows = new ArrayList<>();
        for (String k : keys) {
            rows.add(row(table, k, "t" + tid + " w" + n));
        }
        VectorSchemaRoot root = VectorSchemaRoot.create(g.catalog().require(table).arrowSchema(), alloc);
        ArrowRows.fill(root, rows);
        return root;
    }

    private static Map<String, Object> row(String table, String key, String value) {
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("id", key);
        switch (table) {
            case "person" -> {
                r.put("name", value);
                r.put("age", (long) (Math.abs(value.hashCode()) % 90));
            }
            case "knows" -> {
                r.put("src", value);
                r.put("dst", key);
            }
            default -> r.put("label", value);
        }
        return r;
    }

    /** Ensures {@value #RETRY_ROW} is present, then a strict insert of it with an idempotency key conflicts and its retry applies. */
    private static void retryAfterConflict(Graph g) {
        g.upsert("main", "person", List.of(io.palisade.coordinator.Row.of("id", RETRY_ROW, "name", "before the retry")));
        WriteOptions idem = WriteOptions.idempotencyKey(RETRY_KEY);
        try {
            g.insert("main", "person", List.of(io.palisade.coordinator.Row.of("id", RETRY_ROW, "name", "first try")), idem);
            throw new IllegalStateException("the strict insert of a present key did not conflict");
        } catch (KeyConflictException expected) {
            // the loser the retry retries
        }
        g.upsert("main", "person", List.of(io.palisade.coordinator.Row.of("id", RETRY_ROW, "name", "the retry")), idem);
    }

    /**
     * {@value #HOT_KEY} of person is upserted, then {@value #HOT_LOSERS} strict inserts of it lose one after another to
     * that upsert: identical losers, more than explain shows one by one.
     */
    private static void hotKeyLosers(Graph g) {
        g.upsert("main", "person", List.of(io.palisade.coordinator.Row.of("id", HOT_KEY, "name", "the winner")));
        for (int n = 0; n < HOT_LOSERS; n++) {
            try {
                g.insert("main", "person", List.of(io.palisade.coordinator.Row.of("id", HOT_KEY, "name", "loser " + n)));
                throw new IllegalStateException("the strict insert of a present key did not conflict");
            } catch (KeyConflictException expected) {
                // one more identical loser
            }
        }
    }

    /** Both branches change {@value #MERGE_KEY} of person; merging feature into main conflicts. */
    private static void mergeConflict(Graph g) {
        g.upsert(BRANCH, "person", List.of(io.palisade.coordinator.Row.of("id", MERGE_KEY, "name", "on the branch")));
        g.upsert("main", "person", List.of(io.palisade.coordinator.Row.of("id", MERGE_KEY, "name", "on main")));
        try {
            g.merge(BRANCH, "main");
            throw new IllegalStateException("the merge of a key changed on both sides did not conflict");
        } catch (MergeConflictException expected) {
            // the merge conflict of the incident
        }
    }

    /**
     * Runs the demo's writer child ({@code demo-writer}, 3 threads of 10-row upserts) on {@code graph} armed with the
     * crash point {@code after-substrate-commit:4}: at its fourth Lance commit it halts like SIGKILL (no shutdown hook,
     * nothing flushed), with that write committed in Lance but not published and its other threads inside further
     * writes, so the next open always has something to recover — whatever the machine's speed. Returns the dead
     * child's pid and its acknowledged batches.
     */
    private static long[] killWriterChild(Path dir, Path graph) throws IOException, InterruptedException {
        long before = lastSequence(graph);
        List<String> cmd = io.palisade.journal.ChildJava.command();
        Path tmp = Files.createDirectories(dir.resolve("child-tmp"));
        cmd.addAll(List.of("-Xmx512m", "-Djava.io.tmpdir=" + tmp, "-Dpalisade.crash.at=after-substrate-commit:4",
                "-cp", System.getProperty("java.class.path"),
                Main.class.getName(), "demo-writer", graph.toString(), "--threads", "3", "--rows", "10"));
        Process child = new ProcessBuilder(cmd).redirectError(dir.resolve("writer-child.stderr").toFile()).start();
        int acks = 0;
        try (BufferedReader in = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line; (line = in.readLine()) != null; ) {
                if (line.startsWith("ACK ")) {
                    acks++;
                }
            }
        }
        if (!child.waitFor(300, TimeUnit.SECONDS)) {
            child.destroyForcibly();
            throw new IllegalStateException("the writer child did not reach its crash point in 300 s; see "
                    + dir.resolve("writer-child.stderr"));
        }
        deleteTree(tmp);
        if (child.exitValue() != PhaseCrashPoints.HALT_STATUS) {
            throw new IllegalStateException("the writer child exited " + child.exitValue() + ", not at its crash point; see "
                    + dir.resolve("writer-child.stderr"));
        }
        try (Graph g = Palisade.open(graph, Options.defaults())) {
            // recovery runs at the open
        }
        boolean recovered = false;
        for (JournalRecord r : Cli.records(graph, before + 1)) {
            recovered |= r.event() instanceof JournalEvent.RecoveryStarted;
        }
        if (!recovered) {
            throw new IllegalStateException("the writer child died at a Lance commit but the next open recovered nothing");
        }
        return new long[] {child.pid(), acks};
    }

    private static long lastSequence(Path graph) {
        List<JournalRecord> all = Cli.records(graph, 0);
        return all.isEmpty() ? -1 : all.get(all.size() - 1).sequence();
    }

    private static void delete(Path dir) throws IOException {
        if (Files.exists(dir)) {
            deleteTree(dir);
        }
    }

    private static void deleteTree(Path dir) throws IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
