package io.palisade.it.crash;

import io.palisade.coordinator.Catalog;
import io.palisade.coordinator.Graph;
import io.palisade.coordinator.Options;
import io.palisade.coordinator.Palisade;
import io.palisade.coordinator.Retention;
import io.palisade.coordinator.Row;
import io.palisade.journal.JournalCursor;
import io.palisade.journal.JournalEvent;
import io.palisade.journal.JournalReader;
import io.palisade.journal.JournalRecord;
import io.palisade.substrate.TableRef;
import io.palisade.substrate.lance.LanceTableStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Version retention killed mid-removal, in child JVMs. A child opens a graph with tight retention (2 to 4 versions,
 * no time window, a removal every 3 commits), makes single-row upserts on main (printing {@code ACK <n>} after each
 * receipt), and after the second one creates graph branch {@code early} and writes one row there, which forks its
 * Lance table branch from main's version of that moment (a version Lance keeps for the fork). It halts at
 * {@code expiry-after-journal} (the {@code VersionsExpired} record durable, nothing removed), at
 * {@code expiry-after-journal:2} (the first removal done, the second journaled only) or at {@code expiry-after-remove}
 * (Lance's cleanup returned, on the maintenance thread, while the committer goes on writing).
 *
 * <p>This JVM then reopens the graph (recovery runs) and proves: every acknowledged write is present with its value
 * (the write in flight at the halt is wholly present or wholly absent), no id twice, {@code early} reads exactly what
 * it read after its fork, the journal holds the {@code VersionsExpired} records, a further write works, and the next
 * removal takes every version below its bound that the interrupted one left, so main keeps at most
 * {@code maxVersions + expireEvery} versions plus the one Lance keeps for the fork.
 *
 * <p>{@link #aPowerCutAfterAnExpiryRemovedFilesLosesNoAcknowledgedWrite} does the same on a LazyFS mount and drops
 * every unsynced write once the child halted at {@code expiry-after-remove} (docs/crash-points.md "Power loss on
 * LazyFS"); it is skipped, loudly, where LazyFS cannot be built or mounted.
 */
class ExpiryCrashTest {
    static final Retention TIGHT = Retention.DEFAULTS.withVersions(2, 4).withWindow(Duration.ZERO).withExpireEvery(3);
    static final String CATALOG = """
            {"tables": [{"name": "person", "kind": "node", "columns": [{"name": "id", "type": "string"},
              {"name": "age", "type": "int64", "nullable": true}]}]}
            """;
    /** The child's upserts on main. */
    static final int WRITES = 12;
    /** The child creates {@link #BRANCH} after this many upserts. */
    static final int BRANCH_AFTER = 2;
    static final String BRANCH = "early";
    static final String TAG = "[expiry-crash]";

    @TempDir
    Path dir;

    static Options options() {
        return Options.defaults().withRetention(TIGHT);
    }

    static String key(int i) {
        return "k" + (i % 5);
    }

    static long age(int i) {
        return 100 + i;
    }

    /** main's person after the child's first {@code n} upserts. */
    static Map<String, Long> model(int n) {
        Map<String, Long> m = new TreeMap<>();
        for (int i = 0; i < n; i++) {
            m.put(key(i), age(i));
        }
        return m;
    }

    /**
     * The child JVM: {@code <graph>}. Prints {@code OPENED}, {@code ACK <n>} after upsert n's receipt, and after the
     * branch write {@code BRANCHED <main's version at the branch's creation> <id=age,...>}.
     */
    public static final class Child {
        public static void main(String[] args) {
            System.setProperty("chronicle.analytics.disable", "true");
            PrintStream out = System.out;
            try (Graph g = Palisade.open(Path.of(args[0]), options())) {
                out.println("OPENED");
                out.flush();
                for (int i = 0; i < WRITES; i++) {
                    g.upsert("main", "person", List.of(Row.of("id", key(i), "age", age(i))));
                    out.println("ACK " + i);
                    out.flush();
                    if (i + 1 == BRANCH_AFTER) {
                        long base = g.state().head("main", "person").orElseThrow().version();
                        g.createBranch(BRANCH, "main");
                        g.upsert(BRANCH, "person", List.of(Row.of("id", "b0", "age", 7L)));
                        out.println("BRANCHED " + base + " " + encode(ages(g.scan(BRANCH, "person"))));
                        out.flush();
                    }
                }
            }
            out.println("END");
            out.flush();
        }
    }

    /** What one child printed before it halted. */
    record ChildRun(List<String> lines, int acked, long forkBase, Map<String, Long> branchRows) {
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"expiry-after-journal", "expiry-after-journal:2", "expiry-after-remove"})
    void aChildKilledInAnExpiryLosesNoWriteAndTheNextExpiryFinishesTheRemoval(String point) throws Exception {
        Path graph = dir.resolve("g");
        try (Graph g = Palisade.create(graph, Catalog.fromJson(CATALOG), options())) {
            assertThat(g.branches()).containsExactly("main");
        }
        ChildRun run = runChild(graph, point, dir.resolve("logs"));
        List<JournalEvent.VersionsExpired> journaled = expiries(graph);
        int expected = point.endsWith(":2") ? 2 : 1;
        assertThat(journaled).as("VersionsExpired records when the child halted at %s", point).hasSize(expected);
        long bound = journaled.getLast().beforeVersion();
        List<Long> left = versionsBelow(graph, bound, run.forkBase());
        System.out.println(TAG + " " + point + ": the child acknowledged " + run.acked() + " upserts and halted; "
                + journaled.size() + " VersionsExpired (below " + journaled.stream().map(x -> "v" + x.beforeVersion())
                .toList() + "); main's versions " + versions(graph, TableRef.MAIN) + ", the fork's base v" + run.forkBase());
        if (point.startsWith("expiry-after-journal")) {
            assertThat(left).as("the halt at %s came before the removal of the versions below v%d", point, bound)
                    .isNotEmpty();
            if (expected == 2) {
                long first = journaled.getFirst().beforeVersion();
                assertThat(versionsBelow(graph, first, run.forkBase()))
                        .as("the first removal (below v%d) finished before the second was journaled", first).isEmpty();
            }
        } else {
            assertThat(left).as("the halt after the removal: nothing below v%d but the fork's base", bound).isEmpty();
        }
        verifyAndExpireAgain(graph, run, journaled.size());
    }

    /**
     * A power cut right after a removal: the child halts at {@code expiry-after-remove} on a LazyFS mount (the
     * committer may be inside its next commit), LazyFS drops every write not made durable, and the graph is mounted
     * again; then the same checks as above, except what the interrupted removal left (what a cut keeps of it is the
     * file system's choice), with the record of the removal required to be durable.
     */
    @Test
    void aPowerCutAfterAnExpiryRemovedFilesLosesNoAcknowledgedWrite() throws Exception {
        Path binary = LazyFs.binaryOrSkip();
        LazyFs fs = null;
        try {
            fs = LazyFs.mount(binary, System.getProperty("palisade.power.cache", "128mb"));
        } catch (Exception e) {
            LazyFs.skip("LazyFS did not mount: " + e.getMessage());
        }
        try {
            Path graph = fs.mount.resolve("g");
            try (Graph g = Palisade.create(graph, Catalog.fromJson(CATALOG), options())) {
                assertThat(g.branches()).containsExactly("main");
            }
            LazyFs.syncTree(graph); // the setup is durable: the cut tests the child's window only
            ChildRun run = runChild(graph, "expiry-after-remove", fs.base.resolve("work"));
            fs.clearCache();
            fs.remount(); // no page cache of the old mount survives the cut
            List<JournalEvent.VersionsExpired> journaled = expiries(graph);
            assertThat(journaled).as("the record of the removal the child made was durable before any file went")
                    .isNotEmpty();
            System.out.println(TAG + " power cut after expiry-after-remove: the child acknowledged " + run.acked()
                    + " upserts; " + journaled.size() + " VersionsExpired (below " + journaled.stream()
                    .map(x -> "v" + x.beforeVersion()).toList() + "), the fork's base v" + run.forkBase());
            // main's versions are listed only after recovery: a commit in flight at the cut can leave a torn
            // manifest, which Lance cannot open and recovery sets aside
            verifyAndExpireAgain(graph, run, journaled.size());
        } finally {
            fs.close();
            LazyFsPowerLossTest.deleteTree(fs.base);
        }
    }

    /**
     * Reopens {@code graph} after the child's death and checks it; then three upserts (one removal is due at the third
     * commit of this process) and a close (which waits for the removal); then checks what the removal left.
     */
    private static void verifyAndExpireAgain(Path graph, ChildRun run, int journaledBefore) {
        Map<String, Long> expected;
        long head;
        try (Graph g = Palisade.open(graph, options())) {
            assertThat(g.state().openIntents()).as("no open intent after recovery").isEmpty();
            System.out.println(TAG + " main's versions after recovery " + versions(graph, TableRef.MAIN));
            Map<String, Long> main = ages(g.scan("main", "person"));
            assertThat(main).as("main after %d acknowledged upserts (the one in flight wholly present or absent)",
                    run.acked()).isIn(model(run.acked()), model(run.acked() + 1));
            assertThat(ages(g.scan(BRANCH, "person"))).as("%s reads what it read after its fork", BRANCH)
                    .isEqualTo(run.branchRows());
            expected = new TreeMap<>(main);
            for (int i = 0; i < TIGHT.expireEvery(); i++) {
                g.upsert("main", "person", List.of(Row.of("id", "x" + i, "age", (long) i)));
                expected.put("x" + i, (long) i);
                if (i == 0) {
                    assertThat(ages(g.scan("main", "person"))).as("a write after the death").isEqualTo(expected);
                }
            }
            head = g.state().head("main", "person").orElseThrow().version();
        }
        List<JournalEvent.VersionsExpired> journaled = expiries(graph);
        assertThat(journaled).as("one more removal, journaled").hasSize(journaledBefore + 1)
                .allSatisfy(x -> {
                    assertThat(x.table()).isEqualTo("person");
                    assertThat(x.tableBranch()).isEqualTo(TableRef.MAIN);
                    assertThat(x.beforeVersion()).isGreaterThan(1).isLessThanOrEqualTo(head);
                    assertThat(x.rule()).contains("keeps the newest 2 to 4 versions");
                });
        long last = journaled.getLast().beforeVersion();
        assertThat(last).as("the later bound").isGreaterThanOrEqualTo(journaled.get(journaledBefore - 1).beforeVersion());
        List<Long> kept = versions(graph, TableRef.MAIN);
        assertThat(kept).as("main's head").contains(head);
        assertThat(kept).as("main's versions; the fork's base is v%d", run.forkBase())
                .hasSizeLessThanOrEqualTo(TIGHT.maxVersions() + TIGHT.expireEvery() + 1);
        System.out.println(TAG + " after " + TIGHT.expireEvery() + " more upserts and a close: removal below v" + last
                + ", main's versions " + kept + " (head v" + head + ")");
        assertThat(versionsBelow(graph, last, run.forkBase()))
                .as("versions below v%d the interrupted removal left, taken by the later one", last).isEmpty();
        try (Graph g = Palisade.open(graph, options())) {
            assertThat(ages(g.scan("main", "person"))).isEqualTo(expected);
            assertThat(ages(g.scan(BRANCH, "person"))).isEqualTo(run.branchRows());
        }
    }

    /** Runs the child with {@code -Dpalisade.crash.at=point}; asserts that it halted there. */
    private static ChildRun runChild(Path graph, String point, Path work) throws Exception {
        List<String> lines = CrashChild.runToHalt(work, point, Child.class, graph.toString());
        assertThat(lines).as("the child halted before its end").doesNotContain("END");
        int acked = 0;
        long forkBase = -1;
        Map<String, Long> branchRows = null;
        for (String l : lines) {
            if (l.startsWith("ACK ")) {
                assertThat(Integer.parseInt(l.substring(4))).as("acknowledgements in order").isEqualTo(acked);
                acked++;
            } else if (l.startsWith("BRANCHED ")) {
                String[] parts = l.split(" ", 3);
                forkBase = Long.parseLong(parts[1]);
                branchRows = decode(parts[2]);
            }
        }
        assertThat(branchRows).as("the child created and wrote %s before any removal was due (%s)", BRANCH, lines)
                .isNotNull();
        return new ChildRun(lines, acked, forkBase, branchRows);
    }

    static List<JournalEvent.VersionsExpired> expiries(Path graph) {
        List<JournalEvent.VersionsExpired> out = new ArrayList<>();
        try (JournalReader r = JournalReader.open(graph.resolve("_palisade")); JournalCursor c = r.read(0)) {
            for (JournalRecord rec = c.poll(); rec != null; rec = c.poll()) {
                if (rec.event() instanceof JournalEvent.VersionsExpired x) {
                    out.add(x);
                }
            }
        }
        return out;
    }

    static List<Long> versions(Path graph, String tableBranch) {
        try (LanceTableStore s = new LanceTableStore(graph.resolve("tables").toString())) {
            return s.listVersions("person", tableBranch).stream().map(v -> v.ref().version()).toList();
        }
    }

    /** main's versions below {@code bound} other than {@code forkBase} (which Lance keeps for the fork). */
    static List<Long> versionsBelow(Path graph, long bound, long forkBase) {
        return versions(graph, TableRef.MAIN).stream().filter(v -> v < bound && v != forkBase).toList();
    }

    static Map<String, Long> ages(List<Map<String, Object>> rows) {
        Map<String, Long> out = new TreeMap<>();
        for (Map<String, Object> r : rows) {
            assertThat(out.put((String) r.get("id"), ((Number) r.get("age")).longValue())).as("id %s once", r.get("id"))
                    .isNull();
        }
        return out;
    }

    static String encode(Map<String, Long> m) {
        List<String> parts = new ArrayList<>();
        m.forEach((k, v) -> parts.add(k + "=" + v));
        return String.join(",", parts);
    }

    static Map<String, Long> decode(String s) {
        Map<String, Long> m = new TreeMap<>();
        for (String kv : s.split(",")) {
            int eq = kv.indexOf('=');
            m.put(kv.substring(0, eq), Long.parseLong(kv.substring(eq + 1)));
        }
        return m;
    }
}
