package io.palisade.it.crash;

import io.palisade.coordinator.Catalog;
import io.palisade.substrate.ArrowRows;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Person batches without an open graph. */
final class CrashWorkloadRows {
    private CrashWorkloadRows() {
    }

    static VectorSchemaRoot people(BufferAllocator allocator, Map<String, Long> idAge) {
        List<Map<String, Object>> rows = new ArrayList<>();
        idAge.forEach((id, age) -> {
            Map<String, Object> r = new LinkedHashMap<>();
            r.put("id", id);
            r.put("age", age);
            rows.add(r);
        });
        VectorSchemaRoot root = VectorSchemaRoot.create(Catalog.fromJson(CrashHarness.CATALOG).require("person")
                .arrowSchema(), allocator);
        ArrowRows.fill(root, rows);
        return root;
    }
}
