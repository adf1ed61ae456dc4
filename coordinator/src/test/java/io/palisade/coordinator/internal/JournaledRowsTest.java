package io.palisade.coordinator.internal;

import io.palisade.coordinator.Rows;
import io.palisade.substrate.ArrowRows;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;
import static org.quicktheories.generators.SourceDSL.longs;
import static org.quicktheories.generators.SourceDSL.strings;

/**
 * The journaled rows payload: the cached-schema encoding writes exactly the bytes of Arrow's stream writer, and a
 * reader of many payloads reads a schema message only when it changes, with the rows Arrow's own reader gives.
 */
class JournaledRowsTest {
    private final BufferAllocator allocator = new RootAllocator();

    /** id (int64), a nullable string, a double, a nullable boolean and a timestamp: more than one buffer layout. */
    private static final Schema WIDE = new Schema(List.of(
            new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null),
            new Field("name", FieldType.nullable(ArrowType.Utf8.INSTANCE), null),
            new Field("score", FieldType.notNullable(new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)), null),
            new Field("ok", FieldType.nullable(ArrowType.Bool.INSTANCE), null),
            new Field("at", FieldType.nullable(new ArrowType.Timestamp(TimeUnit.MICROSECOND, "UTC")), null)));

    @AfterEach
    void close() {
        allocator.close();
    }

    private VectorSchemaRoot wide(List<Long> ids, String text) {
        List<Map<String, Object>> rows = new ArrayList<>();
        for (int i = 0; i < ids.size(); i++) {
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("id", ids.get(i));
            row.put("name", i % 3 == 0 ? null : text + i);
            row.put("score", ids.get(i) / 7.0);
            row.put("ok", i % 2 == 0 ? null : (Object) (ids.get(i) % 2 == 0));
            row.put("at", i % 4 == 0 ? null : (Object) (1_700_000_000_000_000L + i));
            rows.add(row);
        }
        VectorSchemaRoot root = VectorSchemaRoot.create(WIDE, allocator);
        ArrowRows.fill(root, rows);
        return root;
    }

    @Test
    void theEncodingIsByteForByteArrowsStreamWriters() {
        qt().withExamples(150)
                .forAll(lists().of(longs().all()).ofSizeBetween(0, 40), strings().allPossible().ofLengthBetween(0, 30),
                        integers().between(0, 90))
                .checkAssert((ids, text, age) -> {
                    try (VectorSchemaRoot w = wide(ids, text)) {
                        assertThat(JournaledRows.encode(w)).isEqualTo(JournaledRows.encodeByStreamWriter(w));
                    }
                    Object[] pairs = new Object[2 * Math.min(ids.size(), 5)];
                    for (int i = 0; i < pairs.length; i += 2) {
                        pairs[i] = text + ids.get(i / 2);
                        pairs[i + 1] = i == 0 ? null : age + i;
                    }
                    try (VectorSchemaRoot p = Rows.people(allocator, pairs)) {
                        byte[] fast = JournaledRows.encode(p);
                        assertThat(fast).isEqualTo(JournaledRows.encodeByStreamWriter(p));
                        assertThat(JournaledRows.decode(fast, allocator)).isEqualTo(ArrowRows.rows(p));
                    }
                });
        assertThat(allocator.getAllocatedMemory()).isZero();
    }

    @Test
    void aReaderReadsASchemaMessageOnlyWhenItChangesAndGivesArrowsRows() throws Exception {
        List<byte[]> payloads = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            try (VectorSchemaRoot p = Rows.people(allocator, "p" + i, i, "q" + i, null)) {
                payloads.add(JournaledRows.encode(p));
            }
        }
        try (VectorSchemaRoot w = wide(List.of(1L, 2L, 3L), "w")) {
            payloads.add(JournaledRows.encode(w));
        }
        try (VectorSchemaRoot p = Rows.people(allocator, "p9", 9)) {
            payloads.add(JournaledRows.encodeByStreamWriter(p)); // the same bytes from Arrow's own writer
        }
        List<List<Map<String, Object>>> read = new ArrayList<>();
        int schemas;
        try (JournaledRows.Reader reader = new JournaledRows.Reader(allocator)) {
            for (byte[] payload : payloads) {
                List<Map<String, Object>> rows = new ArrayList<>();
                reader.forEachBatch(payload, root -> rows.addAll(ArrowRows.rows(root)));
                read.add(rows);
            }
            schemas = reader.schemasRead();
        }
        assertThat(schemas).isEqualTo(3); // person, wide, person again
        for (int i = 0; i < payloads.size(); i++) {
            assertThat(read.get(i)).isEqualTo(JournaledRows.decode(payloads.get(i), allocator));
        }
        assertThat(read.get(1)).hasSize(2);
        assertThat(allocator.getAllocatedMemory()).isZero();
    }

    @Test
    void theSchemaMessageLengthIsReadFromTheStreamsPrefixOrNotAtAll() {
        byte[] stream;
        try (VectorSchemaRoot p = Rows.people(allocator, "a", 1)) {
            stream = JournaledRows.encode(p);
        }
        int n = JournaledRows.schemaMessageLength(stream);
        assertThat(n).isPositive().isLessThan(stream.length);
        assertThat(n % 8).isZero();
        assertThat(JournaledRows.schemaMessageLength(new byte[] {1, 2, 3})).isEqualTo(-1);
        assertThat(JournaledRows.schemaMessageLength(new byte[] {0, 0, 0, 0, 8, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8}))
                .isEqualTo(-1);
        assertThat(JournaledRows.schemaMessageLength(new byte[] {-1, -1, -1, -1, 64, 0, 0, 0, 1})).isEqualTo(-1);
    }
}
