package io.palisade.substrate.lance;

import io.palisade.fencing.GraphRefusedException;
import io.palisade.fencing.ValidationException;
import io.palisade.substrate.KeyedSchemas;
import io.palisade.substrate.KeyedTable;
import io.palisade.substrate.MergePath;
import io.palisade.substrate.TableKind;
import io.palisade.substrate.TableRef;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lance.Dataset;
import org.lance.WriteParams;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Lance-store behaviour that the SPI cannot set up by itself: tables written by other Lance clients. */
class LanceTableStoreTest {

    @TempDir
    Path dir;

    /** A table created by a raw Lance client whose PK is {@code name}, not {@code id}. */
    private void foreignTableWithPkOnName(BufferAllocator a, String table) {
        Schema s = new Schema(List.of(
                Field.notNullable("id", ArrowType.Utf8.INSTANCE),
                new Field("name", new FieldType(false, ArrowType.Utf8.INSTANCE, null,
                        Map.of(KeyedSchemas.PK_METADATA, "true")), List.of())));
        try (Dataset ds = Dataset.write().allocator(a).uri(dir.resolve(table + ".lance").toString()).schema(s)
                .mode(WriteParams.WriteMode.CREATE).execute()) {
            assertThat(ds.version()).isEqualTo(1);
        }
    }

    @Test
    void pkInstallRefusesATableWhosePrimaryKeyIsAnotherField() {
        try (BufferAllocator a = new RootAllocator(); LanceTableStore store = new LanceTableStore(dir.toString())) {
            foreignTableWithPkOnName(a, "f");
            assertThat(store.primaryKey("f", TableRef.main(1))).containsExactly("name");
            assertThatThrownBy(() -> store.installPrimaryKey("f", TableRef.main(1), "i"))
                    .isInstanceOf(GraphRefusedException.class).hasMessageContaining("never changed");
            assertThatThrownBy(() -> store.openKeyed("f", TableRef.main(1))).isInstanceOf(GraphRefusedException.class);
            assertThatThrownBy(() -> store.openKeyless("f", TableRef.main(1))).isInstanceOf(GraphRefusedException.class);
            assertThat(store.latest("f", TableRef.MAIN)).isEqualTo(TableRef.main(1));
        }
    }

    @Test
    void aKeyedTableWhoseIdWasDroppedByAnotherClientIsRefusedForKeyedWrites() {
        try (LanceTableStore store = new LanceTableStore(dir.toString())) {
            Schema s = new Schema(List.of(Field.notNullable("id", ArrowType.Utf8.INSTANCE),
                    Field.nullable("v", new ArrowType.Int(64, true))));
            store.createKeyed("t", TableKind.NODE, s).close();
            try (BufferAllocator a = new RootAllocator();
                 Dataset ds = Dataset.open().allocator(a).uri(dir.resolve("t.lance").toString()).build()) {
                ds.dropColumns(List.of("id")); // allowed by Lance 7.0.0 (surface guard), never by the SPI
            }
            assertThatThrownBy(() -> store.openKeyed("t", TableRef.main(2)))
                    .isInstanceOf(GraphRefusedException.class).hasMessageContaining("[]");
            try (KeyedTable old = store.openKeyed("t", TableRef.main(1))) {
                assertThat(old.primaryKey()).containsExactly("id");
            }
        }
    }

    @Test
    void idCensusCountsNullAndDuplicatedIdsExactlyAndSamplesThemAscending() throws Exception {
        Schema s = new Schema(List.of(Field.nullable("id", ArrowType.Utf8.INSTANCE),
                Field.nullable("v", new ArrowType.Int(64, true))));
        try (BufferAllocator a = new RootAllocator(); LanceTableStore store = new LanceTableStore(dir.toString())) {
            java.io.ByteArrayOutputStream bos = new java.io.ByteArrayOutputStream();
            try (org.apache.arrow.vector.VectorSchemaRoot root = org.apache.arrow.vector.VectorSchemaRoot.create(s, a)) {
                org.apache.arrow.vector.VarCharVector id = (org.apache.arrow.vector.VarCharVector) root.getVector("id");
                String[] ids = {"c", "b", "a", "c", "b", null, "c"};
                for (int i = 0; i < ids.length; i++) {
                    if (ids[i] == null) {
                        id.setNull(i);
                    } else {
                        id.setSafe(i, ids[i].getBytes(java.nio.charset.StandardCharsets.UTF_8));
                    }
                }
                root.setRowCount(ids.length);
                try (org.apache.arrow.vector.ipc.ArrowStreamWriter w = new org.apache.arrow.vector.ipc.ArrowStreamWriter(root, null, bos)) {
                    w.start();
                    w.writeBatch();
                    w.end();
                }
            }
            try (org.apache.arrow.vector.ipc.ArrowStreamReader r = new org.apache.arrow.vector.ipc.ArrowStreamReader(
                    new java.io.ByteArrayInputStream(bos.toByteArray()), a);
                 Dataset ds = Dataset.write().allocator(a).reader(r).uri(dir.resolve("d.lance").toString()).execute()) {
                assertThat(ds.version()).isEqualTo(1);
            }
            io.palisade.substrate.IdCensus c = store.idCensus("d", TableRef.main(1), 10);
            assertThat(c.rows()).isEqualTo(7);
            assertThat(c.nullIds()).isEqualTo(1);
            assertThat(c.duplicatedKeys()).isEqualTo(2);
            assertThat(c.extraRows()).isEqualTo(3);
            assertThat(c.sample()).containsExactly(Map.entry("b", 2L), Map.entry("c", 3L));
            assertThat(c.primaryKey()).isEmpty();
            assertThat(c.idNullable()).isTrue();
            assertThat(c.idType()).isEqualTo("Utf8");
            assertThat(c.idsClean()).isFalse();
            io.palisade.substrate.IdCensus one = store.idCensus("d", TableRef.main(1), 1);
            assertThat(one.describeSample()).isEqualTo("'b' (2 rows) and 1 more");
            try (Dataset ds = Dataset.open().allocator(a).uri(dir.resolve("d.lance").toString()).build()) {
                ds.dropColumns(List.of("id"));
            }
            io.palisade.substrate.IdCensus none = store.idCensus("d", TableRef.main(2), 10);
            assertThat(none.hasId()).isFalse();
            assertThat(none.rows()).isEqualTo(7);
        }
    }

    @Test
    void idCensusOfAKeyedTableWrittenThroughTheSpiIsClean() {
        try (LanceTableStore store = new LanceTableStore(dir.toString())) {
            Schema s = new Schema(List.of(Field.notNullable("id", ArrowType.Utf8.INSTANCE)));
            store.createKeyed("t", TableKind.NODE, s).close();
            io.palisade.substrate.IdCensus c = store.idCensus("t", TableRef.main(1), 10);
            assertThat(c.primaryKey()).containsExactly("id");
            assertThat(c.idNullable()).isFalse();
            assertThat(c.idsClean()).isTrue();
            assertThat(c.rows()).isZero();
        }
    }

    @Test
    void invalidTableNamesAreRefusedBeforeTouchingStorage() {
        try (LanceTableStore store = new LanceTableStore(dir.toString())) {
            assertThatThrownBy(() -> store.createKeyed("../escape", TableKind.NODE,
                    new Schema(List.of(Field.notNullable("id", ArrowType.Utf8.INSTANCE)))))
                    .isInstanceOf(ValidationException.class);
            assertThat(dir.getParent().resolve("escape.lance")).doesNotExist();
        }
    }

    @Test
    void aStrictInsertOnTheIndexedPathIsCheckedByTheStoreBecauseLanceWouldUpdate() {
        try (LanceTableStore store = new LanceTableStore(dir.toString())) {
            Schema s = new Schema(List.of(Field.notNullable("id", ArrowType.Utf8.INSTANCE)));
            TableRef v2;
            try (BufferAllocator a = new RootAllocator(); KeyedTable t = store.createKeyed("t", TableKind.NODE, s);
                 var rows = org.apache.arrow.vector.VectorSchemaRoot.create(s, a)) {
                io.palisade.substrate.ArrowRows.fill(rows, List.of(Map.of("id", "a")));
                v2 = t.insert(rows, MergePath.V2_FENCED).ref();
                TableRef v3;
                try (KeyedTable at2 = store.openKeyed("t", v2)) {
                    v3 = at2.createIdIndex().ref();
                }
                try (KeyedTable at3 = store.openKeyed("t", v3)) {
                    assertThatThrownBy(() -> at3.insert(rows, MergePath.INDEXED_UNFENCED))
                            .isInstanceOf(io.palisade.fencing.KeyConflictException.class);
                }
                assertThat(store.latest("t", TableRef.MAIN)).isEqualTo(v3);
            }
        }
    }

    @Test
    void restoreToAnOlderVersionKeepsThePrimaryKeyAndNeverRemovesOne() {
        Schema s = new Schema(List.of(Field.notNullable("id", ArrowType.Utf8.INSTANCE),
                Field.nullable("v", new ArrowType.Int(64, true))));
        try (LanceTableStore store = new LanceTableStore(dir.toString()); BufferAllocator a = new RootAllocator()) {
            store.createKeyed("t", TableKind.NODE, s).close();
            TableRef v2;
            try (KeyedTable t = store.openKeyed("t", TableRef.main(1));
                 org.apache.arrow.vector.VectorSchemaRoot rows = org.apache.arrow.vector.VectorSchemaRoot.create(s, a)) {
                io.palisade.substrate.ArrowRows.fill(rows, List.of(Map.of("id", "x", "v", 1L)));
                v2 = t.insert(rows, t.mergePath()).ref();
            }
            TableRef restored = store.restore("t", TableRef.main(1));
            assertThat(restored.version()).isGreaterThan(v2.version());
            assertThat(store.primaryKey("t", restored)).containsExactly("id");
            try (KeyedTable t = store.openKeyed("t", restored)) {
                assertThat(t.countRows()).isZero();
            }

            // a legacy table whose PK was installed later cannot be restored to its pre-PK image
            store.createLegacyKeyed("old", TableKind.NODE, s);
            TableRef installed = store.installPrimaryKey("old", TableRef.main(1), "i-1").ref();
            assertThatThrownBy(() -> store.restore("old", TableRef.main(1)))
                    .isInstanceOf(GraphRefusedException.class).hasMessageContaining("never removes");
            assertThat(store.latest("old", TableRef.MAIN)).isEqualTo(installed);
            assertThat(store.primaryKey("old", installed)).containsExactly("id");
        }
    }
}
