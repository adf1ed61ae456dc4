package io.palisade.it.crash;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/** What the graph must hold: people (id → age) per graph branch and the main log's messages, in order. */
final class Model {
    final TreeMap<String, TreeMap<String, Long>> people = new TreeMap<>();
    final List<String> log = new ArrayList<>();

    static Model initial() {
        Model m = new Model();
        m.people.put("main", new TreeMap<>());
        return m;
    }

    Model copy() {
        Model m = new Model();
        people.forEach((b, rows) -> m.people.put(b, new TreeMap<>(rows)));
        m.log.addAll(log);
        return m;
    }

    Model apply(Plan.Op op) {
        switch (op.kind()) {
            case INSERT, UPSERT -> people.get(op.branch()).putAll(op.rows());
            case DELETE -> op.rows().keySet().forEach(people.get(op.branch())::remove);
            case APPEND -> log.addAll(op.rows().keySet());
            case BRANCH -> people.put(op.branch(), new TreeMap<>(people.get("main")));
        }
        return this;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Model m && people.equals(m.people) && sortedLog().equals(m.sortedLog());
    }

    private List<String> sortedLog() {
        List<String> l = new ArrayList<>(log);
        l.sort(null);
        return l;
    }

    @Override
    public int hashCode() {
        return Objects.hash(people, sortedLog());
    }

    @Override
    public String toString() {
        StringBuilder b = new StringBuilder();
        for (Map.Entry<String, TreeMap<String, Long>> e : people.entrySet()) {
            b.append(e.getKey()).append('=').append(e.getValue()).append(' ');
        }
        return b.append("log=").append(sortedLog()).toString();
    }
}
