package io.palisade.coordinator;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.palisade.fencing.ValidationException;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * The declared tables of a graph: node and edge tables (keyed on a non-null {@code id}; edges also have
 * non-null {@code src} and {@code dst}) and append-only tables (keyless). Readable from and writable to
 * JSON:
 * <pre>{"tables": [{"name": "person", "kind": "node", "columns": [{"name": "id", "type": "string"},
 *   {"name": "age", "type": "int64", "nullable": true}]}, ...]}</pre>
 * Types: {@code string, int32, int64, float32, float64, bool, timestamp} and
 * {@code {"vector": "float32", "dim": N}}. A keyed table may say {@code "ack": "journal"} (default
 * {@code "ack": "table"}): see {@link Ack}. Any mistake is a {@link ValidationException} naming the
 * table and column, a key the format does not know included ({@link #CATALOG_KEYS}, {@link #TABLE_KEYS},
 * {@link #COLUMN_KEYS}, {@link #VECTOR_KEYS} are the known ones). README.md "Catalog reference" describes every key.
 */
public record Catalog(List<TableDef> tables) {

    /** Refuses a key given twice and anything after the catalog's object, which a plain reader would ignore. */
    private static final ObjectMapper JSON = JsonMapper.builder().enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS).build();

    public Catalog {
        tables = List.copyOf(tables);
        Set<String> names = new HashSet<>();
        for (TableDef t : tables) {
            if (!names.add(t.name())) {
                throw new ValidationException("catalog declares table '" + t.name() + "' twice");
            }
        }
        for (TableDef t : tables) {
            endpoint(tables, t, "src", t.src());
            endpoint(tables, t, "dst", t.dst());
        }
    }

    /** Refuses an endpoint declaration that names no node table, or one whose key type is not the column's. */
    private static void endpoint(List<TableDef> tables, TableDef edge, String column, String node) {
        if (node == null) {
            return;
        }
        TableDef n = tables.stream().filter(x -> x.name().equals(node)).findFirst().orElseThrow(
                () -> new ValidationException("table '" + edge.name() + "': \"" + column + "\" names table '" + node
                        + "', which the catalog does not declare"));
        if (n.kind() != Kind.NODE) {
            throw new ValidationException("table '" + edge.name() + "': \"" + column + "\" names table '" + node
                    + "', which is " + n.kind().json() + ", not a node table");
        }
        ColumnType key = n.column("id").orElseThrow().type();
        ColumnType end = edge.column(column).orElseThrow().type();
        if (!key.equals(end)) {
            throw new ValidationException("table '" + edge.name() + "': column '" + column + "' is " + typeName(end)
                    + " but the ids of table '" + node + "' are " + typeName(key));
        }
    }

    /** The node tables' names an edge table declares as its endpoints, with the edges' column: src, then dst. */
    public List<Endpoint> endpointsOf(TableDef edge) {
        List<Endpoint> out = new ArrayList<>();
        edge.srcTable().ifPresent(n -> out.add(new Endpoint(edge.name(), "src", n)));
        edge.dstTable().ifPresent(n -> out.add(new Endpoint(edge.name(), "dst", n)));
        return out;
    }

    /** Every endpoint declaration that names {@code node}: the edge tables whose edges a delete of a node must not orphan. */
    public List<Endpoint> endpointsInto(String node) {
        List<Endpoint> out = new ArrayList<>();
        for (TableDef t : tables) {
            for (Endpoint e : endpointsOf(t)) {
                if (e.node().equals(node)) {
                    out.add(e);
                }
            }
        }
        return out;
    }

    /** Whether a delete of a row of {@code node} deletes the edges of some table with it ({@link TableDef#cascade}). */
    public boolean cascadesFrom(String node) {
        return endpointsInto(node).stream().anyMatch(e -> require(e.edge()).cascade());
    }

    /** An endpoint declaration: edge table {@code edge}'s column {@code column} (src or dst) names ids of {@code node}. */
    public record Endpoint(String edge, String column, String node) {
    }

    /** Whether any table declares endpoints or unique columns. */
    public boolean declaresIntegrity() {
        return tables.stream().anyMatch(TableDef::declaresIntegrity);
    }

    /** What a table is: its kind decides its key contract (RFC-023 §4). */
    public enum Kind {
        NODE("node"), EDGE("edge"), APPEND_ONLY("append-only");

        private final String json;

        Kind(String json) {
            this.json = json;
        }

        public String json() {
            return json;
        }

        public boolean keyed() {
            return this != APPEND_ONLY;
        }

        static Kind parse(String s, String table) {
            for (Kind k : values()) {
                if (k.json.equals(s)) {
                    return k;
                }
            }
            throw new ValidationException("table '" + table + "': unknown kind '" + s + "' (node, edge or append-only)");
        }
    }

    /**
     * When a write to a table is acknowledged (docs/journal-ack.md).
     * <ul>
     *   <li>{@code TABLE} (the default): once its Lance commit is durable and published.</li>
     *   <li>{@code JOURNAL}: once its intent and rows are durable in the journal and the exact fence has passed
     *       against the table head and every acknowledged-but-unfolded write; reads through Palisade see it at once,
     *       and a fold commits it to the table later. Keyed tables only; their inserts, upserts and deletes take
     *       this path, every other operation folds the table first.</li>
     * </ul>
     */
    public enum Ack {
        TABLE("table"), JOURNAL("journal");

        private final String json;

        Ack(String json) {
            this.json = json;
        }

        public String json() {
            return json;
        }

        static Ack parse(String s, String table) {
            for (Ack a : values()) {
                if (a.json.equals(s)) {
                    return a;
                }
            }
            throw new ValidationException("table '" + table + "': unknown ack '" + s + "' (table or journal)");
        }
    }

    /** A column type of the catalog. */
    public sealed interface ColumnType {
        enum Scalar implements ColumnType { STRING, INT32, INT64, FLOAT32, FLOAT64, BOOL, TIMESTAMP }

        /** A fixed-size float32 embedding. */
        record Vector(int dim) implements ColumnType {
            public Vector {
                if (dim <= 0) {
                    throw new ValidationException("vector dimension must be positive, was " + dim);
                }
            }
        }
    }

    public record ColumnDef(String name, ColumnType type, boolean nullable) {
    }

    /**
     * One declared table. {@code src} and {@code dst} (edge tables only; each may be null) name the node tables an
     * edge's {@code src} and {@code dst} must exist in when it is written; {@code unique} lists the columns whose
     * non-null values no two rows share (keyed tables; never {@code id}, which is unique already). Both are checked at
     * commit (docs/integrity.md). {@code cascade} (an edge table with a declared endpoint only; JSON
     * {@code "on_endpoint_delete": "cascade"}) deletes the table's edges with a node they name, in the same commit,
     * instead of refusing the node's delete.
     */
    public record TableDef(String name, Kind kind, List<ColumnDef> columns, Ack ack, String src, String dst,
                           List<String> unique, boolean cascade) {
        /** A table whose edges, if any, refuse the delete of a node they name (no cascade). */
        public TableDef(String name, Kind kind, List<ColumnDef> columns, Ack ack, String src, String dst,
                        List<String> unique) {
            this(name, kind, columns, ack, src, dst, unique, false);
        }

        /** A table acknowledged at its table commit ({@link Ack#TABLE}). */
        public TableDef(String name, Kind kind, List<ColumnDef> columns) {
            this(name, kind, columns, Ack.TABLE);
        }

        /** A table without integrity declarations. */
        public TableDef(String name, Kind kind, List<ColumnDef> columns, Ack ack) {
            this(name, kind, columns, ack, null, null, List.of());
        }

        /** This table with {@code columns} instead of its own (its other declarations kept). */
        public TableDef withColumns(List<ColumnDef> columns) {
            return new TableDef(name, kind, columns, ack, src, dst, unique, cascade);
        }

        /** The node table an edge's {@code src} must exist in, when declared. */
        public Optional<String> srcTable() {
            return Optional.ofNullable(src);
        }

        /** The node table an edge's {@code dst} must exist in, when declared. */
        public Optional<String> dstTable() {
            return Optional.ofNullable(dst);
        }

        /** Whether a write to this table is checked against a declaration of its own (endpoints or unique columns). */
        public boolean declaresIntegrity() {
            return src != null || dst != null || !unique.isEmpty();
        }

        /** Whether writes to this table are acknowledged from the journal. */
        /**
         * The exact key filter of {@code keys} on this keyed table's {@code id} (the filter a write of them carries).
         *
         * @throws ValidationException when the table has no key or a key is not of its {@code id} type
         */
        public io.palisade.fencing.KeyFilter keyFilter(List<String> keys) {
            return io.palisade.coordinator.internal.BatchValidation.keyFilter(this, keys);
        }

        public boolean journalAck() {
            return ack == Ack.JOURNAL;
        }

        public TableDef {
            if (ack == null) {
                throw new ValidationException("table '" + name + "' needs an ack mode (table or journal)");
            }
            if (ack == Ack.JOURNAL && !kind.keyed()) {
                throw new ValidationException("table '" + name + "': \"ack\": \"journal\" needs a keyed table (node or "
                        + "edge); an append-only table is acknowledged at its table commit");
            }
            if (name == null || !name.matches("[A-Za-z_][A-Za-z0-9_-]{0,127}")) {
                throw new ValidationException("table name '" + name + "' must match [A-Za-z_][A-Za-z0-9_-]*");
            }
            columns = List.copyOf(columns);
            Set<String> seen = new HashSet<>();
            for (ColumnDef c : columns) {
                if (!seen.add(c.name())) {
                    throw new ValidationException("table '" + name + "' declares column '" + c.name() + "' twice");
                }
            }
            if (kind.keyed()) {
                requireKeyColumn(name, columns, "id", true);
                if (kind == Kind.EDGE) {
                    requireKeyColumn(name, columns, "src", false);
                    requireKeyColumn(name, columns, "dst", false);
                }
            }
            unique = unique == null ? List.of() : List.copyOf(unique);
            if ((src != null || dst != null) && kind != Kind.EDGE) {
                throw new ValidationException("table '" + name + "': \"src\" and \"dst\" declare the endpoint tables of "
                        + "an edge table; this table is " + kind.json());
            }
            if (!unique.isEmpty() && !kind.keyed()) {
                throw new ValidationException("table '" + name + "': \"unique\" needs a keyed table (node or edge)");
            }
            if (cascade && src == null && dst == null) {
                throw new ValidationException("table '" + name + "': \"on_endpoint_delete\": \"cascade\" needs an edge "
                        + "table that declares \"src\" or \"dst\"");
            }
            Set<String> uniqueSeen = new HashSet<>();
            for (String u : unique) {
                if (!uniqueSeen.add(u)) {
                    throw new ValidationException("table '" + name + "': \"unique\" lists column '" + u + "' twice");
                }
                if (u.equals("id")) {
                    throw new ValidationException("table '" + name + "': \"unique\" cannot list 'id', which is the "
                            + "table's key and unique already");
                }
                ColumnDef c = columns.stream().filter(x -> x.name().equals(u)).findFirst().orElseThrow(
                        () -> new ValidationException("table '" + name + "': \"unique\" names column '" + u
                                + "', which the table does not declare"));
                if (c.type() instanceof ColumnType.Vector) {
                    throw new ValidationException("table '" + name + "': unique column '" + u + "' is a vector; "
                            + "only scalar columns can be unique");
                }
            }
        }

        private static void requireKeyColumn(String table, List<ColumnDef> columns, String col, boolean key) {
            ColumnDef c = columns.stream().filter(x -> x.name().equals(col)).findFirst().orElseThrow(
                    () -> new ValidationException("table '" + table + "' needs a column '" + col + "'"));
            if (c.nullable()) {
                throw new ValidationException("table '" + table + "': column '" + col + "' must be non-null");
            }
            if (key && c.type() != ColumnType.Scalar.STRING && c.type() != ColumnType.Scalar.INT64) {
                throw new ValidationException("table '" + table + "': key column 'id' must be string or int64, not "
                        + c.type());
            }
        }

        /**
         * The field id of {@code id} as the substrate numbers fields (depth-first: a vector column's item
         * field takes the id after its own).
         */
        public int idFieldId() {
            int next = 0;
            for (ColumnDef c : columns) {
                if (c.name().equals("id")) {
                    return next;
                }
                next += c.type() instanceof ColumnType.Vector ? 2 : 1;
            }
            throw new ValidationException("table '" + name + "' has no column 'id'");
        }

        public Optional<ColumnDef> column(String name) {
            return columns.stream().filter(c -> c.name().equals(name)).findFirst();
        }

        /** The Arrow schema of the table (without PK metadata; the substrate adds it to keyed tables). */
        public Schema arrowSchema() {
            List<Field> fields = new ArrayList<>();
            for (ColumnDef c : columns) {
                fields.add(arrowField(c));
            }
            return new Schema(fields);
        }
    }

    public Optional<TableDef> table(String name) {
        return tables.stream().filter(t -> t.name().equals(name)).findFirst();
    }

    /** The table named {@code name}; an unknown table is a {@link ValidationException} listing the known ones. */
    public TableDef require(String name) {
        return table(name).orElseThrow(() -> new ValidationException("unknown table '" + name + "'; the catalog declares "
                + tables.stream().map(TableDef::name).toList()));
    }

    public static Field arrowField(ColumnDef c) {
        return switch (c.type()) {
            case ColumnType.Scalar s -> new Field(c.name(), new FieldType(c.nullable(), switch (s) {
                case STRING -> ArrowType.Utf8.INSTANCE;
                case INT32 -> new ArrowType.Int(32, true);
                case INT64 -> new ArrowType.Int(64, true);
                case FLOAT32 -> new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE);
                case FLOAT64 -> new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE);
                case BOOL -> ArrowType.Bool.INSTANCE;
                case TIMESTAMP -> new ArrowType.Timestamp(TimeUnit.MICROSECOND, "UTC");
            }, null), null);
            case ColumnType.Vector v -> new Field(c.name(),
                    new FieldType(c.nullable(), new ArrowType.FixedSizeList(v.dim()), null),
                    List.of(new Field("item", new FieldType(false,
                            new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE), null), null)));
        };
    }

    /** The catalog type of an Arrow field (the inverse of {@link #arrowField}). */
    public static ColumnType columnType(Field f) {
        ArrowType t = f.getType();
        if (t instanceof ArrowType.Utf8) {
            return ColumnType.Scalar.STRING;
        }
        if (t instanceof ArrowType.Int i) {
            return i.getBitWidth() == 32 ? ColumnType.Scalar.INT32 : ColumnType.Scalar.INT64;
        }
        if (t instanceof ArrowType.FloatingPoint fp) {
            return fp.getPrecision() == FloatingPointPrecision.SINGLE ? ColumnType.Scalar.FLOAT32 : ColumnType.Scalar.FLOAT64;
        }
        if (t instanceof ArrowType.Bool) {
            return ColumnType.Scalar.BOOL;
        }
        if (t instanceof ArrowType.Timestamp) {
            return ColumnType.Scalar.TIMESTAMP;
        }
        if (t instanceof ArrowType.FixedSizeList l) {
            return new ColumnType.Vector(l.getListSize());
        }
        throw new ValidationException("column '" + f.getName() + "' has a type the catalog cannot declare: " + t);
    }

    // ------------------------------------------------------------------ JSON

    /** The keys of the catalog object; any other key is refused, as at every level below. */
    public static final List<String> CATALOG_KEYS = List.of("tables");
    /** The keys of a table object. */
    public static final List<String> TABLE_KEYS = List.of("name", "kind", "ack", "src", "dst", "unique",
            "on_endpoint_delete", "columns");
    /** The keys of a column object. */
    public static final List<String> COLUMN_KEYS = List.of("name", "type", "nullable");
    /** The keys of a vector type object. */
    public static final List<String> VECTOR_KEYS = List.of("vector", "dim");

    public static Catalog fromJson(String json) {
        JsonNode root;
        try {
            root = JSON.readTree(json);
        } catch (JsonProcessingException e) {
            throw new ValidationException(syntaxError(e), e);
        }
        if (root == null || !root.isObject()) {
            throw new ValidationException("catalog must be an object with a \"tables\" array");
        }
        knownKeys(root, CATALOG_KEYS, "catalog");
        if (!root.path("tables").isArray()) {
            throw new ValidationException("catalog must be an object with a \"tables\" array");
        }
        List<TableDef> tables = new ArrayList<>();
        for (int ti = 0; ti < root.get("tables").size(); ti++) {
            JsonNode t = root.get("tables").get(ti);
            String where = named(t, "table", "tables", ti);
            knownKeys(t, TABLE_KEYS, where);
            String name = text(t, "name", "a table");
            Kind kind = Kind.parse(text(t, "kind", "table '" + name + "'"), name);
            if (!t.path("columns").isArray()) {
                throw new ValidationException("table '" + name + "' needs a \"columns\" array");
            }
            List<ColumnDef> columns = new ArrayList<>();
            for (int ci = 0; ci < t.get("columns").size(); ci++) {
                JsonNode c = t.get("columns").get(ci);
                String at = where + ", " + named(c, "column", "columns", ci);
                knownKeys(c, COLUMN_KEYS, at);
                String col = text(c, "name", "a column of table '" + name + "'");
                ColumnType type = type(c.get("type"), name, col);
                boolean implied = kind.keyed() && (col.equals("id") || (kind == Kind.EDGE && (col.equals("src") || col.equals("dst"))));
                if (c.has("nullable") && !c.get("nullable").isBoolean()) {
                    throw new ValidationException(at + ": \"nullable\" must be true or false, not " + c.get("nullable"));
                }
                boolean nullable = c.has("nullable") ? c.get("nullable").asBoolean() : !implied;
                if (implied && c.has("nullable") && nullable) {
                    throw new ValidationException("table '" + name + "': column '" + col + "' must be non-null");
                }
                columns.add(new ColumnDef(col, type, nullable));
            }
            Ack ack = t.has("ack") ? Ack.parse(text(t, "ack", "table '" + name + "'"), name) : Ack.TABLE;
            String src = t.has("src") ? text(t, "src", "table '" + name + "'") : null;
            String dst = t.has("dst") ? text(t, "dst", "table '" + name + "'") : null;
            List<String> unique = new ArrayList<>();
            if (t.has("unique")) {
                if (!t.get("unique").isArray()) {
                    throw new ValidationException("table '" + name + "': \"unique\" must be an array of column names, "
                            + "not " + t.get("unique"));
                }
                for (JsonNode u : t.get("unique")) {
                    if (!u.isTextual() || u.asText().isEmpty()) {
                        throw new ValidationException("table '" + name + "': \"unique\" must be an array of column "
                                + "names, not " + t.get("unique"));
                    }
                    unique.add(u.asText());
                }
            }
            boolean cascade = false;
            if (t.has("on_endpoint_delete")) {
                String rule = text(t, "on_endpoint_delete", "table '" + name + "'");
                if (!rule.equals("cascade") && !rule.equals("refuse")) {
                    throw new ValidationException("table '" + name + "': \"on_endpoint_delete\" must be \"refuse\" "
                            + "(the default: a node an edge names cannot be deleted) or \"cascade\" (its edges are "
                            + "deleted with it), not \"" + rule + "\"");
                }
                cascade = rule.equals("cascade");
            }
            tables.add(new TableDef(name, kind, columns, ack, src, dst, unique, cascade));
        }
        return new Catalog(tables);
    }

    /**
     * A JSON syntax error in plain words: its line and column, then what the parser met, without the parser's
     * internals (source descriptions, character codes, feature names).
     */
    private static String syntaxError(JsonProcessingException e) {
        JsonLocation at = e.getLocation();
        String what = e instanceof MismatchedInputException ? "more JSON after the end of the catalog"
                : JsonSyntax.describe(e);
        return "catalog is not valid JSON" + (at == null || at.getLineNr() < 0 ? "" : " at line " + at.getLineNr()
                + ", column " + at.getColumnNr()) + ": " + what;
    }

    public static Catalog read(Path file) {
        try {
            return fromJson(Files.readString(file));
        } catch (IOException e) {
            throw new ValidationException("cannot read catalog " + file + ": " + e.getMessage(), e);
        }
    }

    /** "table 'person'" for an element with a string name, else its place in its array: "tables[2]". */
    private static String named(JsonNode n, String what, String array, int index) {
        return n.path("name").isTextual() ? what + " '" + n.get("name").asText() + "'" : array + "[" + index + "]";
    }

    /** Refuses {@code n} unless it is an object whose keys are all {@code known}; {@code where} names it. */
    private static void knownKeys(JsonNode n, List<String> known, String where) {
        if (!n.isObject()) {
            throw new ValidationException(where + " must be a JSON object, not " + n);
        }
        for (Iterator<String> keys = n.fieldNames(); keys.hasNext(); ) {
            String key = keys.next();
            if (!known.contains(key)) {
                throw new ValidationException(where + ": unknown key \"" + key + "\"; known keys are " + String.join(", ", known)
                        + closest(key, known).map(k -> " (did you mean " + k + "?)").orElse(""));
            }
        }
    }

    /** The known key a typo away from {@code key} (case ignored), else one {@code key} starts with ("dimension"). */
    private static Optional<String> closest(String key, List<String> known) {
        return known.stream().filter(k -> editDistance(key, k) <= Math.min(2, key.length() / 2))
                .min(Comparator.comparingInt(k -> editDistance(key, k)))
                .or(() -> known.stream().filter(k -> key.toLowerCase(Locale.ROOT).startsWith(k)).findFirst());
    }

    /** Levenshtein distance, ignoring case. */
    private static int editDistance(String a, String b) {
        a = a.toLowerCase(Locale.ROOT);
        b = b.toLowerCase(Locale.ROOT);
        int[] prev = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            prev[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            int[] cur = new int[b.length() + 1];
            cur[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int substitution = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                cur[j] = Math.min(Math.min(cur[j - 1], prev[j]) + 1, prev[j - 1] + substitution);
            }
            prev = cur;
        }
        return prev[b.length()];
    }

    private static String text(JsonNode n, String field, String what) {
        JsonNode v = n.get(field);
        if (v == null || !v.isTextual() || v.asText().isEmpty()) {
            throw new ValidationException(what + " needs a non-empty string \"" + field + "\"");
        }
        return v.asText();
    }

    private static ColumnType type(JsonNode t, String table, String col) {
        if (t == null) {
            throw new ValidationException("table '" + table + "': column '" + col + "' needs a \"type\"");
        }
        if (t.isTextual()) {
            try {
                return ColumnType.Scalar.valueOf(t.asText().toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw new ValidationException("table '" + table + "': column '" + col + "' has unknown type '" + t.asText()
                        + "' (string, int32, int64, float32, float64, bool, timestamp or {\"vector\": \"float32\", \"dim\": N})");
            }
        }
        if (t.isObject()) {
            knownKeys(t, VECTOR_KEYS, "table '" + table + "', column '" + col + "', type");
        }
        if (t.isObject() && "float32".equals(t.path("vector").asText()) && t.path("dim").isInt()
                && t.get("dim").asInt() > 0) {
            return new ColumnType.Vector(t.get("dim").asInt());
        }
        throw new ValidationException("table '" + table + "': column '" + col + "' has an unsupported type " + t
                + " (a vector is {\"vector\": \"float32\", \"dim\": N} with N a positive integer)");
    }

    /**
     * SHA-256 (lowercase hex) of the UTF-8 bytes of {@link #toJson()}, the catalog's canonical form: what the journal
     * records for it ({@code CatalogRecorded}). Two catalogs that mean the same (whatever the file's spacing, key order
     * or implied defaults) have the same digest.
     */
    public String digest() {
        return io.palisade.journal.JournalEvent.CatalogRecorded.sha256(toJson());
    }

    /**
     * What differs between this catalog (the stored file's) and {@code journaled} (the journal's), in words, this one
     * first: "table 'works_at': kind is node, the journal recorded edge". Empty when both mean the same.
     */
    public List<String> differencesFrom(Catalog journaled) {
        List<String> out = new ArrayList<>();
        for (TableDef t : tables) {
            Optional<TableDef> j = journaled.table(t.name());
            if (j.isEmpty()) {
                out.add("table '" + t.name() + "' is not in the journal's catalog");
                continue;
            }
            TableDef r = j.get();
            if (t.kind() != r.kind()) {
                out.add("table '" + t.name() + "': kind is " + t.kind().json() + ", the journal recorded " + r.kind().json());
            }
            if (t.ack() != r.ack()) {
                out.add("table '" + t.name() + "': ack is " + t.ack().json() + ", the journal recorded " + r.ack().json());
            }
            if (!java.util.Objects.equals(t.src(), r.src()) || !java.util.Objects.equals(t.dst(), r.dst())) {
                out.add("table '" + t.name() + "': endpoints are src " + t.src() + " and dst " + t.dst()
                        + ", the journal recorded src " + r.src() + " and dst " + r.dst());
            }
            if (!t.unique().equals(r.unique())) {
                out.add("table '" + t.name() + "': unique columns are " + t.unique() + ", the journal recorded " + r.unique());
            }
            if (t.cascade() != r.cascade()) {
                out.add("table '" + t.name() + "': on_endpoint_delete is " + (t.cascade() ? "cascade" : "refuse")
                        + ", the journal recorded " + (r.cascade() ? "cascade" : "refuse"));
            }
            for (ColumnDef c : t.columns()) {
                Optional<ColumnDef> rc = r.column(c.name());
                if (rc.isEmpty()) {
                    out.add("table '" + t.name() + "': column '" + c.name() + "' is not in the journal's catalog");
                    continue;
                }
                if (!c.type().equals(rc.get().type())) {
                    out.add("table '" + t.name() + "': column '" + c.name() + "' is " + typeName(c.type())
                            + ", the journal recorded " + typeName(rc.get().type()));
                }
                if (c.nullable() != rc.get().nullable()) {
                    out.add("table '" + t.name() + "': column '" + c.name() + "' is " + (c.nullable() ? "nullable" : "non-null")
                            + ", the journal recorded it " + (rc.get().nullable() ? "nullable" : "non-null"));
                }
            }
            for (ColumnDef rc : r.columns()) {
                if (t.column(rc.name()).isEmpty()) {
                    out.add("table '" + t.name() + "': column '" + rc.name() + "' of the journal's catalog is missing");
                }
            }
            List<String> order = t.columns().stream().map(ColumnDef::name).filter(n -> r.column(n).isPresent()).toList();
            List<String> recorded = r.columns().stream().map(ColumnDef::name).filter(n -> t.column(n).isPresent()).toList();
            if (!order.equals(recorded)) {
                out.add("table '" + t.name() + "': columns are in the order " + order + ", the journal recorded " + recorded);
            }
        }
        for (TableDef r : journaled.tables()) {
            if (table(r.name()).isEmpty()) {
                out.add("table '" + r.name() + "' of the journal's catalog is missing");
            }
        }
        List<String> names = tables.stream().map(TableDef::name).filter(n -> journaled.table(n).isPresent()).toList();
        List<String> recorded = journaled.tables().stream().map(TableDef::name).filter(n -> table(n).isPresent()).toList();
        if (out.isEmpty() && !names.equals(recorded)) {
            out.add("tables are in the order " + names + ", the journal recorded " + recorded);
        }
        return out;
    }

    /** A column type as the catalog file spells it: {@code int64}, {@code vector float32[8]}. */
    private static String typeName(ColumnType type) {
        return switch (type) {
            case ColumnType.Scalar s -> s.name().toLowerCase(Locale.ROOT);
            case ColumnType.Vector v -> "vector float32[" + v.dim() + "]";
        };
    }

    public String toJson() {
        ObjectNode root = JSON.createObjectNode();
        ArrayNode ts = root.putArray("tables");
        for (TableDef t : tables) {
            ObjectNode tn = ts.addObject();
            tn.put("name", t.name());
            tn.put("kind", t.kind().json());
            if (t.ack() != Ack.TABLE) {
                tn.put("ack", t.ack().json());
            }
            if (t.src() != null) {
                tn.put("src", t.src());
            }
            if (t.dst() != null) {
                tn.put("dst", t.dst());
            }
            if (!t.unique().isEmpty()) {
                ArrayNode un = tn.putArray("unique");
                t.unique().forEach(un::add);
            }
            if (t.cascade()) {
                tn.put("on_endpoint_delete", "cascade");
            }
            ArrayNode cs = tn.putArray("columns");
            for (ColumnDef c : t.columns()) {
                ObjectNode cn = cs.addObject();
                cn.put("name", c.name());
                switch (c.type()) {
                    case ColumnType.Scalar s -> cn.put("type", s.name().toLowerCase(Locale.ROOT));
                    case ColumnType.Vector v -> {
                        ObjectNode vn = cn.putObject("type");
                        vn.put("vector", "float32");
                        vn.put("dim", v.dim());
                    }
                }
                cn.put("nullable", c.nullable());
            }
        }
        try {
            return JSON.writerWithDefaultPrettyPrinter().writeValueAsString(root);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
