package io.palisade.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.palisade.coordinator.JsonSyntax;
import com.fasterxml.jackson.databind.JsonNode;
import io.palisade.coordinator.Catalog;
import io.palisade.coordinator.Catalog.ColumnDef;
import io.palisade.coordinator.Catalog.ColumnType;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.TimeStampMicroTZVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * JSON-lines input of {@code palisade write}: one object per line, checked against the table's catalog
 * columns before anything is written. Every mistake names the line number (1-based).
 */
final class JsonLines {
    /** One parsed row and the line it came from. */
    record Row(int line, JsonNode node) {
    }

    private JsonLines() {
    }

    static CliException bad(int line, String table, String msg) {
        return new CliException(Main.INVALID_INPUT, "line " + line + " (table '" + table + "'): " + msg);
    }

    /** Parses and checks rows for insert/upsert/append. */
    static List<Row> readRows(BufferedReader in, Catalog.TableDef def) throws IOException {
        return readRows(in, def, false);
    }

    /**
     * Parses and checks rows; {@code partial}: an update's changes, each naming its id and only the columns it sets (a
     * non-null column may be left out, not set to null).
     */
    static List<Row> readRows(BufferedReader in, Catalog.TableDef def, boolean partial) throws IOException {
        List<Row> rows = new ArrayList<>();
        Map<String, Integer> ids = new HashMap<>();
        String text;
        int line = 0;
        while ((text = in.readLine()) != null) {
            line++;
            if (text.isBlank()) {
                continue;
            }
            JsonNode n = parse(text, line, def.name());
            checkRow(n, line, def, partial);
            if (def.kind().keyed()) {
                String id = n.get("id").asText();
                Integer first = ids.putIfAbsent(id, line);
                if (first != null) {
                    throw bad(line, def.name(), "duplicate id '" + id + "' (first at line " + first + ")");
                }
            }
            rows.add(new Row(line, n));
        }
        return rows;
    }

    /** Checks one row object of table {@code def} from {@code line} (see {@link #readRows}). */
    static void checkRow(JsonNode n, int line, Catalog.TableDef def, boolean partial) {
        if (!n.isObject()) {
            throw bad(line, def.name(), "expected a JSON object, got " + kind(n));
        }
        for (Iterator<String> it = n.fieldNames(); it.hasNext(); ) {
            String f = it.next();
            if (def.column(f).isEmpty()) {
                throw bad(line, def.name(), "unknown column '" + f + "'; the table's columns are "
                        + def.columns().stream().map(ColumnDef::name).toList());
            }
        }
        for (ColumnDef c : def.columns()) {
            JsonNode v = n.get(c.name());
            if (v == null || v.isNull()) {
                if (!c.nullable() && (v != null || !partial || c.name().equals("id"))) {
                    throw bad(line, def.name(), (c.name().equals("id") ? "null or missing id" : "column '" + c.name()
                            + "' is non-null but " + (v == null ? "missing" : "null")));
                }
                continue;
            }
            check(v, c, line, def.name());
        }
    }

    /** The key a delete's line gives: {"id": K} or a bare JSON scalar, checked against table {@code def}'s id. */
    static String checkKey(JsonNode n, int line, Catalog.TableDef def) {
        ColumnDef idCol = def.column("id").orElseThrow(
                () -> new CliException(Main.INVALID_INPUT, "table '" + def.name() + "' has no key: delete needs a keyed table"));
        JsonNode k = n.isObject() ? n.get("id") : n;
        if (k == null || k.isNull()) {
            throw bad(line, def.name(), "null or missing id");
        }
        if (n.isObject() && n.size() > 1) {
            for (Iterator<String> it = n.fieldNames(); it.hasNext(); ) {
                String f = it.next();
                if (def.column(f).isEmpty()) {
                    throw bad(line, def.name(), "unknown column '" + f + "'");
                }
            }
        }
        check(k, idCol, line, def.name());
        return k.asText();
    }

    /** Parses keys for delete: {"id": K} objects or bare JSON scalars. */
    static List<String> readKeys(BufferedReader in, Catalog.TableDef def) throws IOException {
        List<String> keys = new ArrayList<>();
        String text;
        int line = 0;
        def.column("id").orElseThrow(
                () -> new CliException(Main.INVALID_INPUT, "table '" + def.name() + "' has no key: delete needs a keyed table"));
        while ((text = in.readLine()) != null) {
            line++;
            if (text.isBlank()) {
                continue;
            }
            keys.add(checkKey(parse(text, line, def.name()), line, def));
        }
        return keys;
    }

    /** One line of a transaction file: a write of one row (or, for a delete, one key) of {@code table}. */
    record Part(int line, String table, String op, JsonNode row) {
    }

    /**
     * Parses and checks a transaction file (docs/transactions.md): one
     * {@code {"table": T, "op": "insert"|"upsert"|"delete", "row": {...}}} per line, a delete's row {@code {"id": K}}.
     * Every line is checked against its table before anything is written; a key written twice on one table is refused,
     * naming both lines.
     */
    static List<Part> readTransaction(BufferedReader in, Catalog catalog) throws IOException {
        List<Part> parts = new ArrayList<>();
        Map<String, Integer> keys = new HashMap<>();
        String text;
        int line = 0;
        while ((text = in.readLine()) != null) {
            line++;
            if (text.isBlank()) {
                continue;
            }
            JsonNode n = parse(text, line, "?");
            if (!n.isObject()) {
                throw new CliException(Main.INVALID_INPUT, "line " + line + ": expected a JSON object "
                        + "{\"table\": T, \"op\": \"insert\"|\"upsert\"|\"delete\", \"row\": {...}}, got " + kind(n));
            }
            for (Iterator<String> it = n.fieldNames(); it.hasNext(); ) {
                String f = it.next();
                if (!f.equals("table") && !f.equals("op") && !f.equals("row")) {
                    throw new CliException(Main.INVALID_INPUT, "line " + line + ": unknown field '" + f
                            + "'; a transaction line has \"table\", \"op\" and \"row\"");
                }
            }
            JsonNode t = n.get("table");
            if (t == null || !t.isTextual()) {
                throw new CliException(Main.INVALID_INPUT, "line " + line + ": \"table\" must name a table");
            }
            int at = line;
            Catalog.TableDef def = catalog.table(t.asText()).orElseThrow(() -> new CliException(Main.INVALID_INPUT,
                    "line " + at + ": unknown table '" + t.asText() + "'; the graph's tables are "
                            + catalog.tables().stream().map(Catalog.TableDef::name).toList()));
            JsonNode o = n.get("op");
            String op = o == null || !o.isTextual() ? "" : o.asText();
            if (!op.equals("insert") && !op.equals("upsert") && !op.equals("delete")) {
                throw bad(line, def.name(), "\"op\" must be \"insert\", \"upsert\" or \"delete\"");
            }
            if (!def.kind().keyed()) {
                throw bad(line, def.name(), "the table is append-only: a transaction writes keyed tables");
            }
            JsonNode row = n.get("row");
            if (row == null || !row.isObject()) {
                throw bad(line, def.name(), "\"row\" must be an object" + (op.equals("delete") ? " {\"id\": K}" : ""));
            }
            String key = op.equals("delete") ? checkKey(row, line, def) : null;
            if (key == null) {
                checkRow(row, line, def, false);
                key = row.get("id").asText();
            }
            Integer first = keys.putIfAbsent(def.name() + "\u0000" + key, line);
            if (first != null) {
                throw bad(line, def.name(), "id '" + key + "' is written twice in the transaction (first at line "
                        + first + "); write each key of a table once");
            }
            parts.add(new Part(line, def.name(), op, row));
        }
        return parts;
    }

    private static JsonNode parse(String text, int line, String table) {
        try {
            JsonNode n = Cli.JSON.readTree(text);
            if (n == null) {
                throw bad(line, table, "not JSON");
            }
            return n;
        } catch (JsonProcessingException e) {
            int column = JsonSyntax.column(e);
            String word = text.strip();
            String hint = word.matches("[A-Za-z_][\\w.:-]*")
                    ? " (a key or string value is written in double quotes: \"" + word + "\")" : "";
            throw bad(line, table, "bad JSON" + (column > 0 ? " at column " + column : "") + ": "
                    + JsonSyntax.describe(e) + hint);
        }
    }

    private static String kind(JsonNode v) {
        return switch (v.getNodeType()) {
            case STRING -> "a string";
            case NUMBER -> v.isIntegralNumber() ? "an integer" : "a number";
            case BOOLEAN -> "a boolean";
            case ARRAY -> "an array";
            case OBJECT -> "an object";
            default -> v.getNodeType().name().toLowerCase();
        };
    }

    private static void check(JsonNode v, ColumnDef c, int line, String table) {
        String want = null;
        switch (c.type()) {
            case ColumnType.Scalar s -> {
                switch (s) {
                    case STRING -> { if (!v.isTextual()) want = "string"; }
                    case INT32 -> { if (!v.isIntegralNumber() || !v.canConvertToInt()) want = "int32"; }
                    case INT64 -> { if (!v.isIntegralNumber() || !v.canConvertToLong()) want = "int64"; }
                    case FLOAT32, FLOAT64 -> { if (!v.isNumber()) want = s.name().toLowerCase(); }
                    case BOOL -> { if (!v.isBoolean()) want = "bool"; }
                    case TIMESTAMP -> {
                        if (v.isTextual()) {
                            try {
                                Instant.parse(v.asText());
                            } catch (RuntimeException e) {
                                want = "timestamp (ISO-8601 like 2026-11-29T14:00:00Z, or epoch microseconds)";
                            }
                        } else if (!v.isIntegralNumber()) {
                            want = "timestamp (ISO-8601 like 2026-11-29T14:00:00Z, or epoch microseconds)";
                        }
                    }
                }
            }
            case ColumnType.Vector vec -> {
                if (!v.isArray() || v.size() != vec.dim()) {
                    want = "vector of " + vec.dim() + " float32";
                } else {
                    for (JsonNode x : v) {
                        if (!x.isNumber()) {
                            want = "vector of " + vec.dim() + " float32";
                            break;
                        }
                    }
                }
            }
        }
        if (want != null) {
            throw bad(line, table, "column '" + c.name() + "' expects " + want + ", got " + kind(v) + " " + abbreviate(v));
        }
    }

    private static String abbreviate(JsonNode v) {
        String s = v.toString();
        return s.length() > 40 ? s.substring(0, 37) + "..." : s;
    }

    /** The Arrow batch of {@code rows} in the table's schema (caller closes it). */
    static VectorSchemaRoot toArrow(List<Row> rows, Catalog.TableDef def, BufferAllocator allocator) {
        VectorSchemaRoot root = VectorSchemaRoot.create(def.arrowSchema(), allocator);
        root.allocateNew();
        int n = rows.size();
        for (ColumnDef c : def.columns()) {
            FieldVector v = root.getVector(c.name());
            for (int r = 0; r < n; r++) {
                JsonNode x = rows.get(r).node().get(c.name());
                if (x == null || x.isNull()) {
                    v.setNull(r);
                    continue;
                }
                switch (v) {
                    case VarCharVector s -> s.setSafe(r, x.asText().getBytes(StandardCharsets.UTF_8));
                    case IntVector i -> i.setSafe(r, x.asInt());
                    case BigIntVector b -> b.setSafe(r, x.asLong());
                    case Float4Vector f -> f.setSafe(r, (float) x.asDouble());
                    case Float8Vector d -> d.setSafe(r, x.asDouble());
                    case BitVector b -> b.setSafe(r, x.asBoolean() ? 1 : 0);
                    case TimeStampMicroTZVector t -> {
                        long micros;
                        if (x.isTextual()) {
                            Instant i = Instant.parse(x.asText());
                            micros = Math.addExact(Math.multiplyExact(i.getEpochSecond(), 1_000_000L), i.getNano() / 1000);
                        } else {
                            micros = x.asLong();
                        }
                        t.setSafe(r, micros);
                    }
                    case FixedSizeListVector l -> {
                        Float4Vector items = (Float4Vector) l.getDataVector();
                        int dim = l.getListSize();
                        int start = l.startNewValue(r);
                        for (int k = 0; k < dim; k++) {
                            items.setSafe(start + k, (float) x.get(k).asDouble());
                        }
                        items.setValueCount(Math.max(items.getValueCount(), start + dim));
                    }
                    default -> throw new CliException(Main.INVALID_INPUT, "column '" + c.name()
                            + "' has a type the CLI cannot write: " + v.getField().getType());
                }
            }
            v.setValueCount(n);
        }
        root.setRowCount(n);
        return root;
    }
}
