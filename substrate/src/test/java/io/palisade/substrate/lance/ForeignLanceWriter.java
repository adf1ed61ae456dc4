package io.palisade.substrate.lance;

import org.apache.arrow.c.ArrowArrayStream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.lance.Dataset;
import org.lance.ReadOptions;
import org.lance.WriteParams;
import org.lance.merge.MergeInsertParams;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A writer that bypasses Palisade and commits straight to a graph's Lance table with the Lance Java API,
 * as another Lance client would: the foreign writer of docs/recovery.md "Foreign commits". Works on tables shaped like the crash
 * harness's {@code person} ({@code id: string not null} as the PK, {@code age: int64}). Rows are given as
 * alternating id / age pairs.
 */
public final class ForeignLanceWriter implements AutoCloseable {
    private final BufferAllocator allocator = new RootAllocator();
    private final String uri;
    private final Map<String, String> storageOptions;

    /** The table {@code table} of the graph at {@code graph} whose tables are on local disk. */
    public ForeignLanceWriter(Path graph, String table) {
        this(graph.resolve("tables").resolve(table + ".lance").toString(), Map.of());
    }

    /** The Lance dataset at {@code tableUri} (an {@code s3://} table with the storage options that reach it). */
    public ForeignLanceWriter(String tableUri, Map<String, String> storageOptions) {
        this.uri = tableUri;
        this.storageOptions = Map.copyOf(storageOptions);
    }

    /** A Lance Append (no key check at all) of rows with the table's own schema, PK metadata included. */
    public long append(Object... idAge) {
        try (Dataset now = open(); VectorSchemaRoot rows = rows(now.getSchema(), idAge);
             ArrowArrayStream s = ArrowStreams.export(allocator, now.getSchema(), rows);
             Dataset after = Dataset.write().allocator(allocator).stream(s).uri(uri)
                     .mode(WriteParams.WriteMode.APPEND).storageOptions(storageOptions).execute()) {
            return after.version();
        }
    }

    /** A Lance merge-insert ON id, WhenMatched UpdateAll (an upsert that goes through no journal). */
    public long upsert(Object... idAge) {
        try (Dataset now = open(); VectorSchemaRoot rows = rows(now.getSchema(), idAge);
             ArrowArrayStream s = ArrowStreams.export(allocator, now.getSchema(), rows)) {
            try (Dataset after = now.mergeInsert(new MergeInsertParams(List.of("id")).withMatchedUpdateAll(), s).dataset()) {
                return after.version();
            }
        }
    }

    /** A Lance delete by SQL predicate. */
    public long delete(String predicate) {
        try (Dataset now = open()) {
            now.delete(predicate);
            return now.version();
        }
    }

    /** A Lance compaction with default options. */
    public long compact() {
        try (Dataset now = open()) {
            now.compact();
            return now.version();
        }
    }

    /** A Lance Overwrite whose schema is the table's without the primary-key metadata on {@code id}. */
    public long overwriteStrippingPk(Object... idAge) {
        try (Dataset now = open()) {
            List<Field> fields = new ArrayList<>();
            for (Field f : now.getSchema().getFields()) {
                fields.add(new Field(f.getName(), new FieldType(f.isNullable(), f.getType(), f.getDictionary(), null),
                        f.getChildren()));
            }
            Schema stripped = new Schema(fields, now.getSchema().getCustomMetadata());
            try (VectorSchemaRoot rows = rows(stripped, idAge);
                 ArrowArrayStream s = ArrowStreams.export(allocator, stripped, rows);
                 Dataset after = Dataset.write().allocator(allocator).stream(s).uri(uri)
                         .mode(WriteParams.WriteMode.OVERWRITE).storageOptions(storageOptions).execute()) {
                return after.version();
            }
        }
    }

    public long version() {
        try (Dataset d = open()) {
            return d.version();
        }
    }

    private Dataset open() {
        return Dataset.open().allocator(allocator).uri(uri)
                .readOptions(new ReadOptions.Builder().setStorageOptions(storageOptions).build()).build();
    }

    /** The rows as a batch of {@code schema} (id, age pairs); Lance gets it through the product's {@link ArrowStreams}. */
    private VectorSchemaRoot rows(Schema schema, Object... idAge) {
        VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator);
        VarCharVector id = (VarCharVector) root.getVector("id");
        BigIntVector age = (BigIntVector) root.getVector("age");
        int n = idAge.length / 2;
        for (int i = 0; i < n; i++) {
            id.setSafe(i, ((String) idAge[2 * i]).getBytes(StandardCharsets.UTF_8));
            age.setSafe(i, ((Number) idAge[2 * i + 1]).longValue());
        }
        root.setRowCount(n);
        return root;
    }

    @Override
    public void close() {
        allocator.close();
    }

}
