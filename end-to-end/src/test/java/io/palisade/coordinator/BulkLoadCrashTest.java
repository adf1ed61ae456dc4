package io.palisade.coordinator;

import io.palisade.coordinator.internal.CrashPoints;
import io.palisade.journal.IntentOutcome;
import io.palisade.journal.JournalEvent;
import io.palisade.journal.JournalReader;
import io.palisade.journal.RecoveryClassification;
import io.palisade.journal.VerificationReport;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A bulk load killed mid-load in a child JVM is rolled BACK at the next open (docs/bulk-load.md): the
 * graph head shows none of the load, ids stay unique, the journal verifies, and the graph takes a
 * new load afterwards.
 */
class BulkLoadCrashTest {
    @TempDir
    Path dir;

    private static List<String> command(Path graph, String crashAt, String... args) {
        List<String> cmd = new ArrayList<>(List.of(graph.toString()));
        cmd.addAll(List.of(args));
        return ChildJvm.command("256m", crashAt, BulkLoadChild.class, cmd.toArray(String[]::new));
    }

    private Path graphWithBaseRows() {
        Path p = dir.resolve("g");
        try (BufferAllocator allocator = new RootAllocator();
             Graph g = Palisade.create(p, Rows.catalog(), Options.defaults());
             VectorSchemaRoot base = Rows.people(allocator, "b1", 1, "b2", 2)) {
            g.insert("main", "person", base);
        }
        return p;
    }

    /** A graph with base rows whose child JVM halted at {@code point} while loading 12 rows in batches of 3. */
    private Path loadHaltedAt(String point) throws Exception {
        Path p = graphWithBaseRows();
        Process child = new ProcessBuilder(command(p, point, "12", "3"))
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        assertThat(child.waitFor(120, TimeUnit.SECONDS)).isTrue();
        assertThat(child.exitValue()).isEqualTo(CrashPoints.HALT_STATUS);
        return p;
    }

    private void assertRolledBack(Path p, int expectedRolledBack) {
        try (BufferAllocator allocator = new RootAllocator(); Graph g = Palisade.open(p, Options.defaults())) {
            List<String> ids = BulkLoadTest.ids(g.scan("main", "person"));
            assertThat(ids).containsExactly("b1", "b2"); // none of the load, no duplicates
            assertThat(g.state().openIntents()).isEmpty();
            List<JournalEvent> ev = BulkLoadTest.events(p);
            List<RecoveryClassification> found = ev.stream().filter(e -> e instanceof JournalEvent.RecoveryFinished)
                    .flatMap(e -> ((JournalEvent.RecoveryFinished) e).classifications().stream()).toList();
            assertThat(found).hasSize(1);
            assertThat(found.get(0).kind()).isEqualTo(expectedRolledBack > 0 ? RecoveryClassification.Kind.LOAD_ROLLED_BACK
                    : RecoveryClassification.Kind.NO_EFFECT_ABORTED);
            assertThat(ev.stream().filter(e -> e instanceof JournalEvent.IntentCompleted c
                    && c.outcome() == (expectedRolledBack > 0 ? IntentOutcome.ROLLED_BACK : IntentOutcome.ABORTED))).hasSize(1);
            // the graph is writable afterwards: the same load now succeeds in full, without key conflicts
            try (PeopleReader in = new PeopleReader(allocator, PeopleReader.ids("L", 12), 5, 3, b -> { })) {
                g.load("main", "person", in, LoadMode.APPEND, 3);
            }
            assertThat(BulkLoadTest.ids(g.scan("main", "person"))).hasSize(14).doesNotHaveDuplicates();
        }
        try (JournalReader r = JournalReader.open(p.resolve("_palisade"))) {
            VerificationReport v = r.verify();
            assertThat(v.ok()).isTrue();
        }
    }

    @Test
    void crashAfterACommittedButUnjournaledBatchRollsBackToTheBase() throws Exception {
        // third batch committed to Lance, its progress record not yet written
        Path p = loadHaltedAt("load-after-batch:3");
        assertRolledBack(p, 3);
    }

    @Test
    void crashAfterAJournaledBatchRollsBackToTheBase() throws Exception {
        Path p = loadHaltedAt("load-after-progress:2");
        assertRolledBack(p, 2);
    }

    @Test
    void crashAfterAnUnjournaledIndexExtensionRollsBackToTheBase() throws Exception {
        Path p = loadHaltedAt("load-after-index:2");
        assertRolledBack(p, 2);
    }

    @Test
    void crashBeforeAnyBatchAbortsTheLoad() throws Exception {
        Path p = loadHaltedAt("load-after-intent");
        assertRolledBack(p, 0);
    }

    @Test
    void childKilledMidLoadIsRolledBackAtTheNextOpen() throws Exception {
        Path p = graphWithBaseRows();
        Process child = new ProcessBuilder(command(p, null, "12", "3", "slow")).redirectErrorStream(true).start();
        try (BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = out.readLine()) != null && !line.equals("batch 2")) {
                // batches 0 and 1 are committed once batch 2 is being read
            }
            assertThat(line).isEqualTo("batch 2");
            child.destroyForcibly();
            assertThat(child.waitFor(60, TimeUnit.SECONDS)).isTrue();
        }
        assertRolledBack(p, 2);
    }

    @Test
    void recoveryKilledAfterItsRestoreConvergesOnTheNextOpen() throws Exception {
        Path p = loadHaltedAt("load-after-progress:2");
        // simulate a recovery that restored the base and died before journaling: restore by hand
        try (io.palisade.substrate.lance.LanceTableStore store = new io.palisade.substrate.lance.LanceTableStore(p.resolve("tables").toString())) {
            long latest = store.latest("person", "main").version();
            // on top of the base: batch 0's merge-insert and index extension, then batch 1's merge-insert
            store.restore("person", new io.palisade.substrate.TableRef("main", latest - 3));
        }
        assertRolledBack(p, 2);
    }

    @Test
    void versionsBeyondTheLoadsProgressAreAForeignCommitAndTheGraphIsRefused() throws Exception {
        Path p = loadHaltedAt("load-after-progress:1");
        // two commits no journal record explains: more than the one in-flight batch a crash can leave
        try (BufferAllocator allocator = new RootAllocator();
             io.palisade.substrate.lance.LanceTableStore store = new io.palisade.substrate.lance.LanceTableStore(p.resolve("tables").toString())) {
            for (String k : List.of("f1", "f2")) {
                try (io.palisade.substrate.KeyedTable t = store.openKeyed("person", store.latest("person", "main"));
                     VectorSchemaRoot rows = Rows.people(allocator, k, 1)) {
                    t.insert(rows, t.mergePath());
                }
            }
        }
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> Palisade.open(p, Options.defaults()).close())
                .isInstanceOf(io.palisade.fencing.GraphRefusedException.class)
                .hasMessageContaining("foreign commit").hasMessageContaining("bulk load");
    }
}
