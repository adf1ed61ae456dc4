package io.palisade.substrate.lance;

import io.palisade.fencing.KeyFilter;
import io.palisade.substrate.CommitDescription;
import io.palisade.substrate.CompactionTarget;
import io.palisade.substrate.FoldWatermark;
import io.palisade.substrate.KeyedTable;
import io.palisade.substrate.MaintenancePlan;
import io.palisade.substrate.OperationKind;
import io.palisade.substrate.TableKind;
import io.palisade.substrate.TableRef;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A table that carries the fold watermark's field-less system index is compacted with Lance's index remap deferred,
 * then its id index is rebuilt from the compacted rows and the fragment-reuse index dropped: the rows, their keys'
 * lookups through the index and the next folds are those of the table before, and a commit stopped between its
 * versions leaves a table that still reads and folds correctly and is finished by the next compaction.
 */
class LanceDeferredCompactionTest {
    private static final Schema S = LanceFoldTest.S;
    private static final CompactionTarget TARGET = new CompactionTarget(1 << 20, 0.1);

    @TempDir
    Path dir;

    private static VectorSchemaRoot rows(BufferAllocator a, long v, String... ids) {
        return LanceFoldTest.rows(a, v, ids);
    }

    /** Folds {@code ids} with {@code v} into {@code at}, marking watermark {@code through} on its table branch. */
    private static TableRef fold(LanceTableStore store, BufferAllocator a, TableRef at, long v, long through, String... ids) {
        try (KeyedTable t = store.openKeyed("p", at); VectorSchemaRoot r = rows(a, v, ids)) {
            return t.fold(r, null, FoldWatermark.of(at.branch(), "p", through)).ref();
        }
    }

    /** Compacts {@code at}, stopping the commit after its Rewrite (as a crash would); the table's head after. */
    private static TableRef stoppedAfterRewrite(LanceTableStore store, TableRef at) {
        try (KeyedTable t = store.openKeyed("p", at)) {
            MaintenancePlan plan = t.planCompaction(TARGET);
            assertThat(plan.defersIndexRemap()).isTrue();
            assertThatThrownBy(() -> t.commit(plan, step -> {
                if (step.equals("compaction-after-rewrite")) {
                    throw new IllegalStateException("stopped at " + step);
                }
            })).hasMessageContaining("stopped at compaction-after-rewrite");
        }
        return store.latest("p", at.branch());
    }

    /** Every row by id; fails on a second row of one id. */
    private static Map<String, Object> byId(KeyedTable t) {
        Map<String, Object> out = new TreeMap<>();
        for (Map<String, Object> r : t.scan()) {
            assertThat(out.put(String.valueOf(r.get("id")), r.get("v"))).as("id %s once", r.get("id")).isNull();
        }
        return out;
    }

    private static String[] keys(int from, int to) {
        String[] out = new String[to - from];
        for (int i = from; i < to; i++) {
            out[i - from] = "k" + i;
        }
        return out;
    }

    /** {@code fragments} inserted fragments of {@code each} keys (k0, k1, …), then the id index over them. */
    private static TableRef indexed(LanceTableStore store, BufferAllocator a, int fragments, int each) {
        store.createKeyed("p", TableKind.NODE, S).close();
        TableRef at = TableRef.main(1);
        for (int b = 0; b < fragments; b++) {
            try (KeyedTable t = store.openKeyed("p", at); VectorSchemaRoot r = rows(a, 1, keys(b * each, b * each + each))) {
                at = t.insert(r, t.mergePath()).ref();
            }
        }
        try (KeyedTable t = store.openKeyed("p", at)) {
            return t.commit(t.planIndexOptimize()).ref();
        }
    }

    /** Four small inserted fragments, the id index over them, then folds that update keys of each. */
    private static TableRef folded(LanceTableStore store, BufferAllocator a) {
        TableRef at = indexed(store, a, 4, 250);
        for (int f = 0; f < 6; f++) {
            try (KeyedTable t = store.openKeyed("p", at); VectorSchemaRoot r = rows(a, 10 + f, "k" + (f * 170), "n" + f)) {
                at = t.fold(r, KeyFilter.ofStrings(0, List.of("k" + (f * 170 + 1))), FoldWatermark.of("main", "p", 100 + f)).ref();
            }
        }
        return at;
    }

    private static List<CommitDescription> described(LanceTableStore store, TableRef from, TableRef to) {
        List<CommitDescription> out = new ArrayList<>();
        for (long v = from.version() + 1; v <= to.version(); v++) {
            out.add(store.decompose("p", TableRef.main(v)));
        }
        return out;
    }

    private static List<String> indexNames(LanceTableStore store, TableRef at) {
        try (org.lance.Dataset ds = store.openDataset("p", at)) {
            return ds.getIndexes().stream().map(org.lance.index.Index::name).sorted().toList();
        }
    }

    @Test
    void aFoldedTableIsCompactedDeferringTheRemapThenItsIndexIsRebuiltAndTheReuseIndexDropped() {
        try (LanceTableStore store = new LanceTableStore(dir.toString()); BufferAllocator a = new RootAllocator()) {
            TableRef at = folded(store, a);
            Map<String, Object> before;
            int fragmentsBefore;
            try (KeyedTable t = store.openKeyed("p", at)) {
                before = byId(t);
                fragmentsBefore = t.fragmentStats(TARGET).fragments();
            }
            assertThat(indexNames(store, at)).contains("__lance_mem_wal");
            MaintenancePlan plan;
            TableRef compacted;
            try (KeyedTable t = store.openKeyed("p", at)) {
                plan = t.planCompaction(TARGET);
                assertThat(plan.defersIndexRemap()).isTrue();
                assertThat(plan.indexName()).isEqualTo(KeyedTable.ID_INDEX_NAME);
                compacted = t.commit(plan).ref();
            }
            List<CommitDescription> produced = described(store, at, compacted);
            assertThat(produced).extracting(CommitDescription::kind).containsExactly(OperationKind.RESERVE_FRAGMENTS,
                    OperationKind.REWRITE, OperationKind.CREATE_INDEX, OperationKind.CREATE_INDEX);
            assertThat(produced.get(3).indicesRemoved()).containsExactly(MaintenancePlan.FRAG_REUSE_INDEX);
            assertThat(plan.mismatch(produced)).isEmpty();
            assertThat(plan.effective(produced)).singleElement()
                    .satisfies(c -> assertThat(c.kind()).isEqualTo(OperationKind.REWRITE));
            // a foreign version after the Rewrite is not the plan
            assertThat(plan.mismatch(List.of(produced.get(1), produced.get(3), produced.get(2)))).get().asString()
                    .contains("after the Rewrite");
            assertThat(indexNames(store, compacted)).containsExactly("__lance_mem_wal", KeyedTable.ID_INDEX_NAME);
            try (KeyedTable t = store.openKeyed("p", compacted)) {
                assertThat(byId(t)).isEqualTo(before);
                assertThat(t.fragmentStats(TARGET).fragments()).isLessThan(fragmentsBefore);
                assertThat(t.keyCounts(KeyFilter.ofStrings(0, List.of("k0", "k340", "k999", "n3"))))
                        .containsExactlyInAnyOrderEntriesOf(Map.of("k0", 1L, "k340", 1L, "k999", 1L, "n3", 1L));
            }
            // the next fold updates keys of every compacted fragment through the rebuilt index: one row each
            try (KeyedTable t = store.openKeyed("p", compacted); VectorSchemaRoot r = rows(a, 99, "k0", "k260", "k600", "k999", "z")) {
                at = t.fold(r, KeyFilter.ofStrings(0, List.of("k500")), FoldWatermark.of("main", "p", 200)).ref();
            }
            try (KeyedTable t = store.openKeyed("p", at)) {
                Map<String, Object> after = byId(t);
                assertThat(after).hasSize(before.size()).containsEntry("k0", 99L).containsEntry("k999", 99L)
                        .containsEntry("z", 99L).doesNotContainKey("k500").doesNotContainKey("k1").containsEntry("k2", 1L);
            }
        }
    }

    @Test
    void aCompactionStoppedAfterItsRewriteReadsCorrectlyAndTheNextCompactionFinishesIt() {
        try (LanceTableStore store = new LanceTableStore(dir.toString()); BufferAllocator a = new RootAllocator()) {
            TableRef at = folded(store, a);
            Map<String, Object> before;
            try (KeyedTable t = store.openKeyed("p", at)) {
                before = byId(t);
            }
            TableRef start = at;
            at = stoppedAfterRewrite(store, at);
            List<CommitDescription> landed = described(store, start, at);
            assertThat(landed).extracting(CommitDescription::kind)
                    .containsExactly(OperationKind.RESERVE_FRAGMENTS, OperationKind.REWRITE);
            assertThat(indexNames(store, at)).contains(MaintenancePlan.FRAG_REUSE_INDEX);
            // the fragment-reuse index translates the id index's old addresses: reads and a fold stay exact
            try (KeyedTable t = store.openKeyed("p", at)) {
                assertThat(byId(t)).isEqualTo(before);
            }
            at = fold(store, a, at, 77, 300, "k5", "k505", "y");
            Map<String, Object> expected = new TreeMap<>(before);
            Arrays.asList("k5", "k505", "y").forEach(k -> expected.put(k, 77L));
            try (KeyedTable t = store.openKeyed("p", at)) {
                assertThat(byId(t)).isEqualTo(expected);
            }
            // the index refresh over the fragment-reuse index rebuilds the index in full and drops it (Lance 7.0.0's
            // optimise would keep addresses a later merge misreads); the next compaction finds nothing left behind
            TableRef refreshFrom = at;
            MaintenancePlan refresh;
            try (KeyedTable t = store.openKeyed("p", at)) {
                refresh = t.planIndexOptimize();
                assertThat(refresh.dropsFragReuse()).as("%s", refresh).isTrue();
                at = t.commit(refresh).ref();
            }
            List<CommitDescription> refreshed = described(store, refreshFrom, at);
            assertThat(refresh.mismatch(refreshed)).isEmpty();
            assertThat(refresh.effective(refreshed)).singleElement()
                    .satisfies(c -> assertThat(c.indicesRemoved()).containsExactly(KeyedTable.ID_INDEX_NAME));
            assertThat(indexNames(store, at)).containsExactly("__lance_mem_wal", KeyedTable.ID_INDEX_NAME);
            try (KeyedTable t = store.openKeyed("p", at)) {
                assertThat(byId(t)).isEqualTo(expected);
            }
            // a fold through the refreshed index
            at = fold(store, a, at, 66, 350, "k5", "k7", "k760", "y");
            Arrays.asList("k5", "k7", "k760", "y").forEach(k -> expected.put(k, 66L));
            try (KeyedTable t = store.openKeyed("p", at)) {
                assertThat(byId(t)).as("a fold after the refresh").isEqualTo(expected);
            }
            try (KeyedTable t = store.openKeyed("p", at)) {
                at = t.commit(t.planIndexOptimize()).ref();
            }
            try (KeyedTable t = store.openKeyed("p", at)) {
                MaintenancePlan next = t.planCompaction(TARGET);
                assertThat(next.defersIndexRemap()).as("%s over %s", next, t.fragmentStats(TARGET)).isTrue();
                at = t.commit(next).ref();
            }
            assertThat(indexNames(store, at)).containsExactly("__lance_mem_wal", KeyedTable.ID_INDEX_NAME);
            at = fold(store, a, at, 55, 400, "k5", "k6", "k990");
            Arrays.asList("k5", "k6", "k990").forEach(k -> expected.put(k, 55L));
            try (KeyedTable t = store.openKeyed("p", at)) {
                assertThat(byId(t)).isEqualTo(expected);
            }
        }
    }

    /**
     * On a table branch forked from a folded version, whose id index it inherits: the branch's compaction rebuilds the
     * index as its own, and the branch and main each read their own rows, once.
     */
    @Test
    void aTableBranchOfAFoldedTableIsCompactedAndMainIsUntouched() {
        try (LanceTableStore store = new LanceTableStore(dir.toString()); BufferAllocator a = new RootAllocator()) {
            TableRef main = folded(store, a);
            Map<String, Object> onMain;
            try (KeyedTable t = store.openKeyed("p", main)) {
                onMain = byId(t);
            }
            TableRef b = store.forkBranch("p", main, "b");
            for (int f = 0; f < 3; f++) {
                try (KeyedTable t = store.openKeyed("p", b); VectorSchemaRoot r = rows(a, 40 + f, "k" + (f * 300 + 2), "m" + f)) {
                    b = t.fold(r, null, FoldWatermark.of("b", "p", 500 + f)).ref();
                }
            }
            Map<String, Object> onBranch;
            try (KeyedTable t = store.openKeyed("p", b)) {
                onBranch = byId(t);
                MaintenancePlan plan = t.planCompaction(TARGET);
                assertThat(plan.defersIndexRemap()).isTrue();
                assertThat(plan.isEmpty()).isFalse();
                b = t.commit(plan).ref();
            }
            assertThat(onBranch).hasSize(onMain.size() + 3).containsEntry("k2", 40L).containsEntry("m2", 42L);
            try (KeyedTable t = store.openKeyed("p", b)) {
                assertThat(byId(t)).isEqualTo(onBranch);
            }
            b = fold(store, a, b, 50, 600, "k2", "k302", "k999");
            Arrays.asList("k2", "k302", "k999").forEach(k -> onBranch.put(k, 50L));
            try (KeyedTable t = store.openKeyed("p", b)) {
                assertThat(byId(t)).isEqualTo(onBranch);
            }
            try (KeyedTable t = store.openKeyed("p", main)) {
                assertThat(byId(t)).isEqualTo(onMain);
            }
        }
    }

    /**
     * Surface guard (Lance 7.0.0): an optimise of the id index while a fragment-reuse index is there keeps addresses
     * that a later merge misreads, and the merge writes a second row for a key. This is why an index refresh over a
     * fragment-reuse index rebuilds the index in full and drops it. If this guard fails, Lance has fixed it.
     */
    @Test
    void surfaceGuardAnOptimiseOverTheFragmentReuseIndexMisleadsALaterMerge() {
        try (LanceTableStore store = new LanceTableStore(dir.toString()); BufferAllocator a = new RootAllocator()) {
            TableRef at = stoppedAfterRewrite(store, folded(store, a));
            at = fold(store, a, at, 2, 300, "y");
            Set<Long> live = new java.util.TreeSet<>();
            try (org.lance.Dataset ds = store.openDataset("p", at)) {
                ds.getFragments().forEach(f -> live.add((long) f.getId()));
            }
            try (KeyedTable t = store.openKeyed("p", at)) {
                at = t.commit(MaintenancePlan.index(at, true, KeyedTable.ID_INDEX_NAME, live, Set.of(0))).ref();
            }
            assertThat(indexNames(store, at)).contains(MaintenancePlan.FRAG_REUSE_INDEX);
            at = fold(store, a, at, 3, 301, "k7", "k760");
            try (KeyedTable t = store.openKeyed("p", at)) {
                long rows = t.scan().stream().filter(r -> List.of("k7", "k760").contains(String.valueOf(r.get("id")))).count();
                assertThat(rows).as("rows of k7 and k760 in a scan").isGreaterThan(2);
            }
        }
    }

    @Test
    void aTableWithoutTheWatermarkIsStillCompactedRemappingItsIndex() {
        try (LanceTableStore store = new LanceTableStore(dir.toString()); BufferAllocator a = new RootAllocator()) {
            TableRef at = indexed(store, a, 3, 10);
            try (KeyedTable t = store.openKeyed("p", at)) {
                MaintenancePlan plan = t.planCompaction(TARGET);
                assertThat(plan.defersIndexRemap()).isFalse();
                assertThat(plan.isEmpty()).isFalse();
                at = t.commit(plan).ref();
            }
            assertThat(indexNames(store, at)).containsExactly(KeyedTable.ID_INDEX_NAME);
            try (KeyedTable t = store.openKeyed("p", at)) {
                assertThat(byId(t)).hasSize(30);
                assertThat(t.keyCounts(KeyFilter.ofStrings(0, Set.of("k0", "k29").stream().toList()))).hasSize(2);
            }
        }
    }
}
