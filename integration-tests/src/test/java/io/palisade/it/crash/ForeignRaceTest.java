package io.palisade.it.crash;

import io.palisade.coordinator.Catalog;
import io.palisade.coordinator.Graph;
import io.palisade.coordinator.LoadMode;
import io.palisade.coordinator.Options;
import io.palisade.coordinator.Palisade;
import io.palisade.fencing.ForeignCommitException;
import io.palisade.heads.PhaseCrashPoints;
import io.palisade.substrate.lance.ForeignLanceWriter;
import io.palisade.journal.IntentOutcome;
import io.palisade.journal.JournalCursor;
import io.palisade.journal.JournalEvent;
import io.palisade.journal.JournalReader;
import io.palisade.journal.JournalRecord;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A foreign Lance writer commits at a named point inside a write path (a crash-point listener on the
 * committer thread, so the moment is exact, not timed). Lance rebases the write over the foreign version; the
 * write must not be acknowledged, the error must be typed and say whether the write's keys are now duplicated,
 * the journal must record the finding, and the table must be refused until an operator adopts the versions.
 */
class ForeignRaceTest {
    @TempDir
    Path dir;

    private final BufferAllocator allocator = new RootAllocator();

    @AfterEach
    void clearListener() {
        PhaseCrashPoints.listener(null);
        allocator.close();
    }

    /** At the nth hit of {@code point}, a foreign client appends {@code rows} to the table (a plain Lance Append). */
    private void foreignAppendAt(Path graph, String point, int nth, Map<String, Long> rows) {
        AtomicInteger hits = new AtomicInteger();
        PhaseCrashPoints.listener(name -> {
            if (name.equals(point) && hits.incrementAndGet() == nth) {
                foreignAppend(graph, rows);
            }
        });
    }

    private void foreignAppend(Path graph, Map<String, Long> rows) {
        Object[] idAge = new Object[rows.size() * 2];
        int i = 0;
        for (Map.Entry<String, Long> e : rows.entrySet()) {
            idAge[i++] = e.getKey();
            idAge[i++] = e.getValue();
        }
        try (ForeignLanceWriter w = new ForeignLanceWriter(graph, "person")) {
            assertThat(w.append(idAge)).isPositive();
        }
    }

    private ArrowReader readerOf(VectorSchemaRoot root) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (ArrowStreamWriter w = new ArrowStreamWriter(root, null, out)) {
            w.start();
            w.writeBatch();
            w.end();
        }
        return new ArrowStreamReader(new ByteArrayInputStream(out.toByteArray()), allocator);
    }

    private Graph create(Path graph, Map<String, Long> rows) {
        Graph g = Palisade.create(graph, Catalog.fromJson(CrashHarness.CATALOG), Options.defaults());
        try (VectorSchemaRoot r = CrashWorkloadRows.people(allocator, rows)) {
            g.insert("main", "person", r);
        }
        return g;
    }

    private static Map<String, Long> rows(Object... kv) {
        Map<String, Long> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put((String) kv[i], ((Number) kv[i + 1]).longValue());
        }
        return m;
    }

    private static List<JournalEvent> journal(Path graph) {
        List<JournalEvent> out = new ArrayList<>();
        try (JournalReader r = JournalReader.open(graph.resolve("_palisade")); JournalCursor c = r.read(0)) {
            for (JournalRecord rec = c.poll(); rec != null; rec = c.poll()) {
                out.add(rec.event());
            }
        }
        return out;
    }

    private static <T> List<T> of(List<JournalEvent> events, Class<T> type) {
        return events.stream().filter(type::isInstance).map(type::cast).toList();
    }

    @Test
    void aStrictInsertThatLanceRefusesBecauseOfAForeignDuplicateIsTypedJournaledAndRefusesTheTable() {
        Path graph = dir.resolve("g");
        long head;
        try (Graph g = create(graph, rows("bob", 40))) {
            head = g.state().head("main", "person").orElseThrow().version();
            foreignAppendAt(graph, "after-intent", 1, rows("alice", 99));
            try (VectorSchemaRoot r = CrashWorkloadRows.people(allocator, rows("alice", 30, "carol", 50))) {
                assertThatThrownBy(() -> g.insert("main", "person", r))
                        .isInstanceOfSatisfying(ForeignCommitException.class, e -> {
                            assertThat(e.situation()).isEqualTo(ForeignCommitException.Situation.RACED_WRITE);
                            assertThat(e.table()).isEqualTo("person");
                            assertThat(e.graphBranch()).isEqualTo("main");
                            assertThat(e.journalVersion()).isEqualTo(head);
                            assertThat(e.foreignVersions()).containsExactly(head + 1);
                            assertThat(e.latestVersion()).isEqualTo(head + 1);
                            assertThat(e.intentIds()).hasSize(1);
                            assertThat(e.getMessage()).contains("write not committed").contains("version " + (head + 1))
                                    .contains("--adopt-foreign").doesNotContain("TableRef[");
                        });
            }
            PhaseCrashPoints.listener(null);
            assertThat(g.state().head("main", "person").orElseThrow().version()).as("nothing published").isEqualTo(head);
            assertThat(g.scan("main", "person")).extracting(m -> m.get("id")).containsExactly("bob");
            assertThat(g.metrics().foreignCommits()).isEqualTo(1);
            // the table is refused for the rest of the session, with the same typed error
            try (VectorSchemaRoot r = CrashWorkloadRows.people(allocator, rows("dave", 1))) {
                assertThatThrownBy(() -> g.upsert("main", "person", r)).isInstanceOfSatisfying(ForeignCommitException.class,
                        e -> assertThat(e.situation()).isEqualTo(ForeignCommitException.Situation.PENDING));
            }
        }
        List<JournalEvent> events = journal(graph);
        List<JournalEvent.ForeignCommitFound> found = of(events, JournalEvent.ForeignCommitFound.class);
        assertThat(found).hasSize(1);
        assertThat(found.get(0).achievedVersion()).as("nothing committed").isEqualTo(-1);
        assertThat(found.get(0).foreignVersions()).containsExactly(head + 1);
        assertThat(of(events, JournalEvent.IntentCompleted.class)).filteredOn(c -> c.intentId().equals(found.get(0).intentIds().get(0)))
                .extracting(JournalEvent.IntentCompleted::outcome).containsExactly(IntentOutcome.FOREIGN_COMMIT);
        // the graph stays refused until an operator decides
        assertThatThrownBy(() -> Palisade.open(graph, Options.defaults()))
                .isInstanceOfSatisfying(ForeignCommitException.class,
                        e -> assertThat(e.situation()).isEqualTo(ForeignCommitException.Situation.PENDING));
    }

    @Test
    void anUpsertMetByAForeignAppendIsNeverRetriedFromTheForeignVersion() {
        // the absorption observed with foreign writers: the committer retried a conflicted upsert from Lance's latest
        // version, over the foreign append, and acknowledged it
        Path graph = dir.resolve("g");
        try (Graph g = create(graph, rows("bob", 40))) {
            foreignAppendAt(graph, "after-intent", 1, rows("mallory", 1));
            try (VectorSchemaRoot r = CrashWorkloadRows.people(allocator, rows("bob", 41))) {
                assertThatThrownBy(() -> g.upsert("main", "person", r)).isInstanceOfSatisfying(ForeignCommitException.class, e -> {
                    assertThat(e.situation()).isEqualTo(ForeignCommitException.Situation.RACED_WRITE);
                    assertThat(e.getMessage()).contains("none of its rows were committed");
                });
            }
            assertThat(g.metrics().snapshot().commits()).as("only the setup insert was acknowledged").isEqualTo(1);
        }
        try (Graph g = Palisade.open(graph, Options.defaults(), true)) {
            assertThat(g.scan("main", "person")).extracting(m -> m.get("id") + "=" + m.get("age"))
                    .as("the adopted image holds the foreign row, not the refused upsert")
                    .containsExactlyInAnyOrder("bob=40", "mallory=1");
        }
    }

    @Test
    void aBulkLoadRacedBetweenBatchesIsNotAcknowledgedNorRolledBack() throws Exception {
        Path graph = dir.resolve("g");
        long head;
        try (Graph g = create(graph, rows("bob", 40))) {
            head = g.state().head("main", "person").orElseThrow().version();
            Map<String, Long> load = new LinkedHashMap<>();
            for (int i = 0; i < 30; i++) {
                load.put("k" + i, (long) i);
            }
            foreignAppendAt(graph, "load-after-progress", 1, rows("k5", 7)); // k5: a key of the committed first batch
            try (VectorSchemaRoot r = CrashWorkloadRows.people(allocator, load); ArrowReader reader = readerOf(r)) {
                assertThatThrownBy(() -> g.load("main", "person", reader, LoadMode.APPEND, 10))
                        .isInstanceOfSatisfying(ForeignCommitException.class, e -> {
                            assertThat(e.situation()).isEqualTo(ForeignCommitException.Situation.RACED_WRITE);
                            assertThat(e.foreignVersions()).hasSize(1);
                            assertThat(e.duplicatesChecked()).as("the load's committed keys were counted").isTrue();
                            assertThat(e.duplicateKeys()).containsExactly("k5");
                            assertThat(e.getMessage()).contains("write not acknowledged").contains("k5");
                        });
            }
            PhaseCrashPoints.listener(null);
            assertThat(g.state().head("main", "person").orElseThrow().version()).isEqualTo(head);
            assertThat(g.state().openIntents()).isEmpty();
        }
        List<JournalEvent> events = journal(graph);
        assertThat(of(events, JournalEvent.ForeignCommitFound.class)).hasSize(1);
        assertThat(of(events, JournalEvent.IntentCompleted.class)).extracting(JournalEvent.IntentCompleted::outcome)
                .contains(IntentOutcome.FOREIGN_COMMIT).doesNotContain(IntentOutcome.ROLLED_BACK);
    }

    @Test
    void aCompactionRebasedOverAForeignAppendIsNotAcknowledged() {
        Path graph = dir.resolve("g");
        try (Graph g = create(graph, rows("bob", 40))) {
            for (int i = 0; i < 4; i++) {
                try (VectorSchemaRoot r = CrashWorkloadRows.people(allocator, rows("p" + i, i))) {
                    g.insert("main", "person", r);
                }
            }
            long head = g.state().head("main", "person").orElseThrow().version();
            foreignAppendAt(graph, "after-intent", 1, rows("mallory", 1));
            assertThatThrownBy(() -> g.compact("main", "person")).isInstanceOfSatisfying(ForeignCommitException.class, e -> {
                assertThat(e.situation()).isEqualTo(ForeignCommitException.Situation.RACED_WRITE);
                assertThat(e.foreignVersions()).contains(head + 1);
                assertThat(e.duplicatesChecked()).isFalse();
            });
            assertThat(g.state().head("main", "person").orElseThrow().version()).isEqualTo(head);
        }
    }

    @Test
    void aWriterKilledAfterARebasedCommitIsNotRolledForwardOverTheForeignVersion() {
        Path graph = dir.resolve("g");
        long head;
        try (Graph g = create(graph, rows("bob", 40))) {
            head = g.state().head("main", "person").orElseThrow().version();
        }
        // the writer dies after Phase B: an open intent based on head, and two versions above it (a foreign append,
        // then the write's rebased commit) — recovery must not publish both as the write's effect
        try (Graph g = Palisade.open(graph, Options.defaults())) {
            PhaseCrashPoints.listener(name -> {
                if (name.equals("after-intent")) {
                    foreignAppend(graph, rows("alice", 99));
                } else if (name.equals("after-substrate-commit")) {
                    throw new Killed(); // the writer dies before it journals anything more
                }
            });
            // an index build (CreateIndex) is compatible with an Append: Lance rebases it
            assertThatThrownBy(() -> g.optimizeIndex("main", "person")).hasRootCauseInstanceOf(Killed.class);
            PhaseCrashPoints.listener(null);
            assertThat(g.state().openIntents()).as("the write's intent is left open").hasSize(1);
        }
        assertThatThrownBy(() -> Palisade.open(graph, Options.defaults()))
                .isInstanceOfSatisfying(ForeignCommitException.class, e -> {
                    assertThat(e.situation()).isEqualTo(ForeignCommitException.Situation.PENDING);
                    assertThat(e.journalVersion()).isEqualTo(head);
                });
    }

    @Test
    void aForeignVersionAboveAnInterruptedWritesBaseIsNotRolledForwardAsItsEffect() {
        Path graph = dir.resolve("g");
        long head;
        try (Graph g = create(graph, rows("bob", 40))) {
            head = g.state().head("main", "person").orElseThrow().version();
            PhaseCrashPoints.listener(name -> {
                if (name.equals("after-intent")) {
                    throw new Killed(); // the writer dies after Phase A: the intent is open, nothing committed
                }
            });
            try (VectorSchemaRoot r = CrashWorkloadRows.people(allocator, rows("alice", 30, "carol", 50))) {
                assertThatThrownBy(() -> g.insert("main", "person", r)).hasRootCauseInstanceOf(Killed.class);
            }
            PhaseCrashPoints.listener(null);
        }
        // while no writer runs, a foreign client commits exactly one version above the intent's base
        foreignAppend(graph, rows("alice", 99));
        assertThatThrownBy(() -> Palisade.open(graph, Options.defaults()))
                .isInstanceOfSatisfying(ForeignCommitException.class, e -> {
                    assertThat(e.situation()).isEqualTo(ForeignCommitException.Situation.PENDING);
                    assertThat(e.latestVersion()).isEqualTo(head + 1);
                    assertThat(e.getMessage()).contains("not the write's commit").contains("lacks the write's keys [carol]");
                });
        // an interrupted write whose own commit is there still rolls forward (the crash matrix covers every op)
    }

    /** A simulated death at a crash point (in-process). */
    private static final class Killed extends RuntimeException {
        private static final long serialVersionUID = 1L;
    }
}
