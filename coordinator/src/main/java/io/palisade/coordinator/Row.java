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

    private static final com.fasterxml.jackson.databind.ObjectMapper JSON = new com.fasterxml.jackson.databind.ObjectMapper();

    /**
     * A row from one JSON object, as a line of {@code palisade write} takes: strings, integers (as {@link Long}),
     * other numbers (as {@link Double}), booleans and nulls.
     *
     * @throws ValidationException when the text is not one JSON object of such values
     */
    public static Row fromJson(String jsonObject) {
        com.fasterxml.jackson.databind.JsonNode n;
        try {
            n = JSON.readTree(jsonObject);
        } catch (java.io.IOException e) {
            throw new ValidationException("not JSON: " + e.getMessage().lines().findFirst().orElse(""));
        }
        if (n == null || !n.isObject()) {
            throw new ValidationException("a row is one JSON object, was: " + jsonObject);
        }
        Map<String, Object> m = new LinkedHashMap<>();
        for (Map.Entry<String, com.fasterxml.jackson.databind.JsonNode> e : n.properties()) {
            com.fasterxml.jackson.databind.JsonNode v = e.getValue();
            Object value;
            if (v.isNull()) {
                value = null;
            } else if (v.isTextual()) {
                value = v.textValue();
            } else if (v.isIntegralNumber() && v.canConvertToLong()) {
                value = v.longValue();
            } else if (v.isNumber()) {
                value = v.doubleValue();
            } else if (v.isBoolean()) {
                value = v.booleanValue();
            } else {
                throw new ValidationException("column '" + e.getKey() + "': " + v.getNodeType().name().toLowerCase(
                        java.util.Locale.ROOT) + " values are not supported (strings, numbers, booleans and null are)");
            }
            m.put(e.getKey(), value);
        }
        return new Row(m);
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
