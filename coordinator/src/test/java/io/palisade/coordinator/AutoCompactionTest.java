package io.palisade.coordinator;

import io.palisade.fencing.ValidationException;
import io.palisade.journal.IntentOutcome;
import io.palisade.journal.JournalEvent.IntentCompleted;
import io.palisade.journal.JournalEvent.IntentRecorded;
import io.palisade.journal.LogicalOperation;
import io.palisade.substrate.FragmentStats;
import io.palisade.substrate.KeyedTable;
import io.palisade.substrate.TableRef;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link Compaction}: the committer compacts a table by itself when its fragments reach a trigger, as an ordinary
 * journaled maintenance intent, and the table's fragment count stays under the trigger however many writes come.
 */
class AutoCompactionTest extends GraphTestSupport {
    private static final Compaction SMALL = Compaction.DEFAULTS.withTriggers(10, 6, 0.5).withCheckEvery(2)
            .withTarget(1_000, 0.3);

    private void upsert(Graph g, String table, String key, long age) {
        try (VectorSchemaRoot r = Rows.people(allocator, key, age)) {
            g.upsert("main", table, r);
        }
    }

    private static FragmentStats fragments(Graph g) {
        var head = g.state().head("main", "person").orElseThrow();
        try (KeyedTable t = g.engine().context().store().openKeyed("person",
                new TableRef(head.tableBranch(), head.version()))) {
            return t.fragmentStats(new io.palisade.substrate.CompactionTarget(SMALL.rowsPerFragment(),
                    SMALL.materializeDeletions()));
        }
    }

    @Test
    void smallFragmentsAreCompactedByAJournaledIntentAndStayUnderTheTrigger() {
        Path p = dir.resolve("g");
        int maxFragments = 0;
        try (Graph g = Palisade.create(p, Rows.catalog(), Options.defaults().withCompaction(SMALL))) {
            for (int i = 0; i < 60; i++) {
                upsert(g, "person", "k" + (i % 25), i);
                maxFragments = Math.max(maxFragments, fragments(g).fragments());
            }
            assertThat(g.metrics().autoCompactions()).isGreaterThanOrEqualTo(3);
            assertThat(g.metrics().autoCompactionFailures()).isZero();
            assertThat(g.metrics().maintenanceMaxNanos()).isPositive();
            assertThat(g.scan("main", "person")).hasSize(25);
            assertThat(g.get("main", "person", List.of("k3")).get("k3").get("age")).isEqualTo(53L);
        }
        // a check every 2 commits and a trigger at 6 small fragments: never more than 6 + 2 + the large ones
        assertThat(maxFragments).isLessThanOrEqualTo(SMALL.maxSmallFragments() + SMALL.checkEvery() + 1);
        List<IntentRecorded> compactions = BulkLoadTest.events(p).stream().filter(e -> e instanceof IntentRecorded ir
                && ir.operation() == LogicalOperation.COMPACTION).map(e -> (IntentRecorded) e).toList();
        assertThat(compactions).hasSizeGreaterThanOrEqualTo(3);
        Set<String> ids = compactions.stream().map(IntentRecorded::intentId).collect(Collectors.toSet());
        assertThat(BulkLoadTest.events(p).stream().filter(e -> e instanceof IntentCompleted c
                && ids.contains(c.intentId()) && c.outcome() == IntentOutcome.COMMITTED)).hasSize(compactions.size());
    }

    @Test
    void offLeavesTheFragmentsAlone() {
        try (Graph g = Palisade.create(dir.resolve("off"), Rows.catalog(), Options.defaults()
                .withCompaction(SMALL.withAuto(false)))) {
            for (int i = 0; i < 20; i++) {
                upsert(g, "person", "k" + i, i);
            }
            assertThat(g.metrics().autoCompactions()).isZero();
            assertThat(fragments(g).fragments()).isEqualTo(20);
        }
    }

    /**
     * A journal-ack table carries the fold watermark's system index, which Lance 7.0.0 cannot remap: its compactions
     * defer the remap and rebuild the id index. Its fragments stay under the trigger, every key reads once with its
     * newest value, through the index too, and the graph reopens to the same rows.
     */
    @Test
    void aJournalAckTableIsCompactedAutomaticallyAndReadsTheSameAfterwards() {
        Path p = dir.resolve("ack");
        int maxFragments = 0;
        Options options = Options.defaults().withCompaction(SMALL).withFolding(3_600_000, 2, 1L << 40);
        java.util.Map<String, Long> expected = new java.util.TreeMap<>();
        try (Graph g = Palisade.create(p, Catalog.fromJson(JournalAckTest.CATALOG), options)) {
            for (int i = 0; i < 60; i++) {
                upsert(g, "person", "k" + (i % 25), i);
                expected.put("k" + (i % 25), (long) i);
                g.optimizeIndex("main", "person"); // folds the write first, then brings the index over its fragment
                maxFragments = Math.max(maxFragments, fragments(g).fragments());
            }
            assertThat(g.metrics().folds()).isGreaterThanOrEqualTo(30);
            assertThat(g.metrics().autoCompactions()).isGreaterThanOrEqualTo(2);
            assertThat(g.metrics().autoCompactionFailures()).isZero();
            assertThat(maxFragments).isLessThanOrEqualTo(SMALL.maxSmallFragments() + SMALL.checkEvery() + 1);
            assertThat(ages(g.scan("main", "person"))).isEqualTo(expected);
            java.util.Map<String, Long> got = new java.util.TreeMap<>();
            g.get("main", "person", List.copyOf(expected.keySet())).forEach((k, r) -> got.put(k, r.int64("age")));
            assertThat(got).isEqualTo(expected);
            Receipt explicit = g.compact("main", "person");
            assertThat(explicit.version()).isPositive();
            upsert(g, "person", "k3", 1_000);
            expected.put("k3", 1_000L);
            g.optimizeIndex("main", "person");
            assertThat(ages(g.scan("main", "person"))).isEqualTo(expected);
        }
        List<IntentRecorded> compactions = BulkLoadTest.events(p).stream().filter(e -> e instanceof IntentRecorded ir
                && ir.operation() == LogicalOperation.COMPACTION).map(e -> (IntentRecorded) e).toList();
        Set<String> ids = compactions.stream().map(IntentRecorded::intentId).collect(Collectors.toSet());
        assertThat(BulkLoadTest.events(p).stream().filter(e -> e instanceof IntentCompleted c
                && ids.contains(c.intentId()) && c.outcome() == IntentOutcome.COMMITTED)).hasSize(compactions.size());
        try (Graph g = Palisade.open(p, options)) {
            assertThat(ages(g.scan("main", "person"))).isEqualTo(expected);
            upsert(g, "person", "k4", 2_000);
            expected.put("k4", 2_000L);
            assertThat(ages(g.scan("main", "person"))).isEqualTo(expected);
        }
    }

    /** A compaction of a journal-ack table waits for the fold in flight only: it leaves the unfolded tail unfolded. */
    @Test
    void aJournalAckCompactionLeavesTheUnfoldedTailAsItIs() {
        try (Graph g = Palisade.create(dir.resolve("tail"), Catalog.fromJson(JournalAckTest.CATALOG), Options.defaults()
                .withCompaction(SMALL.withAuto(false)).withFolding(3_600_000, 1_000_000, 1L << 40))) {
            for (int i = 0; i < 8; i++) {
                upsert(g, "person", "k" + i, i);
                g.optimizeIndex("main", "person"); // folds the write first
            }
            upsert(g, "person", "k1", 100);
            upsert(g, "person", "late", 101);
            long folds = g.metrics().folds();
            assertThat(g.state().foldMark("main", "person").unfolded()).isEqualTo(2);
            int before = fragments(g).fragments();
            g.compact("main", "person");
            assertThat(fragments(g).fragments()).isLessThan(before);
            assertThat(g.metrics().folds()).as("folds during the compaction").isEqualTo(folds);
            assertThat(g.state().foldMark("main", "person").unfolded()).isEqualTo(2);
            java.util.Map<String, Long> got = new java.util.TreeMap<>();
            g.get("main", "person", List.of("k1", "late", "k7")).forEach((k, r) -> got.put(k, r.int64("age")));
            assertThat(got).containsExactlyInAnyOrderEntriesOf(java.util.Map.of("k1", 100L, "late", 101L, "k7", 7L));
            assertThat(ages(g.scan("main", "person"))).hasSize(9);
        }
    }

    /** Each row's age by id; fails on a second row of one id. */
    private static java.util.Map<String, Long> ages(java.util.Collection<java.util.Map<String, Object>> rows) {
        java.util.Map<String, Long> out = new java.util.TreeMap<>();
        for (java.util.Map<String, Object> r : rows) {
            assertThat(out.put(String.valueOf(r.get("id")), ((Number) r.get("age")).longValue()))
                    .as("id %s once", r.get("id")).isNull();
        }
        return out;
    }

    @Test
    void maintenanceOfATableABranchInheritsUnchangedIsRefusedAndWritesNothing() {
        try (Graph g = Palisade.create(dir.resolve("inherited"), Rows.catalog(), Options.defaults())) {
            upsert(g, "person", "q", 1);
            upsert(g, "person", "r", 2);
            g.createBranch("b", "main");
            long before = g.state().lastSequence();
            assertThatThrownBy(() -> g.compact("b", "person")).isInstanceOf(ValidationException.class)
                    .hasMessageContaining("inherits table 'person' unchanged from 'main'");
            assertThatThrownBy(() -> g.optimizeIndex("b", "person")).isInstanceOf(ValidationException.class);
            assertThat(g.state().lastSequence()).isEqualTo(before);
            assertThat(g.state().pin("b", "person").orElseThrow().owned()).isFalse();
            // the branch still takes writes, and once it owns the table it can be compacted
            try (VectorSchemaRoot r = Rows.people(allocator, "s", 3L)) {
                g.upsert("b", "person", r);
            }
            g.compact("b", "person");
            assertThat(g.scan("b", "person")).hasSize(3);
        }
    }
}
