package io.palisade.coordinator;

import io.palisade.substrate.ArrowRows;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Test batches of the person table ({@code id string, age int64 nullable}). */
public final class Rows {
    public static final String CATALOG = """
            {"tables": [{"name": "person", "kind": "node", "columns": [{"name": "id", "type": "string"},
              {"name": "age", "type": "int64", "nullable": true}]},
             {"name": "knows", "kind": "edge", "columns": [{"name": "id", "type": "string"}, {"name": "src", "type": "string"},
              {"name": "dst", "type": "string"}]},
             {"name": "log", "kind": "append-only", "columns": [{"name": "msg", "type": "string", "nullable": true}]}]}
            """;

    private Rows() {
    }

    public static Catalog catalog() {
        return Catalog.fromJson(CATALOG);
    }

    public static VectorSchemaRoot people(BufferAllocator allocator, Object... idAgePairs) {
        Schema schema = catalog().require("person").arrowSchema();
        List<Map<String, Object>> rows = new ArrayList<>();
        for (int i = 0; i < idAgePairs.length; i += 2) {
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("id", idAgePairs[i]);
            row.put("age", idAgePairs[i + 1] == null ? null : ((Number) idAgePairs[i + 1]).longValue());
            rows.add(row);
        }
        VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator);
        ArrowRows.fill(root, rows);
        return root;
    }

    public static VectorSchemaRoot logLines(BufferAllocator allocator, String... msgs) {
        Schema schema = catalog().require("log").arrowSchema();
        List<Map<String, Object>> rows = new ArrayList<>();
        for (String m : msgs) {
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("msg", m);
            rows.add(row);
        }
        VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator);
        ArrowRows.fill(root, rows);
        return root;
    }
}
