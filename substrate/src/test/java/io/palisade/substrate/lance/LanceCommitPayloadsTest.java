package io.palisade.substrate.lance;

import io.palisade.substrate.ArrowRows;
import io.palisade.substrate.OperationKind;
import org.apache.arrow.c.ArrowArrayStream;
import org.apache.arrow.c.Data;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lance.Dataset;
import org.lance.SourcedTransaction;
import org.lance.Transaction;
import org.lance.index.IndexOptions;
import org.lance.index.IndexParams;
import org.lance.index.IndexType;
import org.lance.index.scalar.ScalarIndexParams;
import org.lance.merge.MergeInsertParams;
import org.lance.operation.Overwrite;
import org.lance.schema.SqlExpressions;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;

/** The operation kind read from a version's transaction bytes is the one the binding names, on every readable kind. */
class LanceCommitPayloadsTest {

    @TempDir
    Path dir;

    private final BufferAllocator allocator = new RootAllocator();

    private static final Schema SCHEMA = new Schema(List.of(
            new Field("id", new FieldType(false, ArrowType.Utf8.INSTANCE, null, Map.of("lance-schema:unenforced-primary-key", "true")), null),
            new Field("v", FieldType.nullable(new ArrowType.Int(64, true)), null)));

    @Test
    void theKindReadFromTheTransactionBytesIsTheKindTheBindingNames() throws Exception {
        Path t = dir.resolve("t.lance");
        try (ArrowArrayStream s = stream("a", "b"); Dataset d = Dataset.write().allocator(allocator).stream(s).uri(t.toString()).execute()) {
            assertThat(d.version()).isEqualTo(1);
        }
        try (Dataset d = open(t); ArrowArrayStream s = stream("b", "c")) {
            d.mergeInsert(new MergeInsertParams(List.of("id")).withMatchedUpdateAll(), s).dataset().close();
        }
        try (Dataset d = open(t)) {
            d.delete("id = 'a'");
        }
        try (Dataset d = open(t)) {
            d.addColumns(new SqlExpressions.Builder().withExpression("w", "v * 2").build(), Optional.empty());
        }
        try (Dataset d = open(t)) {
            d.createIndex(IndexOptions.builder(List.of("id"), IndexType.BTREE,
                    IndexParams.builder().setScalarIndexParams(ScalarIndexParams.create("btree", "{}")).build()).withIndexName("i").build());
        }
        try (Dataset d = open(t)) {
            d.deleteConfigKeys(java.util.Set.of("nothing"));
        }
        try (Dataset d = open(t)) {
            Overwrite op = Overwrite.builder().fragments(d.getFragments().stream().map(f -> f.metadata()).toList()).schema(d.getSchema()).build();
            try (SourcedTransaction tx = d.newTransactionBuilder().operation(op).build(); Dataset after = tx.commit()) {
                assertThat(after.version()).isEqualTo(7);
            }
        }
        TreeMap<Long, Path> manifests = LanceTornVersions.manifests(t);
        assertThat(manifests.keySet()).containsExactly(1L, 2L, 3L, 4L, 5L, 6L, 7L);
        List<OperationKind> peeked = new ArrayList<>();
        Map<Long, OperationKind> bound = new LinkedHashMap<>();
        for (var e : manifests.entrySet()) {
            peeked.add(LanceCommitPayloads.peekKind(t, e.getValue()).orElseThrow());
            try (Dataset latest = open(t); Dataset d = latest.checkoutVersion(e.getKey())) {
                Optional<Transaction> txn = d.readTransaction();
                try (Transaction x = txn.orElseThrow()) {
                    bound.put(e.getKey(), OperationKind.ofLanceName(x.operation().name()));
                    x.operation().release();
                }
            }
        }
        assertThat(peeked).containsExactlyElementsOf(bound.values());
        assertThat(peeked).containsExactly(OperationKind.OVERWRITE, OperationKind.UPDATE, OperationKind.DELETE, OperationKind.MERGE,
                OperationKind.CREATE_INDEX, OperationKind.UPDATE_CONFIG, OperationKind.OVERWRITE);
    }

    @Test
    void aManifestWithoutReadableTransactionBytesGivesNoKind() throws Exception {
        Path junk = dir.resolve("junk.manifest");
        Files.write(junk, new byte[]{1, 2, 3});
        assertThat(LanceCommitPayloads.peekKind(dir, junk)).isEmpty();
        assertThat(LanceCommitPayloads.peekKind(dir, dir.resolve("missing.manifest"))).isEmpty();
    }

    private Dataset open(Path t) {
        return Dataset.open().allocator(allocator).uri(t.toString()).build();
    }

    private ArrowArrayStream stream(String... ids) throws Exception {
        ByteArrayOutputStream bos = new ByteArrayOutputStream();
        try (VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, allocator)) {
            List<Map<String, Object>> rows = new ArrayList<>();
            for (String id : ids) {
                rows.add(new LinkedHashMap<>(Map.of("id", id, "v", 1L)));
            }
            ArrowRows.fill(root, rows);
            try (ArrowStreamWriter w = new ArrowStreamWriter(root, null, bos)) {
                w.start();
                w.writeBatch();
                w.end();
            }
        }
        ArrowStreamReader r = new ArrowStreamReader(new ByteArrayInputStream(bos.toByteArray()), allocator);
        ArrowArrayStream st = ArrowArrayStream.allocateNew(allocator);
        Data.exportArrayStream(allocator, r, st);
        return st;
    }
}
