package io.palisade.substrate;

import io.palisade.fencing.KeyFilter;
import io.palisade.fencing.ValidationException;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The primary-key contract of keyed tables (RFC-023 §4, §9) as pure schema rules, shared by every
 * {@link TableStore} so that the Lance store and the simulated store refuse exactly the same inputs.
 *
 * <p>Contract: a keyed table has a field {@value #ID} of type Utf8, LargeUtf8 or signed Int64, not
 * nullable, carrying {@value #PK_METADATA}{@code =true}; no other field carries that key. A keyless
 * table has no field carrying it. Every rule here throws {@link ValidationException} and has no effect.
 */
public final class KeyedSchemas {

    /** The primary-key column of every keyed table. */
    public static final String ID = "id";
    /** Lance's field-metadata key marking the unenforced primary key. */
    public static final String PK_METADATA = "lance-schema:unenforced-primary-key";
    /** Schema metadata recording the {@link TableKind} given at creation. */
    public static final String TABLE_KIND_METADATA = "palisade:table-kind";

    private KeyedSchemas() {
    }

    /** Whether {@code type} may be the type of {@code id}. */
    public static boolean isKeyType(ArrowType type) {
        return type instanceof ArrowType.Utf8
                || type instanceof ArrowType.LargeUtf8
                || (type instanceof ArrowType.Int i && i.getBitWidth() == 64 && i.getIsSigned());
    }

    /** Whether {@code field} carries the primary-key metadata. */
    public static boolean isPkField(Field field) {
        Map<String, String> md = field.getMetadata();
        return md != null && "true".equalsIgnoreCase(md.get(PK_METADATA));
    }

    /** Names of the fields carrying the primary-key metadata, in schema order. */
    public static List<String> primaryKey(Schema schema) {
        List<String> pk = new ArrayList<>();
        for (Field f : schema.getFields()) {
            if (isPkField(f)) {
                pk.add(f.getName());
            }
        }
        return pk;
    }

    /** The kind recorded at creation, if any (tables written before Palisade have none). */
    public static Optional<TableKind> recordedKind(Schema schema) {
        Map<String, String> md = schema.getCustomMetadata();
        String v = md == null ? null : md.get(TABLE_KIND_METADATA);
        if (v == null) {
            return Optional.empty();
        }
        try {
            return Optional.of(TableKind.valueOf(v));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    /**
     * The physical schema of a new keyed table: the declared fields with {@code id} made non-null and
     * marked as the primary key, and the kind recorded in the schema metadata.
     */
    public static Schema keyedSchema(Schema declared, TableKind kind) {
        if (!kind.keyed()) {
            throw new ValidationException("a keyed table needs kind NODE or EDGE, not " + kind);
        }
        Field id = requireId(declared);
        if (!isKeyType(id.getType())) {
            throw new ValidationException("'id' must be Utf8, LargeUtf8 or Int64, was " + id.getType());
        }
        checkDistinctNames(declared);
        if (kind == TableKind.EDGE) {
            for (String endpoint : List.of("src", "dst")) {
                if (find(declared, endpoint).isEmpty()) {
                    throw new ValidationException("an edge table needs a '" + endpoint + "' field");
                }
            }
        }
        List<Field> fields = new ArrayList<>();
        for (Field f : declared.getFields()) {
            if (f.getName().equals(ID)) {
                fields.add(pkField(f));
            } else if (isPkField(f)) {
                throw new ValidationException("only 'id' may carry " + PK_METADATA + "; field '" + f.getName() + "' does");
            } else {
                fields.add(f);
            }
        }
        return new Schema(fields, kindMetadata(declared, kind));
    }

    /** The physical schema of a pre-fencing keyed table: like {@link #keyedSchema} without PK metadata. */
    public static Schema legacyKeyedSchema(Schema declared, TableKind kind) {
        Schema keyed = keyedSchema(declared, kind);
        List<Field> fields = new ArrayList<>();
        for (Field f : keyed.getFields()) {
            fields.add(f.getName().equals(ID) ? withoutPk(f) : f);
        }
        return new Schema(fields, keyed.getCustomMetadata());
    }

    /** The physical schema of a new keyless (append-only) table: no field may carry the PK metadata. */
    public static Schema keylessSchema(Schema declared) {
        checkDistinctNames(declared);
        for (Field f : declared.getFields()) {
            if (isPkField(f)) {
                throw new ValidationException("a keyless table has no primary key; field '" + f.getName()
                        + "' carries " + PK_METADATA);
            }
        }
        return new Schema(declared.getFields(), kindMetadata(declared, TableKind.KEYLESS));
    }

    /**
     * A batch written to a table must have the table's fields, by name and type, in the table's order
     * (nullability and metadata are the table's, not the batch's). It may carry further nullable columns
     * the table does not have, provided they hold only nulls: a graph branch created before a column was
     * added keeps its table without the column, and its writers send the graph's current columns; a
     * column that is absent reads as null there, so dropping an all-null one loses nothing. A non-null
     * value in such a column is a {@link ValidationException} naming it. The stores write only the
     * table's columns.
     */
    public static void checkBatch(Schema table, VectorSchemaRoot batch) {
        List<String> want = table.getFields().stream().map(Field::getName).toList();
        List<String> got = new ArrayList<>();
        for (FieldVector v : batch.getFieldVectors()) {
            String name = v.getField().getName();
            if (want.contains(name)) {
                got.add(name);
            } else if (v.getNullCount() != v.getValueCount()) {
                throw new ValidationException("column '" + name + "' is not in this version of the table (columns "
                        + want + "; a graph branch created before the column was added does not have it): only "
                        + "nulls can be written to it there, and the batch has values");
            }
        }
        if (!want.equals(got)) {
            throw new ValidationException("batch columns " + batch.getSchema().getFields().stream().map(Field::getName)
                    .toList() + " do not match table columns " + want);
        }
        for (int i = 0; i < want.size(); i++) {
            ArrowType t = table.getFields().get(i).getType();
            ArrowType b = batch.getVector(want.get(i)).getField().getType();
            if (!t.equals(b)) {
                throw new ValidationException("column '" + want.get(i) + "' has type " + b + ", table has " + t);
            }
        }
    }

    /**
     * The exact key set of a batch for a write on a keyed table: a null or repeated {@code id} is a
     * {@link ValidationException} naming the row; an empty batch is refused (a write that writes
     * nothing would still create a version).
     */
    public static KeyFilter keysOf(VectorSchemaRoot batch, int idFieldId) {
        if (batch.getRowCount() == 0) {
            throw new ValidationException("empty batch: nothing to write");
        }
        FieldVector id = batch.getVector(ID);
        if (id == null) {
            throw new ValidationException("batch has no 'id' column");
        }
        return KeyFilter.fromVector(id, new int[] {idFieldId}, KeyFilter.Duplicates.REJECT);
    }

    /**
     * The output schema of an overwrite of a keyed table: the batch's fields, with {@code id} kept as
     * the table's exact primary-key field (same type, non-null, PK metadata) and the table's schema
     * metadata. A batch without {@code id}, or with {@code id} of another type, is refused.
     */
    public static Schema overwriteSchema(Schema table, Schema batch) {
        Field tableId = requireId(table);
        Field batchId = find(batch, ID).orElseThrow(() ->
                new ValidationException("an overwrite of a keyed table must keep 'id'; batch columns are "
                        + batch.getFields().stream().map(Field::getName).toList()));
        if (!batchId.getType().equals(tableId.getType())) {
            throw new ValidationException("an overwrite must keep 'id' of type " + tableId.getType()
                    + ", batch has " + batchId.getType());
        }
        checkDistinctNames(batch);
        List<Field> fields = new ArrayList<>();
        for (Field f : batch.getFields()) {
            if (f.getName().equals(ID)) {
                fields.add(tableId);
            } else if (isPkField(f)) {
                throw new ValidationException("only 'id' may carry " + PK_METADATA + "; field '" + f.getName() + "' does");
            } else {
                fields.add(f);
            }
        }
        return new Schema(fields, table.getCustomMetadata());
    }

    /** New columns must be nullable, new by name, and must not carry the PK metadata. */
    public static void checkAddColumns(Schema table, List<Field> added) {
        if (added.isEmpty()) {
            throw new ValidationException("no columns to add");
        }
        Set<String> names = new HashSet<>(table.getFields().stream().map(Field::getName).toList());
        for (Field f : added) {
            if (!names.add(f.getName())) {
                throw new ValidationException("column '" + f.getName() + "' already exists");
            }
            if (!f.isNullable()) {
                throw new ValidationException("an added column must be nullable (existing rows get null): '" + f.getName() + "'");
            }
            if (isPkField(f)) {
                throw new ValidationException("an added column may not carry " + PK_METADATA + ": '" + f.getName() + "'");
            }
        }
    }

    /** Dropping {@code id} (the primary key) is refused; so is dropping an unknown column. */
    public static void checkDropColumns(Schema table, Collection<String> dropped, boolean keyed) {
        if (dropped.isEmpty()) {
            throw new ValidationException("no columns to drop");
        }
        for (String c : dropped) {
            if (find(table, c).isEmpty()) {
                throw new ValidationException("no column '" + c + "' to drop");
            }
            if (keyed && c.equals(ID)) {
                throw new ValidationException("'id' is the primary key of a keyed table and cannot be dropped");
            }
        }
        if (dropped.size() >= table.getFields().size()) {
            throw new ValidationException("cannot drop every column");
        }
    }

    /** Making {@code id} nullable is refused; so is an unknown column. */
    public static void checkMakeNullable(Schema table, String column, boolean keyed) {
        if (find(table, column).isEmpty()) {
            throw new ValidationException("no column '" + column + "'");
        }
        if (keyed && column.equals(ID)) {
            throw new ValidationException("'id' is the primary key of a keyed table and must stay non-null");
        }
    }

    public static Optional<Field> find(Schema schema, String name) {
        return schema.getFields().stream().filter(f -> f.getName().equals(name)).findFirst();
    }

    static Field requireId(Schema schema) {
        Field id = find(schema, ID).orElseThrow(() ->
                new ValidationException("a keyed table needs an 'id' field; fields are "
                        + schema.getFields().stream().map(Field::getName).toList()));
        if (!id.getChildren().isEmpty()) {
            throw new ValidationException("'id' must be a primitive field");
        }
        return id;
    }

    private static Field pkField(Field f) {
        Map<String, String> md = new LinkedHashMap<>(f.getMetadata() == null ? Map.of() : f.getMetadata());
        md.put(PK_METADATA, "true");
        return new Field(f.getName(), new FieldType(false, f.getType(), f.getDictionary(), md), List.of());
    }

    private static Field withoutPk(Field f) {
        Map<String, String> md = new LinkedHashMap<>(f.getMetadata() == null ? Map.of() : f.getMetadata());
        md.remove(PK_METADATA);
        return new Field(f.getName(), new FieldType(false, f.getType(), f.getDictionary(), md.isEmpty() ? null : md), List.of());
    }

    private static Map<String, String> kindMetadata(Schema declared, TableKind kind) {
        Map<String, String> md = new HashMap<>(declared.getCustomMetadata() == null ? Map.of() : declared.getCustomMetadata());
        md.put(TABLE_KIND_METADATA, kind.name());
        return md;
    }

    private static void checkDistinctNames(Schema schema) {
        Set<String> seen = new HashSet<>();
        for (Field f : schema.getFields()) {
            if (!seen.add(f.getName())) {
                throw new ValidationException("duplicate column '" + f.getName() + "'");
            }
        }
        if (seen.isEmpty()) {
            throw new ValidationException("a table needs at least one column");
        }
    }
}
