package io.palisade.coordinator.internal;

import io.palisade.coordinator.Catalog;
import io.palisade.coordinator.Rows;
import io.palisade.journal.LogicalOperation;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A fold's rows: counted from the newest-write map alone, decoded on first use to the newest row of each key. */
class FoldRowsTest {
    private final BufferAllocator allocator = new RootAllocator();
    private final Catalog.TableDef person = Rows.catalog().require("person");
    private long acknowledged;

    @AfterEach
    void close() {
        allocator.close();
    }

    private UnfoldedWrites.Entry write(LogicalOperation op, Object... idAgePairs) {
        byte[] ipc;
        List<String> keys = new java.util.ArrayList<>();
        for (int i = 0; i < idAgePairs.length; i += 2) {
            keys.add((String) idAgePairs[i]);
        }
        if (op == LogicalOperation.DELETE) {
            ipc = new byte[0];
        } else {
            try (VectorSchemaRoot rows = Rows.people(allocator, idAgePairs)) {
                ipc = JournaledRows.encode(rows);
            }
        }
        acknowledged++;
        return new UnfoldedWrites.Entry("i-" + acknowledged, op, keys, acknowledged, acknowledged, acknowledged, ipc);
    }

    /** The newest write of each key, as the unfolded tail keeps it. */
    private static Map<String, UnfoldedWrites.Entry> newest(UnfoldedWrites.Entry... inOrder) {
        Map<String, UnfoldedWrites.Entry> out = new HashMap<>();
        for (UnfoldedWrites.Entry e : inOrder) {
            e.keys.forEach(k -> out.put(k, e));
        }
        return out;
    }

    private static Map<String, Long> ages(VectorSchemaRoot root) {
        Map<String, Long> out = new TreeMap<>();
        for (int i = 0; i < root.getRowCount(); i++) {
            out.put(String.valueOf(root.getVector("id").getObject(i)), (Long) root.getVector("age").getObject(i));
        }
        return out;
    }

    /** A write journaled before the table had its {@code age} column: a payload of another schema (id only). */
    private UnfoldedWrites.Entry writeWithoutAge(String... ids) {
        org.apache.arrow.vector.types.pojo.Schema idOnly = new org.apache.arrow.vector.types.pojo.Schema(
                List.of(person.arrowSchema().findField("id")));
        List<Map<String, Object>> rows = new java.util.ArrayList<>();
        for (String id : ids) {
            rows.add(Map.of("id", id));
        }
        byte[] ipc;
        try (VectorSchemaRoot root = VectorSchemaRoot.create(idOnly, allocator)) {
            io.palisade.substrate.ArrowRows.fill(root, rows);
            ipc = JournaledRows.encode(root);
        }
        acknowledged++;
        return new UnfoldedWrites.Entry("i-" + acknowledged, LogicalOperation.UPSERT, List.of(ids), acknowledged,
                acknowledged, acknowledged, ipc);
    }

    @Test
    void payloadsOfTwoSchemasInterleavedFoldEachWithItsOwnColumns() {
        UnfoldedWrites.Entry a = write(LogicalOperation.UPSERT, "k1", 1);
        UnfoldedWrites.Entry b = writeWithoutAge("k2", "k3");
        UnfoldedWrites.Entry c = write(LogicalOperation.UPSERT, "k4", 4, "k5", 5);
        UnfoldedWrites.Entry d = writeWithoutAge("k1");
        UnfoldedWrites.Entry e = write(LogicalOperation.UPSERT, "k3", 33);
        try (FoldRows rows = new FoldRows(person, allocator, newest(a, b, c, d, e))) {
            Map<String, Long> ages = ages(rows.root());
            Map<String, Long> expected = new TreeMap<>();
            expected.put("k1", null); // its newest write had no age
            expected.put("k2", null);
            expected.put("k3", 33L);
            expected.put("k4", 4L);
            expected.put("k5", 5L);
            assertThat(ages).containsExactlyEntriesOf(expected);
        }
        assertThat(allocator.getAllocatedMemory()).isZero();
    }

    @Test
    void theNewestRowOfEveryKeyNotDeletedIsCountedBeforeAndWrittenAfterDecoding() {
        UnfoldedWrites.Entry a = write(LogicalOperation.UPSERT, "k1", 1, "k2", 2, "k3", 3);
        UnfoldedWrites.Entry b = write(LogicalOperation.UPSERT, "k2", 20);
        UnfoldedWrites.Entry c = write(LogicalOperation.DELETE, "k3", 0);
        UnfoldedWrites.Entry d = write(LogicalOperation.INSERT, "k4", 4, "k1", 10);
        try (FoldRows rows = new FoldRows(person, allocator, newest(a, b, c, d))) {
            assertThat(rows.count()).isEqualTo(3);
            VectorSchemaRoot root = rows.root();
            assertThat(root.getRowCount()).isEqualTo(3);
            assertThat(ages(root)).containsExactlyEntriesOf(new TreeMap<>(Map.of("k1", 10L, "k2", 20L, "k4", 4L)));
            assertThat(rows.root()).isSameAs(root); // decoded once
        }
        assertThat(allocator.getAllocatedMemory()).isZero();
    }

    @Test
    void aTailOfDeletesOnlyHasNoRowsToWrite() {
        UnfoldedWrites.Entry a = write(LogicalOperation.DELETE, "k1", 0, "k2", 0);
        try (FoldRows rows = new FoldRows(person, allocator, newest(a))) {
            assertThat(rows.count()).isZero();
            assertThat(rows.root().getRowCount()).isZero();
        }
    }

    @Test
    void rowsThatLackAKeyTheirWriteNamesFailToDecodeAndHoldNoMemory() {
        UnfoldedWrites.Entry a = write(LogicalOperation.UPSERT, "k1", 1);
        UnfoldedWrites.Entry lying = new UnfoldedWrites.Entry("i-lying", LogicalOperation.UPSERT, List.of("k1", "k9"),
                9, 9, 9, a.rows);
        try (FoldRows rows = new FoldRows(person, allocator, newest(lying))) {
            assertThat(rows.count()).isEqualTo(2);
            assertThatThrownBy(rows::root).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("name 2 keys").hasMessageContaining("hold 1");
        }
        assertThat(allocator.getAllocatedMemory()).isZero();
    }

    @Test
    void releasedRowsCannotBeDecodedAgain() {
        FoldRows rows = new FoldRows(person, allocator, newest(write(LogicalOperation.UPSERT, "k1", 1)));
        rows.root();
        rows.close();
        assertThat(allocator.getAllocatedMemory()).isZero();
        assertThatThrownBy(rows::root).isInstanceOf(IllegalStateException.class).hasMessageContaining("released");
    }
}
