package io.palisade.fencing;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.LargeVarCharVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Building key filters from Arrow key columns. */
class KeyFilterArrowTest {

    private static final int[] ID = {0};

    private BufferAllocator allocator;

    @BeforeEach
    void open() {
        allocator = new RootAllocator();
    }

    @AfterEach
    void close() {
        allocator.close(); // fails the test if a vector leaked
    }

    private VarCharVector utf8(String name, String... values) {
        VarCharVector v = new VarCharVector(name, allocator);
        v.allocateNew();
        for (int i = 0; i < values.length; i++) {
            if (values[i] == null) {
                v.setNull(i);
            } else {
                v.setSafe(i, values[i].getBytes(StandardCharsets.UTF_8));
            }
        }
        v.setValueCount(values.length);
        return v;
    }

    private LargeVarCharVector largeUtf8(String name, String... values) {
        LargeVarCharVector v = new LargeVarCharVector(name, allocator);
        v.allocateNew();
        for (int i = 0; i < values.length; i++) {
            if (values[i] == null) {
                v.setNull(i);
            } else {
                v.setSafe(i, values[i].getBytes(StandardCharsets.UTF_8));
            }
        }
        v.setValueCount(values.length);
        return v;
    }

    private BigIntVector int64(String name, Long... values) {
        BigIntVector v = new BigIntVector(name, allocator);
        v.allocateNew(values.length);
        for (int i = 0; i < values.length; i++) {
            if (values[i] == null) {
                v.setNull(i);
            } else {
                v.set(i, values[i]);
            }
        }
        v.setValueCount(values.length);
        return v;
    }

    private IntVector int32(String name, Integer... values) {
        IntVector v = new IntVector(name, allocator);
        v.allocateNew(values.length);
        for (int i = 0; i < values.length; i++) {
            if (values[i] == null) {
                v.setNull(i);
            } else {
                v.set(i, values[i]);
            }
        }
        v.setValueCount(values.length);
        return v;
    }

    @Test
    void utf8ColumnBuildsSortedStringFilter() {
        try (VarCharVector v = utf8("id", "carol", "alice", "bob", "\u00e9mile", "")) {
            KeyFilter f = KeyFilter.fromVector(v, ID, KeyFilter.Duplicates.REJECT);
            assertThat(f.keyType()).isEqualTo(KeyFilter.KeyType.UTF8);
            assertThat(f.keys()).containsExactly("", "alice", "bob", "carol", "\u00e9mile");
            assertThat(f).isEqualTo(KeyFilter.ofStrings(0, java.util.List.of("alice", "bob", "carol", "\u00e9mile", "")));
        }
    }

    @Test
    void largeUtf8ColumnBuildsTheSameFilterAsUtf8() {
        try (LargeVarCharVector large = largeUtf8("id", "b", "a", "c");
             VarCharVector small = utf8("id", "c", "b", "a")) {
            KeyFilter a = KeyFilter.fromVector(large, ID, KeyFilter.Duplicates.REJECT);
            assertThat(a.keys()).containsExactly("a", "b", "c");
            assertThat(a).isEqualTo(KeyFilter.fromVector(small, ID, KeyFilter.Duplicates.REJECT));
        }
    }

    @Test
    void int64ColumnBuildsSignedOrderedFilter() {
        try (BigIntVector v = int64("id", 5L, -3L, Long.MAX_VALUE, Long.MIN_VALUE, 0L)) {
            KeyFilter f = KeyFilter.fromVector(v, ID, KeyFilter.Duplicates.REJECT);
            assertThat(f.keyType()).isEqualTo(KeyFilter.KeyType.INT64);
            assertThat(f.keys()).containsExactly(String.valueOf(Long.MIN_VALUE), "-3", "0", "5", String.valueOf(Long.MAX_VALUE));
            assertThat(f).isEqualTo(KeyFilter.ofLongs(0, 5, -3, Long.MAX_VALUE, Long.MIN_VALUE, 0));
        }
    }

    @Test
    void int32ColumnBuildsInt64FilterComparableWithInt64Keys() {
        try (IntVector v = int32("id", 7, -1, Integer.MIN_VALUE);
             BigIntVector w = int64("id", -1L, 100L)) {
            KeyFilter f = KeyFilter.fromVector(v, ID, KeyFilter.Duplicates.REJECT);
            assertThat(f.keyType()).isEqualTo(KeyFilter.KeyType.INT64);
            assertThat(f.keys()).containsExactly(String.valueOf(Integer.MIN_VALUE), "-1", "7");
            KeyFilter.Overlap ov = f.overlap(KeyFilter.fromVector(w, ID, KeyFilter.Duplicates.REJECT));
            assertThat(ov.kind()).isEqualTo(KeyFilter.Overlap.Kind.SHARED_KEYS);
            assertThat(ov.sample()).containsExactly("-1");
        }
    }

    @Test
    void nullCellInUtf8ColumnIsRejectedNamingTheRow() {
        try (VarCharVector v = utf8("id", "a", "b", null, "d")) {
            assertThatThrownBy(() -> KeyFilter.fromVector(v, ID, KeyFilter.Duplicates.MERGE))
                    .isExactlyInstanceOf(ValidationException.class)
                    .hasMessageContaining("null key")
                    .hasMessageContaining("'id'")
                    .hasMessageContaining("row 2");
        }
    }

    @Test
    void nullCellInEveryKeyColumnTypeIsRejectedNamingTheRow() {
        try (BigIntVector a = int64("id", null, 1L);
             IntVector b = int32("id", 1, 2, 3, null);
             LargeVarCharVector c = largeUtf8("key", "x", null)) {
            assertThatThrownBy(() -> KeyFilter.fromVector(a, ID, KeyFilter.Duplicates.REJECT))
                    .isExactlyInstanceOf(ValidationException.class).hasMessageContaining("row 0");
            assertThatThrownBy(() -> KeyFilter.fromVector(b, ID, KeyFilter.Duplicates.REJECT))
                    .isExactlyInstanceOf(ValidationException.class).hasMessageContaining("row 3");
            assertThatThrownBy(() -> KeyFilter.fromVector(c, ID, KeyFilter.Duplicates.REJECT))
                    .isExactlyInstanceOf(ValidationException.class).hasMessageContaining("'key'").hasMessageContaining("row 1");
        }
    }

    @Test
    void rejectedDuplicateStringNamesTheKeyAndBothRows() {
        try (VarCharVector v = utf8("id", "x", "y", "z", "y")) {
            assertThatThrownBy(() -> KeyFilter.fromVector(v, ID, KeyFilter.Duplicates.REJECT))
                    .isExactlyInstanceOf(ValidationException.class)
                    .hasMessageContaining("duplicate key 'y'")
                    .hasMessageContaining("[1, 3]");
        }
    }

    @Test
    void rejectedDuplicateLongNamesTheKeyAndBothRows() {
        try (BigIntVector v = int64("id", 42L, 7L, 9L, 8L, 7L)) {
            assertThatThrownBy(() -> KeyFilter.fromVector(v, ID, KeyFilter.Duplicates.REJECT))
                    .isExactlyInstanceOf(ValidationException.class)
                    .hasMessageContaining("duplicate key 7")
                    .hasMessageContaining("[1, 4]");
        }
    }

    @Test
    void mergedDuplicatesAreKeptOnce() {
        try (VarCharVector s = utf8("id", "x", "y", "x", "x");
             BigIntVector l = int64("id", 3L, 3L, 1L, 3L);
             IntVector i = int32("id", 2, 2)) {
            assertThat(KeyFilter.fromVector(s, ID, KeyFilter.Duplicates.MERGE).keys()).containsExactly("x", "y");
            assertThat(KeyFilter.fromVector(l, ID, KeyFilter.Duplicates.MERGE).keys()).containsExactly("1", "3");
            assertThat(KeyFilter.fromVector(i, ID, KeyFilter.Duplicates.MERGE).size()).isEqualTo(1);
        }
    }

    @Test
    void unsupportedKeyColumnTypeIsRejected() {
        try (Float8Vector v = new Float8Vector("id", allocator)) {
            v.allocateNew(2);
            v.set(0, 1.5);
            v.set(1, 2.5);
            v.setValueCount(2);
            assertThatThrownBy(() -> KeyFilter.fromVector(v, ID, KeyFilter.Duplicates.MERGE))
                    .isExactlyInstanceOf(ValidationException.class)
                    .hasMessageContaining("'id'")
                    .hasMessageContaining("Utf8, LargeUtf8, Int32 or Int64");
        }
    }

    @Test
    void emptyColumnBuildsEmptyFilter() {
        try (VarCharVector v = utf8("id")) {
            KeyFilter f = KeyFilter.fromVector(v, ID, KeyFilter.Duplicates.REJECT);
            assertThat(f.isEmpty()).isTrue();
            assertThat(f).isEqualTo(KeyFilter.empty(ID, KeyFilter.KeyType.UTF8));
        }
    }

    @Test
    void batchKeyColumnIsFoundByName() {
        VarCharVector name = utf8("name", "n1", "n2");
        BigIntVector id = int64("id", 11L, 10L);
        try (VectorSchemaRoot root = VectorSchemaRoot.of(name, id)) {
            KeyFilter f = KeyFilter.fromBatch(root, "id", 3, KeyFilter.Duplicates.REJECT);
            assertThat(f.keys()).containsExactly("10", "11");
            assertThat(f.fieldIds()).containsExactly(3);
        }
    }

    @Test
    void missingBatchKeyColumnIsRejectedListingTheColumns() {
        VarCharVector name = utf8("name", "n1");
        IntVector age = int32("age", 30);
        try (VectorSchemaRoot root = VectorSchemaRoot.of(name, age)) {
            assertThatThrownBy(() -> KeyFilter.fromBatch(root, "id", 0, KeyFilter.Duplicates.REJECT))
                    .isExactlyInstanceOf(ValidationException.class)
                    .hasMessageContaining("'id'")
                    .hasMessageContaining("[name, age]");
        }
    }
}
