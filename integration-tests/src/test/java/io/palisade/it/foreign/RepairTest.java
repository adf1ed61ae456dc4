package io.palisade.it.foreign;

import io.palisade.substrate.lance.ForeignLanceWriter;
import io.palisade.coordinator.Catalog;
import io.palisade.coordinator.Graph;
import io.palisade.coordinator.Options;
import io.palisade.coordinator.Palisade;
import io.palisade.coordinator.Repair;
import io.palisade.fencing.ForeignCommitException;
import io.palisade.heads.PhaseCrashPoints;
import io.palisade.journal.JournalEvent;
import io.palisade.journal.JournalReader;
import io.palisade.journal.JournalRecord;
import io.palisade.journal.JournalCursor;
import io.palisade.journal.RecoveryClassification;
import io.palisade.journal.RemovedRow;
import io.palisade.substrate.TableRef;
import io.palisade.substrate.lance.LanceTableStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@code palisade repair} makes a graph whose adoption was refused usable again, through a journaled intent. */
class RepairTest {
    @TempDir
    Path dir;
    Path graph;
    long head;

    @BeforeEach
    void graphWithADuplicateAppendedBehindItsBack() {
        graph = dir.resolve("g");
        try (Graph g = Palisade.create(graph, Catalog.fromJson(ForeignAdoptionTest.CATALOG), Options.defaults())) {
            ForeignAdoptionTest.insert(g, "alice", 30L);
            ForeignAdoptionTest.insert(g, "bob", 40L);
            head = g.state().head("main", "person").orElseThrow().version();
        }
        try (ForeignLanceWriter w = new ForeignLanceWriter(graph, "person")) {
            w.append("alice", 99L, "carol", 50L);
        }
    }

    @AfterEach
    void noCrashPoint() {
        PhaseCrashPoints.listener(null);
    }

    @Test
    void keepNewestRemovesTheOlderRowAdoptsTheForeignVersionAndJournalsTheRemovedValues() {
        Repair.Report r = Repair.run(graph, Repair.Request.of("person", Repair.Duplicates.KEEP_NEWEST));
        assertThat(r.status()).isEqualTo(Repair.Status.REPAIRED);
        assertThat(r.adoptedVersions()).containsExactly(head + 1);
        assertThat(r.removed()).singleElement().satisfies(x -> {
            assertThat(x.key()).isEqualTo("alice");
            assertThat(x.values()).contains("\"age\":30");
            assertThat(Long.compareUnsigned(x.keptRowAddress(), x.rowAddress())).isPositive();
        });
        assertThat(people()).isEqualTo(Map.of("alice", 99L, "bob", 40L, "carol", 50L));
        List<JournalEvent.DuplicatesRepaired> journaled = repaired();
        assertThat(journaled).singleElement().satisfies(e -> {
            assertThat(e.intentId()).isEqualTo(r.intentId());
            assertThat(e.rows()).extracting(RemovedRow::key).containsExactly("alice");
            assertThat(e.policy()).isEqualTo("keep-newest");
        });
        try (Graph g = Palisade.open(graph, Options.defaults())) { // no longer refused, nothing to recover
            assertThat(g.recoveryReport().changedAnything()).isFalse();
            // the repaired version, plus the insert people() made to show writes are accepted again
            assertThat(g.state().head("main", "person").orElseThrow().version()).isEqualTo(r.version() + 1);
        }
    }

    @Test
    void keepOldestKeepsTheRowTheJournalKnew() {
        Repair.Report r = Repair.run(graph, Repair.Request.of("person", Repair.Duplicates.KEEP_OLDEST));
        assertThat(r.removed()).singleElement().satisfies(x -> assertThat(x.values()).contains("\"age\":99"));
        assertThat(people()).isEqualTo(Map.of("alice", 30L, "bob", 40L, "carol", 50L));
    }

    @Test
    void failNamesTheDuplicatedKeyAndChangesNothing() {
        long end = journalEnd();
        assertThatThrownBy(() -> Repair.run(graph, Repair.Request.of("person", Repair.Duplicates.FAIL)))
                .isInstanceOfSatisfying(ForeignCommitException.class, e -> {
                    assertThat(e.situation()).isEqualTo(ForeignCommitException.Situation.ADOPTION_REFUSED);
                    assertThat(e.duplicateKeys()).containsExactly("alice");
                    assertThat(e.getMessage()).contains("'alice' (2 rows)");
                });
        assertThat(journalEnd()).isEqualTo(end + 1); // its session's WriterStarted only
        assertThat(repaired()).isEmpty();
    }

    @Test
    void aRepairKilledBeforeItsCommitIsAbortedByRecoveryAndCanBeRunAgain() {
        PhaseCrashPoints.listener(p -> {
            if (p.equals(Repair.AFTER_INTENT)) {
                throw new Killed();
            }
        });
        assertThatThrownBy(() -> Repair.run(graph, Repair.Request.of("person", Repair.Duplicates.KEEP_NEWEST)))
                .isInstanceOf(Killed.class);
        PhaseCrashPoints.listener(null);
        Repair.Report r = Repair.run(graph, Repair.Request.of("person", Repair.Duplicates.KEEP_NEWEST));
        assertThat(r.recovered()).contains(RecoveryClassification.Kind.NO_EFFECT_ABORTED.name());
        assertThat(r.status()).isEqualTo(Repair.Status.REPAIRED);
        assertThat(people()).isEqualTo(Map.of("alice", 99L, "bob", 40L, "carol", 50L));
    }

    @Test
    void aRepairKilledAfterItsCommitIsRolledForwardByTheNextOpen() {
        PhaseCrashPoints.listener(p -> {
            if (p.equals(Repair.AFTER_COMMIT)) {
                throw new Killed();
            }
        });
        assertThatThrownBy(() -> Repair.run(graph, Repair.Request.of("person", Repair.Duplicates.KEEP_NEWEST)))
                .isInstanceOf(Killed.class);
        PhaseCrashPoints.listener(null);
        try (Graph g = Palisade.open(graph, Options.defaults())) {
            assertThat(g.recoveryReport().classifications()).extracting(RecoveryClassification::kind)
                    .containsExactly(RecoveryClassification.Kind.EFFECT_ROLLED_FORWARD);
            assertThat(g.scan("main", "person")).hasSize(3);
        }
        assertThat(people()).isEqualTo(Map.of("alice", 99L, "bob", 40L, "carol", 50L));
    }

    @Test
    void aPkStrippingOverwriteWithADuplicateIsRepairedAndThePrimaryKeyReinstalled() {
        try (ForeignLanceWriter w = new ForeignLanceWriter(graph, "person")) {
            w.overwriteStrippingPk("alice", 1L, "alice", 2L, "zed", 3L);
        }
        Repair.Report r = Repair.run(graph, Repair.Request.of("person", Repair.Duplicates.KEEP_NEWEST));
        assertThat(r.primaryKeyReinstalled()).isTrue();
        try (LanceTableStore store = new LanceTableStore(graph.resolve("tables").toString())) {
            assertThat(store.primaryKey("person", new TableRef("main", r.version()))).containsExactly("id");
        }
        assertThat(people()).isEqualTo(Map.of("alice", 2L, "zed", 3L));
    }

    private Map<String, Long> people() {
        Map<String, Long> out = new LinkedHashMap<>();
        try (Graph g = Palisade.open(graph, Options.defaults())) {
            for (Map<String, Object> row : g.scan("main", "person")) {
                assertThat(out.put((String) row.get("id"), (Long) row.get("age"))).as("id %s once", row.get("id")).isNull();
            }
            ForeignAdoptionTest.insert(g, "erin-" + out.size(), 1L); // writes are accepted again
        }
        out.keySet().removeIf(k -> k.startsWith("erin-"));
        return out;
    }

    private List<JournalEvent.DuplicatesRepaired> repaired() {
        List<JournalEvent.DuplicatesRepaired> out = new ArrayList<>();
        try (JournalReader r = JournalReader.open(graph.resolve("_palisade")); JournalCursor c = r.read(0)) {
            for (JournalRecord rec = c.poll(); rec != null; rec = c.poll()) {
                if (rec.event() instanceof JournalEvent.DuplicatesRepaired d) {
                    out.add(d);
                }
            }
        }
        return out;
    }

    private long journalEnd() {
        try (JournalReader r = JournalReader.open(graph.resolve("_palisade"))) {
            return r.endSequence();
        }
    }

    private static final class Killed extends Error {
        private static final long serialVersionUID = 1L;
    }
}
