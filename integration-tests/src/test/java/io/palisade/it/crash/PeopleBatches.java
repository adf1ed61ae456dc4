package io.palisade.it.crash;

import io.palisade.substrate.ArrowRows;
import org.apache.arrow.memory.BufferAllocator;
import io.palisade.substrate.BatchSource;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** A bulk load's input: person rows (id → age, in the given order) as reader batches of {@code batchRows}. */
final class PeopleBatches extends BatchSource {
    private final List<Map.Entry<String, Long>> rows;
    private final int batchRows;
    private int next;

    PeopleBatches(BufferAllocator allocator, Schema schema, Map<String, Long> idAge, int batchRows) {
        super(allocator, schema);
        this.rows = new ArrayList<>(idAge.entrySet());
        this.batchRows = batchRows;
    }

    @Override
    protected boolean fillNext(VectorSchemaRoot root) {
        if (next >= rows.size()) {
            return false;
        }
        int n = Math.min(batchRows, rows.size() - next);
        List<Map<String, Object>> batch = new ArrayList<>(n);
        for (Map.Entry<String, Long> e : rows.subList(next, next + n)) {
            Map<String, Object> r = new LinkedHashMap<>();
            r.put("id", e.getKey());
            r.put("age", e.getValue());
            batch.add(r);
        }
        next += n;
        ArrowRows.fill(root, batch);
        return true;
    }
}
