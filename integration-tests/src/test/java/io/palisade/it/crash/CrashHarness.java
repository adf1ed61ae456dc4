package io.palisade.it.crash;

import io.palisade.coordinator.Catalog;
import io.palisade.coordinator.Graph;
import io.palisade.coordinator.Options;
import io.palisade.heads.HeadsReplayer;
import io.palisade.journal.JournalCursor;
import io.palisade.journal.JournalEvent;
import io.palisade.journal.JournalReader;
import io.palisade.journal.JournalRecord;
import io.palisade.journal.VerificationReport;
import io.palisade.recovery.RecoveryReport;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Drives crash trials against one graph: starts the workload child ({@link CrashWorkload}) with the
 * test JVM's java binary, classpath and JVM flags, kills it (SIGKILL, or it halts at a crash point),
 * then opens the graph in this JVM (recovery runs) and checks the crash invariants (docs/recovery.md) against a
 * {@link Model} of what was acknowledged. Trials on one harness share one graph, in sequence. The graph's
 * {@link Deployment} (local disk and Chronicle by default; or tables on an object store and the journal on Kafka)
 * decides where it lives: every open of it, in this JVM and in the children, and every direct Lance read of its
 * tables goes through the deployment, and on an object store {@link #verify} also checks invariant 6 (the graph is
 * really there). Power mode (copies of the graph directory) needs the local deployment.
 */
final class CrashHarness implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(CrashHarness.class);
    /** The children's class-data archive; the JVM's own warnings go to the child's stderr log, never to its stdout. */
    private static final io.palisade.coordinator.ChildCds CDS = new io.palisade.coordinator.ChildCds("crash-child",
            List.of("-Xlog:disable", "-Xlog:all=warning:stderr"));
    /**
     * The archive of children on an object-store deployment, trained on one: they load the S3 and Kafka clients too
     * (the conditional-put probe, the journal's producer and consumers), which the local children never load.
     */
    private static final io.palisade.coordinator.ChildCds OBJECT_STORE_CDS = new io.palisade.coordinator.ChildCds(
            "crash-child-objectstore", List.of("-Xlog:disable", "-Xlog:all=warning:stderr"));

    static final String CATALOG = """
            {"tables": [{"name": "person", "kind": "node", "columns": [{"name": "id", "type": "string"},
              {"name": "age", "type": "int64", "nullable": true}]},
             {"name": "log", "kind": "append-only", "columns": [{"name": "msg", "type": "string", "nullable": true}]},
             {"name": "note", "kind": "node", "ack": "journal", "columns": [{"name": "id", "type": "string"},
              {"name": "age", "type": "int64", "nullable": true}]}]}
            """;

    /** Counters printed by the suite. */
    static final AtomicLong TRIALS = new AtomicLong();
    static final AtomicLong CHILDREN = new AtomicLong();
    static final AtomicLong KILLS_MID_RUN = new AtomicLong();
    /** Children that halted at a named crash point (exit status 86, asserted). */
    static final AtomicLong NAMED_POINT_KILLS = new AtomicLong();
    /** Children SIGKILLed at a random moment (whether or not they had finished by then). */
    static final AtomicLong RANDOM_KILLS = new AtomicLong();
    static final AtomicLong INVARIANTS = new AtomicLong();
    static final AtomicLong CHILD_NANOS = new AtomicLong();
    /** Power cuts (children of power mode); those whose restore lost journal records, Lance versions, anything. */
    static final AtomicLong POWER_CUTS = new AtomicLong();
    static final AtomicLong POWER_CUTS_DROPPING = new AtomicLong();
    static final AtomicLong POWER_RECORDS_DROPPED = new AtomicLong();
    static final AtomicLong POWER_CUTS_DROPPING_VERSIONS = new AtomicLong();
    static final AtomicLong POWER_VERSIONS_DROPPED = new AtomicLong();
    static final AtomicLong POWER_CUTS_DROPPING_ANYTHING = new AtomicLong();
    /** Per sync point: the power cuts that landed there ("end" = the child ran to its end first). */
    static final Map<String, AtomicLong> POWER_CUT_AT = new java.util.concurrent.ConcurrentSkipListMap<>();
    static final AtomicLong VERIFY_NANOS = new AtomicLong();
    static final Map<String, AtomicLong> BY_INVARIANT = new java.util.concurrent.ConcurrentSkipListMap<>();
    static final Map<String, AtomicLong> FAILED_BY_INVARIANT = new java.util.concurrent.ConcurrentSkipListMap<>();
    /** Per op kind: ops the children acknowledged, and ops a child had started but not finished when it died. */
    static final Map<String, AtomicLong> ACKED_BY_KIND = new java.util.concurrent.ConcurrentSkipListMap<>();
    static final Map<String, AtomicLong> IN_FLIGHT_BY_KIND = new java.util.concurrent.ConcurrentSkipListMap<>();

    /** One child's run: its plan, what it acknowledged, how it ended. */
    record Segment(List<Plan.Op> plan, Set<Integer> acked, Set<Integer> failed, int exit, List<String> lines) {
        boolean done() {
            return lines.contains("DONE");
        }
    }

    final Path graph;
    final Path logs;
    /** Where the graph's tables and journal live; every open of the graph, here and in the children, goes through it. */
    final Deployment deployment;
    private final Path childTmpRoot;
    private final long seed;
    private final Random random;
    private Model model = Model.initial();
    private int nextId;
    private int nextBranch;
    private int nextMsg;
    private int nextColumn;
    private int trial;

    private static final List<CrashHarness> OPEN = java.util.Collections.synchronizedList(new ArrayList<>());

    /** A harness closed by {@link #closeAll()} (tests call it after each test). */
    static CrashHarness open(Path dir, long seed) {
        return open(dir, seed, Deployment.LOCAL);
    }

    /** A harness closed by {@link #closeAll()} whose graph is on {@code deployment}. */
    static CrashHarness open(Path dir, long seed, Deployment deployment) {
        CrashHarness h = new CrashHarness(dir.resolve("g"), dir.resolve("logs"), seed, deployment);
        OPEN.add(h);
        return h;
    }

    static void closeAll() {
        synchronized (OPEN) {
            OPEN.forEach(CrashHarness::close);
            OPEN.clear();
        }
    }

    CrashHarness(Path dir, long seed) {
        this(dir.resolve("g"), dir.resolve("logs"), seed);
    }

    /**
     * A harness whose graph lives at {@code graph} and whose child logs go to {@code logs} (the LazyFS
     * power-loss suite keeps its graphs on the LazyFS mount and its logs off it).
     */
    CrashHarness(Path graph, Path logs, long seed) {
        this(graph, logs, seed, Deployment.LOCAL);
    }

    /** A harness whose graph at {@code graph} keeps its tables and journal on {@code deployment}. */
    CrashHarness(Path graph, Path logs, long seed, Deployment deployment) {
        this.graph = graph;
        this.logs = logs;
        this.deployment = deployment;
        this.seed = seed;
        this.random = new Random(seed);
        Path shm = Path.of("/dev/shm");
        this.childTmpRoot = Files.isDirectory(shm) && Files.isWritable(shm)
                ? shm.resolve("palisade-crash-" + ProcessHandle.current().pid()) : logs.resolveSibling("child-tmp");
        try {
            Files.createDirectories(logs);
            Files.createDirectories(childTmpRoot);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        try (BufferAllocator a = new RootAllocator();
             Graph g = deployment.create(graph, Catalog.fromJson(CATALOG), Options.defaults())) {
            Plan.Op seedRows = new Plan.Op(Plan.Kind.INSERT, "main", freshRows(6));
            CrashWorkload.apply(g, a, seedRows);
            model.apply(seedRows);
        }
    }

    Random random() {
        return random;
    }

    /**
     * The journal mode argument of every later child: {@code DURABLE} runs it with journal durability
     * {@code POWER_LOSS} and no simulated snapshots (the real power-loss suite on LazyFS); null restores
     * the default ({@code POWER}/{@code PROCESS} from {@code runChild}'s flag).
     */
    CrashHarness childMode(String mode) {
        this.childMode = mode;
        return this;
    }

    private String childMode;

    // ------------------------------------------------------------------ plans

    private Map<String, Long> freshRows(int n) {
        Map<String, Long> m = new TreeMap<>();
        for (int i = 0; i < n; i++) {
            m.put("p" + (nextId++), (long) random.nextInt(1_000_000));
        }
        return m;
    }

    /** A new op of {@code kind} valid against {@code m} (the model as the plan will have left it). */
    Plan.Op op(Plan.Kind kind, Model m) {
        return switch (kind) {
            case INSERT -> new Plan.Op(kind, "main", freshRows(1 + random.nextInt(3)));
            case UPSERT -> {
                Map<String, Long> rows = freshRows(1);
                existing(m, "main", 1).forEach(k -> rows.put(k, (long) random.nextInt(1_000_000)));
                yield new Plan.Op(kind, "main", rows);
            }
            case DELETE -> {
                List<String> keys = existing(m, "main", 1 + random.nextInt(2));
                if (keys.isEmpty()) {
                    yield op(Plan.Kind.INSERT, m);
                }
                Map<String, Long> rows = new TreeMap<>();
                keys.forEach(k -> rows.put(k, 0L));
                yield new Plan.Op(kind, "main", rows);
            }
            case APPEND -> {
                Map<String, Long> rows = new TreeMap<>();
                int n = 1 + random.nextInt(2);
                for (int i = 0; i < n; i++) {
                    rows.put("m" + (nextMsg++), 0L);
                }
                yield new Plan.Op(kind, "main", rows);
            }
            case BRANCH -> new Plan.Op(kind, "b" + (nextBranch++), Map.of());
            case OVERWRITE -> overwrite("main", m);
            case ADD_COLUMNS -> {
                Map<String, Long> cols = new TreeMap<>();
                cols.put("c" + (nextColumn++), 0L);
                yield new Plan.Op(kind, "main", cols);
            }
            case LOAD -> load("main", m);
            case LOAD_STRICT -> failingStrictLoad("main", m);
            case MAINTAIN -> new Plan.Op(kind, "main", Map.of(random.nextBoolean() ? "compact" : "index", 0L));
            case NOTE_INSERT, NOTE_UPSERT, NOTE_DELETE -> note(m);
            case MERGE -> {
                List<String> sources = m.mergeSources();
                if (sources.isEmpty()) {
                    yield op(Plan.Kind.BRANCH, m);
                }
                yield merge(sources.get(random.nextInt(sources.size())), "main");
            }
        };
    }

    /** An overwrite of {@code person} on {@code branch}: one existing key with a new age (if any) and fresh rows. */
    Plan.Op overwrite(String branch, Model m) {
        Map<String, Long> rows = freshRows(1 + random.nextInt(3));
        existing(m, branch, 1).forEach(k -> rows.put(k, (long) random.nextInt(1_000_000)));
        return new Plan.Op(Plan.Kind.OVERWRITE, branch, rows);
    }

    /**
     * An upsert-mode bulk load on {@code branch} of three new rows and two existing keys with new ages:
     * three substrate batches of {@link Plan#LOAD_BATCH_ROWS}.
     */
    Plan.Op load(String branch, Model m) {
        Map<String, Long> rows = new java.util.LinkedHashMap<>(freshRows(3));
        existing(m, branch, 2).forEach(k -> rows.put(k, (long) random.nextInt(1_000_000)));
        return new Plan.Op(Plan.Kind.LOAD, branch, rows);
    }

    /**
     * A strict bulk load on {@code branch} that fails in its second batch: two new rows (batch 1, committed),
     * then a new row and an existing key (batch 2: a key conflict), so the load restores its start version.
     */
    Plan.Op failingStrictLoad(String branch, Model m) {
        List<String> present = existing(m, branch, 1);
        if (present.isEmpty()) {
            throw new IllegalStateException("a failing strict load needs an existing key on " + branch);
        }
        Map<String, Long> rows = new java.util.LinkedHashMap<>(freshRows(3));
        rows.put(present.get(0), 1L);
        return new Plan.Op(Plan.Kind.LOAD_STRICT, branch, rows);
    }

    /** A merge of {@code source} into {@code target}. */
    static Plan.Op merge(String source, String target) {
        return new Plan.Op(Plan.Kind.MERGE, source + ">" + target, Map.of());
    }

    /** A delete on {@code branch} of {@code n} existing keys (fewer if the branch has fewer). */
    Plan.Op branchDelete(String branch, Model m, int n) {
        Map<String, Long> rows = new TreeMap<>();
        existing(m, branch, n).forEach(k -> rows.put(k, 0L));
        return new Plan.Op(Plan.Kind.DELETE, branch, rows);
    }

    /** An upsert on a non-main branch (its first write forks the Lance table branch lazily). */
    Plan.Op branchWrite(String branch, Model m) {
        Map<String, Long> rows = freshRows(1);
        existing(m, branch, 1).forEach(k -> rows.put(k, (long) random.nextInt(1_000_000)));
        return new Plan.Op(Plan.Kind.UPSERT, branch, rows);
    }

    /** A random plan of {@code n} ops. */
    List<Plan.Op> randomPlan(int n) {
        Model m = model.copy();
        List<Plan.Op> plan = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            int r = random.nextInt(100);
            List<String> branches = m.writableBranches();
            Plan.Op op;
            if (random.nextInt(5) == 0) {
                op = note(m); // the journal-ack table
            } else if (r < 18) {
                op = op(Plan.Kind.INSERT, m);
            } else if (r < 21) {
                op = op(Plan.Kind.LOAD, m); // an upsert-mode bulk load: three batches, one intent
            } else if (r < 37) {
                op = op(Plan.Kind.UPSERT, m);
            } else if (r < 48) {
                op = op(Plan.Kind.DELETE, m);
            } else if (r < 60) {
                op = op(Plan.Kind.APPEND, m);
            } else if (r < 64) {
                op = op(Plan.Kind.OVERWRITE, m);
            } else if (r < 67 && m.columns.size() < 3) {
                op = op(Plan.Kind.ADD_COLUMNS, m);
            } else if (r < 74 || branches.isEmpty()) {
                op = op(Plan.Kind.BRANCH, m);
            } else if (r < 88) {
                op = branchWrite(branches.get(random.nextInt(branches.size())), m);
            } else {
                op = op(Plan.Kind.MERGE, m);
            }
            m.apply(op);
            plan.add(op);
        }
        return plan;
    }

    /**
     * A write of {@code note} (journal-ack, main): a strict insert of new keys, an upsert of a new and an existing key,
     * or a delete of existing keys (an insert when there are none).
     */
    Plan.Op note(Model m) {
        int r = random.nextInt(3);
        List<String> keys = new ArrayList<>(m.notes.keySet());
        if (r == 0 || keys.isEmpty()) {
            return new Plan.Op(Plan.Kind.NOTE_INSERT, "main", freshRows(1 + random.nextInt(2)));
        }
        if (r == 1) {
            Map<String, Long> rows = freshRows(1);
            rows.put(keys.get(random.nextInt(keys.size())), (long) random.nextInt(1_000_000));
            return new Plan.Op(Plan.Kind.NOTE_UPSERT, "main", rows);
        }
        Map<String, Long> rows = new TreeMap<>();
        rows.put(keys.get(random.nextInt(keys.size())), 0L);
        return new Plan.Op(Plan.Kind.NOTE_DELETE, "main", rows);
    }

    private List<String> existing(Model m, String branch, int n) {
        List<String> keys = new ArrayList<>(m.people.get(branch).keySet());
        List<String> out = new ArrayList<>();
        while (out.size() < n && !keys.isEmpty()) {
            out.add(keys.remove(random.nextInt(keys.size())));
        }
        return out;
    }

    Model model() {
        return model;
    }

    /**
     * The options of this JVM's own opens (setup and verification): the defaults without the lag bound of folds, so
     * that no background fold of the journal-ack table runs while a check reads the state (a fold in flight is an
     * open intent); the close folds what is left.
     */
    static Options checkingOptions() {
        Options d = Options.defaults();
        return d.withFolding(3_600_000, d.foldEvery(), d.maxUnfoldedBytes());
    }

    /**
     * Performs {@code ops} in this JVM (no crash), each of which must succeed, and moves the model: the
     * setup of a cell whose crash must fall in a later op (a merge's branch and its writes), without
     * spending a child JVM on it.
     */
    void applyNow(List<Plan.Op> ops) {
        try (BufferAllocator a = new RootAllocator(); Graph g = deployment.open(graph, checkingOptions())) {
            for (Plan.Op op : ops) {
                CrashWorkload.apply(g, a, op);
                model.apply(op);
            }
        }
    }

    // ------------------------------------------------------------------ children

    /** How the child dies. */
    sealed interface Death permits AtPoint, RandomKill, Natural, Power, AfterAcks {
    }

    /**
     * Power mode only: the power fails at a sync point of the child ({@link PowerCut}); a point cut must be
     * reached (the trial fails otherwise), a {@code sync:k} cut beyond the child's last sync point lets it end.
     */
    record Power(PowerCut cut) implements Death {
    }

    /** It halts itself at a named crash point ({@code name[:nth]}); the trial fails if it does not. */
    record AtPoint(String point) implements Death {
    }

    /** SIGKILL after {@code delayMillis}, counted from the child's OPENED line or from its start. */
    record RandomKill(long delayMillis, boolean afterOpened) implements Death {
    }

    /** Runs to the end. */
    record Natural() implements Death {
    }

    /**
     * SIGKILL chosen by counting, not by sleeping: once the child printed {@code acks} ACK lines ({@code 0}:
     * its OPENED line), {@code armed} runs (e.g. arms a file-system fault), then the child is killed as
     * soon as {@code killWhen} completes (already complete: at once) or the child ends by itself.
     */
    record AfterAcks(int acks, Runnable armed, java.util.concurrent.CompletableFuture<?> killWhen, boolean hold)
            implements Death {
        AfterAcks(int acks) {
            this(acks, () -> { }, java.util.concurrent.CompletableFuture.completedFuture(null), false);
        }

        /**
         * The child holds after its {@code acks}-th ACK (acks ≥ 1) until {@code armed} has run: the fault is armed
         * before the child's next write starts, whatever the machine's load.
         */
        static AfterAcks holding(int acks, Runnable armed, java.util.concurrent.CompletableFuture<?> killWhen) {
            if (acks < 1) {
                throw new IllegalArgumentException("a child holds after an ACK: acks must be at least 1");
            }
            return new AfterAcks(acks, armed, killWhen, true);
        }
    }

    Segment runChild(List<Plan.Op> plan, Death death, boolean power, int checkpointEvery) throws Exception {
        long t0 = System.nanoTime();
        try {
            return runChild0(plan, death, power, checkpointEvery);
        } finally {
            CHILD_NANOS.addAndGet(System.nanoTime() - t0);
            PowerLoss.deleteTree(childTmpRoot.resolve("child"));
        }
    }

    private Segment runChild0(List<Plan.Op> plan, Death death, boolean power, int checkpointEvery) throws Exception {
        // the simulated power cut (PowerLoss copies); a DURABLE child on LazyFS loses power for real instead
        boolean simulated = power && childMode == null;
        if (power && !(deployment instanceof Deployment.Local)) {
            throw new IllegalArgumentException("power mode copies the graph directory: its tables must be on local disk, not "
                    + deployment);
        }
        if (simulated != (death instanceof Power || (simulated && death instanceof Natural))) {
            throw new IllegalArgumentException("power mode takes a Power (or Natural) death, process mode any other: " + death);
        }
        CHILDREN.incrementAndGet();
        List<String> cmd = new ArrayList<>();
        io.palisade.coordinator.ChildCds cds = switch (deployment) {
            case Deployment.Local l -> CDS;
            case Deployment.ObjectStore o -> OBJECT_STORE_CDS;
        };
        // with the class-data archive (ChildCds), trained once on a scratch graph of the same kind of deployment
        cmd.addAll(childJvm(cds.options(dumpOptions -> trainingChild(dumpOptions, deployment.forTraining()))));
        PowerLoss.deleteTree(trainingDir()); // the training child's scratch graph and Lance library, once trained
        cmd.add("-Dchronicle.analytics.disable=true");
        // Lance's JNI loader extracts its 180 MB library to java.io.tmpdir on every start and a killed JVM
        // never deletes it: give each child its own tmpdir (on tmpfs when there is one) and delete it after.
        Path childTmp = childTmpRoot.resolve("child");
        PowerLoss.deleteTree(childTmp);
        Files.createDirectories(childTmp);
        cmd.add("-Djava.io.tmpdir=" + childTmp);
        if (death instanceof AtPoint p) {
            cmd.add("-Dpalisade.crash.at=" + p.point());
        }
        if (death instanceof AfterAcks k && k.hold()) {
            cmd.add("-Dpalisade.crash.holdAfterAcks=" + k.acks());
        }
        cmd.add("-cp");
        cmd.add(childClasspath());
        cmd.add(CrashWorkload.class.getName());
        cmd.add(graph.toString());
        cmd.add(childMode != null ? childMode : power ? "POWER" : "PROCESS");
        cmd.add(Integer.toString(checkpointEvery));
        cmd.add(Plan.encode(plan));
        if (simulated) {
            cmd.add((death instanceof Power c ? c.cut() : PowerCut.NONE).encode());
            new PowerLoss(graph).snapshot(); // the baseline (sync point 0): the graph as the last check left it
        }
        ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.environment().putAll(deployment.childEnvironment()); // the tables' storage options (none on local disk)
        Path stderr = logs.resolve("child-" + CHILDREN.get() + ".err");
        pb.redirectError(stderr.toFile());
        Process p = pb.start();
        List<String> lines = java.util.Collections.synchronizedList(new ArrayList<>());
        CountDownLatch opened = new CountDownLatch(1);
        int acksWanted = death instanceof AfterAcks k ? k.acks() : Integer.MAX_VALUE;
        java.util.concurrent.CompletableFuture<Void> acksReached = new java.util.concurrent.CompletableFuture<>();
        Thread reader = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                int acks = 0;
                while ((line = r.readLine()) != null) {
                    lines.add(line);
                    if (line.equals("OPENED")) {
                        opened.countDown();
                        if (acksWanted == 0) {
                            acksReached.complete(null);
                        }
                    } else if (line.startsWith("ACK ") && ++acks >= acksWanted) {
                        acksReached.complete(null);
                    }
                }
            } catch (IOException ignored) {
                // the child was killed
            }
            opened.countDown();
            acksReached.complete(null); // the child ended before (or without) reaching the count
        }, "crash-child-reader");
        reader.setDaemon(true);
        reader.start();
        if (death instanceof RandomKill k) {
            if (k.afterOpened()) {
                opened.await(120, TimeUnit.SECONDS);
            }
            Thread.sleep(k.delayMillis());
            boolean alive = p.isAlive();
            p.destroyForcibly();
            RANDOM_KILLS.incrementAndGet();
            if (alive) {
                KILLS_MID_RUN.incrementAndGet();
            }
        }
        if (death instanceof AfterAcks k) {
            acksReached.get(180, TimeUnit.SECONDS);
            k.armed().run();
            if (k.hold() && p.isAlive()) {
                try {
                    p.getOutputStream().write('\n');
                    p.getOutputStream().flush();
                } catch (IOException e) {
                    // the child ended (killed by the armed fault's mount dying, or by itself): nothing to release
                }
            }
            java.util.concurrent.CompletableFuture.anyOf(k.killWhen(), p.onExit()).get(180, TimeUnit.SECONDS);
            boolean alive = p.isAlive();
            p.destroyForcibly();
            RANDOM_KILLS.incrementAndGet();
            if (alive) {
                KILLS_MID_RUN.incrementAndGet();
            }
        }
        if (!p.waitFor(180, TimeUnit.SECONDS)) {
            List<ProcessHandle> below = p.descendants().toList(); // a power-mode child's cp, which outlives it
            p.destroyForcibly();
            below.forEach(ProcessHandle::destroyForcibly);
            p.waitFor();
            throw new AssertionError("child did not finish within 180 s: " + describe(plan, death, lines));
        }
        // the pipe closes when the child dies (no grandchild inherits it): wait for every line, however
        // loaded the machine is — a missed ACK or CUT line would misjudge the trial
        reader.join(TimeUnit.SECONDS.toMillis(180));
        if (reader.isAlive()) {
            throw new AssertionError("the child's output did not end within 180 s of its exit: " + describe(plan, death, lines));
        }
        int exit = p.exitValue();
        List<String> copy;
        synchronized (lines) {
            copy = List.copyOf(lines);
        }
        if (simulated) {
            powerCut(plan, death, exit, copy);
        }
        Set<Integer> acked = new LinkedHashSet<>();
        Set<Integer> failed = new LinkedHashSet<>();
        for (String l : copy) {
            if (l.startsWith("ACK ")) {
                acked.add(Integer.parseInt(l.substring(4)));
            } else if (l.startsWith("FAIL ")) {
                failed.add(Integer.parseInt(l.split(" ")[1]));
            }
        }
        Segment s = new Segment(plan, acked, failed, exit, copy);
        for (int i = 0; i < plan.size(); i++) {
            String kind = plan.get(i).kind().name();
            if (acked.contains(i)) {
                ACKED_BY_KIND.computeIfAbsent(kind, k -> new AtomicLong()).incrementAndGet();
            } else if (!failed.contains(i)) {
                if (copy.contains("OPENED")) {
                    IN_FLIGHT_BY_KIND.computeIfAbsent(kind, k -> new AtomicLong()).incrementAndGet();
                }
                break;
            }
        }
        if (death instanceof AtPoint a && exit != io.palisade.coordinator.internal.CrashPoints.HALT_STATUS) {
            throw new AssertionError("child did not halt at crash point " + a.point() + " (exit " + exit + "): "
                    + describe(plan, death, copy) + "; stderr in " + stderr + ", ending:\n" + tail(stderr));
        }
        if (death instanceof AtPoint) {
            NAMED_POINT_KILLS.incrementAndGet();
        }
        if (death instanceof Natural && (exit != 0 || !s.done())) {
            throw new AssertionError("child failed (exit " + exit + "): " + describe(plan, death, copy)
                    + "; stderr in " + stderr + ", ending:\n" + tail(stderr));
        }
        return s;
    }

    /**
     * The power cut after a power-mode child died at its cut (or ended): checks how it ended, then replaces
     * the graph directory with the newest complete snapshot and counts what that lost.
     */
    private void powerCut(List<Plan.Op> plan, Death death, int exit, List<String> lines) {
        String cutAt = lines.stream().filter(l -> l.startsWith("CUT ")).map(l -> l.split(" ")[2]).findFirst().orElse(null);
        boolean ended = exit == 0 && lines.contains("DONE");
        boolean pointCut = death instanceof Power c && c.cut().point() != null;
        if (!(exit == io.palisade.coordinator.internal.CrashPoints.HALT_STATUS && cutAt != null) && !(ended && !pointCut)) {
            throw new AssertionError("power-mode child neither halted at its cut nor ended (exit " + exit + "): "
                    + describe(plan, death, lines) + "; stderr in " + logs);
        }
        POWER_CUTS.incrementAndGet();
        POWER_CUT_AT.computeIfAbsent(cutAt == null ? "end" : cutAt, k -> new AtomicLong()).incrementAndGet();
        long endBefore = endSequence();
        Set<String> versionsBefore = tableVersions();
        PowerLoss.restoreNewest(graph); // the power cut: the whole graph as of the newest complete sync point
        long records = endBefore - endSequence();
        Set<String> versionsAfter = tableVersions();
        long versions = versionsBefore.stream().filter(v -> !versionsAfter.contains(v)).count();
        if (!versionsBefore.containsAll(versionsAfter)) {
            throw new AssertionError("the restored snapshot has table versions the graph never had: " + versionsAfter
                    + " vs " + versionsBefore + "; " + describe(plan, death, lines));
        }
        if (records > 0) {
            POWER_CUTS_DROPPING.incrementAndGet();
            POWER_RECORDS_DROPPED.addAndGet(records);
        }
        if (versions > 0) {
            POWER_CUTS_DROPPING_VERSIONS.incrementAndGet();
            POWER_VERSIONS_DROPPED.addAndGet(versions);
        }
        if (records > 0 || versions > 0) {
            POWER_CUTS_DROPPING_ANYTHING.incrementAndGet();
        }
        lastCut = new CutOutcome(cutAt, records, versions);
    }

    /** What the last power cut of this harness lost. */
    record CutOutcome(String point, long journalRecords, long tableVersions) {
    }

    private CutOutcome lastCut;

    CutOutcome lastCut() {
        return lastCut;
    }

    /** Every (table, table branch, version) on disk, read through the substrate. */
    private Set<String> tableVersions() {
        Set<String> out = new java.util.TreeSet<>();
        try (io.palisade.substrate.TableStore store = deployment.tables(graph).open(false)) {
            for (String t : List.of("person", "log")) {
                if (!store.exists(t)) {
                    continue;
                }
                for (String b : store.listBranches(t)) {
                    for (io.palisade.substrate.VersionInfo v : store.listVersions(t, b)) {
                        out.add(t + "/" + b + "@" + v.ref().version());
                    }
                }
            }
        }
        return out;
    }

    /**
     * The last lines of a child's standard error without stack frames (the test's temporary directory, with the file,
     * is deleted after the test).
     */
    private static String tail(Path stderr) {
        try {
            List<String> all = Files.readAllLines(stderr, StandardCharsets.UTF_8).stream()
                    .filter(l -> !l.startsWith("\tat ") && !l.startsWith("\t... ")).toList();
            return String.join("\n", all.subList(Math.max(0, all.size() - 30), all.size()));
        } catch (IOException | java.io.UncheckedIOException e) {
            return "(unreadable: " + e.getMessage() + ")";
        }
    }

    private static String describe(List<Plan.Op> plan, Death death, List<String> lines) {
        return death + " plan=" + plan + " output=" + lines;
    }

    private long endSequence() {
        try (JournalReader r = JournalReader.open(graph.resolve("_palisade"))) {
            return r.endSequence();
        }
    }

    /** {@code java}, this JVM's options (no heap, agent or crash point), a child's heap, GC and compiler, {@code extra}. */
    private static List<String> childJvm(List<String> extra) {
        List<String> cmd = new ArrayList<>();
        cmd.add(ProcessHandle.current().info().command().orElseThrow());
        for (String a : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            if (!a.startsWith("-Xmx") && !a.startsWith("-agentlib") && !a.startsWith("-Dpalisade.crash")) {
                cmd.add(a);
            }
        }
        cmd.add("-Xmx384m");
        cmd.add("-XX:+UseSerialGC");
        cmd.add("-XX:TieredStopAtLevel=1");
        cmd.addAll(extra);
        return cmd;
    }

    /**
     * The class-data archive's training child: a workload child that opens a scratch graph on {@code deployment}
     * (recovery runs), writes nothing and ends; it is part of no trial.
     */
    private static Path trainingDir() {
        return Path.of("target").toAbsolutePath().resolve("cds-training-" + ProcessHandle.current().pid());
    }

    private static ProcessBuilder trainingChild(List<String> dumpOptions, Deployment deployment) {
        Path dir = trainingDir();
        try {
            PowerLoss.deleteTree(dir);
            Files.createDirectories(dir.resolve("tmp"));
            try (Graph g = deployment.create(dir.resolve("g"), Catalog.fromJson(CATALOG), Options.defaults())) {
                g.branches(); // created: the child opens it
            }
            List<String> cmd = childJvm(dumpOptions);
            cmd.add("-Dchronicle.analytics.disable=true");
            cmd.add("-Djava.io.tmpdir=" + dir.resolve("tmp"));
            cmd.add("-cp");
            cmd.add(childClasspath());
            cmd.add(CrashWorkload.class.getName());
            cmd.add(dir.resolve("g").toString());
            cmd.add("PROCESS");
            cmd.add("2");
            cmd.add(Plan.encode(List.of()));
            ProcessBuilder pb = new ProcessBuilder(cmd);
            pb.environment().putAll(deployment.childEnvironment());
            return pb;
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** The children's classpath ({@link io.palisade.coordinator.ChildClasspath}): the class-data archive needs jars. */
    private static String childClasspath() throws IOException {
        return io.palisade.coordinator.ChildClasspath.get();
    }

    // ------------------------------------------------------------------ checks

    private void check(String invariant, boolean ok, String message) {
        INVARIANTS.incrementAndGet();
        BY_INVARIANT.computeIfAbsent(invariant, k -> new AtomicLong()).incrementAndGet();
        if (!ok) {
            FAILED_BY_INVARIANT.computeIfAbsent(invariant, k -> new AtomicLong()).incrementAndGet();
            throw new AssertionError("trial " + trial + " of graph seed " + seed + " [" + invariant + "] " + message);
        }
    }

    /**
     * After one or more children ran (in order) since the last verification: open the graph (recovery
     * runs), check every invariant and move the model to the state found.
     *
     * @param power whether the children ran in POWER_LOSS mode (the journal is cut back to its last sync first)
     */
    void verify(String label, boolean power, List<Segment> segments) {
        long t0 = System.nanoTime();
        try {
            verify0(label, power, segments);
        } finally {
            VERIFY_NANOS.addAndGet(System.nanoTime() - t0);
        }
    }

    private void verify0(String label, boolean power, List<Segment> segments) {
        trial++;
        TRIALS.incrementAndGet();
        // (in power mode every child's power cut was already applied by runChild)
        // candidate models: acknowledged ops applied; an op in flight (neither ACK nor FAIL, the first such
        // of its child) applied or not; ops after it never started
        List<Model> candidates = new ArrayList<>(List.of(model.copy()));
        for (Segment s : segments) {
            for (int i = 0; i < s.plan().size(); i++) {
                Plan.Op op = s.plan().get(i);
                if (s.acked().contains(i)) {
                    for (Model m : candidates) {
                        m.apply(op);
                    }
                } else {
                    List<Model> with = new ArrayList<>();
                    for (Model m : candidates) {
                        with.addAll(m.outcomes(op));
                    }
                    for (Model m : with) {
                        if (!candidates.contains(m)) {
                            candidates.add(m);
                        }
                    }
                    if (!s.failed().contains(i)) {
                        break;
                    }
                }
            }
        }
        String ctx = label + " segments=" + segments.stream().map(s -> "exit=" + s.exit() + " acked=" + s.acked()
                + " failed=" + s.failed() + " plan=" + s.plan()).toList();
        long endBefore;
        final String digest;
        Options options = checkingOptions();
        try (Graph g = deployment.open(graph, options)) {
            RecoveryReport report = g.recoveryReport();
            check("report-json", report.toJson().contains("\"headsDigest\""), "report JSON lacks its digest");
            Model actual = new Model();
            for (Catalog.ColumnDef c : g.catalog().require("person").columns()) {
                if (!c.name().equals("id") && !c.name().equals("age")) {
                    actual.columns.add(c.name());
                }
            }
            for (String b : g.branches()) {
                TreeMap<String, Long> rows = new TreeMap<>();
                List<Map<String, Object>> scanned = g.scan(b, "person");
                for (Map<String, Object> r : scanned) {
                    Long prev = rows.put((String) r.get("id"), (Long) r.get("age"));
                    check("2-no-duplicate-id", prev == null, "duplicate id " + r.get("id") + " on branch " + b + "; " + ctx);
                }
                // an added column is nullable and no write here sets it: every row reads null; on main (where
                // columns are added) every row has it
                for (String c : actual.columns) {
                    check("3-added-column-null-in-every-row", scanned.stream().allMatch(r -> r.get(c) == null
                                    && (!b.equals("main") || r.containsKey(c))),
                            "column " + c + " on branch " + b + " is missing or non-null in a row; " + ctx);
                }
                check("2-no-duplicate-id", rows.size() == scanned.size(), "row count vs distinct ids on " + b);
                actual.people.put(b, rows);
            }
            List<Map<String, Object>> logRows = g.scan("main", "log");
            for (Map<String, Object> r : logRows) {
                actual.log.add((String) r.get("msg"));
            }
            check("2-no-duplicate-append", new java.util.HashSet<>(actual.log).size() == actual.log.size(),
                    "a log message appears twice: " + actual.log);
            // the journal-ack table as readers see it: the unfolded tail over the folded Lance head
            List<Map<String, Object>> noteRows = g.scan("main", "note");
            for (Map<String, Object> r : noteRows) {
                check("2-no-duplicate-id", actual.notes.put((String) r.get("id"), (Long) r.get("age")) == null,
                        "duplicate note id " + r.get("id") + "; " + ctx);
            }
            Model acknowledged = candidates.get(0);
            // 1: acknowledged writes present with their values (also implied by matching a candidate)
            for (Map.Entry<String, TreeMap<String, Long>> e : acknowledged.people.entrySet()) {
                check("1-acked-present", actual.people.containsKey(e.getKey()), "branch " + e.getKey() + " lost; " + ctx);
            }
            check("1-acked-present", actual.columns.containsAll(acknowledged.columns), "acked added column lost: "
                    + actual.columns + " lacks one of " + acknowledged.columns + "; " + ctx);
            check("1-acked-present", actual.log.containsAll(acknowledged.log.stream()
                    .filter(x -> candidates.stream().allMatch(c -> c.log.contains(x))).toList()), "acked append lost; " + ctx);
            // 1 + 3: the whole state is one of the candidates: every unacknowledged write fully present or absent
            int match = -1;
            for (int i = 0; i < candidates.size() && match < 0; i++) {
                if (candidates.get(i).sameData(actual)) {
                    match = i;
                }
            }
            check("3-all-or-nothing", match >= 0, "state matches no candidate.\n actual:    " + actual
                    + "\n candidates: " + candidates + "\n " + ctx + "\n recovery: " + report.toJson());
            model = candidates.get(match);
            if (deployment instanceof Deployment.ObjectStore) {
                onTheObjectStore(g, ctx);
            }
            // 4: every intent has an outcome; the journal verifies
            check("4-no-open-intent", g.state().openIntents().isEmpty(), "open intents " + g.state().openIntents());
            check("4-no-open-recovery", g.state().openRecovery().isEmpty(), "recovery left open");
            try (JournalReader jr = JournalReader.open(graph.resolve("_palisade"))) {
                VerificationReport v = jr.verify();
                check("4-journal-verifies", v.ok(), "journal: " + v);
            }
        }
        // the state the first verifying session left: its close folded the journal-ack table's unfolded writes
        digest = HeadsReplayer.of(graph.resolve("_palisade")).replay().state().digest();
        // 5: a second recovery changes nothing
        try (JournalReader jr = JournalReader.open(graph.resolve("_palisade"))) {
            endBefore = jr.endSequence();
        }
        io.palisade.journal.TableHead noteHead;
        try (Graph g = deployment.open(graph, options)) {
            check("5-second-recovery-noop", !g.recoveryReport().changedAnything(), "second recovery: "
                    + g.recoveryReport().toJson());
            check("5-second-recovery-noop", g.state().digest().equals(digest), "digest changed on reopen");
            noteHead = g.state().head("main", "note").orElseThrow();
        }
        // the first verifying open's close folded every journaled note: Lance alone holds them, each id once
        TreeMap<String, Long> folded = new TreeMap<>();
        try (io.palisade.substrate.TableStore s = deployment.tables(graph).open(false);
             io.palisade.substrate.KeyedTable t = s.openKeyed("note", new io.palisade.substrate.TableRef(
                     noteHead.tableBranch(), noteHead.version()))) {
            for (Map<String, Object> r : t.scan()) {
                check("2-no-duplicate-id", folded.put((String) r.get("id"), (Long) r.get("age")) == null,
                        "the folded note table holds id " + r.get("id") + " twice; " + ctx);
            }
        }
        check("1-acked-present", folded.equals(model.notes), "the folded note table " + folded + " != " + model.notes
                + "; " + ctx);
        try (JournalReader jr = JournalReader.open(graph.resolve("_palisade"));
             JournalCursor c = jr.read(endBefore)) {
            JournalRecord r;
            while ((r = c.poll()) != null) {
                JournalEvent e = r.event();
                check("5-second-recovery-noop", e instanceof JournalEvent.WriterStarted
                        || e instanceof JournalEvent.CheckpointWritten, "reopen appended " + e);
            }
        }
        HeadsReplayer replayer = HeadsReplayer.of(graph.resolve("_palisade"));
        HeadsReplayer.Replay viaCheckpoint = replayer.replay();
        check("digest-full-equals-checkpoint-tail", replayer.fullReplay().digest().equals(viaCheckpoint.state().digest())
                && viaCheckpoint.state().digest().equals(digest), "after reopen: full replay != checkpoint + tail");
        LOG.debug("trial {} ok: {}", trial, label);
    }

    /**
     * Invariant 6 (object-store deployments only): the graph really is on the store. Its recorded tables location is
     * the {@code s3://} URI, it has no local {@code tables/} directory, and a Lance reader of its own (not the
     * graph's store) of the {@code s3://} {@code person} table, checked out at each graph branch's published head
     * (table branch and version), sees exactly the model's rows of that branch.
     */
    private void onTheObjectStore(Graph g, String ctx) {
        io.palisade.coordinator.TableLocation location = deployment.tables(graph);
        check("6-tables-on-object-store", location.onObjectStore() && location.uri().startsWith("s3://"),
                "the graph's tables are at " + location + ", not on the object store; " + ctx);
        check("6-tables-on-object-store", !Files.exists(graph.resolve("tables")),
                "the graph has a local tables directory " + graph.resolve("tables") + "; " + ctx);
        try (io.palisade.substrate.lance.LanceTableStore reader = new io.palisade.substrate.lance.LanceTableStore(
                location.uri(), location.storageOptions())) {
            for (Map.Entry<String, TreeMap<String, Long>> e : model.people.entrySet()) {
                io.palisade.journal.TableHead head = g.state().head(e.getKey(), "person").orElseThrow();
                TreeMap<String, Long> onStore = new TreeMap<>();
                try (io.palisade.substrate.KeyedTable t = reader.openKeyed("person", new io.palisade.substrate.TableRef(
                        head.tableBranch(), head.version()))) {
                    for (Map<String, Object> r : t.scan()) {
                        onStore.put((String) r.get("id"), (Long) r.get("age"));
                    }
                }
                check("6-tables-on-object-store", onStore.equals(e.getValue()), "a Lance reader of " + location.uri()
                        + "/person.lance at branch " + e.getKey() + "'s head " + head + " sees " + onStore + ", the model "
                        + e.getValue() + "; " + ctx);
            }
        }
    }

    @Override
    public void close() {
        PowerLoss.deleteTree(childTmpRoot); // the graph itself lives in the test's temp dir
    }
}
