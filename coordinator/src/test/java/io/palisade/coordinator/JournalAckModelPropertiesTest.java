package io.palisade.coordinator;

import io.palisade.fencing.KeyConflictException;
import io.palisade.heads.FoldMark;
import io.palisade.journal.TableHead;
import io.palisade.substrate.KeyedTable;
import io.palisade.substrate.TableRef;
import io.palisade.substrate.lance.LanceTableStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.longs;

/**
 * The journal-ack serial-model property (docs/journal-ack.md): a random sequence of inserts, upserts, deletes, scans, gets,
 * graph branch creations and merges run one by one on two graphs with the same catalog shape, one whose {@code person}
 * is {@code "ack": "journal"} (folded at random small bounds, so folds land between, inside and after the writes) and
 * one whose {@code person} is {@code "ack": "table"}. Both graphs and a serial model of the documented semantics
 * (upsert replaces, update changes existing rows only and refuses absent keys whole, delete removes, a strict insert
 * fails as a whole with {@link KeyConflictException} naming only present keys of its own) must give the same answer to every operation: the same success or failure kind, the same
 * conflicting keys, the same scan and get results and merge counts. After a full fold (closing the graph) the Lance
 * tables read directly, at every graph branch's published head, must be equal too, and no journal-ack table is left
 * with unfolded writes.
 *
 * <p>{@code -Dpalisade.ack.props.examples=N} runs N random sequences (default {@value #DEFAULT_EXAMPLES});
 * {@code -Dpalisade.ack.props.ops=M} caps each sequence's length (default {@value #DEFAULT_OPS}).
 */
class JournalAckModelPropertiesTest {
    static final int DEFAULT_EXAMPLES = 12;
    static final int DEFAULT_OPS = 24;
    private static final List<String> KEYS = List.of("a", "b", "c", "d", "e");
    private static final String SHAPE = """
            {"tables": [{"name": "person", "kind": "node", "ack": "%s", "columns": [{"name": "id", "type": "string"},
              {"name": "age", "type": "int64", "nullable": true}]}]}
            """;

    @TempDir
    Path dir;
    private final AtomicInteger example = new AtomicInteger();

    @Test
    void journalAckAndTableAckGraphsAnswerLikeTheSerialModelAndFoldToTheSameTables() {
        int examples = Integer.getInteger("palisade.ack.props.examples", DEFAULT_EXAMPLES);
        qt().withExamples(examples).withShrinkCycles(3).forAll(longs().all()).checkAssert(this::sameAnswers);
    }

    /** Fixed seeds that between them reach every kind of answer (the random examples need not): pins the comparison. */
    @Test
    void fixedSeedsReachEveryKindOfAnswer() {
        Map<String, Integer> seen = new TreeMap<>();
        for (long seed : new long[]{18, 23, 91}) {
            sameAnswers(seed).forEach((k, v) -> seen.merge(k, v, Integer::sum));
        }
        assertThat(seen).containsKeys("insert", "upsert", "update", "key-not-found", "delete", "scan", "get", "branch", "merge",
                "key-conflict");
    }

    /**
     * Found by this property (table-ack, not journal-ack): a graph branch of a graph branch whose first write forked
     * its Lance table (a fork through a branch rebuilds the {@code id} index: one more version) and then failed left a
     * fork one version past its pin, and the next write's fork reuse refused it ({@code Graph.forkForBranch}). The
     * fork reuse now accepts exactly that one CreateIndex version above the pin.
     */
    @Test
    void aBranchOfABranchTakesASecondWriteAfterAFailedFirstOne() {
        try (Graph g = Palisade.create(dir.resolve("nested"), Catalog.fromJson(SHAPE.formatted("table")), Options.defaults())) {
            g.insert("main", "person", List.of(Row.of("id", "a", "age", 1)));
            g.createBranch("b1", "main");
            g.upsert("b1", "person", List.of(Row.of("id", "e", "age", 2)));
            g.createBranch("b8", "b1");
            assertThat(write(g, x -> x.insert("b8", "person", people(List.of("e"), 4)), List.of("e")))
                    .isEqualTo("KeyConflictException [e]");
            assertThat(write(g, x -> x.upsert("b8", "person", people(List.of("b"), 5)), List.of("b"))).isEqualTo("ok");
            assertThat(ages(g.scan("b8", "person"))).isEqualTo(new TreeMap<>(Map.of("a", 1L, "b", 5L, "e", 2L)));
        }
    }

    private enum Kind { INSERT, UPSERT, DELETE, SCAN, GET, BRANCH, MERGE }

    /** Runs the seed's sequence on both graphs and the model; returns how often each kind of answer was seen. */
    private Map<String, Integer> sameAnswers(long seed) {
        Random rnd = new Random(seed);
        int maxOps = Integer.getInteger("palisade.ack.props.ops", DEFAULT_OPS);
        int n = 1 + rnd.nextInt(maxOps);
        int[] everies = {1, 2, 3, 5, 1_000_000};
        int foldEvery = everies[rnd.nextInt(everies.length)];
        long maxBytes = rnd.nextInt(4) == 0 ? 256 : 1L << 40; // a small memory bound makes writers wait for a fold
        Options journalOptions = Options.defaults().withFolding(3_600_000, foldEvery, maxBytes);
        String context = "seed " + seed + " (foldEvery " + foldEvery + ", maxUnfoldedBytes " + maxBytes + ")";
        Path j = dir.resolve("j" + example.incrementAndGet());
        Path t = dir.resolve("t" + example.get());
        Map<String, Integer> seen = new TreeMap<>();
        // the serial model: rows per graph branch, the branch each was created from
        Map<String, TreeMap<String, Long>> model = new TreeMap<>();
        model.put("main", new TreeMap<>());
        Map<String, String> parent = new TreeMap<>();
        List<String> trace = new ArrayList<>();
        try (Graph gj = Palisade.create(j, Catalog.fromJson(SHAPE.formatted("journal")), journalOptions);
             Graph gt = Palisade.create(t, Catalog.fromJson(SHAPE.formatted("table")), Options.defaults())) {
            assertThat(gj.catalog().require("person").ack()).isEqualTo(Catalog.Ack.JOURNAL);
            for (int i = 0; i < n; i++) {
                List<String> branches = new ArrayList<>(model.keySet());
                String branch = branches.get(rnd.nextInt(branches.size()));
                int r = rnd.nextInt(100);
                Kind kind = r < 25 ? Kind.INSERT : r < 45 ? Kind.UPSERT : r < 58 ? Kind.DELETE : r < 70 ? Kind.SCAN
                        : r < 80 ? Kind.GET : r < 90 ? Kind.BRANCH : Kind.MERGE;
                List<String> shuffled = new ArrayList<>(KEYS);
                Collections.shuffle(shuffled, rnd);
                List<String> keys = List.copyOf(shuffled.subList(0, 1 + rnd.nextInt(3)));
                long value = i + 1;
                String what = kind + " " + branch + " " + keys;
                trace.add(what);
                String where = context + ", op " + i + " " + what + " of " + trace;
                TreeMap<String, Long> rows = model.get(branch);
                switch (kind) {
                    case INSERT -> {
                        List<String> present = keys.stream().filter(rows::containsKey).toList();
                        String expected = present.isEmpty() ? "ok" : "KeyConflictException";
                        String aj = write(gj, g -> g.insert(branch, "person", people(keys, value)), keys);
                        String at = write(gt, g -> g.insert(branch, "person", people(keys, value)), keys);
                        assertThat(aj).as("journal-ack answer, %s", where).isEqualTo(at);
                        assertThat(at).as("table-ack answer, %s", where).startsWith(expected);
                        if (present.isEmpty()) {
                            keys.forEach(k -> rows.put(k, value));
                            seen.merge("insert", 1, Integer::sum);
                        } else {
                            // the conflict names keys of the insert's own that are present, nothing else
                            assertThat(conflictKeys(at)).as(where).isNotEmpty().isSubsetOf(present);
                            seen.merge("key-conflict", 1, Integer::sum);
                        }
                    }
                    case UPSERT -> {
                        if (i % 2 == 1) {
                            // every other upsert draw is an update (no draw of its own: the seeds keep their sequences)
                            List<String> absent = keys.stream().filter(k -> !rows.containsKey(k)).toList();
                            List<Row> changes = keys.stream().map(k -> Row.of("id", k, "age", value)).toList();
                            String aj = write(gj, g -> g.update(branch, "person", changes), keys);
                            String at = write(gt, g -> g.update(branch, "person", changes), keys);
                            assertThat(aj).as("journal-ack update, %s", where).isEqualTo(at);
                            if (absent.isEmpty()) {
                                assertThat(at).as(where).isEqualTo("ok");
                                keys.forEach(k -> rows.put(k, value));
                                seen.merge("update", 1, Integer::sum);
                            } else {
                                assertThat(at).as(where).isEqualTo("KeyNotFoundException " + new TreeSet<>(absent));
                                seen.merge("key-not-found", 1, Integer::sum);
                            }
                            continue;
                        }
                        String aj = write(gj, g -> g.upsert(branch, "person", people(keys, value)), keys);
                        String at = write(gt, g -> g.upsert(branch, "person", people(keys, value)), keys);
                        assertThat(aj).as(where).isEqualTo(at).isEqualTo("ok");
                        keys.forEach(k -> rows.put(k, value));
                        seen.merge("upsert", 1, Integer::sum);
                    }
                    case DELETE -> {
                        String aj = write(gj, g -> g.delete(branch, "person", keys), keys);
                        String at = write(gt, g -> g.delete(branch, "person", keys), keys);
                        assertThat(aj).as(where).isEqualTo(at).isEqualTo("ok");
                        keys.forEach(rows::remove);
                        seen.merge("delete", 1, Integer::sum);
                    }
                    case SCAN -> {
                        assertThat(ages(gj.scan(branch, "person"))).as("journal-ack scan, %s", where).isEqualTo(rows);
                        assertThat(ages(gt.scan(branch, "person"))).as("table-ack scan, %s", where).isEqualTo(rows);
                        seen.merge("scan", 1, Integer::sum);
                    }
                    case GET -> {
                        TreeMap<String, Long> expected = new TreeMap<>();
                        keys.stream().filter(rows::containsKey).forEach(k -> expected.put(k, rows.get(k)));
                        assertThat(got(gj.get(branch, "person", keys))).as("journal-ack get, %s", where).isEqualTo(expected);
                        assertThat(got(gt.get(branch, "person", keys))).as("table-ack get, %s", where).isEqualTo(expected);
                        seen.merge("get", 1, Integer::sum);
                    }
                    case BRANCH -> {
                        if (model.size() >= 4) {
                            continue;
                        }
                        // from main only: a write to a branch of a branch is refused on the table-ack path once an
                        // earlier write of it forked its table (see aBranchOfABranchTakesASecondWriteAfterAFailedFirstOne)
                        String name = "b" + i;
                        gj.createBranch(name, "main");
                        gt.createBranch(name, "main");
                        model.put(name, new TreeMap<>(model.get("main")));
                        parent.put(name, "main");
                        seen.merge("branch", 1, Integer::sum);
                    }
                    case MERGE -> {
                        if (branch.equals("main")) {
                            continue;
                        }
                        String target = parent.get(branch);
                        String aj = merge(gj, branch, target);
                        String at = merge(gt, branch, target);
                        assertThat(aj).as("merge %s into %s, %s", branch, target, where).isEqualTo(at);
                        // the merge's semantics are the table-ack path's (docs/branches.md); the model follows it
                        model.put(target, ages(gt.scan(target, "person")));
                        seen.merge(at.startsWith("ok") ? "merge" : "merge-conflict", 1, Integer::sum);
                    }
                }
            }
            for (String b : model.keySet()) {
                assertThat(ages(gj.scan(b, "person"))).as("journal-ack %s at the end, %s of %s", b, context, trace)
                        .isEqualTo(model.get(b));
                assertThat(ages(gt.scan(b, "person"))).as("table-ack %s at the end, %s", b, context).isEqualTo(model.get(b));
            }
        }
        // closing folded everything: the Lance tables alone, read at each branch's head, are the same
        Map<String, TreeMap<String, Long>> lanceJ = lanceTables(j, context);
        Map<String, TreeMap<String, Long>> lanceT = lanceTables(t, context);
        assertThat(lanceJ).as("journal-ack Lance tables after the fold, %s of %s", context, trace).isEqualTo(lanceT)
                .isEqualTo(model);
        return seen;
    }

    /** The answer of one write: "ok" or the failure's class, with a key conflict's keys. */
    private static String write(Graph g, Function<Graph, Receipt> op, List<String> keys) {
        try {
            Receipt r = op.apply(g);
            assertThat(r.table()).isEqualTo("person");
            return "ok";
        } catch (KeyConflictException e) {
            assertThat(e.keys()).isSubsetOf(keys);
            return "KeyConflictException " + new TreeSet<>(e.keys());
        } catch (io.palisade.fencing.KeyNotFoundException e) {
            assertThat(e.keys()).isSubsetOf(keys);
            return "KeyNotFoundException " + new TreeSet<>(e.keys());
        } catch (RuntimeException e) {
            System.out.println("[ack-props] " + g.path().getFileName() + " write failed: " + e);
            return e.getClass().getSimpleName();
        }
    }

    private static List<String> conflictKeys(String answer) {
        String inner = answer.substring(answer.indexOf('[') + 1, answer.indexOf(']'));
        return inner.isEmpty() ? List.of() : List.of(inner.split(", "));
    }

    private static String merge(Graph g, String source, String target) {
        try {
            MergeResult m = g.merge(source, target);
            return "ok inserted=" + m.inserted() + " updated=" + m.updated() + " deleted=" + m.deleted();
        } catch (RuntimeException e) {
            return e.getClass().getSimpleName();
        }
    }

    private static List<Row> people(List<String> keys, long value) {
        return keys.stream().map(k -> Row.of("id", k, "age", value)).toList();
    }

    private static TreeMap<String, Long> ages(List<Map<String, Object>> rows) {
        TreeMap<String, Long> out = new TreeMap<>();
        for (Map<String, Object> r : rows) {
            assertThat(out.put((String) r.get("id"), (Long) r.get("age"))).as("id %s once", r.get("id")).isNull();
        }
        return out;
    }

    private static TreeMap<String, Long> got(Map<String, Row> rows) {
        TreeMap<String, Long> out = new TreeMap<>();
        rows.forEach((k, row) -> out.put(k, row.int64("age")));
        return out;
    }

    /** Every graph branch's person table, read from Lance at the branch's published head (the graph reopened). */
    private static Map<String, TreeMap<String, Long>> lanceTables(Path root, String context) {
        Map<String, TableHead> heads = new TreeMap<>();
        try (Graph g = Palisade.open(root, JournalAckTest.noAutoFold())) {
            for (String b : g.branches()) {
                FoldMark m = g.state().foldMark(b, "person");
                assertThat(m.unfolded()).as("%s: unfolded writes on %s after the close, %s", root, b, context).isZero();
                heads.put(b, g.state().head(b, "person").orElseThrow());
            }
        }
        Map<String, TreeMap<String, Long>> out = new TreeMap<>();
        try (LanceTableStore s = new LanceTableStore(root.resolve("tables").toString())) {
            heads.forEach((b, h) -> {
                try (KeyedTable table = s.openKeyed("person", new TableRef(h.tableBranch(), h.version()))) {
                    out.put(b, ages(table.scan()));
                }
            });
        }
        return out;
    }
}
