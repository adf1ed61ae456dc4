package io.palisade.coordinator.internal;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The ids of one keyed table on one graph branch and the exact values of a few of its columns, as its newest published
 * state holds them (folded head and unfolded tail), with the reverse maps the integrity checks ask (docs/integrity.md);
 * a node table that edges name is imaged with no column, its ids only:
 * <ul>
 *   <li>a <em>unique</em> column: value → the one id holding it;</li>
 *   <li>an <em>endpoint</em> column ({@code src}, {@code dst} of an edge table): value → how many edges name it.</li>
 * </ul>
 * Values are held as text ({@link #text}); a null is not a value and is not held.
 *
 * <p>Invariants: {@code byId} holds one entry per row of the state the image was built from or advanced to, each the
 * row's values of {@code columns} in order; every reverse map is exactly derived from {@code byId}. Committer thread
 * only. {@code stamp} names the table head the image agrees with ({@code tableBranch@version}): an image whose stamp
 * is not the table's head is rebuilt before use.
 */
final class TableImage {
    /** The values of a row of an image that tracks no column (a node table's ids only). */
    private static final String[] NONE = new String[0];
    private String stamp;
    private final List<String> columns;
    private final boolean[] unique;
    private final Map<String, String[]> byId = new HashMap<>();
    private final List<Map<String, Object>> reverse = new ArrayList<>();
    /** While a graph transaction is judged ({@link #begin}): how to take back each change, newest last; else null. */
    private java.util.ArrayDeque<Runnable> undo;

    /**
     * @param columns the tracked columns
     * @param unique  for each column, whether it is unique (else an endpoint column, counted)
     */
    TableImage(String stamp, List<String> columns, boolean[] unique) {
        this.stamp = stamp;
        this.columns = List.copyOf(columns);
        this.unique = unique.clone();
        for (int i = 0; i < columns.size(); i++) {
            reverse.add(new HashMap<>());
        }
    }

    /** The head the image agrees with. */
    String stamp() {
        return stamp;
    }

    /** The image now agrees with {@code newStamp} (a commit it was advanced by, or a fold, moved the head). */
    void restamp(String newStamp) {
        stamp = newStamp;
    }

    /** A value as the image holds it: its text; null stays null. */
    static String text(Object v) {
        return v == null ? null : String.valueOf(v);
    }

    int column(String name) {
        int i = columns.indexOf(name);
        if (i < 0) {
            throw new IllegalArgumentException("column '" + name + "' is not tracked: " + columns);
        }
        return i;
    }

    /**
     * From here on every change is recorded, so that {@link #rollback} takes the image back to this point exactly
     * (a graph transaction is applied to its images, judged, then kept with {@link #keep} or taken back).
     */
    void begin() {
        undo = new java.util.ArrayDeque<>();
    }

    /** Keeps the changes since {@link #begin} and stops recording. */
    void keep() {
        undo = null;
    }

    /** Takes back every change since {@link #begin}, newest first, and stops recording. */
    void rollback() {
        java.util.ArrayDeque<Runnable> u = undo;
        undo = null;
        while (u != null && !u.isEmpty()) {
            u.pollLast().run();
        }
    }

    /** Row {@code id} now holds {@code row}'s values of the tracked columns (an insert, upsert or update). */
    void put(String id, Map<String, Object> row) {
        remove(id);
        String[] values = columns.isEmpty() ? NONE : new String[columns.size()];
        for (int i = 0; i < values.length; i++) {
            values[i] = text(row.get(columns.get(i)));
            if (values[i] == null) {
                continue;
            }
            if (unique[i]) {
                setReverse(i, values[i], id);
            } else {
                Object n = reverse.get(i).get(values[i]);
                setReverse(i, values[i], n == null ? 1 : (Integer) n + 1);
            }
        }
        setRow(id, values);
    }

    /** Row {@code id} is gone (a delete); nothing when the image does not hold it. */
    void remove(String id) {
        String[] old = byId.get(id);
        if (old == null) {
            return;
        }
        setRow(id, null);
        for (int i = 0; i < old.length; i++) {
            if (old[i] == null) {
                continue;
            }
            Object now = reverse.get(i).get(old[i]);
            if (unique[i]) {
                if (id.equals(now)) {
                    setReverse(i, old[i], null);
                }
            } else if (now != null) {
                setReverse(i, old[i], (Integer) now == 1 ? null : (Integer) now - 1);
            }
        }
    }

    /** {@code byId[id] = values} (null: removed), recorded while judging. */
    private void setRow(String id, String[] values) {
        String[] before = values == null ? byId.remove(id) : byId.put(id, values);
        if (undo != null) {
            undo.addLast(() -> {
                if (before == null) {
                    byId.remove(id);
                } else {
                    byId.put(id, before);
                }
            });
        }
    }

    /** {@code reverse[column][value] = to} (null: removed), recorded while judging. */
    private void setReverse(int column, String value, Object to) {
        Map<String, Object> m = reverse.get(column);
        Object before = to == null ? m.remove(value) : m.put(value, to);
        if (undo != null) {
            undo.addLast(() -> {
                if (before == null) {
                    m.remove(value);
                } else {
                    m.put(value, before);
                }
            });
        }
    }

    /** The id holding {@code value} in unique column {@code column}, or null. */
    String holder(int column, String value) {
        return (String) reverse.get(column).get(value);
    }

    /** The value row {@code id} holds in {@code column}, or null (no such row, or a null). */
    String valueOf(String id, int column) {
        String[] v = byId.get(id);
        return v == null ? null : v[column];
    }

    /** How many rows hold {@code value} in endpoint column {@code column}. */
    int count(int column, String value) {
        Object n = reverse.get(column).get(value);
        return n == null ? 0 : (Integer) n;
    }

    /** Up to {@code limit} ids of rows whose endpoint column {@code column} holds one of {@code values}, in no order. */
    List<String> rowsNaming(int column, java.util.Set<String> values, int limit) {
        List<String> out = new ArrayList<>();
        for (Map.Entry<String, String[]> e : byId.entrySet()) {
            if (out.size() >= limit) {
                break;
            }
            if (values.contains(e.getValue()[column])) {
                out.add(e.getKey());
            }
        }
        return out;
    }

    /** Whether the table holds a row of {@code id}. */
    boolean holds(String id) {
        return byId.containsKey(id);
    }

    /** Rows held. */
    int size() {
        return byId.size();
    }
}
