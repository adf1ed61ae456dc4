package io.palisade.it.crash;

import io.palisade.coordinator.Catalog;
import io.palisade.coordinator.Graph;
import io.palisade.coordinator.Options;
import io.palisade.coordinator.Palisade;
import io.palisade.fencing.GraphRefusedException;
import io.palisade.journal.JournalReader;
import io.palisade.journal.RecoveryClassification;
import io.palisade.substrate.KeyedTable;
import io.palisade.substrate.TableRef;
import io.palisade.substrate.lance.LanceTableStore;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** DESIGN §5's last row: a table version no journaled intent explains refuses the graph until an operator adopts it. */
class ForeignCommitTest {
    @TempDir
    Path dir;

    @Test
    void foreignCommitRefusesTheGraphNamingTableBranchAndVersionUntilAdopted() {
        Path graph = dir.resolve("g");
        long head;
        try (BufferAllocator a = new RootAllocator();
             Graph g = Palisade.create(graph, Catalog.fromJson(CrashHarness.CATALOG), Options.defaults())) {
            CrashWorkload.apply(g, a, new Plan.Op(Plan.Kind.INSERT, "main", Map.of("alice", 30L)));
            head = g.state().head("main", "person").orElseThrow().version();
        }
        // a writer that bypasses Palisade commits straight to Lance
        try (BufferAllocator a = new RootAllocator();
             LanceTableStore store = new LanceTableStore(graph.resolve("tables").toString());
             KeyedTable t = store.openKeyed("person", store.latest("person", TableRef.MAIN));
             VectorSchemaRoot rows = CrashWorkloadRows.people(a, Map.of("mallory", 1L))) {
            t.upsert(rows, t.mergePath());
        }
        long endBefore;
        try (JournalReader r = JournalReader.open(graph.resolve("_palisade"))) {
            endBefore = r.endSequence();
        }
        assertThatThrownBy(() -> Palisade.open(graph, Options.defaults()))
                .isInstanceOf(GraphRefusedException.class)
                .hasMessageContaining("table 'person'").hasMessageContaining("graph branch 'main'")
                .hasMessageContaining("table branch 'main'").hasMessageContaining("version " + (head + 1))
                .hasMessageContaining("--adopt-foreign");
        try (JournalReader r = JournalReader.open(graph.resolve("_palisade"))) {
            // the refused open journaled its WriterStarted only: no half recovery
            assertThat(r.endSequence()).isEqualTo(endBefore + 1);
        }
        try (Graph g = Palisade.open(graph, Options.defaults(), true)) {
            assertThat(g.recoveryReport().classifications()).extracting(RecoveryClassification::kind)
                    .containsExactly(RecoveryClassification.Kind.FOREIGN_COMMIT);
            assertThat(g.recoveryReport().toJson()).contains("FOREIGN_COMMIT").contains("\"adoptForeign\" : true");
            assertThat(g.scan("main", "person")).extracting(m -> m.get("id")).containsExactlyInAnyOrder("alice", "mallory");
            assertThat(g.state().head("main", "person").orElseThrow().version()).isEqualTo(head + 1);
        }
        try (Graph g = Palisade.open(graph, Options.defaults())) {
            assertThat(g.recoveryReport().changedAnything()).isFalse();
        }
    }
}
