package io.palisade.it.crash;

import io.palisade.coordinator.Catalog;
import io.palisade.coordinator.internal.CrashPoints;
import io.palisade.coordinator.Graph;
import io.palisade.coordinator.Options;
import io.palisade.coordinator.Palisade;
import io.palisade.coordinator.Receipt;
import io.palisade.coordinator.Row;
import io.palisade.coordinator.WriteOptions;
import io.palisade.journal.IntentOutcome;
import io.palisade.journal.JournalEvent;
import io.palisade.journal.JournalReader;
import io.palisade.journal.JournalRecord;
import io.palisade.journal.TableHead;
import io.palisade.substrate.KeyedTable;
import io.palisade.substrate.TableRef;
import io.palisade.substrate.lance.LanceTableStore;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The journal-ack crash points (docs/journal-ack.md, docs/crash-points.md) in child JVMs: a child opens a graph whose
 * {@code person} is {@code "ack": "journal"}, acknowledges five writes (printing {@code ACK <key> <seq>} after each
 * receipt), then folds them — by creating a graph branch, or by closing — with {@code -Dpalisade.crash.at=<point>}, and
 * halts there ({@link CrashPoints#HALT_STATUS}, like SIGKILL: no shutdown hook, nothing flushed). This JVM reopens the
 * graph (recovery runs) and proves: every acknowledged write is present after recovery and after a fold, the Lance
 * table alone holds each id once, and every {@code JOURNALED} write lies in exactly one applied fold's range.
 */
class JournalAckCrashMatrixTest {
    static final String CATALOG = """
            {"tables": [{"name": "person", "kind": "node", "ack": "journal", "columns": [{"name": "id", "type": "string"},
              {"name": "age", "type": "int64", "nullable": true}]}]}
            """;

    @TempDir
    Path dir;

    /** Folds only when asked: lag and count bounds out of reach. */
    static Options noAutoFold() {
        return Options.defaults().withFolding(3_600_000, 1_000_000, 1L << 40);
    }

    /** The child's five writes, in order: key, kind, rows. */
    private static final List<String> WRITES = List.of("w1", "w2", "w3", "w4", "w5");

    static Receipt write(Graph g, String key) {
        WriteOptions o = WriteOptions.idempotencyKey(key);
        return switch (key) {
            case "w1" -> g.insert("main", "person", List.of(Row.of("id", "a", "age", 1), Row.of("id", "b", "age", 2)), o);
            case "w2" -> g.upsert("main", "person", List.of(Row.of("id", "a", "age", 3)), o);
            case "w3" -> g.deleteAsync("main", "person", List.of("b"), o).join();
            case "w4" -> g.insert("main", "person", List.of(Row.of("id", "c", "age", 4)), o);
            case "w5" -> g.upsert("main", "person", List.of(Row.of("id", "d", "age", 5), Row.of("id", "c", "age", 6)), o);
            default -> throw new IllegalArgumentException(key);
        };
    }

    /** The model after the first {@code n} writes. */
    static Map<String, Long> model(int n) {
        Map<String, Long> m = new TreeMap<>();
        for (String key : WRITES.subList(0, n)) {
            switch (key) {
                case "w1" -> {
                    m.put("a", 1L);
                    m.put("b", 2L);
                }
                case "w2" -> m.put("a", 3L);
                case "w3" -> m.remove("b");
                case "w4" -> m.put("c", 4L);
                case "w5" -> {
                    m.put("d", 5L);
                    m.put("c", 6L);
                }
                default -> throw new IllegalArgumentException(key);
            }
        }
        return m;
    }

    /** The compacting child's inserts after {@link #WRITES}. */
    private static final Map<String, Long> EXTRA = new TreeMap<>(Map.of("f", 11L, "g", 12L, "h", 13L));

    /** Folds only when asked, compacts only when asked. */
    static Options manual() {
        return noAutoFold().withCompaction(io.palisade.coordinator.Compaction.DEFAULTS.withAuto(false));
    }

    /**
     * The child JVM: {@code <graph> <fold: branch|close|compact>}. With {@code compact} it folds each write by itself
     * (an index optimise folds first), so the table has a fragment per write, then compacts it.
     */
    public static final class Child {
        public static void main(String[] args) {
            Path graph = Path.of(args[0]);
            boolean compact = args[1].equals("compact");
            Graph g = Palisade.open(graph, compact ? manual() : noAutoFold());
            System.out.println("OPENED");
            System.out.flush();
            for (String key : WRITES) {
                Receipt r = write(g, key);
                System.out.println("ACK " + key + " " + r.seq() + " folded=" + r.folded());
                System.out.flush();
                if (compact) {
                    g.optimizeIndex("main", "person");
                }
            }
            if (compact) {
                // three more fragments that no later write empties (Lance leaves a fold's newest fragment out)
                for (Map.Entry<String, Long> e : EXTRA.entrySet()) {
                    g.insert("main", "person", List.of(Row.of("id", e.getKey(), "age", e.getValue())));
                    g.optimizeIndex("main", "person");
                }
                g.compact("main", "person");
                System.out.println("COMPACTED");
            }
            if (args[1].equals("branch")) {
                g.createBranch("dev", "main"); // folds main's tables first
                System.out.println("BRANCHED");
            }
            g.close(); // folds whatever is left
            System.out.println("END");
            System.out.flush();
        }
    }

    @ParameterizedTest(name = "{0} via {1}")
    @CsvSource({
            "after-journal-ack:3, branch",
            "after-fold-intent, branch",
            "after-fold-commit, branch",
            "before-fold-publish, branch",
            "after-fold-publish, branch",
            "after-fold-commit, close",
    })
    void aChildKilledAtAJournalAckPointLosesNoAcknowledgedWriteAndFoldsEachOnce(String point, String fold) throws Exception {
        Path graph = dir.resolve("g");
        try (Graph g = Palisade.create(graph, Catalog.fromJson(CATALOG), noAutoFold())) {
            assertThat(g.catalog().require("person").ack()).isEqualTo(Catalog.Ack.JOURNAL);
        }
        long head0;
        try (Graph g = Palisade.open(graph, noAutoFold())) {
            head0 = g.state().head("main", "person").orElseThrow().version();
        }
        List<String> lines = runChild(graph, point, fold);
        List<String> acked = new ArrayList<>();
        for (String l : lines) {
            if (l.startsWith("ACK ")) {
                String[] parts = l.split(" ");
                acked.add(parts[1]);
                assertThat(parts[3]).as("a journal-ack receipt is not folded yet: %s", l).isEqualTo("folded=false");
            }
        }
        assertThat(lines).as("the child died at %s before it branched or ended", point).doesNotContain("BRANCHED", "END");
        boolean inWrites = point.startsWith("after-journal-ack");
        assertThat(acked).as("acknowledged before the death at %s", point).isEqualTo(inWrites ? WRITES.subList(0, 2) : WRITES);
        // the write whose receipt the death withheld was journaled JOURNALED: part of the graph
        Map<String, Long> expected = model(inWrites ? 3 : 5);
        boolean landed = point.equals("after-fold-commit") || point.equals("before-fold-publish")
                || point.equals("after-fold-publish");

        try (Graph g = Palisade.open(graph, noAutoFold())) {
            assertThat(g.state().openIntents()).as("no open intent after recovery").isEmpty();
            assertThat(ages(g.scan("main", "person"))).as("after recovery from %s", point).isEqualTo(expected);
            for (String key : acked) {
                assertThat(g.state().receipt(key)).as("receipt of acknowledged %s", key).isPresent();
            }
            assertThat(g.branches()).as("the branch is created only after its fold").containsExactly("main");
            assertThat(g.state().head("main", "person").orElseThrow().version())
                    .as("a fold whose Lance commit landed is rolled forward, one that had none is aborted")
                    .isEqualTo(landed ? head0 + 1 : head0);
            assertThat(g.state().foldMark("main", "person").unfolded()).isEqualTo(landed ? 0 : inWrites ? 3 : 5);
            assertThat(lanceAges(graph, g.state().head("main", "person").orElseThrow()))
                    .as("the Lance table alone after recovery").isEqualTo(landed ? expected : Map.of());
            // one more write after the death, then the close folds it with whatever was left
            g.upsert("main", "person", List.of(Row.of("id", "e", "age", 7)));
            expected.put("e", 7L);
        }
        try (Graph g = Palisade.open(graph, noAutoFold())) {
            assertThat(g.state().foldMark("main", "person").unfolded()).isZero();
            assertThat(ages(g.scan("main", "person"))).as("after the fold").isEqualTo(expected);
            assertThat(lanceAges(graph, g.state().head("main", "person").orElseThrow()))
                    .as("the Lance table alone after the fold, each id once").isEqualTo(expected);
        }
        assertEveryWriteFoldedOnce(graph, inWrites ? 4 : 6);
    }

    /**
     * A journal-ack table's compaction defers Lance's index remap, then rebuilds the id index, then drops the
     * fragment-reuse index: three versions in one maintenance intent. Killed between them (or after the last), the
     * child leaves versions that recovery rolls forward as the intent's effect; every row reads once, through the table
     * alone too, and the next compaction and fold leave the table exact.
     */
    @ParameterizedTest(name = "{0}")
    @CsvSource({"compaction-after-rewrite", "compaction-after-index-rebuild"})
    void aChildKilledInsideAJournalAckCompactionLeavesEveryRowOnce(String point) throws Exception {
        Path graph = dir.resolve("g");
        try (Graph g = Palisade.create(graph, Catalog.fromJson(CATALOG), manual())) {
            assertThat(g.catalog().require("person").ack()).isEqualTo(Catalog.Ack.JOURNAL);
        }
        List<String> lines = runChild(graph, point, "compact");
        assertThat(lines.stream().filter(l -> l.startsWith("ACK ")).count()).isEqualTo(WRITES.size());
        assertThat(lines).as("the child died inside the compaction").doesNotContain("COMPACTED", "END");
        Map<String, Long> expected = model(5);
        expected.putAll(EXTRA);
        long beforeRecovery;
        try (LanceTableStore s = new LanceTableStore(graph.resolve("tables").toString())) {
            beforeRecovery = s.latest("person", TableRef.MAIN).version();
        }
        try (Graph g = Palisade.open(graph, manual())) {
            assertThat(g.state().openIntents()).as("no open intent after recovery").isEmpty();
            TableHead head = g.state().head("main", "person").orElseThrow();
            assertThat(head.version()).as("the compaction's versions are rolled forward as its effect")
                    .isEqualTo(beforeRecovery);
            assertThat(ages(g.scan("main", "person"))).as("after recovery from %s", point).isEqualTo(expected);
            assertThat(lanceAges(graph, head)).as("the Lance table alone, each id once").isEqualTo(expected);
            // more writes, folded; the next compaction finishes what the killed one left
            g.upsert("main", "person", List.of(Row.of("id", "a", "age", 8), Row.of("id", "e", "age", 7)));
            expected.put("a", 8L);
            expected.put("e", 7L);
            g.optimizeIndex("main", "person");
            g.upsert("main", "person", List.of(Row.of("id", "c", "age", 9)));
            expected.put("c", 9L);
            g.optimizeIndex("main", "person");
            g.compact("main", "person");
            g.upsert("main", "person", List.of(Row.of("id", "d", "age", 10)));
            expected.put("d", 10L);
            g.optimizeIndex("main", "person");
            assertThat(ages(g.scan("main", "person"))).isEqualTo(expected);
            assertThat(lanceAges(graph, g.state().head("main", "person").orElseThrow())).isEqualTo(expected);
        }
        assertEveryWriteFoldedOnce(graph, WRITES.size() + EXTRA.size() + 3);
    }

    private List<String> runChild(Path graph, String point, String fold) throws Exception {
        return CrashChild.runToHalt(dir, point, Child.class, graph.toString(), fold);
    }

    private static Map<String, Long> ages(List<Map<String, Object>> rows) {
        Map<String, Long> out = new TreeMap<>();
        for (Map<String, Object> r : rows) {
            assertThat(out.put((String) r.get("id"), (Long) r.get("age"))).as("id %s once", r.get("id")).isNull();
        }
        return out;
    }

    private static Map<String, Long> lanceAges(Path graph, TableHead h) {
        try (LanceTableStore s = new LanceTableStore(graph.resolve("tables").toString());
             KeyedTable t = s.openKeyed("person", new TableRef(h.tableBranch(), h.version()))) {
            return ages(t.scan());
        }
    }

    /** Every JOURNALED write lies in exactly one applied fold's range (previous watermark, watermark]. */
    private static void assertEveryWriteFoldedOnce(Path graph, int writes) {
        List<JournalRecord> records;
        try (JournalReader reader = JournalReader.open(graph.resolve("_palisade")); var c = reader.read(0)) {
            records = c.drain();
        }
        Map<String, JournalEvent.FoldPlanned> plans = new HashMap<>();
        List<Long> watermarks = new ArrayList<>();
        List<Long> acks = new ArrayList<>();
        for (JournalRecord rec : records) {
            switch (rec.event()) {
                case JournalEvent.FoldPlanned p -> plans.put(p.intentId(), p);
                case JournalEvent.IntentCompleted c when c.outcome() == IntentOutcome.JOURNALED -> acks.add(rec.sequence());
                case JournalEvent.JournaledWrite w -> acks.add(rec.sequence()); // a write in one record
                case JournalEvent.IntentCompleted c when plans.containsKey(c.intentId())
                        && (c.outcome() == IntentOutcome.COMMITTED || c.outcome() == IntentOutcome.ROLLED_FORWARD) ->
                        watermarks.add(plans.get(c.intentId()).throughSequence());
                default -> {
                    // other records fold nothing (a test's view: the product's switches are exhaustive)
                }
            }
        }
        assertThat(watermarks).isNotEmpty().isSorted().doesNotHaveDuplicates();
        assertThat(acks).as("journaled writes (the child's and the one after the death)").hasSize(writes);
        for (long ack : acks) {
            long covering = 0;
            long previous = -1;
            for (long w : watermarks) {
                if (ack > previous && ack <= w) {
                    covering++;
                }
                previous = w;
            }
            assertThat(covering).as("applied folds covering the write acknowledged at %d (watermarks %s)", ack, watermarks)
                    .isEqualTo(1);
        }
    }
}
