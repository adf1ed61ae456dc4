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

    private static final Schema S = new Schema(List.of(Field.notNullable("id", ArrowType.Utf8.INSTANCE),
            Field.nullable("v", new ArrowType.Int(64, true))));

    private static VectorSchemaRoot rows(BufferAllocator a, long v, String... ids) {
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
