package io.palisade.it.failover;

import io.palisade.coordinator.Catalog;
import io.palisade.coordinator.Graph;
import io.palisade.coordinator.Options;
import io.palisade.coordinator.Palisade;
import io.palisade.coordinator.TableLocation;
import io.palisade.fencing.ForeignCommitException;
import io.palisade.journal.JournalReader;
import io.palisade.journal.KafkaClusterExtension;
import io.palisade.journal.TableHead;
import io.palisade.substrate.ArrowRows;
import io.palisade.substrate.KeyedTable;
import io.palisade.substrate.TableRef;
import io.palisade.substrate.lance.LanceTableStore;
import io.palisade.substrate.s3.S3ProxyFixture;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Writer failover on the scale-out deployment (docs/scale-out.md "Writer failover"): the graph's tables on an object
 * store (the in-process S3Proxy of this JVM, {@link S3ProxyFixture#shared()}, reached by the child over loopback) and
 * its journal on an in-process Kafka cluster of 3 brokers and 1 controller (replication 3, {@code min.insync.replicas}
 * 2). Writer A is a child JVM ({@link FailoverWriter}); B is this test JVM, another process; each is given the
 * storage options explicitly. Trial 1: A is SIGKILLed after a random number of acknowledged writes; B opens the
 * graph, which fences A's transactional id, recovers from the replicated journal and continues. Trial 2: one broker is
 * stopped after a random number of A's writes, A goes on writing on the remaining two, then B takes over while A is
 * still alive; A's next write fails with the typed fenced error. Trial 3 (run second, before a broker is stopped): A
 * is held between a write's journaled intent and its Lance commit while B takes over, then released, so a zombie Lance
 * commit lands after the takeover; it is caught as a foreign commit, never absorbed, and adopted by the operator.
 * Invariants after each: every write A acknowledged is
 * present with its values, no id is duplicated, no write is partial (both rows of a write or neither), the journal
 * verifies, and B's view of the tables is the Lance table on S3 (the graph has no local tables directory, and a
 * separate Lance reader of the {@code s3://} table at B's head version sees exactly B's rows).
 * {@code -Dpalisade.failover.seed=S} replays a run.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class KafkaFailoverTest {
    static final String CATALOG = """
            {"tables": [{"name": "person", "kind": "node", "columns": [{"name": "id", "type": "string"},
              {"name": "age", "type": "int64", "nullable": true}]}]}
            """;

    @org.junit.jupiter.api.extension.RegisterExtension
    static final KafkaClusterExtension KAFKA = new KafkaClusterExtension(3);
    private static final S3ProxyFixture S3 = S3ProxyFixture.shared();
    private static final long SEED = Long.getLong("palisade.failover.seed", System.nanoTime());
    private static final Random RANDOM = new Random(SEED);

    @TempDir
    Path dir;

    @BeforeAll
    static void printSeed() {
        System.out.println("[failover] seed=" + SEED);
    }

    @Test
    @Order(1)
    void aKilledWriterIsReplacedByAnotherProcessWithoutLosingAnAcknowledgedWrite() throws Exception {
        Path g = createGraph("killed");
        Child a = Child.start(g, "a", dir);
        int acks = 1 + RANDOM.nextInt(12);
        a.awaitAcks(acks);
        a.process.destroyForcibly(); // SIGKILL
        assertThat(a.process.waitFor(60, TimeUnit.SECONDS)).isTrue();
        List<Integer> acked = a.acks();
        assertThat(acked.size()).isGreaterThanOrEqualTo(acks);
        takeOverAndContinue(g, "a", acked);
    }

    @Test
    @Order(3) // last: it stops a broker, and a new graph's topic needs all three
    void aLiveWriterIsFencedByTheTakeoverAfterABrokerStopped() throws Exception {
        Path g = createGraph("broker");
        Child a = Child.start(g, "a", dir);
        a.awaitAcks(1 + RANDOM.nextInt(6));
        List<Integer> brokers = new ArrayList<>(KAFKA.cluster().brokerIds());
        KAFKA.cluster().stopBroker(brokers.get(RANDOM.nextInt(brokers.size())));
        int before = a.acks().size();
        a.awaitAcks(before + 1 + RANDOM.nextInt(4)); // A goes on writing on the two remaining replicas
        a.send("PAUSE");
        a.awaitLine("PAUSED");
        List<Integer> acked = a.acks();
        takeOverAndContinue(g, "a", acked);
        // B's open fenced A: A's next operation fails with the typed fenced error
        a.send("WRITE");
        assertThat(a.process.waitFor(120, TimeUnit.SECONDS)).isTrue();
        assertThat(a.lines()).contains("FENCED");
        assertThat(a.process.exitValue()).isEqualTo(3);
        try (Graph b = Palisade.open(g, Options.defaults(), S3.storageOptions())) {
            check(g, b, "a", acked, true);
        }
    }

    /**
     * The zombie commit (docs/scale-out.md "Writer failover"): A journals a write's intent (Phase A) and is held
     * at the crash point {@code after-intent}, before its Lance commit; B opens the graph (fences A; recovery finds the
     * table at the intent's base and aborts it); then A is released, so its Lance commit lands above B's head and its
     * Phase C append fails with the typed fenced error. The zombie version is never absorbed: B's head does not move,
     * B's next write fails with the foreign-commit error naming it (never acknowledged), B's next open refuses the graph
     * with it pending, and the operator's {@code palisade recover --adopt-foreign} publishes it; every write A
     * acknowledged is present throughout.
     */
    @Test
    @Order(2)
    void aZombieLanceCommitThatLandsAfterTheTakeoverIsCaughtAsAForeignCommitNeverAbsorbed() throws Exception {
        Path g = createGraph("zombie");
        Child a = Child.start(g, "a", dir);
        a.awaitAcks(1 + RANDOM.nextInt(4));
        a.send("PAUSE");
        a.awaitLine("PAUSED");
        List<Integer> acked = a.acks();
        int z = acked.size(); // the index of A's next write, the one held between its intent and its Lance commit
        List<String> zombieIds = List.of("a-" + (z * FailoverWriter.ROWS_PER_WRITE), "a-" + (z * FailoverWriter.ROWS_PER_WRITE + 1));
        a.send("HOLD after-intent");
        a.awaitLine("HELD after-intent");
        long base;
        long latest;
        try (Graph b = Palisade.open(g, Options.defaults(), S3.storageOptions());
             BufferAllocator allocator = new RootAllocator()) {
            assertThat(b.recoveryReport().classifications()).as("B's recovery aborted A's open intent").singleElement()
                    .satisfies(c -> {
                        assertThat(c.kind()).isEqualTo(io.palisade.journal.RecoveryClassification.Kind.NO_EFFECT_ABORTED);
                        assertThat(c.table()).isEqualTo("person");
                    });
            base = b.state().head("main", "person").orElseThrow().version();
            check(g, b, "a", acked, false);
            assertThat(latestOnS3(g)).isEqualTo(base);

            a.send("RELEASE"); // A's Lance commit lands now; its Phase C append meets the fence
            assertThat(a.process.waitFor(120, TimeUnit.SECONDS)).isTrue();
            assertThat(a.lines()).as("A's held write is never acknowledged").contains("FENCED").doesNotContain("ACK " + z);
            assertThat(a.process.exitValue()).isEqualTo(3);
            assertThat(latestOnS3(g)).as("the zombie commit landed above B's head").isEqualTo(base + 1);
            assertThat(b.state().head("main", "person").orElseThrow().version()).as("B did not absorb it").isEqualTo(base);
            assertThat(b.scan("main", "person")).extracting(r -> r.get("id")).doesNotContainAnyElementsOf(zombieIds);

            // B's next write checks its achieved version: the zombie's is one no intent explains
            assertThatThrownBy(() -> insert(b, allocator, "b-0")).isInstanceOfSatisfying(ForeignCommitException.class, f -> {
                assertThat(f.situation()).isEqualTo(ForeignCommitException.Situation.RACED_WRITE);
                assertThat(f.table()).isEqualTo("person");
                assertThat(f.journalVersion()).isEqualTo(base);
                assertThat(f.foreignVersions()).containsExactly(base + 1);
            });
            assertThat(b.state().head("main", "person").orElseThrow().version()).isEqualTo(base);
            check(g, b, "a", acked, false);
            latest = latestOnS3(g); // base + 2 when Lance rebased B's refused write over the zombie, else base + 1
            assertThat(latest).isBetween(base + 1, base + 2);
        }
        List<Long> foreign = java.util.stream.LongStream.rangeClosed(base + 1, latest).boxed().toList();
        assertThatThrownBy(() -> Palisade.open(g, Options.defaults(), S3.storageOptions()).close())
                .as("the next open refuses the graph").isInstanceOfSatisfying(ForeignCommitException.class, f -> {
                    assertThat(f.situation()).isEqualTo(ForeignCommitException.Situation.PENDING);
                    assertThat(f.journalVersion()).isEqualTo(base);
                    assertThat(f.foreignVersions()).isEqualTo(foreign);
                });

        // the operator's way out (docs/recovery.md "Foreign commits"): adopt the versions
        Path storage = dir.resolve("storage.properties");
        Files.writeString(storage, S3.storageOptions().entrySet().stream().map(e -> e.getKey() + "=" + e.getValue())
                .collect(java.util.stream.Collectors.joining("\n", "", "\n")));
        System.setProperty(TableLocation.FILE_PROPERTY, storage.toString());
        try {
            assertThat(io.palisade.cli.Main.run("recover", g.toString(), "--adopt-foreign", "--json")).isZero();
        } finally {
            System.clearProperty(TableLocation.FILE_PROPERTY);
        }
        try (Graph b = Palisade.open(g, Options.defaults(), S3.storageOptions());
             BufferAllocator allocator = new RootAllocator()) {
            assertThat(b.state().head("main", "person").orElseThrow().version()).isEqualTo(latest);
            Map<String, Object> age = ages(b.scan("main", "person"));
            assertThat(onS3(g, b)).isEqualTo(age);
            for (int i : acked) {
                for (int k = 0; k < FailoverWriter.ROWS_PER_WRITE; k++) {
                    int n = i * FailoverWriter.ROWS_PER_WRITE + k;
                    assertThat(age).as("acknowledged write %d", i).containsEntry("a-" + n, (long) n);
                }
            }
            // adopted: the zombie's rows, and B's raced write's when Lance had committed it
            assertThat(age).containsKeys(zombieIds.toArray(String[]::new));
            assertThat(age).hasSize((acked.size() + 1) * FailoverWriter.ROWS_PER_WRITE + (latest == base + 2 ? 1 : 0));
            insert(b, allocator, "b-1");
            assertThat(b.scan("main", "person")).extracting(r -> r.get("id")).contains("b-1");
        }
        try (JournalReader r = JournalReader.open(g.resolve("_palisade"))) {
            assertThat(r.verify().ok()).isTrue();
        }
    }

    private static void insert(Graph b, BufferAllocator allocator, String id) {
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("id", id);
        row.put("age", 7L);
        try (VectorSchemaRoot root = VectorSchemaRoot.create(b.catalog().require("person").arrowSchema(), allocator)) {
            ArrowRows.fill(root, List.of(row));
            b.insert("main", "person", root);
        }
    }

    /** The person table's latest Lance version on main, as a separate Lance reader of the object store sees it. */
    private static long latestOnS3(Path g) {
        try (LanceTableStore store = new LanceTableStore(TableLocation.of(g, S3.storageOptions()).uri(), S3.storageOptions())) {
            return store.latest("person", "main").version();
        }
    }

    private Path createGraph(String name) {
        Path g = dir.resolve(name);
        Palisade.create(g, Catalog.fromJson(CATALOG), Options.defaults(), S3.freshUri(), S3.storageOptions(),
                KAFKA.cluster().newJournal(name)).close();
        return g;
    }

    /** B: opens (fences A, recovers), checks the invariants, writes on. */
    private static void takeOverAndContinue(Path g, String prefix, List<Integer> acked) {
        try (Graph b = Palisade.open(g, Options.defaults(), S3.storageOptions());
             BufferAllocator allocator = new RootAllocator()) {
            check(g, b, prefix, acked, false);
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("id", "b-0");
            row.put("age", 7L);
            try (VectorSchemaRoot root = VectorSchemaRoot.create(b.catalog().require("person").arrowSchema(), allocator)) {
                ArrowRows.fill(root, List.of(row));
                b.insert("main", "person", root);
            }
            assertThat(b.scan("main", "person")).extracting(r -> r.get("id")).contains("b-0");
        }
        try (JournalReader r = JournalReader.open(g.resolve("_palisade"))) {
            assertThat(r.verify().ok()).isTrue();
        }
    }

    private static void check(Path g, Graph b, String prefix, List<Integer> acked, boolean afterB) {
        List<Map<String, Object>> rows = b.scan("main", "person");
        assertThat(onS3(g, b)).as("B's rows are the Lance table's on S3").isEqualTo(ages(rows));
        List<Object> ids = rows.stream().map(r -> r.get("id")).toList();
        assertThat(new HashSet<>(ids)).as("no duplicate ids").hasSameSizeAs(ids);
        Map<String, Object> age = new HashMap<>();
        rows.forEach(r -> age.put((String) r.get("id"), r.get("age")));
        for (int i : acked) {
            for (int k = 0; k < FailoverWriter.ROWS_PER_WRITE; k++) {
                int n = i * FailoverWriter.ROWS_PER_WRITE + k;
                assertThat(age).as("acknowledged write %d", i).containsEntry(prefix + "-" + n, (long) n);
            }
        }
        Set<Integer> writes = new HashSet<>();
        for (Object id : ids) {
            String s = (String) id;
            if (s.startsWith(prefix + "-")) {
                writes.add(Integer.parseInt(s.substring(prefix.length() + 1)) / FailoverWriter.ROWS_PER_WRITE);
            }
        }
        for (int w : writes) {
            for (int k = 0; k < FailoverWriter.ROWS_PER_WRITE; k++) {
                assertThat(age).as("write %d is whole", w).containsKey(prefix + "-" + (w * FailoverWriter.ROWS_PER_WRITE + k));
            }
        }
        assertThat(ids.size()).isEqualTo(writes.size() * FailoverWriter.ROWS_PER_WRITE + (afterB ? 1 : 0));
    }

    /**
     * The rows of the graph's person table on main as a separate Lance reader of the object store sees them, at B's
     * head version; the graph's tables are on S3 (its recorded URI), and it has no local tables directory.
     */
    private static Map<String, Object> onS3(Path g, Graph b) {
        TableLocation location = TableLocation.of(g, S3.storageOptions());
        assertThat(location.uri()).startsWith("s3://" + S3ProxyFixture.BUCKET + "/");
        assertThat(g.resolve("tables")).doesNotExist();
        TableHead head = b.state().head("main", "person").orElseThrow();
        try (LanceTableStore store = new LanceTableStore(location.uri(), S3.storageOptions());
             KeyedTable table = store.openKeyed("person", new TableRef(head.tableBranch(), head.version()))) {
            return ages(table.scan());
        }
    }

    private static Map<String, Object> ages(List<Map<String, Object>> rows) {
        Map<String, Object> out = new TreeMap<>();
        rows.forEach(r -> out.put((String) r.get("id"), r.get("age")));
        return out;
    }

    /** A running {@link FailoverWriter} and the lines it printed. */
    static final class Child {
        final Process process;
        private final Writer in;
        private final List<String> lines = java.util.Collections.synchronizedList(new ArrayList<>());
        private final LinkedBlockingQueue<String> events = new LinkedBlockingQueue<>();
        private final Thread reader;

        private Child(Process process) {
            this.process = process;
            this.in = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
            this.reader = new Thread(() -> {
                try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(),
                        StandardCharsets.UTF_8))) {
                    String line;
                    while ((line = r.readLine()) != null) {
                        lines.add(line);
                        events.add(line);
                    }
                } catch (java.io.IOException e) {
                    // the child died
                }
                events.add("<end>");
            });
            reader.setDaemon(true);
            reader.start();
        }

        /**
         * Starts A on {@code graph} with the S3 server's storage options as arguments; its environment keeps instance
         * metadata off ({@code AWS_EC2_METADATA_DISABLED}) and names the same server in {@code AWS_*} (Lance 7.0.0 reads
         * those for some stores, docs/scale-out.md).
         */
        static Child start(Path graph, String prefix, Path dir) throws Exception {
            Path tmp = Files.createTempDirectory(dir, "child-tmp");
            List<String> cmd = new ArrayList<>();
            cmd.add(ProcessHandle.current().info().command().orElseThrow());
            for (String a : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
                if (!a.startsWith("-Xmx") && !a.startsWith("-agentlib") && !a.startsWith("-Djava.io.tmpdir")) {
                    cmd.add(a);
                }
            }
            cmd.addAll(List.of("-Xmx384m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                    "-Dchronicle.analytics.disable=true", "-Djava.io.tmpdir=" + tmp,
                    "-cp", System.getProperty("java.class.path"), FailoverWriter.class.getName(), graph.toString(), prefix));
            S3.storageOptions().forEach((k, v) -> cmd.add(k + "=" + v));
            ProcessBuilder pb = new ProcessBuilder(cmd).redirectError(dir.resolve("child-" + prefix + "-"
                    + graph.getFileName() + ".err").toFile());
            Map<String, String> env = pb.environment();
            env.put("AWS_EC2_METADATA_DISABLED", "true");
            env.put("AWS_ENDPOINT", S3.endpoint());
            env.put("AWS_ACCESS_KEY_ID", S3ProxyFixture.ACCESS_KEY);
            env.put("AWS_SECRET_ACCESS_KEY", S3ProxyFixture.SECRET_KEY);
            env.put("AWS_REGION", S3ProxyFixture.REGION);
            env.put("AWS_ALLOW_HTTP", "true");
            return new Child(pb.start());
        }

        void send(String command) throws java.io.IOException {
            in.write(command + "\n");
            in.flush();
        }

        /** Waits for the child's {@code n}th acknowledgement (it fails the test if the child ends first). */
        void awaitAcks(int n) throws InterruptedException {
            while (acks().size() < n) {
                String e = events.poll(120, TimeUnit.SECONDS);
                assertThat(e).as("child line (it printed %s)", lines).isNotNull().isNotEqualTo("<end>")
                        .doesNotStartWith("FAILED").isNotEqualTo("FENCED");
            }
        }

        void awaitLine(String wanted) throws InterruptedException {
            while (!lines.contains(wanted)) {
                String e = events.poll(120, TimeUnit.SECONDS);
                assertThat(e).as("child line (it printed %s)", lines).isNotNull().isNotEqualTo("<end>");
            }
        }

        List<String> lines() throws InterruptedException {
            reader.join(TimeUnit.SECONDS.toMillis(60));
            return List.copyOf(lines);
        }

        List<Integer> acks() {
            synchronized (lines) {
                return lines.stream().filter(l -> l.startsWith("ACK ")).map(l -> Integer.parseInt(l.substring(4))).toList();
            }
        }
    }
}
