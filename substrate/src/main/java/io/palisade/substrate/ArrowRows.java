package io.palisade.substrate;

import io.palisade.fencing.ValidationException;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.LargeVarCharVector;
import org.apache.arrow.vector.TimeStampMicroTZVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.util.Text;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Conversion between Arrow batches and plain rows ({@code column → value}, in schema order). Values
 * are {@link String} (Utf8, LargeUtf8), {@link Long} (Int64; a Timestamp of microseconds in UTC), {@link Integer}
 * (Int32), {@link Double} (Float64), {@link Float} (Float32), {@link Boolean} (Bool), a {@link List} of floats (a
 * FixedSizeList of Float32, an embedding) or {@code null}. Meant for tests, simulations and small reads; a
 * scan materialises every row.
 */
public final class ArrowRows {

    private ArrowRows() {
    }

    /** Every row of {@code root}, in order. */
    public static List<Map<String, Object>> rows(VectorSchemaRoot root) {
        List<Map<String, Object>> out = new ArrayList<>(root.getRowCount());
        List<FieldVector> vectors = root.getFieldVectors();
        for (int r = 0; r < root.getRowCount(); r++) {
            Map<String, Object> row = new LinkedHashMap<>();
            for (FieldVector v : vectors) {
                row.put(v.getName(), value(v, r));
            }
            out.add(row);
        }
        return out;
    }

    /** The rows of {@code root}, each a map of {@code columns} only, values as {@link #rows(VectorSchemaRoot)} gives them. */
    public static List<Map<String, Object>> rows(VectorSchemaRoot root, List<String> columns) {
        List<FieldVector> vectors = new ArrayList<>(columns.size());
        for (String c : columns) {
            vectors.add(root.getVector(c));
        }
        List<Map<String, Object>> out = new ArrayList<>(root.getRowCount());
        for (int r = 0; r < root.getRowCount(); r++) {
            Map<String, Object> row = new LinkedHashMap<>();
            for (FieldVector v : vectors) {
                row.put(v.getName(), value(v, r));
            }
            out.add(row);
        }
        return out;
    }

    /** The value at {@code row}, normalised as described in the class comment. */
    public static Object value(FieldVector v, int row) {
        if (v.isNull(row)) {
            return null;
        }
        Object o = v.getObject(row);
        if (o instanceof Text t) {
            return t.toString();
        }
        return o;
    }

    /**
     * Fills {@code root} (already allocated with its schema) with {@code rows}; a missing column is
     * null. Supports Utf8, LargeUtf8, Int64, Int32, Float64, Float32, Bool, Timestamp(microsecond, UTC) and
     * FixedSizeList(Float32) columns.
     */
    public static void fill(VectorSchemaRoot root, List<Map<String, Object>> rows) {
        root.allocateNew();
        for (FieldVector v : root.getFieldVectors()) {
            for (int r = 0; r < rows.size(); r++) {
                set(v, r, rows.get(r).get(v.getName()));
            }
            if (v instanceof FixedSizeListVector l) {
                l.getDataVector().setValueCount(rows.size() * l.getListSize());
            }
            v.setValueCount(rows.size());
        }
        root.setRowCount(rows.size());
    }

    private static void set(FieldVector v, int r, Object value) {
        if (value == null) {
            v.setNull(r);
            return;
        }
        try {
            switch (v) {
                case VarCharVector s -> s.setSafe(r, value.toString().getBytes(StandardCharsets.UTF_8));
                case LargeVarCharVector s -> s.setSafe(r, value.toString().getBytes(StandardCharsets.UTF_8));
                case BigIntVector b -> b.setSafe(r, ((Number) value).longValue());
                case IntVector i -> i.setSafe(r, ((Number) value).intValue());
                case Float8Vector d -> d.setSafe(r, ((Number) value).doubleValue());
                case BitVector b -> b.setSafe(r, ((Boolean) value) ? 1 : 0);
                case Float4Vector f -> f.setSafe(r, ((Number) value).floatValue());
                case TimeStampMicroTZVector t -> t.setSafe(r, ((Number) value).longValue()); // UTC epoch microseconds
                case FixedSizeListVector l when l.getDataVector() instanceof Float4Vector items -> {
                    List<?> xs = (List<?>) value;
                    if (xs.size() != l.getListSize()) {
                        throw new ValidationException("column '" + v.getName() + "' holds vectors of " + l.getListSize()
                                + " floats; the value has " + xs.size());
                    }
                    l.setNotNull(r);
                    for (int i = 0; i < xs.size(); i++) {
                        items.setSafe(r * l.getListSize() + i, ((Number) xs.get(i)).floatValue());
                    }
                }
                default -> throw new ValidationException("unsupported column type " + v.getField().getType()
                        + " for column '" + v.getName() + "'");
            }
        } catch (ClassCastException e) {
            throw new ValidationException("value " + value + " does not fit column '" + v.getName() + "' of type "
                    + v.getField().getType(), e);
        }
    }
}
