package io.palisade.coordinator.internal;

import io.palisade.coordinator.Catalog;
import io.palisade.coordinator.Row;
import io.palisade.fencing.KeyFilter;
import io.palisade.fencing.ValidationException;
import io.palisade.substrate.ArrowRows;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A write's rows and keys checked against its table's declared schema before anything is journaled: every column
 * declared and of its declared type, no null in a non-null column, no key twice in one batch. Pure: it reads the
 * catalog entry and the batch and throws {@link ValidationException} naming the table, column and row.
 */
public final class BatchValidation {
    private BatchValidation() {
    }

    /** The exact key filter of {@code keys} over {@code def}'s {@code id} (parsed as int64 where {@code id} is one). */
    public static KeyFilter keyFilter(Catalog.TableDef def, List<String> keys) {
        if (def.column("id").orElseThrow().type() == Catalog.ColumnType.Scalar.INT64) {
            long[] ks = new long[keys.size()];
            for (int i = 0; i < ks.length; i++) {
                try {
                    ks[i] = Long.parseLong(keys.get(i));
                } catch (NumberFormatException | NullPointerException e) {
                    throw new ValidationException("key '" + keys.get(i) + "' is not an int64 id of table '" + def.name() + "'");
                }
            }
            return KeyFilter.ofLongs(def.idFieldId(), ks);
        }
        return KeyFilter.ofStrings(def.idFieldId(), keys);
    }

    /**
     * An Arrow batch of {@code rows} in {@code def}'s schema; a column the table does not have is a
     * {@link ValidationException} (never silently dropped). The caller closes the batch.
     */
    public static VectorSchemaRoot batch(Catalog.TableDef def, List<Row> rows, BufferAllocator allocator) {
        Set<String> columns = new HashSet<>();
        def.columns().forEach(c -> columns.add(c.name()));
        List<Map<String, Object>> maps = new ArrayList<>(rows.size());
        for (int i = 0; i < rows.size(); i++) {
            Map<String, Object> row = rows.get(i).asMap();
            maps.add(row);
            for (String c : row.keySet()) {
                if (!columns.contains(c)) {
                    throw new ValidationException("row " + (i + 1) + ": table '" + def.name() + "' has no column '" + c
                            + "' (columns: " + String.join(", ", def.columns().stream().map(Catalog.ColumnDef::name).toList()) + ")");
                }
            }
        }
        VectorSchemaRoot root = VectorSchemaRoot.create(def.arrowSchema(), allocator);
        try {
            ArrowRows.fill(root, maps);
            return root;
        } catch (RuntimeException e) {
            root.close();
            throw e;
        }
    }

    /**
     * The changes of an update, checked against {@code def} and normalised to its column types: each row names a
     * non-null {@code id} and only declared columns, sets no non-null column to null, and no id comes twice. A column a
     * row names is kept, with its value as the table stores it (an {@link Integer} given for an int64 column becomes
     * a {@link Long}); a column it does not name is absent from its change. Nothing is read from the table.
     */
    public static List<Map<String, Object>> changes(Catalog.TableDef def, List<Row> rows, BufferAllocator allocator) {
        if (!def.kind().keyed()) {
            throw new ValidationException("table '" + def.name() + "' is append-only: update by key needs a keyed table");
        }
        if (rows.isEmpty()) {
            throw new ValidationException("an update of table '" + def.name() + "' names no rows");
        }
        Set<String> ids = new HashSet<>();
        for (int i = 0; i < rows.size(); i++) {
            Map<String, Object> row = rows.get(i).asMap();
            Object id = row.get("id");
            if (id == null) {
                throw new ValidationException("row " + (i + 1) + " of the update of table '" + def.name()
                        + "' names no id: an update changes the row with that id");
            }
            if (!ids.add(String.valueOf(id))) {
                throw new ValidationException("row " + (i + 1) + " of the update of table '" + def.name()
                        + "' names id '" + id + "' again: one change per id");
            }
            for (Map.Entry<String, Object> e : row.entrySet()) {
                Catalog.ColumnDef c = def.column(e.getKey()).orElse(null);
                if (c != null && e.getValue() == null && !c.nullable()) {
                    throw new ValidationException("row " + (i + 1) + " of the update of table '" + def.name()
                            + "' sets non-null column '" + c.name() + "' to null");
                }
            }
        }
        List<Map<String, Object>> out = new ArrayList<>(rows.size());
        try (VectorSchemaRoot typed = batch(def, rows, allocator)) { // unknown columns and wrong types refused here
            for (int i = 0; i < rows.size(); i++) {
                Map<String, Object> change = new java.util.LinkedHashMap<>();
                for (String c : rows.get(i).asMap().keySet()) {
                    change.put(c, ArrowRows.value(typed.getVector(c), i));
                }
                out.add(java.util.Collections.unmodifiableMap(change));
            }
        }
        return out;
    }

    /** The exact key filter of an update's {@code changes} (validated by {@link #changes}). */
    static KeyFilter updateKeys(Catalog.TableDef def, List<Map<String, Object>> changes) {
        return keyFilter(def, changes.stream().map(c -> String.valueOf(c.get("id"))).toList());
    }

    /** Validates an op's rows against the table's declared schema; returns its exact key filter (null for keyless). */
    static KeyFilter validate(Catalog.TableDef def, WriteOp op) {
        return switch (op) {
            case WriteOp.Delete d -> d.keys();
            case WriteOp.Fold f -> f.keys(); // every row was validated when its write was acknowledged
            case WriteOp.AddColumns a -> null;
            case WriteOp.OptimizeIndex o -> null;
            case WriteOp.Compact c -> null;
            case WriteOp.Insert i -> validateRows(def, i.rows());
            case WriteOp.Upsert u -> validateRows(def, u.rows());
            case WriteOp.Update u -> updateKeys(def, u.changes());
            case WriteOp.Append a -> validateRows(def, a.rows());
            case WriteOp.Overwrite o -> validateRows(def, o.rows());
        };
    }

    /** Checks {@code rows} against {@code def}'s declared schema; returns their exact key filter (null for keyless). */
    static KeyFilter validateRows(Catalog.TableDef def, VectorSchemaRoot rows) {
        Schema declared = def.arrowSchema();
        for (Field f : rows.getSchema().getFields()) {
            Field d = declared.getFields().stream().filter(x -> x.getName().equals(f.getName())).findFirst()
                    .orElseThrow(() -> new ValidationException("table '" + def.name() + "' has no column '" + f.getName()
                            + "'; its columns are " + declared.getFields().stream().map(Field::getName).toList()));
            if (!d.getType().equals(f.getType())) {
                throw new ValidationException("column '" + f.getName() + "' of table '" + def.name() + "' is "
                        + d.getType() + ", the batch has " + f.getType());
            }
        }
        for (Field d : declared.getFields()) {
            FieldVector v = rows.getVector(d.getName());
            if (v == null) {
                throw new ValidationException("column '" + d.getName() + "' of table '" + def.name()
                        + "' is missing from the batch" + (d.getName().equals("id") ? " (it is the key)" : ""));
            }
            if (!d.isNullable() && !d.getName().equals("id") && v.getNullCount() > 0) {
                for (int r = 0; r < rows.getRowCount(); r++) {
                    if (v.isNull(r)) {
                        throw new ValidationException("column '" + d.getName() + "' of table '" + def.name()
                                + "' is non-null but row " + r + " is null");
                    }
                }
            }
        }
        if (!def.kind().keyed()) {
            return null;
        }
        return KeyFilter.fromBatch(rows, "id", def.idFieldId(), KeyFilter.Duplicates.REJECT);
    }
}
