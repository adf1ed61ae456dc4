package io.palisade.substrate.surface;

import io.palisade.fencing.KeyFilter;
import io.palisade.fencing.ValidationException;
import io.palisade.fencing.action.Action;
import io.palisade.fencing.action.ActionKind;
import io.palisade.fencing.action.AddFragments;
import io.palisade.fencing.action.KeyScope;
import io.palisade.fencing.conflict.CommittedTransaction;
import io.palisade.fencing.conflict.ConflictResolver;
import io.palisade.fencing.conflict.Transaction;
import io.palisade.substrate.ArrowRows;
import io.palisade.substrate.CatalogActions;
import io.palisade.substrate.CommitDescription;
import io.palisade.substrate.KeyedTable;
import io.palisade.substrate.TableKind;
import io.palisade.substrate.TableRef;
import io.palisade.substrate.lance.LanceTableStore;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lance.Dataset;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Commits, Palisade's or foreign, are named as catalog actions and judged by the fencing resolver. */
class CatalogActionsTest {
    @TempDir
    Path dir;

    private static List<ActionKind> kinds(List<Action> actions) {
        return actions.stream().map(Action::kind).toList();
    }

    private static boolean bothCommit(List<Action> first, List<Action> second) {
        return ConflictResolver.check(new Transaction("second", 1, second),
                List.of(new CommittedTransaction("first", 2, first))).mayCommit();
    }

    @Test
    void aForeignBareAppendOnAKeyedTableIsAnUnknownKeyAddThatConflictsWithFencedInsertsInBothOrders() {
        try (LanceFixture f = new LanceFixture(dir); LanceTableStore store = new LanceTableStore(dir.toString())) {
            f.create(true, "a", "b");
            long v;
            try (Dataset d = f.open()) {
                v = f.append(d, "c");
            }
            CommitDescription c = store.decompose("t", TableRef.main(v));
            List<Action> foreign = CatalogActions.of(c, true, 0, Optional.empty());
            assertThat(foreign).singleElement().isInstanceOfSatisfying(AddFragments.class,
                    a -> assertThat(a.keys()).isEqualTo(KeyScope.UNKNOWN));
            List<Action> fenced = List.of(new AddFragments(List.of(), KeyScope.exact(KeyFilter.ofStrings(0, List.of("z")))));
            assertThat(bothCommit(foreign, fenced)).isFalse();
            assertThat(bothCommit(fenced, foreign)).isFalse();
        }
    }

    @Test
    void palisadeWritesAreNamedAndCarryTheJournaledKeys() {
        Schema s = new Schema(List.of(Field.notNullable("id", ArrowType.Utf8.INSTANCE),
                Field.nullable("v", new ArrowType.Int(64, true))));
        try (LanceTableStore store = new LanceTableStore(dir.toString()); BufferAllocator a = new RootAllocator()) {
            store.createKeyed("p", TableKind.NODE, s).close();
            KeyFilter keys = KeyFilter.ofStrings(0, List.of("x", "y"));
            TableRef v2;
            try (KeyedTable t = store.openKeyed("p", TableRef.main(1)); VectorSchemaRoot rows = rows(a, s, "x", "y")) {
                v2 = t.insert(rows, t.mergePath()).ref();
            }
            List<Action> insert = CatalogActions.of(store.decompose("p", v2), true, 0, Optional.of(keys));
            assertThat(kinds(insert)).contains(ActionKind.ADD_FRAGMENTS);
            assertThat(insert.stream().filter(x -> x instanceof AddFragments).map(x -> ((AddFragments) x).keys()))
                    .containsOnly(KeyScope.exact(keys));

            TableRef v3;
            try (KeyedTable t = store.openKeyed("p", v2)) {
                v3 = t.delete(KeyFilter.ofStrings(0, List.of("x"))).ref();
            }
            assertThat(kinds(CatalogActions.of(store.decompose("p", v3), true, 0, Optional.empty())))
                    .containsAnyOf(ActionKind.UPDATE_DELETION_VECTOR, ActionKind.REMOVE_FRAGMENTS);

            TableRef v4;
            try (KeyedTable t = store.openKeyed("p", v3)) {
                v4 = t.addColumns(List.of(Field.nullable("w", new ArrowType.Int(64, true)))).ref();
            }
            assertThat(kinds(CatalogActions.of(store.decompose("p", v4), true, 0, Optional.empty())))
                    .containsExactly(ActionKind.ADD_FIELDS);

            TableRef v5;
            try (KeyedTable t = store.openKeyed("p", v4)) {
                v5 = t.createIdIndex().ref();
            }
            assertThat(kinds(CatalogActions.of(store.decompose("p", v5), true, 0, Optional.empty())))
                    .containsOnly(ActionKind.ADD_INDEX);
        }
    }

    @Test
    void aPrimaryKeyInstallIsNamedAsTheSchemaMetadataUpdateItIs() {
        Schema s = new Schema(List.of(Field.notNullable("id", ArrowType.Utf8.INSTANCE)));
        try (LanceTableStore store = new LanceTableStore(dir.toString())) {
            store.createLegacyKeyed("old", TableKind.NODE, s);
            TableRef after = store.installPrimaryKey("old", TableRef.main(1), "intent-7").ref();
            CommitDescription c = store.decompose("old", after);
            assertThat(c.properties()).containsEntry("palisade.intent-id", "intent-7");
            assertThat(kinds(CatalogActions.of(c, true, 0, Optional.empty())))
                    .containsExactly(ActionKind.UPDATE_SCHEMA_METADATA);
        }
    }

    @Test
    void aCommitThatCannotBeNamedIsRefusedNotGuessed() {
        CommitDescription restore = new CommitDescription(TableRef.main(9), io.palisade.substrate.OperationKind.RESTORE, 8,
                Map.of(), List.of(), List.of(), List.of(), List.of(), Optional.empty(), List.of(), List.of());
        assertThatThrownBy(() -> CatalogActions.of(restore, true, 0, Optional.empty()))
                .isInstanceOf(ValidationException.class).hasMessageContaining("Restore");
    }

    private static VectorSchemaRoot rows(BufferAllocator a, Schema s, String... ids) {
        VectorSchemaRoot root = VectorSchemaRoot.create(s, a);
        List<Map<String, Object>> rows = new java.util.ArrayList<>();
        for (String id : ids) {
            Map<String, Object> r = new LinkedHashMap<>();
            r.put("id", id);
            r.put("v", 1L);
            rows.add(r);
        }
        ArrowRows.fill(root, rows);
        return root;
    }
}
