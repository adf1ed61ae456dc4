package io.palisade.coordinator;

import io.palisade.fencing.GraphRefusedException;
import io.palisade.fencing.KeyConflictException;
import io.palisade.fencing.ValidationException;
import io.palisade.heads.FoldMark;
import io.palisade.journal.IntentOutcome;
import io.palisade.journal.JournalEvent;
import io.palisade.journal.JournalReader;
import io.palisade.journal.JournalRecord;
import io.palisade.journal.LogicalOperation;
import io.palisade.substrate.KeyedTable;
import io.palisade.substrate.TableRef;
import io.palisade.substrate.lance.LanceTableStore;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Journal-ack tables (docs/journal-ack.md): acknowledged from the journal, read at once, folded exactly once. */
class JournalAckTest extends GraphTestSupport {
    static final String CATALOG = """
            {"tables": [{"name": "person", "kind": "node", "ack": "journal", "columns": [{"name": "id", "type": "string"},
              {"name": "age", "type": "int64", "nullable": true}]},
             {"name": "log", "kind": "append-only", "columns": [{"name": "msg", "type": "string", "nullable": true}]}]}
            """;

    /** Folds only when asked (close, branch, other operations): lag and count bounds out of reach. */
    static Options noAutoFold() {
        return Options.defaults().withFolding(3_600_000, 1_000_000, 1L << 40);
    }

    /** The rows' ages by id, each id once. */
    static Map<String, Object> ages(List<Map<String, Object>> rows) {
        Map<String, Object> out = new TreeMap<>();
        for (Map<String, Object> r : rows) {
            assertThat(out.put((String) r.get("id"), r.get("age"))).as("id %s once", r.get("id")).isNull();
        }
        return out;
    }

    /** The rows of the Lance table itself at its latest version on main, as an external reader sees them. */
    private Map<String, Object> lanceAges(Graph g) {
        try (LanceTableStore s = new LanceTableStore(g.path().resolve("tables").toString());
             KeyedTable t = s.openKeyed("person", s.latest("person", TableRef.MAIN))) {
            return ages(t.scan());
        }
    }

    private static List<JournalRecord> journal(Graph g) {
        try (JournalReader r = JournalReader.open(g.path().resolve("_palisade")); var c = r.read(0)) {
            return c.drain();
        }
    }

    @Test
    void theCatalogSaysWhichTablesAreJournalAckAndOnlyKeyedOnesMayBe() {
        Catalog c = Catalog.fromJson(CATALOG);
        assertThat(c.require("person").ack()).isEqualTo(Catalog.Ack.JOURNAL);
        assertThat(c.require("log").ack()).isEqualTo(Catalog.Ack.TABLE);
        assertThat(Catalog.fromJson(c.toJson())).isEqualTo(c);
        assertThatThrownBy(() -> Catalog.fromJson("""
                {"tables": [{"name": "log", "kind": "append-only", "ack": "journal", "columns": [{"name": "m", "type": "string"}]}]}"""))
                .isInstanceOf(ValidationException.class).hasMessageContaining("needs a keyed table");
        assertThatThrownBy(() -> Catalog.fromJson("""
                {"tables": [{"name": "p", "kind": "node", "ack": "soon", "columns": [{"name": "id", "type": "string"}]}]}"""))
                .isInstanceOf(ValidationException.class).hasMessageContaining("unknown ack 'soon'");
    }

    @Test
    void aJournalAckDeleteCountsTheKeysHeldByTheTailOrTheFoldedHead() {
        try (Graph g = Palisade.create(dir.resolve("g"), Catalog.fromJson(CATALOG), noAutoFold())) {
            g.insert("main", "person", List.of(Row.of("id", "alice", "age", 30), Row.of("id", "bob", "age", 40)));
        } // close folds
        try (Graph g = Palisade.open(dir.resolve("g"), noAutoFold())) {
            assertThat(g.state().foldMark("main", "person").unfolded()).isZero();
            g.insert("main", "person", List.of(Row.of("id", "carol", "age", 50)));
            // alice at the folded head, carol in the unfolded tail, nobody anywhere
            assertThat(g.delete("main", "person", List.of("alice", "carol", "nobody")).rows()).isEqualTo(2);
            // both are now deleted by the tail
            assertThat(g.delete("main", "person", List.of("alice", "carol")).rows()).isZero();
            assertThat(g.delete("main", "person", List.of("bob")).rows()).isEqualTo(1);
            assertThat(g.scan("main", "person")).isEmpty();
        }
    }

    @Test
    void writesAreAcknowledgedFromTheJournalReadAtOnceAndFoldedIntoTheTable() {
        try (Graph g = Palisade.create(dir.resolve("g"), Catalog.fromJson(CATALOG), noAutoFold())) {
            long v0 = g.state().head("main", "person").orElseThrow().version();
            Receipt r1 = g.insert("main", "person", List.of(Row.of("id", "alice", "age", 30), Row.of("id", "bob", "age", 40)));
            Receipt r2 = g.upsert("main", "person", List.of(Row.of("id", "alice", "age", 31)));
            Receipt r3 = g.delete("main", "person", List.of("bob"));
            assertThat(List.of(r1, r2, r3)).allSatisfy(r -> {
                assertThat(r.folded()).isFalse();
                assertThat(r.version()).isEqualTo(v0);
            });
            // the table has not moved; reads through Palisade see every acknowledged write
            assertThat(g.state().head("main", "person").orElseThrow().version()).isEqualTo(v0);
            assertThat(lanceAges(g)).isEmpty();
            assertThat(ages(g.scan("main", "person"))).containsExactlyInAnyOrderEntriesOf(Map.of("alice", 31L));
            assertThat(g.get("main", "person", List.of("alice", "bob", "nobody"))).containsOnlyKeys("alice");
            assertThat(g.get("main", "person", List.of("alice")).get("alice").int64("age")).isEqualTo(31L);
            FoldMark m = g.state().foldMark("main", "person");
            assertThat(m.unfolded()).isEqualTo(3);
            assertThat(m.newestSequence()).isEqualTo(r3.seq());

            // a strict insert meets the newest unfolded write holding the key (named as the winner); the key freed by
            // the delete is free
            assertThatThrownBy(() -> g.insert("main", "person", List.of(Row.of("id", "alice", "age", 1))))
                    .isInstanceOfSatisfying(KeyConflictException.class, e -> {
                        assertThat(e.keys()).containsExactly("alice");
                        assertThat(e.winningIntent()).contains(r2.intent());
                    });
            Receipt r4 = g.insert("main", "person", List.of(Row.of("id", "bob", "age", 41)));
            assertThat(ages(g.scan("main", "person"))).containsExactlyInAnyOrderEntriesOf(Map.of("alice", 31L, "bob", 41L));

            // the journal holds each write's intent, rows and JOURNALED completion in one record, at its receipt's
            // sequence
            List<JournalRecord> records = journal(g);
            assertThat(records.stream().filter(r -> r.event() instanceof JournalEvent.WriteJournaled)
                    .map(JournalRecord::sequence)).hasSize(4).contains(r2.seq(), r4.seq());
            assertThat(records.stream().filter(r -> r.event() instanceof JournalEvent.WriteJournaled w
                    && w.intentId().equals(r4.intent()) && w.rowCount() == 1 && w.intent().keyFilter().keys()
                    .equals(List.of("bob")))).hasSize(1);
            assertThat(records.stream().filter(r -> r.event() instanceof JournalEvent.RowsRecorded
                    || r.event() instanceof JournalEvent.IntentCompleted c && c.outcome() == IntentOutcome.JOURNALED))
                    .isEmpty();

            // a branch folds its parent first: the fold is one table version holding exactly the merged state
            g.createBranch("dev", "main");
            long v1 = g.state().head("main", "person").orElseThrow().version();
            assertThat(v1).isEqualTo(v0 + 1);
            assertThat(lanceAges(g)).containsExactlyInAnyOrderEntriesOf(Map.of("alice", 31L, "bob", 41L));
            assertThat(g.state().foldMark("main", "person")).isEqualTo(new FoldMark(r4.seq(), 0, -1, -1, -1));
            assertThat(ages(g.scan("main", "person"))).containsExactlyInAnyOrderEntriesOf(Map.of("alice", 31L, "bob", 41L));
            assertThat(ages(g.scan("dev", "person"))).containsExactlyInAnyOrderEntriesOf(Map.of("alice", 31L, "bob", 41L));
            assertThat(g.metrics().folds()).isEqualTo(1);
            assertThat(g.metrics().foldedWrites()).isEqualTo(4);
            JournalEvent.FoldPlanned plan = journal(g).stream().map(JournalRecord::event)
                    .filter(e -> e instanceof JournalEvent.FoldPlanned).map(e -> (JournalEvent.FoldPlanned) e)
                    .findFirst().orElseThrow();
            assertThat(plan.throughSequence()).isEqualTo(r4.seq());
            assertThat(plan.writes()).isEqualTo(4);
            assertThat(plan.deletedKeys()).isNull(); // bob's delete was overtaken by his insert
            assertThat(journal(g).stream().anyMatch(r -> r.event() instanceof JournalEvent.IntentRecorded i
                    && i.operation() == LogicalOperation.FOLD && i.intentId().equals(plan.intentId()))).isTrue();
        }
    }

    @Test
    void unfoldedWritesSurviveAReopenAndAreFoldedOnce() {
        Receipt last;
        // a manual committer, abandoned like a dead process: no fold at close, the writes are in the journal only
        List<LanceTableStore> stores = new ArrayList<>();
        Palisade.Wiring dying = new Palisade.Wiring(tables -> {
            LanceTableStore s = new LanceTableStore(tables.toString());
            stores.add(s);
            return s;
        }, true);
        Graph dead = Palisade.create(dir.resolve("g"), Catalog.fromJson(CATALOG), noAutoFold(), dying);
        dead.insert("main", "person", List.of(Row.of("id", "a", "age", 1), Row.of("id", "b", "age", 2)));
        last = dead.delete("main", "person", List.of("a"));
        dead.engine().abandon();
        stores.forEach(LanceTableStore::close);
        try (Graph g = Palisade.open(dir.resolve("g"), noAutoFold())) {
            assertThat(g.state().foldMark("main", "person").unfolded()).isEqualTo(2);
            assertThat(ages(g.scan("main", "person"))).containsExactlyInAnyOrderEntriesOf(Map.of("b", 2L));
            assertThatThrownBy(() -> g.insert("main", "person", List.of(Row.of("id", "b", "age", 9))))
                    .isInstanceOf(KeyConflictException.class);
            g.insert("main", "person", List.of(Row.of("id", "a", "age", 3)));
        }
        // closing folded everything: the Lance table alone holds the state, once per key
        try (Graph g = Palisade.open(dir.resolve("g"), noAutoFold())) {
            assertThat(g.state().foldMark("main", "person").unfolded()).isZero();
            assertThat(g.state().foldMark("main", "person").foldedThrough()).isGreaterThan(last.seq());
            assertThat(lanceAges(g)).containsExactlyInAnyOrderEntriesOf(Map.of("a", 3L, "b", 2L));
            assertThat(ages(g.scan("main", "person"))).containsExactlyInAnyOrderEntriesOf(Map.of("a", 3L, "b", 2L));
            assertThat(g.scanAt("main", "person", last.seq())).extracting(r -> r.get("id")).containsExactly("b");
        }
    }

    @Test
    void aBranchOfAJournalAckTableIsWrittenAndMergedLikeATableAckOne() {
        try (Graph g = Palisade.create(dir.resolve("g"), Catalog.fromJson(CATALOG), noAutoFold())) {
            g.insert("main", "person", List.of(Row.of("id", "a", "age", 1), Row.of("id", "b", "age", 2)));
            g.createBranch("dev", "main");
            g.upsert("dev", "person", List.of(Row.of("id", "a", "age", 10)));
            g.insert("dev", "person", List.of(Row.of("id", "c", "age", 3)));
            g.delete("dev", "person", List.of("b"));
            g.insert("main", "person", List.of(Row.of("id", "m", "age", 7)));
            assertThat(g.state().foldMark("dev", "person").unfolded()).isEqualTo(3);
            assertThat(ages(g.scan("dev", "person"))).containsExactlyInAnyOrderEntriesOf(Map.of("a", 10L, "c", 3L));
            assertThat(ages(g.scan("main", "person")))
                    .containsExactlyInAnyOrderEntriesOf(Map.of("a", 1L, "b", 2L, "m", 7L));
            g.merge("dev", "main");
            assertThat(ages(g.scan("main", "person")))
                    .containsExactlyInAnyOrderEntriesOf(Map.of("a", 10L, "c", 3L, "m", 7L));
            assertThat(ages(g.scan("dev", "person"))).containsExactlyInAnyOrderEntriesOf(Map.of("a", 10L, "c", 3L));
        }
        try (Graph g = Palisade.open(dir.resolve("g"), noAutoFold())) {
            assertThat(ages(g.scan("main", "person")))
                    .containsExactlyInAnyOrderEntriesOf(Map.of("a", 10L, "c", 3L, "m", 7L));
        }
    }

    @Test
    void theFoldAgentFoldsAtItsCountBound() {
        Options o = Options.defaults().withFolding(3_600_000, 3, 1L << 40);
        try (Graph g = Palisade.create(dir.resolve("g"), Catalog.fromJson(CATALOG), o)) {
            for (int i = 0; i < 3; i++) {
                g.upsert("main", "person", List.of(Row.of("id", "k" + i, "age", i)));
            }
            // the fold is planned on the committer in the cycle that acknowledged the third write; a fourth write
            // queued behind it is acknowledged while the fold's Lance commit runs, above its watermark
            Receipt fourth = g.upsert("main", "person", List.of(Row.of("id", "k3", "age", 3)));
            g.awaitFold();
            assertThat(g.metrics().folds()).isEqualTo(1);
            assertThat(lanceAges(g)).containsOnlyKeys("k0", "k1", "k2");
            FoldMark m = g.state().foldMark("main", "person");
            assertThat(m.unfolded()).isEqualTo(1);
            assertThat(m.newestSequence()).isEqualTo(fourth.seq());
            assertThat(m.foldedThrough()).isLessThan(fourth.seq());
            assertThat(ages(g.scan("main", "person"))).containsOnlyKeys("k0", "k1", "k2", "k3");
        }
    }

    @Test
    void concurrentStrictInsertsOfTheSameNewKeysHaveExactlyOneWinnerPerKey() throws Exception {
        int threads = 32;
        int keys = 40;
        try (Graph g = Palisade.create(dir.resolve("g"), Catalog.fromJson(CATALOG), Options.defaults().withFolding(5, 64, 1L << 40))) {
            ExecutorService pool = Executors.newFixedThreadPool(threads);
            CountDownLatch start = new CountDownLatch(1);
            List<Future<Integer>> wins = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int me = t;
                wins.add(pool.submit(() -> {
                    start.await();
                    int won = 0;
                    for (int k = 0; k < keys; k++) {
                        try {
                            g.insert("main", "person", List.of(Row.of("id", "key-" + k, "age", me)));
                            won++;
                        } catch (KeyConflictException e) {
                            assertThat(e.keys()).containsExactly("key-" + k);
                        }
                    }
                    return won;
                }));
            }
            start.countDown();
            int total = 0;
            for (Future<Integer> f : wins) {
                total += f.get(10, TimeUnit.MINUTES);
            }
            pool.shutdown();
            assertThat(total).isEqualTo(keys);
            assertThat(ages(g.scan("main", "person"))).hasSize(keys);
        }
        try (Graph g = Palisade.open(dir.resolve("g"), noAutoFold())) {
            assertThat(g.state().foldMark("main", "person").unfolded()).isZero();
            assertThat(lanceAges(g)).hasSize(keys); // no duplicate id after the folds (ages() asserts each id once)
        }
    }

    @Test
    void acknowledgementsGoOnWhileAFoldsLanceCommitIsHeld() throws Exception {
        Options o = Options.defaults().withFolding(3_600_000, 3, 1L << 40);
        CountDownLatch inLance = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Graph g = Palisade.create(dir.resolve("g"), Catalog.fromJson(CATALOG), o);
        try {
            long v0 = g.state().head("main", "person").orElseThrow().version();
            g.engine().beforeFoldCommit(hold(inLance, release, () -> { }));
            Receipt third = null;
            for (int i = 0; i < 3; i++) {
                third = g.upsert("main", "person", List.of(Row.of("id", "k" + i, "age", i)));
            }
            assertThat(inLance.await(5, TimeUnit.MINUTES)).isTrue(); // the fold's Lance commit is held
            g.engine().beforeFoldCommit(null);

            // while it is held: writes are acknowledged, fenced against every unfolded write, and read at once
            Receipt up = g.upsert("main", "person", List.of(Row.of("id", "k0", "age", 100)));
            Receipt del = g.delete("main", "person", List.of("k1"));
            assertThat(List.of(up, del)).allSatisfy(r -> assertThat(r.folded()).isFalse());
            assertThatThrownBy(() -> g.insert("main", "person", List.of(Row.of("id", "k2", "age", 9))))
                    .isInstanceOf(KeyConflictException.class);
            assertThat(ages(g.scan("main", "person"))).containsExactlyInAnyOrderEntriesOf(Map.of("k0", 100L, "k2", 2L));
            assertThat(g.state().head("main", "person").orElseThrow().version()).isEqualTo(v0);
            assertThat(g.state().foldMark("main", "person").unfolded()).isEqualTo(5);
            assertThat(g.metrics().folds()).isZero();
            // an operation on the table that is not a journal-ack write waits for the fold, then folds the rest
            // (the committer itself now waits for the held fold: nothing else is submitted before the release)
            CompletableFuture<Receipt> index = CompletableFuture.supplyAsync(() -> g.optimizeIndex("main", "person"));

            release.countDown();
            index.get(5, TimeUnit.MINUTES);
            g.awaitFold();
            // the held fold folded exactly the three writes of its plan; the writes acknowledged meanwhile were
            // folded by the next fold (the one the index maintenance waits for), none twice
            List<JournalRecord> records = journal(g);
            List<JournalEvent.FoldPlanned> plans = records.stream()
                    .filter(r -> r.event() instanceof JournalEvent.FoldPlanned).map(r -> (JournalEvent.FoldPlanned) r.event())
                    .toList();
            assertThat(plans).hasSizeGreaterThanOrEqualTo(2);
            assertThat(plans.get(0).throughSequence()).isEqualTo(third.seq());
            assertThat(plans.get(0).writes()).isEqualTo(3);
            assertThat(plans.get(1).throughSequence()).isGreaterThanOrEqualTo(del.seq());
            assertThat(plans.stream().mapToLong(JournalEvent.FoldPlanned::writes).sum()).isEqualTo(5);
            assertThat(g.state().foldMark("main", "person").unfolded()).isZero();
            assertThat(lanceAges(g)).containsExactlyInAnyOrderEntriesOf(Map.of("k0", 100L, "k2", 2L));
            long firstFoldDone = records.stream().filter(r -> r.event() instanceof JournalEvent.IntentCompleted c
                    && c.intentId().equals(plans.get(0).intentId())).findFirst().orElseThrow().sequence();
            long indexRecorded = records.stream().filter(r -> r.event() instanceof JournalEvent.IntentRecorded i
                    && i.operation() == LogicalOperation.INDEX_MAINTENANCE).findFirst().orElseThrow().sequence();
            assertThat(indexRecorded).isGreaterThan(firstFoldDone);
        } finally {
            release.countDown(); // before the close, which waits for the held commit
            g.close();
        }
        try (Graph reopened = Palisade.open(dir.resolve("g"), noAutoFold())) {
            assertThat(lanceAges(reopened)).containsExactlyInAnyOrderEntriesOf(Map.of("k0", 100L, "k2", 2L));
        }
    }

    /** Holds a fold's Lance commit at {@code inLance} until {@code release}; then runs {@code then}. */
    private static Runnable hold(CountDownLatch inLance, CountDownLatch release, Runnable then) {
        return () -> {
            inLance.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            then.run();
        };
    }

    private static long completedAt(List<JournalRecord> records, String intentId) {
        return records.stream().filter(r -> r.event() instanceof JournalEvent.IntentCompleted c
                && c.intentId().equals(intentId)).findFirst().orElseThrow().sequence();
    }

    @Test
    void pastTheLagBoundAnAcknowledgementWaitsForTheFoldAndUnderItDoesNot() throws Exception {
        // count bound 3 starts the fold; the lag bound is 10 min, the fold agent's lag trigger 1 h (out of reach)
        Options o = Options.defaults().withFolding(3_600_000, 3, 1L << 40).withMaxFoldLag(600_000);
        CountDownLatch inLance = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        try (Graph g = Palisade.create(dir.resolve("g"), Catalog.fromJson(CATALOG), o)) {
            g.engine().beforeFoldCommit(hold(inLance, release, () -> { }));
            Receipt third = null;
            for (int i = 0; i < 3; i++) {
                third = g.upsert("main", "person", List.of(Row.of("id", "k" + i, "age", i)));
            }
            assertThat(inLance.await(5, TimeUnit.MINUTES)).isTrue();
            g.engine().beforeFoldCommit(null);

            // under the bound: acknowledged while the fold is held
            Receipt under = g.upsert("main", "person", List.of(Row.of("id", "k3", "age", 3)));
            assertThat(under.folded()).isFalse();
            assertThat(g.metrics().folds()).isZero();
            assertThat(g.metrics().backPressureWaits()).isZero();

            // the unfolded writes age past the bound (the clock moves 20 min on; nothing waits on wall time)
            g.engine().clock(() -> System.currentTimeMillis() + 1_200_000);
            CompletableFuture<Receipt> over = CompletableFuture.supplyAsync(
                    () -> g.upsert("main", "person", List.of(Row.of("id", "k4", "age", 4))));
            assertThat(over).isNotDone(); // cannot be acknowledged before the held fold publishes (checked below)
            release.countDown();
            Receipt held = over.get(5, TimeUnit.MINUTES);
            assertThat(g.metrics().backPressureWaits()).isEqualTo(1);

            // it was acknowledged only after the held fold and a fold of the rest of the tail (k3) published
            List<JournalRecord> records = journal(g);
            List<JournalEvent.FoldPlanned> plans = records.stream()
                    .filter(r -> r.event() instanceof JournalEvent.FoldPlanned).map(r -> (JournalEvent.FoldPlanned) r.event())
                    .toList();
            assertThat(plans).hasSize(2);
            assertThat(plans.get(0).throughSequence()).isEqualTo(third.seq());
            assertThat(plans.get(1).throughSequence()).isEqualTo(under.seq());
            assertThat(held.seq()).isGreaterThan(completedAt(records, plans.get(1).intentId()));
            assertThat(completedAt(records, plans.get(1).intentId())).isGreaterThan(completedAt(records, plans.get(0).intentId()));
            FoldMark m = g.state().foldMark("main", "person");
            assertThat(m.unfolded()).isEqualTo(1); // only the held write: its own lag is 20 min on the moved clock
            assertThat(lanceAges(g)).containsOnlyKeys("k0", "k1", "k2", "k3");
            assertThat(ages(g.scan("main", "person"))).containsOnlyKeys("k0", "k1", "k2", "k3", "k4");
        } finally {
            release.countDown();
        }
    }

    @Test
    void anAcknowledgementWaitingOnTheLagBoundGetsTheTypedRefusalWhenTheFoldFails() throws Exception {
        Options o = Options.defaults().withFolding(3_600_000, 3, 1L << 40).withMaxFoldLag(600_000);
        CountDownLatch inLance = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        try (Graph g = Palisade.create(dir.resolve("g"), Catalog.fromJson(CATALOG), o)) {
            g.engine().beforeFoldCommit(hold(inLance, release, () -> {
                throw new IllegalStateException("lance went away");
            }));
            for (int i = 0; i < 3; i++) {
                g.upsert("main", "person", List.of(Row.of("id", "k" + i, "age", i)));
            }
            assertThat(inLance.await(5, TimeUnit.MINUTES)).isTrue();
            g.engine().beforeFoldCommit(null);
            g.engine().clock(() -> System.currentTimeMillis() + 1_200_000);
            CompletableFuture<Receipt> over = CompletableFuture.supplyAsync(
                    () -> g.upsert("main", "person", List.of(Row.of("id", "k4", "age", 4))));
            release.countDown();
            // the fold of unknown outcome poisons the table: the waiting writer is woken with the graph's refusal
            assertThatThrownBy(() -> over.get(5, TimeUnit.MINUTES)).hasCauseInstanceOf(GraphRefusedException.class)
                    .hasMessageContaining("unknown outcome");
            assertThat(g.metrics().backPressureWaits()).isEqualTo(1); // it was the lag bound that held it
            assertThat(g.metrics().folds()).isZero();
        } finally {
            release.countDown();
        }
    }

    @Test
    void theLagBoundIsValidatedAndDefaultsToTwiceTheFoldLag() {
        assertThat(Options.defaults().maxFoldLagMillis()).isEqualTo(2 * Options.DEFAULT_FOLD_LAG_MILLIS);
        assertThat(Options.defaults().withFolding(5, 64, 1L << 40).maxFoldLagMillis()).isEqualTo(10);
        assertThat(Options.defaults().withFolding(Long.MAX_VALUE, 64, 1L << 40).maxFoldLagMillis()).isEqualTo(Long.MAX_VALUE);
        assertThatThrownBy(() -> Options.defaults().withMaxFoldLag(-1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("maxFoldLagMillis >= 0");
    }

    @Test
    void idempotencyKeysDedupeAcrossCheckpointsAndReopens() {
        Options o = noAutoFold().withCheckpointEvery(7);
        Map<String, Receipt> first = new TreeMap<>();
        int n = 0;
        for (int round = 0; round < 3; round++) {
            try (Graph g = round == 0 ? Palisade.create(dir.resolve("g"), Catalog.fromJson(CATALOG), o)
                    : Palisade.open(dir.resolve("g"), o)) {
                for (int i = 0; i < 12; i++, n++) {
                    String key = "txn-" + n;
                    first.put(key, g.upsert("main", "person", List.of(Row.of("id", "p" + (n % 5), "age", n)),
                            WriteOptions.idempotencyKey(key)));
                }
                // every key ever used, in this process and the ones before, returns its first receipt
                for (Map.Entry<String, Receipt> e : first.entrySet()) {
                    int m = Integer.parseInt(e.getKey().substring("txn-".length()));
                    Receipt again = g.upsert("main", "person", List.of(Row.of("id", "p" + (m % 5), "age", m)),
                            WriteOptions.idempotencyKey(e.getKey()));
                    assertThat(again.intent()).isEqualTo(e.getValue().intent());
                    assertThat(again.seq()).isEqualTo(e.getValue().seq());
                    // the key with another request is refused, whichever process journaled the first
                    assertThatThrownBy(() -> g.upsert("main", "person", List.of(Row.of("id", "other", "age", -1)),
                            WriteOptions.idempotencyKey(e.getKey())))
                            .isInstanceOf(io.palisade.fencing.IdempotencyMismatchException.class);
                }
                assertThat(g.get("main", "person", List.of("other"))).isEmpty(); // no repeat wrote anything
                // the repeats wrote nothing: each p holds the age of its newest first write
                for (int p = 0; p < 5; p++) {
                    int newest = n - 1 - ((n - 1 - p) % 5 + 5) % 5;
                    assertThat(g.get("main", "person", List.of("p" + p)).get("p" + p).int64("age")).isEqualTo(newest);
                }
            }
            assertThat(io.palisade.heads.Checkpoints.of(dir.resolve("g").resolve("_palisade")).list()).isNotEmpty();
        }
    }
    @Test
    void upsertsOfKeysTheTableHoldsDoNotMakeItsKeyFilterRebuild() {
        List<Row> rows = new ArrayList<>();
        for (int i = 0; i < 1_000; i++) {
            rows.add(Row.of("id", "k" + i, "age", i));
        }
        try (Graph g = Palisade.create(dir.resolve("g"), Catalog.fromJson(CATALOG), noAutoFold())) {
            g.insert("main", "person", rows);
        } // close folds
        try (Graph g = Palisade.open(dir.resolve("g"), noAutoFold())) {
            g.insert("main", "person", List.of(Row.of("id", "new-1", "age", 1)));
            assertThat(g.metrics().keyFilterBuilds()).as("built on the first strict insert").isEqualTo(1);
            // 70,000 keys given to a filter sized for 65,536 (its least capacity), every one already in it
            for (int round = 0; round < 70; round++) {
                g.upsert("main", "person", rows);
            }
            g.insert("main", "person", List.of(Row.of("id", "new-2", "age", 2)));
            assertThat(g.metrics().keyFilterBuilds()).as("the repeated keys set no new bit").isEqualTo(1);
            assertThat(g.metrics().keyFilterBuildNanos()).isPositive();
            assertThat(g.get("main", "person", List.of("new-1", "new-2", "k999"))).hasSize(3);
        }
    }

    /** Creates the graph with p0..p3 (ages 0..3) in the journal-ack table, folded one per open: four fragments. */
    private void fourFragments() {
        for (int part = 0; part < 4; part++) {
            try (Graph g = part == 0 ? Palisade.create(dir.resolve("g"), Catalog.fromJson(CATALOG), noAutoFold())
                    : Palisade.open(dir.resolve("g"), noAutoFold())) {
                g.insert("main", "person", List.of(Row.of("id", "p" + part, "age", part)));
            } // close folds
        }
    }

    @Test
    void aCompactionsLanceCommitRunsOffTheCommitterWhileWritesAreAcknowledged() throws Exception {
        fourFragments();
        CountDownLatch inLance = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Graph g = Palisade.open(dir.resolve("g"), noAutoFold());
        try {
            long v0 = g.state().head("main", "person").orElseThrow().version();
            g.engine().beforeFoldCommit(hold(inLance, release, () -> { }));
            CompletableFuture<Receipt> compaction = CompletableFuture.supplyAsync(() -> g.compact("main", "person"));
            assertThat(inLance.await(5, TimeUnit.MINUTES)).isTrue(); // the compaction's Lance commit is held
            g.engine().beforeFoldCommit(null);

            // while it is held the committer acknowledges, fences and reads
            Receipt up = g.upsert("main", "person", List.of(Row.of("id", "p0", "age", 100)));
            Receipt in = g.insert("main", "person", List.of(Row.of("id", "q", "age", 7)));
            assertThat(List.of(up, in)).allSatisfy(r -> assertThat(r.folded()).isFalse());
            assertThatThrownBy(() -> g.insert("main", "person", List.of(Row.of("id", "p1", "age", 9))))
                    .isInstanceOf(KeyConflictException.class);
            assertThat(ages(g.scan("main", "person"))).containsExactlyInAnyOrderEntriesOf(
                    Map.of("p0", 100L, "p1", 1L, "p2", 2L, "p3", 3L, "q", 7L));
            assertThat(compaction).isNotDone();
            assertThat(g.state().head("main", "person").orElseThrow().version()).isEqualTo(v0);

            release.countDown();
            Receipt compacted = compaction.get(5, TimeUnit.MINUTES);
            assertThat(compacted.version()).isGreaterThan(v0);
            assertThat(g.state().head("main", "person").orElseThrow().version()).isEqualTo(compacted.version());
            // the compaction folded nothing: the two writes acknowledged meanwhile are still unfolded, over its head
            assertThat(g.state().foldMark("main", "person").unfolded()).isEqualTo(2);
            assertThat(lanceAges(g)).containsExactlyInAnyOrderEntriesOf(Map.of("p0", 0L, "p1", 1L, "p2", 2L, "p3", 3L));
            assertThat(ages(g.scan("main", "person"))).containsExactlyInAnyOrderEntriesOf(
                    Map.of("p0", 100L, "p1", 1L, "p2", 2L, "p3", 3L, "q", 7L));
            assertThat(g.metrics().maintenanceCommits()).isEqualTo(1);
        } finally {
            release.countDown(); // before the close, which waits for the held commit
            g.close();
        }
        try (Graph reopened = Palisade.open(dir.resolve("g"), noAutoFold())) {
            assertThat(reopened.recoveryReport().classifications()).isEmpty(); // nothing was left open
            assertThat(ages(reopened.scan("main", "person"))).containsExactlyInAnyOrderEntriesOf(
                    Map.of("p0", 100L, "p1", 1L, "p2", 2L, "p3", 3L, "q", 7L));
        }
    }

    @Test
    void anAutomaticIndexRefreshRunsOffTheCommitterAndFoldsNothing() throws Exception {
        fourFragments();
        Options refreshAfterEachFold = Options.defaults().withFolding(3_600_000, 3, 1L << 40).withIndexRefreshEvery(1)
                .withCompaction(Compaction.DEFAULTS.withAuto(false));
        CountDownLatch inLance = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        java.util.concurrent.atomic.AtomicInteger lanceCommits = new java.util.concurrent.atomic.AtomicInteger();
        Runnable holdIt = hold(inLance, release, () -> { });
        Graph g = Palisade.open(dir.resolve("g"), refreshAfterEachFold);
        try {
            // the first Lance commit on the fold thread is the fold of three writes, the second the refresh after it
            g.engine().beforeFoldCommit(() -> {
                if (lanceCommits.incrementAndGet() == 2) {
                    holdIt.run();
                }
            });
            long since = g.upsert("main", "person", List.of(Row.of("id", "p0", "age", 10))).seq();
            for (int i = 1; i < 3; i++) {
                g.upsert("main", "person", List.of(Row.of("id", "p" + i, "age", 10 + i)));
            }
            assertThat(inLance.await(5, TimeUnit.MINUTES)).isTrue(); // the refresh's Lance commit is held
            long foldedHead = g.state().head("main", "person").orElseThrow().version();

            // while it is held the committer acknowledges, fences and reads; nothing is folded
            Receipt up = g.upsert("main", "person", List.of(Row.of("id", "p3", "age", 33)));
            Receipt in = g.insert("main", "person", List.of(Row.of("id", "q", "age", 7)));
            assertThat(List.of(up, in)).allSatisfy(r -> assertThat(r.folded()).isFalse());
            assertThatThrownBy(() -> g.insert("main", "person", List.of(Row.of("id", "p1", "age", 9))))
                    .isInstanceOf(KeyConflictException.class);
            assertThat(g.metrics().autoIndexRefreshes()).isZero();
            assertThat(g.state().head("main", "person").orElseThrow().version()).isEqualTo(foldedHead);

            release.countDown();
            g.awaitFold(); // waits for the maintenance in flight and publishes it
            assertThat(g.metrics().autoIndexRefreshes()).isEqualTo(1);
            assertThat(g.state().head("main", "person").orElseThrow().version()).isGreaterThan(foldedHead);
            // the refresh folded nothing: the two writes acknowledged meanwhile are still unfolded, and one fold ran
            assertThat(g.state().foldMark("main", "person").unfolded()).isEqualTo(2);
            List<JournalRecord> records = journal(g).stream().filter(r -> r.sequence() > since).toList();
            assertThat(records.stream().filter(r -> r.event() instanceof JournalEvent.FoldPlanned)).hasSize(1);
            assertThat(records.stream().filter(r -> r.event() instanceof JournalEvent.IntentRecorded i
                    && i.operation() == LogicalOperation.INDEX_MAINTENANCE)).hasSize(1);
            assertThat(ages(g.scan("main", "person"))).containsExactlyInAnyOrderEntriesOf(
                    Map.of("p0", 10L, "p1", 11L, "p2", 12L, "p3", 33L, "q", 7L));
        } finally {
            release.countDown(); // before the close, which waits for the held commit
            g.close();
        }
        try (Graph reopened = Palisade.open(dir.resolve("g"), noAutoFold())) {
            assertThat(reopened.recoveryReport().classifications()).isEmpty();
            assertThat(ages(reopened.scan("main", "person"))).containsExactlyInAnyOrderEntriesOf(
                    Map.of("p0", 10L, "p1", 11L, "p2", 12L, "p3", 33L, "q", 7L));
        }
    }

    @Test
    void aCompactionQueuedWhileAFoldIsInFlightLetsWritesPassAndRunsBeforeTheNextFold() throws Exception {
        fourFragments();
        Options foldEveryThree = Options.defaults().withFolding(3_600_000, 3, 1L << 40)
                .withCompaction(Compaction.DEFAULTS.withAuto(false));
        CountDownLatch inLance = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Graph g = Palisade.open(dir.resolve("g"), foldEveryThree);
        try {
            g.engine().beforeFoldCommit(hold(inLance, release, () -> { }));
            for (int i = 0; i < 3; i++) {
                g.upsert("main", "person", List.of(Row.of("id", "p" + i, "age", 10 + i)));
            }
            assertThat(inLance.await(5, TimeUnit.MINUTES)).isTrue(); // the first fold's Lance commit is held
            g.engine().beforeFoldCommit(null);
            CompletableFuture<Receipt> compaction = g.compactAsync("main", "person");
            // queued behind the held fold, the compaction holds up none of the writes queued after it
            CompletableFuture<List<Receipt>> writes = CompletableFuture.supplyAsync(() -> {
                List<Receipt> out = new ArrayList<>();
                for (int i = 0; i < 3; i++) {
                    out.add(g.upsert("main", "person", List.of(Row.of("id", "q" + i, "age", i))));
                }
                return out;
            });
            assertThat(writes.get(5, TimeUnit.MINUTES)).allSatisfy(r -> assertThat(r.folded()).isFalse());
            assertThat(compaction).isNotDone();
            release.countDown();
            assertThat(compaction.get(5, TimeUnit.MINUTES).version()).isPositive();
        } finally {
            release.countDown(); // before the close (which folds the rest), which waits for the held commit
            g.close();
        }
        List<JournalRecord> records;
        try (Graph reopened = Palisade.open(dir.resolve("g"), noAutoFold())) {
            assertThat(ages(reopened.scan("main", "person"))).containsExactlyInAnyOrderEntriesOf(Map.of("p0", 10L,
                    "p1", 11L, "p2", 12L, "p3", 3L, "q0", 0L, "q1", 1L, "q2", 2L));
            records = journal(reopened);
        }
        // the three writes acknowledged meanwhile made a fold due; it started only after the compaction was published
        List<Long> foldPlans = new ArrayList<>();
        long compactionRecorded = -1;
        long compactionDone = -1;
        String compactionId = null;
        for (JournalRecord r : records) {
            if (r.event() instanceof JournalEvent.IntentRecorded i && i.operation() == LogicalOperation.COMPACTION) {
                compactionRecorded = r.sequence();
                compactionId = i.intentId();
            } else if (r.event() instanceof JournalEvent.IntentCompleted c && c.intentId().equals(compactionId)) {
                compactionDone = r.sequence();
            } else if (r.event() instanceof JournalEvent.FoldPlanned) {
                foldPlans.add(r.sequence());
            }
        }
        long compactionAt = compactionRecorded;
        long done = compactionDone;
        assertThat(compactionDone).isGreaterThan(compactionRecorded);
        assertThat(foldPlans.stream().filter(f -> f < compactionAt).count())
                .as("folds planned before the compaction: the held one only").isEqualTo(1 + 4);
        assertThat(foldPlans.stream().filter(f -> f > compactionAt && f < done)).as("no fold while it ran").isEmpty();
        assertThat(foldPlans.stream().filter(f -> f > done)).as("the writes acknowledged meanwhile, folded after it")
                .isNotEmpty();
    }

}
