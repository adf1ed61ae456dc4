package io.palisade.coordinator;

import io.palisade.substrate.ArrowRows;
import org.apache.arrow.memory.BufferAllocator;
import io.palisade.substrate.BatchSource;
import org.apache.arrow.vector.VectorSchemaRoot;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntConsumer;

/**
 * A streaming {@link ArrowReader} of person rows: ids {@code prefix0..prefix(n-1)} (or an explicit id
 * list), in reader batches of {@code readerBatch} rows, with an optional hook run before each batch.
 */
final class PeopleReader extends BatchSource {
    private final List<String> ids;
    private final long age;
    private final int readerBatch;
    private final IntConsumer beforeBatch;
    private int next;
    private int batch;

    PeopleReader(BufferAllocator allocator, List<String> ids, long age, int readerBatch, IntConsumer beforeBatch) {
        super(allocator, Rows.catalog().require("person").arrowSchema());
        this.ids = ids;
        this.age = age;
        this.readerBatch = readerBatch;
        this.beforeBatch = beforeBatch;
    }

    static List<String> ids(String prefix, int n) {
        List<String> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            out.add(prefix + i);
        }
        return out;
    }

    @Override
    protected boolean fillNext(VectorSchemaRoot root) {
        if (next >= ids.size()) {
            return false;
        }
        beforeBatch.accept(batch++);
        int n = Math.min(readerBatch, ids.size() - next);
        List<Map<String, Object>> rows = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("id", ids.get(next + i));
            row.put("age", age);
            rows.add(row);
        }
        next += n;
        ArrowRows.fill(root, rows);
        return true;
    }
}
