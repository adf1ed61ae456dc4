package io.palisade.it.crash;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * What the graph must hold: people (id → age) per graph branch, the main log's messages, the
 * columns added to {@code person} (nullable; every row reads null), and main's notes (id → age: {@code note}, the
 * journal-acknowledged table, written on main only, so every branch's copy is main's at its creation and merges
 * carry none of it). {@link #sameData} compares exactly that, which is what a scan can observe.
 *
 * <p>Besides the data the model keeps what a branch merge needs, as the coordinator derives it from the
 * journal: a logical clock ticked by every applied write, per branch the clock and parent keys at its
 * creation, and per branch and key the clock of the last applied write whose key filter held the key
 * (insert, upsert, delete: their keys; overwrite: the keys of its batch, which is the key filter its
 * intent journals, and the keys of the table it replaced; a bulk load: the keys its progress records
 * journal; append and add columns: none).
 */
final class Model {
    final TreeMap<String, TreeMap<String, Long>> people = new TreeMap<>();
    final List<String> log = new ArrayList<>();
    final List<String> columns = new ArrayList<>();
    final TreeMap<String, Long> notes = new TreeMap<>();
    private long clock;
    private final TreeMap<String, Long> forkClock = new TreeMap<>();
    private final TreeMap<String, Set<String>> forkKeys = new TreeMap<>();
    private final TreeMap<String, TreeMap<String, Long>> changed = new TreeMap<>();

    static Model initial() {
        Model m = new Model();
        m.people.put("main", new TreeMap<>());
        return m;
    }

    Model copy() {
        Model m = new Model();
        people.forEach((b, rows) -> m.people.put(b, new TreeMap<>(rows)));
        m.log.addAll(log);
        m.columns.addAll(columns);
        m.notes.putAll(notes);
        m.clock = clock;
        m.forkClock.putAll(forkClock);
        forkKeys.forEach((b, k) -> m.forkKeys.put(b, new TreeSet<>(k)));
        changed.forEach((b, k) -> m.changed.put(b, new TreeMap<>(k)));
        return m;
    }

    /** Applies {@code op} completely (an acknowledged write). */
    Model apply(Plan.Op op) {
        List<Model> o = outcomes(op);
        Model full = o.get(o.size() - 1);
        people.clear();
        people.putAll(full.people);
        log.clear();
        log.addAll(full.log);
        columns.clear();
        columns.addAll(full.columns);
        notes.clear();
        notes.putAll(full.notes);
        clock = full.clock;
        forkClock.clear();
        forkClock.putAll(full.forkClock);
        forkKeys.clear();
        forkKeys.putAll(full.forkKeys);
        changed.clear();
        changed.putAll(full.changed);
        return this;
    }

    /**
     * Every state an interrupted {@code op} may leave, the last being the op fully applied. One journaled
     * intent is all-or-nothing, so every op but a merge has one outcome; a merge is one intent per part
     * (per table: insert new rows, upsert changed rows, delete removed keys, in that order), so an
     * interrupted merge leaves a prefix of its parts (none, the first, ..., all).
     */
    List<Model> outcomes(Plan.Op op) {
        Model m = copy();
        switch (op.kind()) {
            case INSERT, UPSERT -> {
                m.people.get(op.branch()).putAll(op.rows());
                m.stamp(op.branch(), op.rows().keySet());
            }
            case DELETE -> {
                op.rows().keySet().forEach(m.people.get(op.branch())::remove);
                m.stamp(op.branch(), op.rows().keySet());
            }
            case APPEND -> m.log.addAll(op.rows().keySet());
            case BRANCH -> {
                m.people.put(op.branch(), new TreeMap<>(m.people.get("main")));
                m.forkClock.put(op.branch(), m.clock);
                m.forkKeys.put(op.branch(), new TreeSet<>(m.people.get("main").keySet()));
            }
            case OVERWRITE -> {
                // changes the keys of its batch and every key it replaced (Merges.changedKeys)
                Set<String> touched = new TreeSet<>(m.people.get(op.branch()).keySet());
                touched.addAll(op.rows().keySet());
                m.people.put(op.branch(), new TreeMap<>(op.rows()));
                m.stamp(op.branch(), touched);
            }
            case ADD_COLUMNS -> m.columns.addAll(op.rows().keySet());
            case LOAD -> {
                m.people.get(op.branch()).putAll(op.rows());
                m.stamp(op.branch(), op.rows().keySet());
            }
            case LOAD_STRICT -> {
                // a strict load fails whole (restored) when any of its keys is already present
                if (op.rows().keySet().stream().noneMatch(m.people.get(op.branch())::containsKey)) {
                    m.people.get(op.branch()).putAll(op.rows());
                    m.stamp(op.branch(), op.rows().keySet());
                }
            }
            case MERGE -> {
                return merge(op.source(), op.target());
            }
            case MAINTAIN -> {
                // compaction and index refresh change no row
            }
            case NOTE_INSERT, NOTE_UPSERT -> m.notes.putAll(op.rows());
            case NOTE_DELETE -> op.rows().keySet().forEach(m.notes::remove);
        }
        return List.of(m);
    }

    /** The keys of a merge of {@code source} into {@code target} changed on both sides since the fork. */
    Set<String> mergeConflicts(String source, String target) {
        long fork = forkClock.get(source);
        Set<String> both = new TreeSet<>();
        TreeMap<String, Long> t = changed.getOrDefault(target, new TreeMap<>());
        for (Map.Entry<String, Long> e : changed.getOrDefault(source, new TreeMap<>()).entrySet()) {
            if (e.getValue() > fork && t.getOrDefault(e.getKey(), -1L) > fork) {
                both.add(e.getKey());
            }
        }
        return both;
    }

    /** Mirrors {@code Merges.merge}: nothing on a conflict, otherwise its parts as separate writes. */
    private List<Model> merge(String source, String target) {
        List<Model> out = new ArrayList<>(List.of(copy()));
        if (!mergeConflicts(source, target).isEmpty()) {
            return out; // MergeConflictException: nothing merged
        }
        long fork = forkClock.get(source);
        TreeMap<String, Long> src = people.get(source);
        TreeMap<String, Long> tgt = people.get(target);
        TreeMap<String, Long> newRows = new TreeMap<>();
        TreeMap<String, Long> changedRows = new TreeMap<>();
        TreeMap<String, Long> gone = new TreeMap<>();
        changed.getOrDefault(source, new TreeMap<>()).forEach((k, at) -> {
            if (at <= fork) {
                return;
            }
            if (!src.containsKey(k)) {
                if (tgt.containsKey(k)) {
                    gone.put(k, 0L);
                }
            } else if (!forkKeys.get(source).contains(k) && !tgt.containsKey(k)) {
                newRows.put(k, src.get(k));
            } else {
                changedRows.put(k, src.get(k));
            }
        });
        for (Plan.Op part : List.of(new Plan.Op(Plan.Kind.INSERT, target, newRows),
                new Plan.Op(Plan.Kind.UPSERT, target, changedRows), new Plan.Op(Plan.Kind.DELETE, target, gone))) {
            if (!part.rows().isEmpty()) {
                out.add(out.get(out.size() - 1).copy().apply(part));
            }
        }
        return out;
    }

    private void stamp(String branch, Set<String> keys) {
        clock++;
        TreeMap<String, Long> c = changed.computeIfAbsent(branch, b -> new TreeMap<>());
        keys.forEach(k -> c.put(k, clock));
    }

    /**
     * The branches an insert or upsert can write: every branch but main. Columns are added on main only;
     * a branch created before keeps its table's older schema and takes the catalog's batches with the
     * added columns null (KeyedSchemas.checkBatch).
     */
    List<String> writableBranches() {
        return mergeSources();
    }

    /** The branches a merge can take as its source (every branch but main). */
    List<String> mergeSources() {
        return people.keySet().stream().filter(b -> !b.equals("main")).toList();
    }

    /** Equal observable data: rows per branch, the log as a multiset, the added columns, main's notes. */
    boolean sameData(Model o) {
        return people.equals(o.people) && sortedLog().equals(o.sortedLog()) && new TreeSet<>(columns).equals(new TreeSet<>(o.columns))
                && notes.equals(o.notes);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Model m && sameData(m) && clock == m.clock && forkClock.equals(m.forkClock)
                && changed.equals(m.changed);
    }

    private List<String> sortedLog() {
        List<String> l = new ArrayList<>(log);
        l.sort(null);
        return l;
    }

    @Override
    public int hashCode() {
        return Objects.hash(people, sortedLog(), new TreeSet<>(columns), notes, clock);
    }

    @Override
    public String toString() {
        StringBuilder b = new StringBuilder();
        for (Map.Entry<String, TreeMap<String, Long>> e : people.entrySet()) {
            b.append(e.getKey()).append('=').append(e.getValue()).append(' ');
        }
        return b.append("log=").append(sortedLog()).append(" columns=").append(columns).append(" notes=").append(notes)
                .toString();
    }
}
