package io.palisade.substrate.lance;

import io.palisade.fencing.KeyFilter;
import io.palisade.fencing.action.ActionKind;
import io.palisade.substrate.CatalogActions;
import io.palisade.substrate.CommitDescription;
import io.palisade.substrate.KeyedTable;
import io.palisade.substrate.MaintenancePlan;
import io.palisade.substrate.MergePath;
import io.palisade.substrate.OperationKind;
import io.palisade.substrate.TableKind;
import io.palisade.substrate.TableRef;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/** Maintenance plans name, before the commit, exactly what the Lance commit then does. */
class LanceMaintenancePlanTest {
    private static final Schema SCHEMA = new Schema(List.of(Field.notNullable("id", ArrowType.Utf8.INSTANCE),
            Field.nullable("v", new ArrowType.Int(64, true))));

    @TempDir
    Path dir;

    private static VectorSchemaRoot rows(BufferAllocator a, String... ids) {
        VectorSchemaRoot r = VectorSchemaRoot.create(SCHEMA, a);
        r.allocateNew();
        VarCharVector id = (VarCharVector) r.getVector("id");
        BigIntVector v = (BigIntVector) r.getVector("v");
        for (int i = 0; i < ids.length; i++) {
            id.setSafe(i, ids[i].getBytes(StandardCharsets.UTF_8));
            v.setSafe(i, i);
        }
        r.setRowCount(ids.length);
        return r;
    }

    private static TableRef insert(LanceTableStore store, BufferAllocator a, TableRef at, String... ids) {
        try (KeyedTable t = store.openKeyed("t", at); VectorSchemaRoot r = rows(a, ids)) {
            return t.insert(r, t.mergePath()).ref();
        }
    }

    @Test
    void aCompactionCommitsExactlyThePlannedGroupsAndAnEmptyPlanCommitsNothing() {
        try (BufferAllocator a = new RootAllocator(); LanceTableStore store = new LanceTableStore(dir.toString())) {
            store.createKeyed("t", TableKind.NODE, SCHEMA).close();
            TableRef at = TableRef.main(1);
            for (int i = 0; i < 4; i++) {
                at = insert(store, a, at, "a" + i, "b" + i);
            }
            TableRef indexed;
            try (KeyedTable t = store.openKeyed("t", at)) {
                MaintenancePlan build = t.planIndexOptimize();
                assertThat(build.kind()).isEqualTo(MaintenancePlan.Kind.INDEX_BUILD);
                assertThat(build.indexCoverage()).hasSize(4);
                indexed = t.commit(build).ref();
            }
            assertThat(kinds(store, indexed)).containsExactly(ActionKind.ADD_INDEX);
            try (KeyedTable t = store.openKeyed("t", indexed)) {
                assertThat(t.planIndexOptimize().isEmpty()).isTrue();
            }
            TableRef deleted;
            try (KeyedTable t = store.openKeyed("t", indexed)) {
                deleted = t.delete(KeyFilter.ofStrings(t.idFieldId(), List.of("a1"))).ref();
            }
            MaintenancePlan plan;
            TableRef compacted;
            try (KeyedTable t = store.openKeyed("t", deleted)) {
                plan = t.planCompaction();
                assertThat(plan.isEmpty()).isFalse();
                assertThat(plan.actions()).extracting(x -> x.kind())
                        .contains(ActionKind.REWRITE_FRAGMENTS, ActionKind.REBIND_INDEX_COVERAGE);
                compacted = t.commit(plan).ref();
            }
            List<CommitDescription> produced = new java.util.ArrayList<>();
            for (long v = deleted.version() + 1; v <= compacted.version(); v++) {
                produced.add(store.decompose("t", TableRef.main(v)));
            }
            assertThat(plan.mismatch(produced)).isEmpty();
            CommitDescription d = store.decompose("t", compacted);
            assertThat(d.kind()).isEqualTo(OperationKind.REWRITE);
            Set<Long> planned = new HashSet<>();
            plan.groups().forEach(planned::addAll);
            assertThat(new HashSet<>(d.fragmentsRemoved())).isEqualTo(planned);
            var committed = CatalogActions.of(d, true, 0, Optional.empty());
            assertThat(committed).extracting(x -> x.kind()).contains(ActionKind.REWRITE_FRAGMENTS, ActionKind.REBIND_INDEX_COVERAGE);
            try (KeyedTable t = store.openKeyed("t", compacted)) {
                assertThat(t.countRows()).isEqualTo(7);
                MaintenancePlan again = t.planCompaction();
                assertThat(again.isEmpty()).isTrue();
                assertThat(again.actions()).isEmpty();
                assertThat(t.commit(again).ref()).isEqualTo(compacted);
                assertThat(t.mergePath()).isEqualTo(MergePath.INDEXED_UNFENCED);
            }
            TableRef more = insert(store, a, compacted, "c");
            try (KeyedTable t = store.openKeyed("t", more)) {
                MaintenancePlan rewrite = t.planIndexOptimize();
                assertThat(rewrite.kind()).isEqualTo(MaintenancePlan.Kind.INDEX_REWRITE);
                TableRef optimised = t.commit(rewrite).ref();
                CommitDescription od = store.decompose("t", optimised);
                assertThat(CatalogActions.of(od, true, 0, Optional.empty())).extracting(x -> x.kind())
                        .containsExactly(ActionKind.REWRITE_INDEX);
                assertThat(rewrite.mismatch(List.of(od))).isEmpty();
                assertThat(plan.mismatch(List.of(od))).isPresent();
                assertThat(rewrite.mismatch(List.of())).isPresent();
            }
            assertThat(store.latest("t", TableRef.MAIN).version()).isEqualTo(more.version() + 1);
        }
    }

    /**
     * A table branch forked from an indexed version of main reads main's id index, whose files stay in main's
     * directory. Compacting fragments that index covers on the branch remaps it; Lance 7.0.0 writes the remapped copy
     * into the branch's directory but records it under main's, so every indexed merge on the branch then failed to
     * find it. The compaction therefore rebuilds the index on the branch first: the branch keeps merging through its
     * own index, and main's compaction, index refresh and removal of old versions leave the branch whole.
     */
    @Test
    void aBranchCompactsFragmentsItsInheritedIndexCoversAndKeepsMergingThroughTheIndex() {
        try (BufferAllocator a = new RootAllocator(); LanceTableStore store = new LanceTableStore(dir.toString())) {
            store.createKeyed("t", TableKind.NODE, SCHEMA).close();
            TableRef at = insert(store, a, TableRef.main(1), "a", "b", "c");
            try (KeyedTable t = store.openKeyed("t", at)) {
                at = t.commit(t.planIndexOptimize()).ref(); // main's id index covers fragment 0
            }
            at = insert(store, a, at, "d");
            TableRef b = store.forkBranch("t", at, "b");
            try (KeyedTable t = store.openKeyed("t", b); VectorSchemaRoot r = rows(a, "a", "e")) {
                assertThat(t.mergePath()).isEqualTo(MergePath.INDEXED_UNFENCED);
                b = t.upsert(r, t.mergePath()).ref(); // deletes a row of fragment 0, which the inherited index covers
            }
            MaintenancePlan plan;
            TableRef compacted;
            try (KeyedTable t = store.openKeyed("t", b)) {
                plan = t.planCompaction(new io.palisade.substrate.CompactionTarget(50, 0.1));
                assertThat(plan.groups().stream().flatMap(Set::stream).toList()).contains(0L);
                assertThat(plan.rebuildsIndexFirst()).isTrue();
                assertThat(plan.actions()).extracting(x -> x.kind()).startsWith(ActionKind.REWRITE_INDEX)
                        .contains(ActionKind.REWRITE_FRAGMENTS, ActionKind.REBIND_INDEX_COVERAGE);
                compacted = t.commit(plan).ref();
            }
            List<CommitDescription> produced = new java.util.ArrayList<>();
            for (long v = b.version() + 1; v <= compacted.version(); v++) {
                produced.add(store.decompose("t", new TableRef("b", v)));
            }
            assertThat(produced.get(0).kind()).isEqualTo(OperationKind.CREATE_INDEX);
            assertThat(plan.mismatch(produced)).isEmpty();
            assertThat(plan.effective(produced)).singleElement()
                    .satisfies(c -> assertThat(c.kind()).isEqualTo(OperationKind.REWRITE));
            assertThat(plan.mismatch(produced.subList(1, produced.size()))).get().asString().contains("rebuild");
            try (KeyedTable t = store.openKeyed("t", compacted); VectorSchemaRoot r = rows(a, "b", "f")) {
                assertThat(t.mergePath()).isEqualTo(MergePath.INDEXED_UNFENCED);
                b = t.upsert(r, t.mergePath()).ref();
            }
            try (KeyedTable t = store.openKeyed("t", b)) {
                assertThat(t.countRows()).isEqualTo(6);
                assertThat(t.planCompaction(new io.palisade.substrate.CompactionTarget(50, 0.1)).rebuildsIndexFirst())
                        .isFalse(); // the index is the branch's own now
            }

            // main compacts, refreshes its index and removes every version below its newest: the branch still merges
            try (KeyedTable t = store.openKeyed("t", at); VectorSchemaRoot r = rows(a, "c", "g")) {
                at = t.upsert(r, t.mergePath()).ref();
            }
            try (KeyedTable t = store.openKeyed("t", at)) {
                at = t.commit(t.planCompaction(new io.palisade.substrate.CompactionTarget(50, 0.1))).ref();
            }
            at = insert(store, a, at, "h");
            try (KeyedTable t = store.openKeyed("t", at)) {
                at = t.commit(t.planIndexOptimize()).ref();
            }
            assertThat(store.expireVersions("t", TableRef.MAIN, at.version()).versions()).isPositive();
            try (KeyedTable t = store.openKeyed("t", b); VectorSchemaRoot r = rows(a, "c", "i")) {
                b = t.upsert(r, t.mergePath()).ref();
            }
            try (KeyedTable t = store.openKeyed("t", b)) {
                assertThat(t.countRows()).isEqualTo(7);
            }
            try (KeyedTable t = store.openKeyed("t", at)) {
                assertThat(t.countRows()).isEqualTo(6);
            }
        }
    }

    private static List<ActionKind> kinds(LanceTableStore store, TableRef at) {
        return CatalogActions.of(store.decompose("t", at), true, 0, Optional.empty()).stream().map(x -> x.kind()).toList();
    }

}
