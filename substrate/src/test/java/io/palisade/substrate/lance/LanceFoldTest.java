package io.palisade.substrate.lance;

import io.palisade.fencing.KeyFilter;
import io.palisade.fencing.ValidationException;
import io.palisade.substrate.ArrowRows;
import io.palisade.substrate.CommitResult;
import io.palisade.substrate.FoldWatermark;
import io.palisade.substrate.KeyedTable;
import io.palisade.substrate.TableKind;
import io.palisade.substrate.TableRef;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A fold is one commit that upserts, deletes by key and marks its watermark; on both merge paths. */
class LanceFoldTest {
    @TempDir
    Path dir;

    static final Schema S = new Schema(List.of(Field.notNullable("id", ArrowType.Utf8.INSTANCE),
            Field.nullable("v", new ArrowType.Int(64, true))));

    /** Rows of {@link #S}: each id with {@code v}. */
    static VectorSchemaRoot rows(BufferAllocator a, long v, String... ids) {
        VectorSchemaRoot root = VectorSchemaRoot.create(S, a);
        List<Map<String, Object>> rows = new ArrayList<>();
        for (String id : ids) {
            Map<String, Object> r = new LinkedHashMap<>();
            r.put("id", id);
            r.put("v", v);
            rows.add(r);
        }
        ArrowRows.fill(root, rows);
        return root;
    }

    private static Map<String, Object> byId(List<Map<String, Object>> rows) {
        Map<String, Object> out = new TreeMap<>();
        for (Map<String, Object> r : rows) {
            assertThat(out.put(String.valueOf(r.get("id")), r.get("v"))).as("id %s once", r.get("id")).isNull();
        }
        return out;
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void aFoldUpsertsAndDeletesInOneVersion(boolean indexed) {
        try (LanceTableStore store = new LanceTableStore(dir.toString()); BufferAllocator a = new RootAllocator()) {
            store.createKeyed("p", TableKind.NODE, S).close();
            TableRef at;
            try (KeyedTable t = store.openKeyed("p", TableRef.main(1)); VectorSchemaRoot r = rows(a, 1, "a", "b", "c")) {
                at = t.insert(r, t.mergePath()).ref();
            }
            if (indexed) {
                try (KeyedTable t = store.openKeyed("p", at)) {
                    at = t.createIdIndex().ref();
                }
            }
            CommitResult folded;
            try (KeyedTable t = store.openKeyed("p", at); VectorSchemaRoot r = rows(a, 7, "b", "z")) {
                folded = t.fold(r, KeyFilter.ofStrings(0, List.of("a")), FoldWatermark.of("main", "p", 42));
            }
            assertThat(folded.ref().version()).isEqualTo(at.version() + 1);
            // a by-source delete clause takes Lance's scan plan, index or not
            assertThat(folded.plan()).isEqualTo(io.palisade.substrate.MergePlan.SCAN);
            try (KeyedTable t = store.openKeyed("p", folded.ref())) {
                assertThat(byId(t.scan())).containsExactlyEntriesOf(new TreeMap<>(Map.of("b", 7L, "c", 1L, "z", 7L)));
            }
            // a delete-only fold: no rows to upsert
            CommitResult deleteOnly;
            try (KeyedTable t = store.openKeyed("p", folded.ref()); VectorSchemaRoot r = rows(a, 0)) {
                deleteOnly = t.fold(r, KeyFilter.ofStrings(0, List.of("c", "never-there")), FoldWatermark.of("main", "p", 43));
            }
            assertThat(deleteOnly.ref().version()).isEqualTo(folded.ref().version() + 1);
            try (KeyedTable t = store.openKeyed("p", deleteOnly.ref())) {
                assertThat(byId(t.scan())).containsOnlyKeys("b", "z");
            }
        }
    }

    /**
     * An upsert-only fold large enough for the scan plan ({@code MergeCost}) over a table whose index covers only its
     * older fragments gives the same table as the same fold on the indexed plan, and marks its watermark (Lance's
     * MemWAL system index) as that one does.
     */
    @org.junit.jupiter.api.Test
    void aLargeFoldOnTheScanPlanGivesTheSameTableAsTheIndexedPlan() {
        int n = 13_000; // a fold of n rows into 2n: past the crossover (n × 2n ≥ 3·10⁸)
        String[] old = new String[n];
        String[] fresh = new String[n];
        String[] half = new String[n];
        for (int i = 0; i < n; i++) {
            old[i] = "o" + i;
            fresh[i] = "f" + i;
            half[i] = i % 2 == 0 ? "o" + i : "f" + i; // updates in both fragments, inserts too
        }
        half[n - 1] = "new";
        assertThat(io.palisade.substrate.MergeCost.scanCheaper(n, 2L * n)).isTrue();
        Map<String, Map<String, Object>> results = new TreeMap<>();
        for (boolean large : new boolean[] {true, false}) {
            Path root = dir.resolve(large ? "scan" : "indexed");
            try (LanceTableStore store = new LanceTableStore(root.toString()); BufferAllocator a = new RootAllocator()) {
                store.createKeyed("p", TableKind.NODE, S).close();
                TableRef at;
                try (KeyedTable t = store.openKeyed("p", TableRef.main(1)); VectorSchemaRoot r = rows(a, 1, old)) {
                    at = t.insert(r, t.mergePath()).ref();
                }
                try (KeyedTable t = store.openKeyed("p", at)) {
                    at = t.createIdIndex().ref(); // covers the first fragment only
                }
                try (KeyedTable t = store.openKeyed("p", at); VectorSchemaRoot r = rows(a, 2, fresh)) {
                    at = t.upsert(r, t.mergePath()).ref(); // a fragment the index does not cover
                }
                Map<String, Object> after = new TreeMap<>();
                if (large) {
                    try (KeyedTable t = store.openKeyed("p", at); VectorSchemaRoot r = rows(a, 7, half)) {
                        io.palisade.substrate.CommitResult c = t.fold(r, null, FoldWatermark.of("main", "p", 5));
                        assertThat(c.plan()).isEqualTo(io.palisade.substrate.MergePlan.SCAN);
                        at = c.ref();
                    }
                } else { // the same rows in folds too small for the scan plan
                    int chunk = 4_000;
                    assertThat(io.palisade.substrate.MergeCost.scanCheaper(chunk, 2L * n + 1)).isFalse();
                    for (int from = 0; from < n; from += chunk) {
                        String[] part = java.util.Arrays.copyOfRange(half, from, Math.min(n, from + chunk));
                        try (KeyedTable t = store.openKeyed("p", at); VectorSchemaRoot r = rows(a, 7, part)) {
                            io.palisade.substrate.CommitResult c = t.fold(r, null, FoldWatermark.of("main", "p", 5 + from));
                            assertThat(c.plan()).isEqualTo(io.palisade.substrate.MergePlan.INDEXED);
                            at = c.ref();
                        }
                    }
                }
                try (KeyedTable t = store.openKeyed("p", at)) {
                    after.putAll(byId(t.scan()));
                }
                try (org.lance.Dataset ds = store.openDataset("p", at)) {
                    assertThat(ds.getIndexes()).as("the fold's merged generation (%s plan)", large ? "scan" : "indexed")
                            .anySatisfy(i -> assertThat(i.name()).isEqualTo("__lance_mem_wal"));
                }
                results.put(large ? "scan" : "indexed", after);
            }
        }
        assertThat(results.get("scan")).hasSize(2 * n + 1).containsEntry("o0", 7L).containsEntry("o1", 1L)
                .containsEntry("f1", 7L).containsEntry("f0", 2L).containsEntry("new", 7L)
                .isEqualTo(results.get("indexed"));
    }

    @ParameterizedTest
    @ValueSource(booleans = {true})
    void aFoldThatUpsertsAndDeletesTheSameKeyOrNothingIsRefused(boolean unused) {
        try (LanceTableStore store = new LanceTableStore(dir.toString()); BufferAllocator a = new RootAllocator()) {
            store.createKeyed("p", TableKind.NODE, S).close();
            try (KeyedTable t = store.openKeyed("p", TableRef.main(1)); VectorSchemaRoot r = rows(a, 1, "a")) {
                assertThatThrownBy(() -> t.fold(r, KeyFilter.ofStrings(0, List.of("a")), FoldWatermark.of("main", "p", 1)))
                        .isInstanceOf(ValidationException.class).hasMessageContaining("same key");
            }
            try (KeyedTable t = store.openKeyed("p", TableRef.main(1)); VectorSchemaRoot r = rows(a, 1)) {
                assertThatThrownBy(() -> t.fold(r, null, FoldWatermark.of("main", "p", 1)))
                        .isInstanceOf(ValidationException.class).hasMessageContaining("needs rows");
            }
            assertThat(store.latest("p", TableRef.MAIN).version()).isEqualTo(1);
        }
    }
}
