package io.palisade.substrate.peer;

import io.palisade.fencing.KeyFilter;
import io.palisade.fencing.action.Action;
import io.palisade.fencing.conflict.CommittedTransaction;
import io.palisade.fencing.conflict.ConflictResolver;
import io.palisade.fencing.conflict.Transaction;
import io.palisade.fencing.conflict.Verdict;
import io.palisade.substrate.ArrowRows;
import io.palisade.substrate.CatalogActions;
import io.palisade.substrate.CommitDescription;
import io.palisade.substrate.TableRef;
import io.palisade.substrate.lance.LanceTableStore;
import org.apache.arrow.c.ArrowArrayStream;
import org.apache.arrow.c.Data;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lance.Dataset;
import org.lance.Fragment;
import org.lance.FragmentMetadata;
import org.lance.SourcedTransaction;
import org.lance.WriteParams;
import org.lance.compaction.CompactionOptions;
import org.lance.index.IndexOptions;
import org.lance.index.IndexParams;
import org.lance.index.IndexType;
import org.lance.index.OptimizeOptions;
import org.lance.index.scalar.ScalarIndexParams;
import org.lance.ipc.LanceScanner;
import org.lance.ipc.ScanOptions;
import org.lance.merge.MergeInsertParams;
import org.lance.operation.Append;
import org.lance.operation.Overwrite;
import org.lance.schema.SqlExpressions;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The differential check against real Lance commits: two operations that lance-core 7.0.0 runs
 * from Java are staged on one keyed table at the same read version (two handles) and committed in both
 * orders; what Lance did (both committed, or the second refused) and the table that resulted (rows and values,
 * row count, schema, config, per-key answers of filtered reads, which use the index where one exists) are
 * compared with the two serial executions (each operation re-run on the other's result; an operation that
 * fails there has no effect). Palisade's verdict is computed from the versions each operation committed alone
 * on the base ({@link LanceTableStore#decompose} → {@link CatalogActions} → {@link ConflictResolver}, with the
 * exact key filters Palisade's journal would hold for merge-inserts, deletes and overwrites).
 *
 * <p>Must hold: wherever Palisade says compatible and Lance commits both, the result equals one of the serial
 * executions; equivalently, wherever Lance commits both and the result is not serial, Palisade says conflict.
 *
 * <p>CI runs the curated pairs below (about 45); {@code -Dpalisade.lance.diff.random=N} adds N random pairs over
 * every operation on both base tables ({@code -Dpalisade.lance.diff.seed=S} replays a seed; a failure prints it).
 */
class LanceConcurrencyDifferentialTest {

    private static final String PK = "lance-schema:unenforced-primary-key";

    @TempDir
    Path dir;

    private final BufferAllocator allocator = new RootAllocator();

    enum Base { PLAIN, INDEXED }

    /** A logical operation: re-runnable on any handle; {@code keys}: what Palisade's journal records for it. */
    record Op(String name, Set<Base> bases, List<String> keys, Run run) {
        @Override
        public String toString() {
            return name;
        }
    }

    @FunctionalInterface
    interface Run {
        void on(Dataset d, LanceConcurrencyDifferentialTest t) throws Exception;
    }

    /** What a run produced: whether each operation committed, and the table's observable state. */
    record Outcome(boolean firstCommitted, boolean secondCommitted, String error, String state) {
    }

    record Result(Op a, Op b, Base base, boolean palisadeCompatible, String palisadeReason,
                  Outcome ab, Outcome ba, Set<String> serial) {
        boolean bothCommitted(Outcome o) {
            return o.firstCommitted() && o.secondCommitted();
        }

        boolean nonSerial(Outcome o) {
            return bothCommitted(o) && !serial.contains(o.state());
        }
    }

    // ------------------------------------------------------------------ operations

    static final Set<Base> BOTH = Set.of(Base.PLAIN, Base.INDEXED);

    static List<Op> operations() {
        List<Op> ops = new ArrayList<>();
        for (String k : List.of("n1", "n2")) {
            ops.add(new Op("insert " + k, BOTH, List.of(k), (d, t) -> t.merge(d, true, 5, k)));
        }
        ops.add(new Op("upsert n1", BOTH, List.of("n1"), (d, t) -> t.merge(d, false, 9, "n1")));
        for (String k : List.of("k1", "k4")) {
            ops.add(new Op("upsert " + k, BOTH, List.of(k), (d, t) -> t.merge(d, false, 7, k)));
            ops.add(new Op("delete " + k, BOTH, List.of(k), (d, t) -> d.delete("id = '" + k + "'")));
        }
        ops.add(new Op("append n1", BOTH, List.of(), (d, t) -> t.append(d, "n1")));
        ops.add(new Op("append k1", BOTH, List.of(), (d, t) -> t.append(d, "k1")));
        ops.add(new Op("add column w = v * 2", BOTH, List.of(),
                (d, t) -> d.addColumns(new SqlExpressions.Builder().withExpression("w", "v * 2").build(), Optional.empty())));
        ops.add(new Op("add null column z", BOTH, List.of(),
                (d, t) -> d.addColumns(List.of(new Field("z", FieldType.nullable(new ArrowType.Int(64, true)), null)))));
        ops.add(new Op("overwrite o1,o2", BOTH, List.of("o1", "o2"), (d, t) -> t.overwrite(d, "o1", "o2")));
        ops.add(new Op("overwrite o2,o3", BOTH, List.of("o2", "o3"), (d, t) -> t.overwrite(d, "o2", "o3")));
        ops.add(new Op("create index", Set.of(Base.PLAIN), List.of(), (d, t) -> t.createIndex(d)));
        ops.add(new Op("optimize index", Set.of(Base.INDEXED), List.of(), (d, t) -> d.optimizeIndices(OptimizeOptions.builder().build())));
        ops.add(new Op("compact", BOTH, List.of(),
                (d, t) -> d.compact(CompactionOptions.builder().withTargetRowsPerFragment(1000).build())));
        ops.add(new Op("config set a", BOTH, List.of(), (d, t) -> d.updateConfig(Map.of("a", "1"))));
        ops.add(new Op("config set c", BOTH, List.of(), (d, t) -> d.updateConfig(Map.of("c", "2"))));
        ops.add(new Op("config delete b", BOTH, List.of(), (d, t) -> d.deleteConfigKeys(Set.of("b"))));
        return ops;
    }

    static Op op(String name) {
        return operations().stream().filter(o -> o.name().equals(name)).findFirst().orElseThrow(() -> new IllegalArgumentException(name));
    }

    /** The CI set: every operation against the ones it can plausibly meet. */
    static List<Object[]> curated() {
        List<Object[]> p = new ArrayList<>();
        String[][] plain = {
                {"insert n1", "insert n1"}, {"insert n1", "insert n2"}, {"insert n1", "upsert n1"}, {"upsert k1", "upsert k1"},
                {"upsert k1", "upsert k4"}, {"upsert k1", "delete k1"}, {"upsert k1", "delete k4"}, {"insert n1", "delete k1"},
                {"append n1", "insert n1"}, {"append k1", "upsert k1"}, {"append n1", "upsert n1"}, {"delete k1", "delete k1"},
                {"delete k1", "delete k4"}, {"add column w = v * 2", "upsert k1"}, {"add column w = v * 2", "insert n1"},
                {"add column w = v * 2", "append n1"}, {"add column w = v * 2", "delete k1"}, {"add column w = v * 2", "compact"},
                {"add column w = v * 2", "add null column z"}, {"add null column z", "upsert k1"}, {"overwrite o1,o2", "insert n1"},
                {"overwrite o1,o2", "overwrite o2,o3"}, {"overwrite o1,o2", "delete k1"}, {"overwrite o1,o2", "add column w = v * 2"},
                {"overwrite o1,o2", "config set a"}, {"create index", "insert n1"}, {"create index", "upsert k1"},
                {"create index", "delete k1"}, {"create index", "compact"}, {"create index", "overwrite o1,o2"},
                {"compact", "insert n1"}, {"compact", "upsert k1"}, {"compact", "delete k1"}, {"compact", "compact"},
                {"config set a", "config set c"}, {"config set a", "config delete b"}, {"config delete b", "config delete b"},
                {"config set a", "insert n1"}};
        for (String[] x : plain) {
            p.add(new Object[]{Base.PLAIN, x[0], x[1]});
        }
        String[][] indexed = {
                {"insert n1", "insert n1"}, {"optimize index", "insert n2"}, {"optimize index", "upsert k1"},
                {"optimize index", "delete k1"}, {"optimize index", "compact"}, {"compact", "upsert k1"},
                {"optimize index", "optimize index"}};
        for (String[] x : indexed) {
            p.add(new Object[]{Base.INDEXED, x[0], x[1]});
        }
        return p;
    }

    // ------------------------------------------------------------------ the check

    @Test
    void wherePalisadeSaysCompatibleRealConcurrentLanceCommitsAreSerial() throws Exception {
        List<Object[]> pairs = new ArrayList<>(curated());
        int random = Integer.getInteger("palisade.lance.diff.random", 0);
        long seed = Long.getLong("palisade.lance.diff.seed", System.nanoTime());
        if (random > 0) {
            Random r = new Random(seed);
            List<Op> ops = operations();
            for (int i = 0; i < random; i++) {
                Base base = r.nextBoolean() ? Base.PLAIN : Base.INDEXED;
                List<Op> valid = ops.stream().filter(o -> o.bases().contains(base)).toList();
                p(pairs, base, valid.get(r.nextInt(valid.size())).name(), valid.get(r.nextInt(valid.size())).name());
            }
            System.out.println("[lance-diff] random pairs: " + random + " (seed " + seed
                    + "; replay with -Dpalisade.lance.diff.random=" + random + " -Dpalisade.lance.diff.seed=" + seed + ")");
        }
        Map<Base, Path> bases = new TreeMap<>();
        for (Base b : Base.values()) {
            bases.put(b, base(b));
        }
        List<Result> results = new ArrayList<>();
        List<String> violations = new ArrayList<>();
        try (LanceTableStore store = new LanceTableStore(dir.resolve("runs").toString())) {
            int n = 0;
            for (Object[] pair : pairs) {
                Result res = run(store, bases, (Base) pair[0], op((String) pair[1]), op((String) pair[2]), n++);
                results.add(res);
                for (Outcome o : List.of(res.ab(), res.ba())) {
                    if (res.palisadeCompatible() && res.nonSerial(o)) {
                        violations.add(res.base() + " [" + res.a() + "] × [" + res.b() + "]: Palisade says compatible ("
                                + res.palisadeReason() + ") but Lance committed both and the table is no serial execution: "
                                + o.state() + " not in " + res.serial() + (random > 0 ? " (seed " + seed + ")" : ""));
                    }
                }
            }
        }
        report(results);
        assertThat(violations).isEmpty();
        // the check has teeth: some real pair is not serial (and Palisade says conflict there)
        assertThat(results).anyMatch(r -> r.nonSerial(r.ab()) || r.nonSerial(r.ba()));
        assertThat(results).anyMatch(r -> r.palisadeCompatible() && r.bothCommitted(r.ab()) && r.bothCommitted(r.ba()));
    }

    private static void p(List<Object[]> pairs, Base b, String x, String y) {
        pairs.add(new Object[]{b, x, y});
    }

    private Result run(LanceTableStore store, Map<Base, Path> bases, Base base, Op a, Op b, int n) throws Exception {
        Path runs = dir.resolve("runs");
        // serial executions; each operation's own commit on the base is what Palisade judges
        Path sab = copy(bases.get(base), runs.resolve("s" + n + "ab.lance"));
        Path sba = copy(bases.get(base), runs.resolve("s" + n + "ba.lance"));
        long baseVersion = version(sab);
        Set<String> serial = new TreeSet<>();
        serial.add(serially(sab, a, b));
        serial.add(serially(sba, b, a));
        List<Action> actionsA = actions(store, "s" + n + "ab", baseVersion, a);
        List<Action> actionsB = actions(store, "s" + n + "ba", baseVersion, b);
        Verdict bSecond = ConflictResolver.check(new Transaction("b", baseVersion, actionsB),
                List.of(new CommittedTransaction("a", baseVersion + 1, actionsA)));
        Verdict aSecond = ConflictResolver.check(new Transaction("a", baseVersion, actionsA),
                List.of(new CommittedTransaction("b", baseVersion + 1, actionsB)));
        assertThat(bSecond.mayCommit()).as("Palisade symmetric on [%s] × [%s]", a, b).isEqualTo(aSecond.mayCommit());
        Outcome ab = concurrently(copy(bases.get(base), runs.resolve("c" + n + "ab.lance")), a, b);
        Outcome ba = concurrently(copy(bases.get(base), runs.resolve("c" + n + "ba.lance")), b, a);
        return new Result(a, b, base, bSecond.mayCommit(), bSecond.reason(), ab, ba, serial);
    }

    /** The actions of {@code op}'s own versions on the base, as the substrate describes them. */
    private List<Action> actions(LanceTableStore store, String table, long baseVersion, Op op) {
        List<Action> out = new ArrayList<>();
        Optional<KeyFilter> keys = op.keys().isEmpty() ? Optional.empty() : Optional.of(KeyFilter.ofStrings(0, op.keys()));
        long last = version(dir.resolve("runs").resolve(table + ".lance"));
        // versions after the first operation's: the serial run recorded where the first one ended
        long end = firstEnd.getOrDefault(table, last);
        for (long v = baseVersion + 1; v <= end; v++) {
            CommitDescription c = store.decompose(table, TableRef.main(v));
            out.addAll(CatalogActions.of(c, true, 0, keys));
        }
        return out;
    }

    private final Map<String, Long> firstEnd = new LinkedHashMap<>();

    private String serially(Path table, Op first, Op second) throws Exception {
        try (Dataset d = open(table)) {
            first.run().on(d, this);
        }
        firstEnd.put(table.getFileName().toString().replace(".lance", ""), version(table));
        try (Dataset d = open(table)) {
            second.run().on(d, this);
        } catch (RuntimeException e) {
            // the second operation fails on the first's result: serially, it has no effect
        }
        return state(table);
    }

    private Outcome concurrently(Path table, Op first, Op second) throws Exception {
        long base = version(table);
        try (Dataset d1 = open(table); Dataset d2 = open(table)) {
            first.run().on(d1, this);
            long afterFirst = version(table);
            String error = "";
            try {
                second.run().on(d2, this);
            } catch (RuntimeException e) {
                error = String.valueOf(e.getMessage()).lines().findFirst().orElse("");
            }
            return new Outcome(afterFirst > base, version(table) > afterFirst, error, state(table));
        }
    }

    // ------------------------------------------------------------------ report

    private static void report(List<Result> results) {
        int both = 0;
        int refused = 0;
        int nonSerial = 0;
        int palisadeConflicts = 0;
        for (Result r : results) {
            for (Outcome o : List.of(r.ab(), r.ba())) {
                both += r.bothCommitted(o) ? 1 : 0;
                refused += o.firstCommitted() && !o.secondCommitted() ? 1 : 0;
                nonSerial += r.nonSerial(o) ? 1 : 0;
            }
            palisadeConflicts += r.palisadeCompatible() ? 0 : 1;
        }
        System.out.println("[lance-diff] pairs=" + results.size() + " runs=" + 2 * results.size() + " both-committed=" + both
                + " second-refused=" + refused + " non-serial=" + nonSerial + " palisade-conflicts=" + palisadeConflicts);
        for (Result r : results) {
            System.out.println("[lance-diff]   " + r.base() + " [" + r.a() + "] × [" + r.b() + "]: palisade "
                    + (r.palisadeCompatible() ? "compatible" : "conflict") + "; lance a→b " + describe(r, r.ab())
                    + ", b→a " + describe(r, r.ba()));
        }
    }

    private static String describe(Result r, Outcome o) {
        if (!o.secondCommitted()) {
            String e = o.error().toLowerCase(java.util.Locale.ROOT);
            return e.contains("concurrent writers") || e.contains("retryable") ? "second retryable conflict"
                    : e.isEmpty() ? "second committed nothing" : "second failed (" + o.error() + ")";
        }
        return r.serial().contains(o.state()) ? "both, serial" : "both, NOT serial";
    }

    // ------------------------------------------------------------------ tables

    private static final Schema SCHEMA = new Schema(List.of(
            new Field("id", new FieldType(false, ArrowType.Utf8.INSTANCE, null, Map.of(PK, "true")), null),
            new Field("v", FieldType.nullable(new ArrowType.Int(64, true)), null)));

    /** Three fragments k0–k2, k3–k5, k6–k8 and config {b: 0}; INDEXED adds a BTREE on id and an unindexed fragment k9. */
    private Path base(Base kind) throws Exception {
        Path p = dir.resolve("base-" + kind + ".lance");
        try (ArrowArrayStream s = stream(SCHEMA, 1, "k0", "k1", "k2");
             Dataset ds = Dataset.write().allocator(allocator).stream(s).uri(p.toString()).execute()) {
            assertThat(ds.version()).isEqualTo(1);
        }
        try (Dataset d = open(p)) {
            append(d, "k3", "k4", "k5");
        }
        try (Dataset d = open(p)) {
            append(d, "k6", "k7", "k8");
        }
        try (Dataset d = open(p)) {
            d.updateConfig(Map.of("b", "0"));
        }
        if (kind == Base.INDEXED) {
            try (Dataset d = open(p)) {
                createIndex(d);
            }
            try (Dataset d = open(p)) {
                append(d, "k9");
            }
        }
        return p;
    }

    void createIndex(Dataset d) {
        d.createIndex(IndexOptions.builder(List.of("id"), IndexType.BTREE,
                IndexParams.builder().setScalarIndexParams(ScalarIndexParams.create("btree", "{}")).build())
                .withIndexName("id_idx").build());
    }

    void merge(Dataset d, boolean fail, long value, String... ids) {
        MergeInsertParams p = new MergeInsertParams(List.of("id")).withConflictRetries(0);
        p = fail ? p.withMatchedFail() : p.withMatchedUpdateAll();
        try (ArrowArrayStream s = stream(SCHEMA, value, ids)) {
            d.mergeInsert(p, s).dataset().close();
        }
    }

    void append(Dataset d, String... ids) {
        List<FragmentMetadata> frags;
        try (ArrowArrayStream s = stream(SCHEMA, 3, ids)) {
            frags = Fragment.write().datasetUri(d.uri()).allocator(allocator).data(s).writeParams(new WriteParams.Builder().build()).execute();
        }
        try (SourcedTransaction tx = d.newTransactionBuilder().operation(Append.builder().fragments(frags).build()).build();
             Dataset after = tx.commit()) {
            after.version();
        }
    }

    void overwrite(Dataset d, String... ids) {
        List<FragmentMetadata> frags;
        try (ArrowArrayStream s = stream(SCHEMA, 4, ids)) {
            frags = Fragment.write().datasetUri(d.uri()).allocator(allocator).data(s).writeParams(new WriteParams.Builder().build()).execute();
        }
        try (SourcedTransaction tx = d.newTransactionBuilder().operation(Overwrite.builder().fragments(frags).schema(SCHEMA).build()).build();
             Dataset after = tx.commit()) {
            after.version();
        }
    }

    private ArrowArrayStream stream(Schema schema, long value, String... ids) {
        ByteArrayOutputStream bos = new ByteArrayOutputStream();
        try (VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator)) {
            List<Map<String, Object>> rows = new ArrayList<>();
            for (String id : ids) {
                Map<String, Object> row = new LinkedHashMap<>();
                row.put("id", id);
                row.put("v", value);
                rows.add(row);
            }
            ArrowRows.fill(root, rows);
            try (ArrowStreamWriter w = new ArrowStreamWriter(root, null, bos)) {
                w.start();
                w.writeBatch();
                w.end();
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        ArrowStreamReader r = new ArrowStreamReader(new ByteArrayInputStream(bos.toByteArray()), allocator);
        ArrowArrayStream st = ArrowArrayStream.allocateNew(allocator);
        Data.exportArrayStream(allocator, r, st);
        return st;
    }

    private Dataset open(Path p) {
        return Dataset.open().allocator(allocator).uri(p.toString()).build();
    }

    private long version(Path p) {
        try (Dataset d = open(p)) {
            return d.version();
        }
    }

    private static final List<String> KEYS = List.of("k0", "k1", "k2", "k3", "k4", "k5", "k6", "k7", "k8", "k9", "n1", "n2", "o1", "o2", "o3");

    /** The observable table: schema, rows (sorted), count, config, and each key's filtered count (index where present). */
    private String state(Path p) throws Exception {
        try (Dataset d = open(p)) {
            List<String> rows = new ArrayList<>();
            try (LanceScanner sc = d.newScan(new ScanOptions.Builder().build()); ArrowReader reader = sc.scanBatches()) {
                while (reader.loadNextBatch()) {
                    for (Map<String, Object> row : ArrowRows.rows(reader.getVectorSchemaRoot())) {
                        rows.add(new TreeMap<>(row).toString());
                    }
                }
            }
            rows.sort(Comparator.naturalOrder());
            StringBuilder keys = new StringBuilder();
            for (String k : KEYS) {
                long c = d.countRows("id = '" + k + "'");
                if (c > 0) {
                    keys.append(k).append('=').append(c).append(' ');
                }
            }
            Map<String, String> config = new TreeMap<>(d.getConfig());
            config.keySet().removeIf(k -> k.startsWith("lance."));
            return "fields=" + d.getSchema().getFields().stream().map(Field::getName).toList() + " count=" + d.countRows()
                    + " config=" + config + " keys=[" + keys.toString().trim() + "] rows=" + rows;
        }
    }

    private static Path copy(Path from, Path to) throws IOException {
        try (Stream<Path> s = Files.walk(from)) {
            for (Path src : (Iterable<Path>) s::iterator) {
                Path dst = to.resolve(from.relativize(src).toString());
                if (Files.isDirectory(src)) {
                    Files.createDirectories(dst);
                } else {
                    Files.copy(src, dst);
                }
            }
        }
        return to;
    }
}
