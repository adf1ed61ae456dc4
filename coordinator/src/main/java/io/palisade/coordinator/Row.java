package io.palisade.coordinator;

import io.palisade.fencing.ValidationException;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * One row of a table, column name → value, for callers that do not want to build Arrow batches: written with
 * {@link Graph#insert(String, String, java.util.List)} and its siblings, read back by {@link Graph#rows} and
 * {@link Graph#get}. Values are {@link String} (string columns), {@link Long} (int64), {@link Integer} (int32),
 * {@link Double} (float64), {@link Boolean} (bool) or {@code null}; a column the row does not name is null. Bulk
 * writers keep the Arrow forms ({@code VectorSchemaRoot}) and {@link Graph#load}.
 *
 * <pre>{@code
 * g.insert("main", "person", List.of(Row.of("id", "alice", "age", 30), Row.of("id", "bob")));
 * long age = g.get("main", "person", List.of("alice")).get("alice").int64("age");
 * }</pre>
 */
public final class Row {
    private final Map<String, Object> values;

    private Row(Map<String, Object> values) {
        this.values = Collections.unmodifiableMap(values);
    }

    /**
     * A row from alternating column names and values: {@code Row.of("id", "alice", "age", 30)}. An {@link Integer}
     * given for an int64 column is widened when the row is written.
     *
     * @throws ValidationException when the arguments are not name/value pairs or a name repeats
     */
    public static Row of(Object... namesAndValues) {
        if (namesAndValues.length % 2 != 0) {
            throw new ValidationException("Row.of takes column name/value pairs; got " + namesAndValues.length + " arguments");
        }
        Map<String, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < namesAndValues.length; i += 2) {
            if (!(namesAndValues[i] instanceof String name)) {
                throw new ValidationException("Row.of: argument " + i + " must be a column name, was " + namesAndValues[i]);
            }
            if (m.containsKey(name)) {
                throw new ValidationException("Row.of: column '" + name + "' given twice");
            }
            m.put(name, namesAndValues[i + 1]);
        }
        return new Row(m);
    }

    /** A row from a map (copied; its iteration order is kept). */
    public static Row of(Map<String, ?> values) {
        return new Row(new LinkedHashMap<>(Objects.requireNonNull(values, "values")));
    }

    /** The value of {@code column}, or null when the row has none. */
    public Object get(String column) {
        return values.get(column);
    }

    /** The row's {@code id} (keyed tables). */
    public String id() {
        return string("id");
    }

    /** A string column's value (null when null). */
    public String string(String column) {
        Object v = values.get(column);
        return v == null ? null : v.toString();
    }

    /** An integer column's value as a long (null when null). */
    public Long int64(String column) {
        Object v = values.get(column);
        if (v == null) {
            return null;
        }
        if (v instanceof Number n && !(v instanceof Double) && !(v instanceof Float)) {
            return n.longValue();
        }
        throw new ValidationException("column '" + column + "' holds " + v + ", not an integer");
    }

    /** A float64 column's value (null when null). */
    public Double float64(String column) {
        Object v = values.get(column);
        if (v == null) {
            return null;
        }
        if (v instanceof Number n) {
            return n.doubleValue();
        }
        throw new ValidationException("column '" + column + "' holds " + v + ", not a number");
    }

    /** A bool column's value (null when null). */
    public Boolean bool(String column) {
        Object v = values.get(column);
        if (v == null || v instanceof Boolean) {
            return (Boolean) v;
        }
        throw new ValidationException("column '" + column + "' holds " + v + ", not a boolean");
    }

    /** Every column the row names, with its value (read-only). */
    public Map<String, Object> asMap() {
        return values;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Row r && values.equals(r.values);
    }

    @Override
    public int hashCode() {
        return values.hashCode();
    }

    /** {@code {id=alice, age=30}}, for logs. */
    @Override
    public String toString() {
        return values.toString();
    }
}
