package io.palisade.substrate.surface;

import org.apache.arrow.c.ArrowArrayStream;
import org.apache.arrow.c.Data;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.lance.Dataset;
import org.lance.Fragment;
import org.lance.FragmentMetadata;
import org.lance.SourcedTransaction;
import org.lance.WriteParams;
import org.lance.index.IndexOptions;
import org.lance.index.IndexParams;
import org.lance.index.IndexType;
import org.lance.index.scalar.ScalarIndexParams;
import org.lance.merge.MergeInsertParams;
import org.lance.merge.MergeInsertResult;
import org.lance.operation.Append;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * Raw Lance 7.0.0 plumbing for the surface guards: they pin Lance itself, so they bypass the SPI.
 * Tables have {@code id: Utf8 not null} (optionally the unenforced PK) and {@code v: Int64}.
 */
final class LanceFixture implements AutoCloseable {

    static final String PK = "lance-schema:unenforced-primary-key";

    final BufferAllocator allocator = new RootAllocator();
    final String uri;

    LanceFixture(Path dir) {
        this.uri = dir.resolve("t.lance").toString();
    }

    static Schema schema(boolean pk) {
        return new Schema(List.of(
                new Field("id", new FieldType(false, ArrowType.Utf8.INSTANCE, null, pk ? Map.of(PK, "true") : null), null),
                new Field("v", FieldType.nullable(new ArrowType.Int(64, true)), null)));
    }

    /** Creates the table with rows {@code ids} (value 1) at version 1. */
    LanceFixture create(boolean pk, String... ids) {
        try (ArrowArrayStream s = stream(schema(pk), 1, ids);
             Dataset ds = Dataset.write().allocator(allocator).stream(s).uri(uri).execute()) {
            if (ds.version() != 1) {
                throw new IllegalStateException("new table at version " + ds.version());
            }
            return this;
        }
    }

    ArrowArrayStream stream(Schema schema, long value, String... ids) {
        ByteArrayOutputStream bos = new ByteArrayOutputStream();
        try (VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator)) {
            VarCharVector id = (VarCharVector) root.getVector("id");
            BigIntVector v = (BigIntVector) root.getVector("v");
            for (int i = 0; i < ids.length; i++) {
                id.setSafe(i, ids[i].getBytes(StandardCharsets.UTF_8));
                v.setSafe(i, value);
            }
            root.setRowCount(ids.length);
            try (ArrowStreamWriter w = new ArrowStreamWriter(root, null, bos)) {
                w.start();
                w.writeBatch();
                w.end();
            }
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        ArrowStreamReader r = new ArrowStreamReader(new ByteArrayInputStream(bos.toByteArray()), allocator);
        ArrowArrayStream st = ArrowArrayStream.allocateNew(allocator);
        Data.exportArrayStream(allocator, r, st);
        return st;
    }

    Dataset open() {
        return Dataset.open().allocator(allocator).uri(uri).build();
    }

    long version() {
        try (Dataset d = open()) {
            return d.version();
        }
    }

    long count(String id) {
        try (Dataset d = open()) {
            return d.countRows("id = '" + id + "'");
        }
    }

    long countValue(String id, long v) {
        try (Dataset d = open()) {
            return d.countRows("id = '" + id + "' AND v = " + v);
        }
    }

    /** Merge-insert of {@code ids} (value {@code value}) from the stale handle {@code d}, retries off. */
    long merge(Dataset d, List<String> on, boolean fail, long value, String... ids) {
        MergeInsertParams p = new MergeInsertParams(on).withConflictRetries(0);
        p = fail ? p.withMatchedFail() : p.withMatchedUpdateAll();
        try (ArrowArrayStream s = stream(schema(true), value, ids)) {
            MergeInsertResult r = d.mergeInsert(p, s);
            try (Dataset after = r.dataset()) {
                return after.version();
            }
        }
    }

    /** A bare Lance Append of {@code ids} staged against the stale handle {@code d}. */
    long append(Dataset d, String... ids) {
        List<FragmentMetadata> frags;
        try (ArrowArrayStream s = stream(d.getSchema(), 3, ids)) {
            frags = Fragment.write().datasetUri(uri).allocator(allocator).data(s).writeParams(new WriteParams.Builder().build()).execute();
        }
        try (SourcedTransaction tx = d.newTransactionBuilder().operation(Append.builder().fragments(frags).build()).build();
             Dataset after = tx.commit()) {
            return after.version();
        }
    }

    void createIdIndex() {
        try (Dataset d = open()) {
            d.createIndex(IndexOptions.builder(List.of("id"), IndexType.BTREE,
                    IndexParams.builder().setScalarIndexParams(ScalarIndexParams.create("btree", "{}")).build())
                    .withIndexName("id_idx").build());
        }
    }

    @Override
    public void close() {
        allocator.close();
    }
}
