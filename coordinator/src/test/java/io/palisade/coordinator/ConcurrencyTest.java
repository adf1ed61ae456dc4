package io.palisade.coordinator;

import io.palisade.fencing.KeyConflictException;
import io.palisade.journal.IntentOutcome;
import io.palisade.journal.JournalEvent;
import io.palisade.journal.JournalEvent.IntentCompleted;
import io.palisade.journal.JournalEvent.TableCommitted;
import io.palisade.journal.JournalRecord;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * The coordinator under concurrent writers on the default configuration (BTREE index on {@code id}:
 * Lance's indexed merge, which on its own commits duplicate ids when two writers race the same new key).
 */
class ConcurrencyTest {
    private static final int THREADS = 32;

    @TempDir
    Path dir;
    BufferAllocator allocator;
    ExecutorService pool;

    @BeforeEach
    void setUp() {
        allocator = new RootAllocator();
        pool = Executors.newFixedThreadPool(THREADS);
    }

    @AfterEach
    void tearDown() throws InterruptedException {
        pool.shutdownNow();
        assertThat(pool.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
        allocator.close();
    }

    /** The outcome of one writer's strict insert. */
    private record Attempt(int thread, List<String> keys, long value, Receipt receipt, KeyConflictException conflict) {
    }

    private static Map<String, Long> ages(List<Map<String, Object>> rows) {
        Map<String, Long> out = new HashMap<>();
        for (Map<String, Object> r : rows) {
            out.put((String) r.get("id"), (Long) r.get("age"));
        }
        return out;
    }

    private static Object[] pairs(List<String> keys, long value) {
        Object[] p = new Object[keys.size() * 2];
        for (int i = 0; i < keys.size(); i++) {
            p[2 * i] = keys.get(i);
            p[2 * i + 1] = value;
        }
        return p;
    }

    @Test
    void racingStrictInsertsOfTheSameNewKeysHaveExactlyOneWinnerPerKeyAndNoDuplicates() throws Exception {
        int rounds = 20;
        SplittableRandom random = new SplittableRandom(5);
        long expectedCommits = 0;
        long expectedConflicts = 0;
        try (Graph g = Palisade.create(dir.resolve("g"), Rows.catalog(), Options.defaults())) {
            assertThat(g.engine().context().store().openKeyed("person", g.engine().context().store().latest("person", "main")).hasIdIndex())
                    .as("the default configuration takes Lance's indexed (unfenced) merge path").isTrue();
            Map<String, Long> expectedTable = new HashMap<>();
            for (int round = 0; round < rounds; round++) {
                List<String> pool4 = List.of("r" + round + "-a", "r" + round + "-b", "r" + round + "-c", "r" + round + "-d");
                CyclicBarrier start = new CyclicBarrier(THREADS);
                List<Future<Attempt>> futures = new ArrayList<>();
                for (int t = 0; t < THREADS; t++) {
                    int thread = t;
                    List<String> keys = new ArrayList<>(pool4);
                    java.util.Collections.shuffle(keys, new java.util.Random(random.nextLong()));
                    List<String> mine = List.copyOf(keys.subList(0, 1 + random.nextInt(3)));
                    long value = round * 1000L + thread;
                    futures.add(this.pool.submit(() -> {
                        try (VectorSchemaRoot rows = Rows.people(allocator, pairs(mine, value))) {
                            start.await(30, TimeUnit.SECONDS);
                            try {
                                return new Attempt(thread, mine, value, g.insert("main", "person", rows), null);
                            } catch (KeyConflictException e) {
                                return new Attempt(thread, mine, value, null, e);
                            }
                        }
                    }));
                }
                List<Attempt> attempts = new ArrayList<>();
                for (Future<Attempt> f : futures) {
                    attempts.add(f.get(60, TimeUnit.SECONDS)); // any other exception fails the test here
                }

                List<Map<String, Object>> scan = g.scan("main", "person");
                List<Object> ids = scan.stream().map(r -> r.get("id")).toList();
                assertThat(ids).as("round %d: no duplicate id", round).doesNotHaveDuplicates();
                Map<String, Long> table = ages(scan);

                Map<String, Attempt> winnerOf = new HashMap<>();
                Map<String, Attempt> winnerByIntent = new HashMap<>();
                for (Attempt a : attempts) {
                    if (a.receipt() == null) {
                        continue;
                    }
                    winnerByIntent.put(a.receipt().intent(), a);
                    for (String k : a.keys()) {
                        Attempt other = winnerOf.put(k, a);
                        assertThat(other).as("round %d: key %s won by two inserts", round, k).isNull();
                    }
                }
                for (String k : pool4) {
                    if (winnerOf.containsKey(k)) {
                        assertThat(table).as("round %d: winner's row of %s", round, k).containsEntry(k, winnerOf.get(k).value());
                        expectedTable.put(k, winnerOf.get(k).value());
                    } else {
                        assertThat(table).as("round %d: key %s has no winner, so no row", round, k).doesNotContainKey(k);
                    }
                }
                assertThat(winnerOf).as("round %d: some insert won", round).isNotEmpty();
                for (Attempt a : attempts) {
                    if (a.conflict() == null) {
                        expectedCommits++;
                        continue;
                    }
                    expectedConflicts++;
                    KeyConflictException e = a.conflict();
                    assertThat(e.keys()).as("round %d: a loser's conflict names its own keys", round).isNotEmpty()
                            .isSubsetOf(a.keys());
                    for (String k : e.keys()) {
                        assertThat(winnerOf).as("round %d: the key %s named in %s was won by a committed insert", round, k,
                                e.getMessage()).containsKey(k);
                    }
                    if (e.winningIntent().isPresent()) {
                        Attempt w = winnerByIntent.get(e.winningIntent().get());
                        assertThat(w).as("round %d: the named winner %s committed", round, e.winningIntent().get()).isNotNull();
                        assertThat(w.keys()).as("round %d: the named winner inserted the named keys", round)
                                .containsAll(e.keys());
                    }
                }
            }
            assertThat(ages(g.scan("main", "person"))).isEqualTo(expectedTable);
            Metrics.Snapshot m = g.metrics().snapshot();
            assertThat(m.commits()).isEqualTo(expectedCommits);
            assertThat(m.keyConflicts()).isEqualTo(expectedConflicts);
        }
    }

    @Test
    void disjointInsertsFromManyThreadsAllCommitAndShareSubstrateCommits() throws Exception {
        int perThread = 6;
        try (Graph g = Palisade.create(dir.resolve("g"), Rows.catalog(), Options.defaults())) {
            CyclicBarrier start = new CyclicBarrier(THREADS);
            List<Future<List<Receipt>>> futures = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                int thread = t;
                futures.add(pool.submit(() -> {
                    start.await(30, TimeUnit.SECONDS);
                    List<Receipt> out = new ArrayList<>();
                    for (int i = 0; i < perThread; i++) {
                        try (VectorSchemaRoot rows = Rows.people(allocator, "t" + thread + "-" + i, thread * 100L + i)) {
                            out.add(g.insert("main", "person", rows));
                        }
                    }
                    return out;
                }));
            }
            List<Receipt> receipts = new ArrayList<>();
            for (Future<List<Receipt>> f : futures) {
                receipts.addAll(f.get(60, TimeUnit.SECONDS));
            }
            assertThat(receipts).hasSize(THREADS * perThread);
            assertThat(receipts).extracting(Receipt::intent).doesNotHaveDuplicates();
            assertThat(receipts).extracting(Receipt::seq).doesNotHaveDuplicates();

            Map<String, Long> table = ages(g.scan("main", "person"));
            assertThat(table).hasSize(THREADS * perThread);
            for (int t = 0; t < THREADS; t++) {
                for (int i = 0; i < perThread; i++) {
                    assertThat(table).containsEntry("t" + t + "-" + i, t * 100L + i);
                }
            }
            Metrics.Snapshot m = g.metrics().snapshot();
            assertThat(m.commits()).isEqualTo(THREADS * perThread);
            assertThat(m.keyConflicts()).isZero();
            assertThat(m.largestGroup()).as("group commit under contention").isGreaterThan(1);
            assertThat(m.substrateCommits()).as("fewer substrate commits than writes").isLessThan(m.commits());
            // every receipt's version is the version its group published
            Map<Long, Long> writesPerVersion = receipts.stream().collect(Collectors.groupingBy(Receipt::version, Collectors.counting()));
            assertThat(writesPerVersion).hasSize((int) m.substrateCommits());
        }
    }

    @Test
    void writesQueuedTogetherGoIntoOneSubstrateCommitAndOneJournalGroup() {
        int n = 40;
        try (Graph g = Palisade.create(dir.resolve("g"), Rows.catalog(), Options.defaults())) {
            long versionBefore = g.state().head("main", "person").orElseThrow().version();
            long from = Journals.end(g);
            List<VectorSchemaRoot> batches = new ArrayList<>();
            List<CompletableFuture<Receipt>> fs = new ArrayList<>();
            try {
                try (Journals.CommitterGate gate = new Journals.CommitterGate(g)) {
                    for (int i = 0; i < n; i++) {
                        VectorSchemaRoot rows = Rows.people(allocator, "k" + i, (long) i);
                        batches.add(rows);
                        fs.add(g.insertAsync("main", "person", rows, WriteOptions.NONE));
                    }
                }
                List<Receipt> receipts = fs.stream().map(CompletableFuture::join).toList();
                assertThat(receipts).extracting(Receipt::version).containsOnly(versionBefore + 1);
                Metrics.Snapshot m = g.metrics().snapshot();
                assertThat(m.substrateCommits()).isEqualTo(1);
                assertThat(m.largestGroup()).isEqualTo(n);
                assertThat(m.meanGroupSize()).isEqualTo(n);
                List<JournalEvent> events = Journals.events(g, from);
                assertThat(events).filteredOn(e -> e instanceof TableCommitted).singleElement()
                        .satisfies(e -> assertThat(((TableCommitted) e).intentIds())
                                .containsExactlyInAnyOrderElementsOf(receipts.stream().map(Receipt::intent).toList()));
                assertThat(g.scan("main", "person")).hasSize(n);
            } finally {
                batches.forEach(VectorSchemaRoot::close);
            }
        }
    }

    @Test
    void strictInsertIsNotRejectedForAKeyWhoseInGroupHolderFailed() {
        // B = {x, alice} is queued before C = {x, y} in one group; B must fail (alice exists), so x is
        // never inserted by B and C, which conflicts with nothing that committed, must commit.
        try (Graph g = Palisade.create(dir.resolve("g"), Rows.catalog(), Options.defaults());
             VectorSchemaRoot alice = Rows.people(allocator, "alice", 30);
             VectorSchemaRoot b = Rows.people(allocator, "x", 1, "alice", 1);
             VectorSchemaRoot c = Rows.people(allocator, "x", 2, "y", 2)) {
            g.insert("main", "person", alice);
            CompletableFuture<Receipt> fb;
            CompletableFuture<Receipt> fc;
            try (Journals.CommitterGate gate = new Journals.CommitterGate(g)) {
                fb = g.insertAsync("main", "person", b, WriteOptions.NONE);
                fc = g.insertAsync("main", "person", c, WriteOptions.NONE);
            }
            assertThat(fb).failsWithin(30, TimeUnit.SECONDS).withThrowableOfType(java.util.concurrent.ExecutionException.class)
                    .havingCause().isInstanceOf(KeyConflictException.class)
                    .satisfies(e -> assertThat(((KeyConflictException) e).keys()).containsExactly("alice"));
            assertThat(fc).succeedsWithin(30, TimeUnit.SECONDS);
            Map<String, Long> table = ages(g.scan("main", "person"));
            assertThat(table).containsOnly(Map.entry("alice", 30L), Map.entry("x", 2L), Map.entry("y", 2L));
        }
    }

    @Test
    void strictInsertRejectedInItsGroupNamesTheWinnerThatCommitted() {
        try (Graph g = Palisade.create(dir.resolve("g"), Rows.catalog(), Options.defaults());
             VectorSchemaRoot a = Rows.people(allocator, "x", 1);
             VectorSchemaRoot b = Rows.people(allocator, "x", 2, "z", 2)) {
            CompletableFuture<Receipt> fa;
            CompletableFuture<Receipt> fb;
            try (Journals.CommitterGate gate = new Journals.CommitterGate(g)) {
                fa = g.insertAsync("main", "person", a, WriteOptions.NONE);
                fb = g.insertAsync("main", "person", b, WriteOptions.NONE);
            }
            Receipt won = fa.join();
            KeyConflictException lost = conflictOf(fb);
            assertThat(lost.keys()).containsExactly("x");
            assertThat(lost.winningIntent()).contains(won.intent());
            assertThat(ages(g.scan("main", "person"))).containsOnly(Map.entry("x", 1L));
            // the journal records the loser's outcome with the winner
            List<IntentCompleted> conflicts = Journals.events(g, 0).stream()
                    .filter(e -> e instanceof IntentCompleted ic && ic.outcome() == IntentOutcome.KEY_CONFLICT)
                    .map(e -> (IntentCompleted) e).toList();
            assertThat(conflicts).singleElement().satisfies(ic -> assertThat(ic.conflictingIntent()).isEqualTo(won.intent()));
        }
    }

    private static KeyConflictException conflictOf(CompletableFuture<Receipt> f) {
        try {
            Receipt r = f.join();
            return fail("expected a key conflict, got " + r);
        } catch (CompletionException e) {
            assertThat(e.getCause()).isInstanceOf(KeyConflictException.class);
            return (KeyConflictException) e.getCause();
        }
    }

    @Test
    void queuedWritesOfOneCallerApplyInSubmissionOrderAcrossKinds() {
        try (Graph g = Palisade.create(dir.resolve("g"), Rows.catalog(), Options.defaults());
             VectorSchemaRoot k1 = Rows.people(allocator, "k", 1);
             VectorSchemaRoot x = Rows.people(allocator, "x", 1);
             VectorSchemaRoot k2 = Rows.people(allocator, "k", 2);
             VectorSchemaRoot y = Rows.people(allocator, "y", 1);
             VectorSchemaRoot j1 = Rows.people(allocator, "j", 1);
             VectorSchemaRoot j3 = Rows.people(allocator, "j", 3)) {
            g.upsert("main", "person", k1);
            g.insert("main", "person", j1);
            List<CompletableFuture<Receipt>> fs = new ArrayList<>();
            try (Journals.CommitterGate gate = new Journals.CommitterGate(g)) {
                fs.add(g.upsertAsync("main", "person", x, WriteOptions.NONE));
                fs.add(g.deleteAsync("main", "person", List.of("k"), WriteOptions.NONE));
                fs.add(g.upsertAsync("main", "person", k2, WriteOptions.NONE)); // after the delete of k
                fs.add(g.insertAsync("main", "person", y, WriteOptions.NONE));
                fs.add(g.deleteAsync("main", "person", List.of("j"), WriteOptions.NONE));
                fs.add(g.insertAsync("main", "person", j3, WriteOptions.NONE)); // strict insert after the delete of j
            }
            List<Receipt> receipts = fs.stream().map(CompletableFuture::join).toList();
            assertThat(receipts).extracting(Receipt::seq).as("completions in submission order").isSorted();
            assertThat(ages(g.scan("main", "person"))).containsOnly(Map.entry("x", 1L), Map.entry("k", 2L),
                    Map.entry("y", 1L), Map.entry("j", 3L));
        }
    }

    @Test
    void upsertsOfOneKeyFromManyThreadsAllApplyInTheJournalsSerialOrder() throws Exception {
        int perThread = 2;
        try (Graph g = Palisade.create(dir.resolve("g"), Rows.catalog(), Options.defaults())) {
            try (VectorSchemaRoot seed = Rows.people(allocator, "hot", 0)) {
                g.insert("main", "person", seed);
            }
            long from = Journals.end(g);
            CyclicBarrier start = new CyclicBarrier(THREADS);
            List<Future<Map<String, Long>>> futures = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                int thread = t;
                futures.add(pool.submit(() -> {
                    start.await(30, TimeUnit.SECONDS);
                    Map<String, Long> valueByIntent = new LinkedHashMap<>();
                    for (int i = 0; i < perThread; i++) {
                        long value = 1 + thread * 10L + i;
                        try (VectorSchemaRoot rows = Rows.people(allocator, "hot", value)) {
                            valueByIntent.put(g.upsert("main", "person", rows).intent(), value);
                        }
                    }
                    return valueByIntent;
                }));
            }
            Map<String, Long> valueByIntent = new HashMap<>();
            for (Future<Map<String, Long>> f : futures) {
                valueByIntent.putAll(f.get(60, TimeUnit.SECONDS));
            }
            assertThat(valueByIntent).hasSize(THREADS * perThread);

            // the serial order: the journal's COMMITTED completions of these intents
            List<JournalRecord> records = Journals.records(g, from);
            List<String> order = new ArrayList<>();
            Map<String, Long> seqOf = new HashMap<>();
            Map<String, Long> versionOf = new HashMap<>();
            for (JournalRecord r : records) {
                if (r.event() instanceof TableCommitted tc) {
                    List<String> ours = tc.intentIds().stream().filter(valueByIntent::containsKey).toList();
                    assertThat(ours).as("one upsert of the key per substrate commit").hasSizeLessThanOrEqualTo(1);
                    ours.forEach(i -> versionOf.put(i, tc.achievedVersion()));
                }
                if (r.event() instanceof IntentCompleted ic && valueByIntent.containsKey(ic.intentId())) {
                    assertThat(ic.outcome()).isEqualTo(IntentOutcome.COMMITTED);
                    order.add(ic.intentId());
                    seqOf.put(ic.intentId(), r.sequence());
                }
            }
            assertThat(order).as("every upsert completed exactly once").hasSize(valueByIntent.size()).doesNotHaveDuplicates();
            List<Long> versions = order.stream().map(versionOf::get).toList();
            assertThat(versions).as("versions follow the journal order").isSorted().doesNotHaveDuplicates();

            String last = order.get(order.size() - 1);
            assertThat(ages(g.scan("main", "person"))).containsOnly(Map.entry("hot", valueByIntent.get(last)));
            // each upsert applied: the value as of its completion is its own
            SplittableRandom pick = new SplittableRandom(11);
            Set<String> sample = new HashSet<>(List.of(order.get(0), last));
            while (sample.size() < 6) {
                sample.add(order.get(pick.nextInt(order.size())));
            }
            for (String intent : sample) {
                assertThat(ages(g.scanAt("main", "person", seqOf.get(intent))))
                        .as("value after upsert %s", intent).containsOnly(Map.entry("hot", valueByIntent.get(intent)));
            }
            Metrics.Snapshot m = g.metrics().snapshot();
            assertThat(m.commits()).isEqualTo(1 + THREADS * perThread);
            assertThat(m.writeConflicts()).isZero();
        }
    }
}
