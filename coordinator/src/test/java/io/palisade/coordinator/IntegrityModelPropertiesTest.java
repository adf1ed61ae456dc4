package io.palisade.coordinator;

import io.palisade.fencing.EndpointConflictException;
import io.palisade.fencing.KeyConflictException;
import io.palisade.fencing.UniqueConflictException;
import io.palisade.substrate.ArrowRows;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.longs;

/**
 * The integrity serial-model property (docs/integrity.md): random sequences of inserts, upserts, deletes and updates of
 * persons (unique {@code email}), companies and {@code works_at} edges (src person, dst company), each table in a
 * random ack mode and folded at random small bounds, on {@code main} and, from a random step on, on a graph branch
 * {@code dev} forked from it (one model per branch), give the answers of a serial model of the documented rules:
 * a strict insert of a held id is a key conflict; an update of an absent id is refused whole; an edge naming an id its node table does not hold is an endpoint
 * conflict; a node an edge names cannot be deleted; a non-null email held by another id (in the table, the write's
 * rows taking effect at once, or by another row of the same write) is a unique conflict; a refused write writes nothing. Some steps are bursts: several writes of one kind
 * to one table submitted at once from one thread, which the committer runs as one group, in order. After every step
 * the graph's rows equal the model's; after a close (a full fold) and a reopen, the same, and the checks still hold.
 * Some steps are graph transactions (docs/transactions.md) of two or three parts on any tables, each key once: the
 * model refuses one whole with a key conflict when an insert meets a held id, else with an endpoint or unique conflict
 * when the state after all its parts breaks a rule at a row it wrote or a node it deleted, and applies it whole
 * otherwise. From the fork on, some steps merge {@code dev} into {@code main}: a key both sides changed since the fork
 * refuses the merge; otherwise it is the graph transaction of what {@code dev} changed, judged by the same model.
 * Half the sequences declare {@code "on_endpoint_delete": "cascade"} on the edges: a node's delete (a single write,
 * a transaction's part, a merge's) then deletes the edges naming it with it, and some steps delete an endpoint of a
 * random edge to see it done.
 *
 * <p>{@code -Dpalisade.integrity.props.examples=N} runs N random sequences (default {@value #DEFAULT_EXAMPLES}).
 */
class IntegrityModelPropertiesTest {
    static final int DEFAULT_EXAMPLES = 10;
    static final int OPS = 30;
    private static final List<String> PEOPLE = List.of("p0", "p1", "p2", "p3");
    private static final List<String> COMPANIES = List.of("c0", "c1");
    private static final List<String> EDGES = List.of("e0", "e1", "e2");
    private static final List<String> EMAILS = List.of("m0", "m1", "m2");
    private static final List<String> ACKS = List.of("table", "journal");

    @TempDir
    Path dir;
    private final AtomicInteger example = new AtomicInteger();
    private final AtomicInteger transactionsCommitted = new AtomicInteger();
    private final AtomicInteger transactionsRefused = new AtomicInteger();
    private final AtomicInteger mergesApplied = new AtomicInteger();
    private final AtomicInteger mergesRefused = new AtomicInteger();
    private final AtomicInteger cascades = new AtomicInteger();

    @Test
    void graphsAnswerLikeTheSerialModelOfEndpointsAndUniqueColumns() {
        int examples = Integer.getInteger("palisade.integrity.props.examples", DEFAULT_EXAMPLES);
        qt().withExamples(examples).withShrinkCycles(2).forAll(longs().all()).checkAssert(this::sameAnswers);
        // the sequences exercised graph transactions both ways
        assertThat(transactionsCommitted.get()).isPositive();
        assertThat(transactionsRefused.get()).isPositive();
        // and branch merges, applied and refused
        assertThat(mergesApplied.get()).isPositive();
        assertThat(mergesRefused.get()).isPositive();
    }

    /**
     * A pinned seed whose graph declares the cascade option and whose node deletes take edges along: the random run
     * draws the option for half its sequences, and may not reach such a delete.
     */
    @Test
    void aSeedWithCascadingDeletes() {
        sameAnswers(1L);
        assertThat(cascades.get()).isPositive();
    }

    /** Seeds that once found a difference: kept as regressions. */
    @Test
    void pinnedSeeds() {
        for (long seed : new long[] {8198493106659112033L}) {
            sameAnswers(seed);
        }
    }

    /** The model of one graph branch: each table's rows by id (a row: column → value). */
    private static final class Model {
        final Map<String, Map<String, Map<String, Object>>> tables = new TreeMap<>();
        /** Whether works_at declares {@code "on_endpoint_delete": "cascade"}: a node's delete takes its edges along. */
        final boolean cascade;

        Model(boolean cascade) {
            this.cascade = cascade;
            for (String t : List.of("person", "company", "works_at")) {
                tables.put(t, new TreeMap<>());
            }
        }

        /** A copy (a graph branch forked from this one). */
        Model fork() {
            Model m = new Model(cascade);
            tables.forEach((t, rows) -> rows.forEach((id, r) -> m.tables.get(t).put(id, new LinkedHashMap<>(r))));
            return m;
        }

        /** An update's changes as whole new rows, or null when an id is absent (the update is refused whole). */
        List<Map<String, Object>> updated(String table, List<Map<String, Object>> changes) {
            List<Map<String, Object>> out = new ArrayList<>();
            for (Map<String, Object> c : changes) {
                Map<String, Object> old = tables.get(table).get((String) c.get("id"));
                if (old == null) {
                    return null;
                }
                Map<String, Object> r = new LinkedHashMap<>(old);
                r.putAll(c);
                out.add(r);
            }
            return out;
        }

        /** What a write should get: null (ok) or the exception classes that may refuse it. */
        Set<Class<?>> judge(String table, String kind, List<Map<String, Object>> rows) {
            Map<String, Map<String, Object>> t = tables.get(table);
            if (kind.equals("update")) {
                rows = updated(table, rows);
                if (rows == null) {
                    return Set.of(io.palisade.fencing.KeyNotFoundException.class);
                }
            }
            if (kind.equals("delete")) {
                if (!table.equals("works_at") && !cascade) {
                    String col = table.equals("person") ? "src" : "dst";
                    for (Map<String, Object> r : rows) {
                        for (Map<String, Object> e : tables.get("works_at").values()) {
                            if (r.get("id").equals(e.get(col))) {
                                return Set.of(EndpointConflictException.class);
                            }
                        }
                    }
                }
                return null;
            }
            if (kind.equals("insert")) {
                for (Map<String, Object> r : rows) {
                    if (t.containsKey((String) r.get("id"))) {
                        return Set.of(KeyConflictException.class);
                    }
                }
            }
            if (table.equals("works_at")) {
                for (Map<String, Object> r : rows) {
                    if (!tables.get("person").containsKey((String) r.get("src"))
                            || !tables.get("company").containsKey((String) r.get("dst"))) {
                        return Set.of(EndpointConflictException.class);
                    }
                }
            }
            if (table.equals("person")) {
                Map<String, String> holder = new HashMap<>();
                t.forEach((id, r) -> {
                    if (r.get("email") != null) {
                        holder.put((String) r.get("email"), id);
                    }
                });
                // a write's rows take effect at once: every row gives up its old value, then takes its new one
                for (Map<String, Object> r : rows) {
                    String id = (String) r.get("id");
                    holder.values().removeIf(id::equals);
                }
                for (Map<String, Object> r : rows) {
                    String id = (String) r.get("id");
                    Object email = r.get("email");
                    if (email == null) {
                        continue;
                    }
                    String h = holder.get(email);
                    if (h != null && !h.equals(id)) {
                        return Set.of(UniqueConflictException.class);
                    }
                    holder.put((String) email, id);
                }
            }
            return null;
        }

        /**
         * What a graph transaction of {@code parts} should get: null (ok) or the exception classes that may refuse it
         * (a key conflict first; otherwise any rule the state after every part breaks at what the parts wrote).
         */
        Set<Class<?>> judgeTransaction(List<Part> parts) {
            for (Part p : parts) {
                if (p.kind().equals("insert")) {
                    for (Map<String, Object> r : p.rows()) {
                        if (tables.get(p.table()).containsKey((String) r.get("id"))) {
                            return Set.of(KeyConflictException.class);
                        }
                    }
                }
            }
            Model after = fork();
            parts.forEach(p -> after.apply(p.table(), p.kind(), p.rows()));
            Set<Class<?>> broken = new java.util.HashSet<>();
            for (Part p : parts) {
                for (Map<String, Object> r : p.rows()) {
                    String id = (String) r.get("id");
                    if (p.kind().equals("delete")) {
                        if (!p.table().equals("works_at")) {
                            String col = p.table().equals("person") ? "src" : "dst";
                            for (Map<String, Object> e : after.tables.get("works_at").values()) {
                                if (id.equals(e.get(col))) {
                                    broken.add(EndpointConflictException.class);
                                }
                            }
                        }
                        continue;
                    }
                    if (p.table().equals("works_at") && (!after.tables.get("person").containsKey((String) r.get("src"))
                            || !after.tables.get("company").containsKey((String) r.get("dst")))) {
                        broken.add(EndpointConflictException.class);
                    }
                    if (p.table().equals("person") && r.get("email") != null) {
                        for (Map.Entry<String, Map<String, Object>> o : after.tables.get("person").entrySet()) {
                            if (!o.getKey().equals(id) && r.get("email").equals(o.getValue().get("email"))) {
                                broken.add(UniqueConflictException.class);
                            }
                        }
                        // two rows of the transaction taking one value: the later write wins in the model's copy
                        for (Part q : parts) {
                            if (q.table().equals("person") && !q.kind().equals("delete")) {
                                for (Map<String, Object> o : q.rows()) {
                                    if (!o.get("id").equals(id) && r.get("email").equals(o.get("email"))) {
                                        broken.add(UniqueConflictException.class);
                                    }
                                }
                            }
                        }
                    }
                }
            }
            return broken.isEmpty() ? null : broken;
        }

        /**
         * {@code parts} with, under {@link #cascade}, a delete of every edge naming a node they delete (as the model
         * holds them now; an edge a part writes is left to it) after them: what the graph commits.
         */
        List<Part> cascaded(List<Part> parts) {
            if (!cascade) {
                return parts;
            }
            Set<String> written = new java.util.HashSet<>();
            parts.stream().filter(p -> p.table().equals("works_at"))
                    .forEach(p -> p.rows().forEach(r -> written.add((String) r.get("id"))));
            Set<String> gone = new java.util.TreeSet<>();
            for (Part p : parts) {
                if (p.kind().equals("delete") && !p.table().equals("works_at")) {
                    String col = p.table().equals("person") ? "src" : "dst";
                    for (Map<String, Object> r : p.rows()) {
                        tables.get("works_at").forEach((id, e) -> {
                            if (r.get("id").equals(e.get(col)) && !written.contains(id)) {
                                gone.add(id);
                            }
                        });
                    }
                }
            }
            if (gone.isEmpty()) {
                return parts;
            }
            List<Part> out = new ArrayList<>(parts);
            out.add(new Part("works_at", "delete", gone.stream().map(id -> Map.<String, Object>of("id", id)).toList()));
            return out;
        }

        void apply(String table, String kind, List<Map<String, Object>> rows) {
            Map<String, Map<String, Object>> t = tables.get(table);
            if (kind.equals("update")) {
                rows = updated(table, rows);
            }
            for (Map<String, Object> r : rows) {
                String id = (String) r.get("id");
                if (kind.equals("delete")) {
                    t.remove(id);
                } else {
                    t.put(id, new LinkedHashMap<>(r));
                }
            }
        }
    }

    /** One part of a graph transaction: its table, kind (insert, upsert, delete) and rows (a delete's: ids). */
    record Part(String table, String kind, List<Map<String, Object>> rows) {
    }

    /** Two or three parts on random tables, every (table, id) once. */
    private static List<Part> transaction(Random rnd) {
        List<Part> parts = new ArrayList<>();
        Set<String> used = new java.util.HashSet<>();
        int n = 2 + rnd.nextInt(2);
        for (int i = 0; i < n; i++) {
            String table = pick(rnd, List.of("person", "company", "works_at"));
            String kind = pick(rnd, List.of("insert", "upsert", "delete"));
            List<Map<String, Object>> rows = new ArrayList<>();
            for (Map<String, Object> r : rows(rnd, table, kind)) {
                if (used.add(table + "/" + r.get("id"))) {
                    rows.add(r);
                }
            }
            if (!rows.isEmpty()) {
                parts.add(new Part(table, kind, rows));
            }
        }
        return parts;
    }

    /**
     * The graph transaction a merge of {@code source} into {@code target} is (docs/transactions.md "Branch merges"):
     * for each key the source changed since the fork, its row inserted into or upserted on the target, or deleted from
     * it when the source no longer holds it; empty parts left out.
     */
    private static List<Part> mergeParts(Model source, Model target, Set<String> sourceChanged) {
        Map<String, Part> parts = new LinkedHashMap<>();
        for (String key : new java.util.TreeSet<>(sourceChanged)) {
            String table = key.substring(0, key.indexOf('/'));
            String id = key.substring(key.indexOf('/') + 1);
            Map<String, Object> row = source.tables.get(table).get(id);
            boolean held = target.tables.get(table).containsKey(id);
            String kind = row == null ? (held ? "delete" : null) : held ? "upsert" : "insert";
            if (kind != null) {
                parts.computeIfAbsent(table + " " + kind, k -> new Part(table, kind, new ArrayList<>()))
                        .rows().add(row == null ? Map.of("id", id) : new LinkedHashMap<>(row));
            }
        }
        return new ArrayList<>(parts.values());
    }

    private static Class<?> commit(Graph g, String branch, List<Part> parts) {
        Transaction t = g.transaction(branch);
        for (Part p : parts) {
            switch (p.kind()) {
                case "insert" -> t.insert(p.table(), p.rows().stream().map(Row::of).toList());
                case "upsert" -> t.upsert(p.table(), p.rows().stream().map(Row::of).toList());
                default -> t.delete(p.table(), p.rows().stream().map(r -> (String) r.get("id")).toList());
            }
        }
        try {
            t.commit();
            return null;
        } catch (io.palisade.fencing.PalisadeException e) {
            return e.getClass();
        }
    }

    private static String catalog(Random rnd, boolean cascade) {
        return """
                {"tables": [
                  {"name": "person", "kind": "node", "ack": "%s", "unique": ["email"], "columns": [
                    {"name": "id", "type": "string"}, {"name": "email", "type": "string", "nullable": true}]},
                  {"name": "company", "kind": "node", "ack": "%s", "columns": [{"name": "id", "type": "string"}]},
                  {"name": "works_at", "kind": "edge", "ack": "%s", "src": "person", "dst": "company",%s "columns": [
                    {"name": "id", "type": "string"}, {"name": "src", "type": "string"}, {"name": "dst", "type": "string"}]}
                ]}""".formatted(pick(rnd, ACKS), pick(rnd, ACKS), pick(rnd, ACKS),
                cascade ? " \"on_endpoint_delete\": \"cascade\"," : "");
    }

    private static <T> T pick(Random rnd, List<T> from) {
        return from.get(rnd.nextInt(from.size()));
    }

    /** A random update of a row of {@code table}: its id and one changed column (a company has none: its id only). */
    private static Map<String, Object> change(Random rnd, String table) {
        Map<String, Object> full = row(rnd, table, false);
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("id", full.get("id"));
        switch (table) {
            case "person" -> r.put("email", full.get("email"));
            case "works_at" -> {
                String col = rnd.nextBoolean() ? "src" : "dst";
                r.put(col, full.get(col));
            }
            default -> {
            }
        }
        return r;
    }

    /** A random row of {@code table} (a delete's: only its id). */
    private static Map<String, Object> row(Random rnd, String table, boolean delete) {
        Map<String, Object> r = new LinkedHashMap<>();
        switch (table) {
            case "person" -> {
                r.put("id", pick(rnd, PEOPLE));
                if (!delete) {
                    r.put("email", rnd.nextInt(3) == 0 ? null : pick(rnd, EMAILS));
                }
            }
            case "company" -> r.put("id", pick(rnd, COMPANIES));
            default -> {
                r.put("id", pick(rnd, EDGES));
                if (!delete) {
                    r.put("src", rnd.nextInt(6) == 0 ? "p9" : pick(rnd, PEOPLE));
                    r.put("dst", rnd.nextInt(6) == 0 ? "c9" : pick(rnd, COMPANIES));
                }
            }
        }
        return r;
    }

    /** One write's rows: one or two, distinct ids. */
    private static List<Map<String, Object>> rows(Random rnd, String table, String kind) {
        boolean delete = kind.equals("delete");
        boolean update = kind.equals("update");
        List<Map<String, Object>> rows = new ArrayList<>();
        rows.add(update ? change(rnd, table) : row(rnd, table, delete));
        if (rnd.nextInt(3) == 0) {
            Map<String, Object> second = update ? change(rnd, table) : row(rnd, table, delete);
            if (!second.get("id").equals(rows.get(0).get("id"))) {
                rows.add(second);
            }
        }
        return rows;
    }

    private CompletableFuture<Receipt> submit(Graph g, BufferAllocator allocator, List<VectorSchemaRoot> open,
                                              String branch, String table, String kind, List<Map<String, Object>> rows) {
        if (kind.equals("delete")) {
            return g.deleteAsync(branch, table, rows.stream().map(r -> (String) r.get("id")).toList(), WriteOptions.NONE);
        }
        if (kind.equals("update")) {
            List<Row> changes = rows.stream().map(Row::of).toList();
            return g.updateAsync(branch, table, changes, WriteOptions.NONE);
        }
        VectorSchemaRoot root = VectorSchemaRoot.create(g.catalog().require(table).arrowSchema(), allocator);
        open.add(root);
        ArrowRows.fill(root, rows);
        return kind.equals("insert") ? g.insertAsync(branch, table, root, WriteOptions.NONE)
                : g.upsertAsync(branch, table, root, WriteOptions.NONE);
    }

    private static Class<?> outcome(CompletableFuture<Receipt> f) {
        try {
            f.join();
            return null;
        } catch (CompletionException e) {
            return e.getCause().getClass();
        }
    }

    private void sameAnswers(long seed) {
        Random rnd = new Random(seed);
        Path path = dir.resolve("g" + example.incrementAndGet());
        // the cascade option drawn apart too, so that the writes of a seed are those it drew before it existed
        Random cascadeRnd = new Random(seed ^ 0x636173636164L);
        boolean cascade = cascadeRnd.nextBoolean();
        Map<String, Model> models = new TreeMap<>();
        models.put("main", new Model(cascade));
        // folds at small random bounds land between and inside the steps of journal-ack tables
        Options options = Options.defaults().withFolding(3_600_000, 1 + rnd.nextInt(4), 1L << 40);
        String catalog = catalog(rnd, cascade);
        int forkAt = rnd.nextInt(OPS);
        // merges drawn apart, so that the writes of a seed are those it drew before merges existed
        Random merges = new Random(seed ^ 0x6d65726765L);
        // per branch, from the fork on: the "table/id" keys its applied writes named (what a merge reads)
        Map<String, Set<String>> changed = new TreeMap<>();
        try (BufferAllocator allocator = new RootAllocator()) {
            try (Graph g = Palisade.create(path, Catalog.fromJson(catalog), options)) {
                for (int step = 0; step < OPS; step++) {
                    if (step == forkAt) {
                        g.createBranch("dev", "main");
                        models.put("dev", models.get("main").fork());
                        changed.put("main", new java.util.HashSet<>());
                        changed.put("dev", new java.util.HashSet<>());
                    }
                    if (models.containsKey("dev") && merges.nextInt(3) == 0) {
                        merge(g, seed, step, models, changed);
                        continue;
                    }
                    if (cascade && cascadeRnd.nextInt(4) == 0 && cascadingDelete(g, seed, step, cascadeRnd, models, changed)) {
                        continue;
                    }
                    String branch = pick(rnd, new ArrayList<>(models.keySet()));
                    Model model = models.get(branch);
                    if (rnd.nextInt(4) == 0) {
                        List<Part> parts = transaction(rnd);
                        if (!parts.isEmpty()) {
                            List<Part> effective = model.cascaded(parts);
                            Set<Class<?>> expected = model.judgeTransaction(effective);
                            Class<?> got = commit(g, branch, parts);
                            String what = "seed " + seed + " step " + step + " " + branch + " transaction " + effective
                                    + ", got " + got + ", model before " + model.tables;
                            if (expected == null) {
                                assertThat(got).as(what).isNull();
                                effective.forEach(p -> model.apply(p.table(), p.kind(), p.rows()));
                                effective.forEach(p -> changed(changed, branch, p.table(), p.rows()));
                                cascades.addAndGet(effective.size() - parts.size());
                                transactionsCommitted.incrementAndGet();
                            } else {
                                transactionsRefused.incrementAndGet();
                                assertThat(got).as(what).isNotNull();
                                assertThat(expected).as(what).contains(got);
                            }
                        }
                        for (Map.Entry<String, Model> m : models.entrySet()) {
                            assertSameRows(g, m.getKey(), m.getValue(), "seed " + seed + " after step " + step);
                        }
                        continue;
                    }
                    String table = pick(rnd, List.of("person", "person", "company", "works_at", "works_at"));
                    String kind = pick(rnd, List.of("insert", "upsert", "upsert", "delete", "update"));
                    if (kind.equals("update") && table.equals("company")) {
                        kind = "upsert"; // a company has no column to change
                    }
                    int burst = rnd.nextInt(4) == 0 ? 2 + rnd.nextInt(3) : 1;
                    List<List<Map<String, Object>>> writes = new ArrayList<>();
                    for (int i = 0; i < burst; i++) {
                        writes.add(rows(rnd, table, kind));
                    }
                    List<VectorSchemaRoot> open = new ArrayList<>();
                    List<CompletableFuture<Receipt>> futures = new ArrayList<>();
                    for (List<Map<String, Object>> w : writes) {
                        futures.add(submit(g, allocator, open, branch, table, kind, w));
                    }
                    for (int i = 0; i < burst; i++) {
                        Class<?> got = outcome(futures.get(i));
                        Set<Class<?>> expected = model.judge(table, kind, writes.get(i));
                        List<Part> effective = model.cascaded(List.of(new Part(table, kind, writes.get(i))));
                        String what = "seed " + seed + " step " + step + " " + branch + " " + kind + " " + table + " "
                                + writes.get(i) + " (write " + i + " of " + burst + ": " + writes + "), got " + got
                                + ", model before " + model.tables.get(table);
                        if (expected == null) {
                            assertThat(got).as(what).isNull();
                            effective.forEach(p -> model.apply(p.table(), p.kind(), p.rows()));
                            effective.forEach(p -> changed(changed, branch, p.table(), p.rows()));
                            cascades.addAndGet(effective.size() - 1);
                        } else {
                            assertThat(got).as(what).isNotNull();
                            assertThat(expected).as(what).contains(got);
                        }
                    }
                    open.forEach(VectorSchemaRoot::close);
                    for (Map.Entry<String, Model> m : models.entrySet()) {
                        assertSameRows(g, m.getKey(), m.getValue(), "seed " + seed + " after step " + step);
                    }
                }
            }
            try (Graph g = Palisade.open(path, options)) {
                for (Map.Entry<String, Model> m : models.entrySet()) {
                    assertSameRows(g, m.getKey(), m.getValue(), "seed " + seed + " after reopen");
                    // the checks hold on images rebuilt from the reopened graph
                    if (cascade) {
                        // a person's delete takes their edges along
                        for (Map<String, Object> e : m.getValue().tables.get("works_at").values()) {
                            String src = (String) e.get("src");
                            assertThat(outcome(g.deleteAsync(m.getKey(), "person", List.of(src), WriteOptions.NONE)))
                                    .as("seed %d: cascading delete of %s on %s", seed, src, m.getKey()).isNull();
                            assertThat(g.scan(m.getKey(), "works_at")).as("seed %d: edges of %s", seed, src)
                                    .noneMatch(r -> src.equals(String.valueOf(r.get("src"))));
                            break;
                        }
                        continue;
                    }
                    for (Map<String, Object> e : m.getValue().tables.get("works_at").values()) {
                        String src = (String) e.get("src");
                        assertThat(outcome(g.deleteAsync(m.getKey(), "person", List.of(src), WriteOptions.NONE)))
                                .as("seed %d: delete of %s named by an edge on %s", seed, src, m.getKey())
                                .isEqualTo(EndpointConflictException.class);
                    }
                }
            }
        }
    }

    /**
     * Under the cascade option: deletes an endpoint of a random edge of a random branch, as a single write or as a
     * transaction, and checks that its edges went with it, as the model says; false when the branch has no edge.
     */
    private boolean cascadingDelete(Graph g, long seed, int step, Random rnd, Map<String, Model> models,
                                    Map<String, Set<String>> changed) {
        String branch = pick(rnd, new ArrayList<>(models.keySet()));
        Model model = models.get(branch);
        List<Map<String, Object>> edges = new ArrayList<>(model.tables.get("works_at").values());
        if (edges.isEmpty()) {
            return false;
        }
        Map<String, Object> edge = pick(rnd, edges);
        String table = rnd.nextBoolean() ? "person" : "company";
        String id = (String) edge.get(table.equals("person") ? "src" : "dst");
        List<Part> parts = List.of(new Part(table, "delete", List.of(Map.of("id", id))));
        List<Part> effective = model.cascaded(parts);
        Set<Class<?>> expected = model.judgeTransaction(effective);
        boolean single = rnd.nextBoolean();
        Class<?> got = single ? outcome(g.deleteAsync(branch, table, List.of(id), WriteOptions.NONE))
                : commit(g, branch, parts);
        String what = "seed " + seed + " step " + step + " " + branch + " cascading delete of " + table + "/" + id
                + (single ? " (a single write)" : " (a transaction)") + ": " + effective + ", got " + got
                + ", model before " + model.tables;
        assertThat(expected).as(what).isNull();
        assertThat(got).as(what).isNull();
        assertThat(effective).as(what).hasSize(2);
        effective.forEach(p -> model.apply(p.table(), p.kind(), p.rows()));
        effective.forEach(p -> changed(changed, branch, p.table(), p.rows()));
        this.cascades.addAndGet(effective.size() - 1);
        for (Map.Entry<String, Model> m : models.entrySet()) {
            assertSameRows(g, m.getKey(), m.getValue(), "seed " + seed + " after step " + step + " (cascade)");
        }
        return true;
    }

    /** Notes the keys of {@code rows} of {@code table} as changed on {@code branch} (once it has forked). */
    private static void changed(Map<String, Set<String>> changed, String branch, String table,
                                List<Map<String, Object>> rows) {
        Set<String> keys = changed.get(branch);
        if (keys != null) {
            rows.forEach(r -> keys.add(table + "/" + r.get("id")));
        }
    }

    /**
     * Merges {@code dev} into {@code main} and checks the answer against the model: a key changed on both sides since
     * the fork is a merge conflict; otherwise the merge is the graph transaction {@link #mergeParts} names, judged as
     * one.
     */
    private void merge(Graph g, long seed, int step, Map<String, Model> models, Map<String, Set<String>> changed) {
        Model dev = models.get("dev");
        Model main = models.get("main");
        Set<String> both = new java.util.TreeSet<>(changed.get("dev"));
        both.retainAll(changed.get("main"));
        List<Part> parts = main.cascaded(mergeParts(dev, main, changed.get("dev")));
        Set<Class<?>> expected = !both.isEmpty() ? Set.of(io.palisade.fencing.MergeConflictException.class)
                : parts.isEmpty() ? null : main.judgeTransaction(parts);
        Class<?> got;
        try {
            g.merge("dev", "main");
            got = null;
        } catch (io.palisade.fencing.PalisadeException e) {
            got = e.getClass();
        }
        String what = "seed " + seed + " step " + step + " merge dev into main: " + parts + " (both sides changed "
                + both + "), got " + got + ", main before " + main.tables;
        if (expected == null) {
            assertThat(got).as(what).isNull();
            parts.forEach(p -> main.apply(p.table(), p.kind(), p.rows()));
            parts.forEach(p -> changed(changed, "main", p.table(), p.rows()));
            mergesApplied.incrementAndGet();
        } else {
            assertThat(got).as(what).isNotNull();
            assertThat(expected).as(what).contains(got);
            mergesRefused.incrementAndGet();
        }
        for (Map.Entry<String, Model> m : models.entrySet()) {
            assertSameRows(g, m.getKey(), m.getValue(), "seed " + seed + " after step " + step + " (merge)");
        }
    }

    private static void assertSameRows(Graph g, String branch, Model model, String what) {
        for (String t : model.tables.keySet()) {
            Map<String, Map<String, Object>> actual = new TreeMap<>();
            for (Map<String, Object> r : g.scan(branch, t)) {
                Map<String, Object> copy = new LinkedHashMap<>();
                r.forEach((k, v) -> copy.put(k, v));
                actual.put(String.valueOf(r.get("id")), copy);
            }
            Map<String, Map<String, Object>> expected = model.tables.get(t);
            assertThat(actual.keySet()).as(what + ": ids of " + branch + "/" + t).isEqualTo(expected.keySet());
            for (String id : expected.keySet()) {
                for (Map.Entry<String, Object> c : expected.get(id).entrySet()) {
                    assertThat(Objects.toString(actual.get(id).get(c.getKey())))
                            .as(what + ": " + t + "/" + id + "." + c.getKey()).isEqualTo(Objects.toString(c.getValue()));
                }
            }
        }
    }
}
