package io.palisade.coordinator;

import io.palisade.journal.JournalCursor;
import io.palisade.journal.JournalEvent;
import io.palisade.journal.JournalReader;
import io.palisade.journal.JournalRecord;
import io.palisade.journal.LogicalOperation;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Index maintenance and compaction run as journaled operations and never change rows, on main and on a branch that
 * forked main's indexed table.
 */
class MaintenanceTest {
    @TempDir
    Path dir;

    @Test
    void compactionAndIndexOptimiseAreJournaledAndKeepEveryRow() {
        Path p = dir.resolve("g");
        try (BufferAllocator allocator = new RootAllocator();
             Graph g = Palisade.create(p, Rows.catalog(), Options.defaults())) {
            for (int i = 0; i < 6; i++) {
                try (VectorSchemaRoot r = Rows.people(allocator, "k" + i, i)) {
                    g.insert("main", "person", r);
                }
            }
            Set<Map<String, Object>> before = new HashSet<>(g.scan("main", "person"));
            long v0 = g.state().head("main", "person").orElseThrow().version();

            Receipt compacted = g.compact("main", "person");
            Receipt optimised = g.optimizeIndex("main", "person");

            assertThat(compacted.version()).isGreaterThan(v0);
            assertThat(optimised.version()).isGreaterThan(compacted.version());
            assertThat(new HashSet<>(g.scan("main", "person"))).isEqualTo(before);
            try (VectorSchemaRoot dup = Rows.people(allocator, "k3", 99)) {
                org.assertj.core.api.Assertions.assertThatThrownBy(() -> g.insert("main", "person", dup))
                        .isInstanceOf(io.palisade.fencing.KeyConflictException.class);
            }

            List<LogicalOperation> ops = new ArrayList<>();
            try (JournalReader reader = JournalReader.open(p.resolve("_palisade")); JournalCursor c = reader.read(0)) {
                for (JournalRecord r = c.poll(); r != null; r = c.poll()) {
                    if (r.event() instanceof JournalEvent.IntentRecorded ir) {
                        ops.add(ir.operation());
                    }
                }
            }
            assertThat(ops).contains(LogicalOperation.COMPACTION, LogicalOperation.INDEX_MAINTENANCE);
        }
    }

    /**
     * A branch's table branch forked from main reads main's id index until it has one of its own. Main compacts,
     * refreshes its index and removes its old versions, including the branch's fork point; the branch deletes rows
     * the inherited index covers and compacts them (which remaps that index); and the branch keeps taking upserts
     * through the index and reads its rows, before and after a reopen.
     */
    @Test
    void aBranchForkedFromAnIndexedMainKeepsWritingAfterItsCompactionAndMainsMaintenance() {
        Path p = dir.resolve("fork");
        Options options = Options.defaults().withIndexRefreshEvery(2).withCompaction(Compaction.off())
                .withRetention(Retention.DEFAULTS.withVersions(2, 4).withWindow(java.time.Duration.ZERO).withExpireEvery(2));
        Map<String, Long> onB = new java.util.TreeMap<>();
        Map<String, Long> onMain = new java.util.TreeMap<>();
        try (BufferAllocator allocator = new RootAllocator();
             Graph g = Palisade.create(p, Rows.catalog(), options)) {
            for (int i = 0; i < 6; i++) {
                upsert(g, allocator, "main", "k" + i, i, onMain); // main's index is refreshed every other upsert
            }
            g.createBranch("b", "main");
            onB.putAll(onMain);
            upsert(g, allocator, "b", "k1", 10, onB);        // b forks main's table at its head, index included
            g.delete("b", "person", List.of("k2", "k3"));      // rows of fragments main's index covers
            onB.remove("k2");
            onB.remove("k3");
            g.compact("main", "person");
            g.optimizeIndex("main", "person");
            for (int i = 0; i < 6; i++) {
                upsert(g, allocator, "main", "m" + i, i, onMain); // main's retention bound passes b's fork point
            }
            assertThat(g.metrics().versionsExpired()).isPositive();
            g.compact("b", "person");                         // rewrites those fragments, remapping the index
            upsert(g, allocator, "b", "k4", 40, onB);
            upsert(g, allocator, "b", "n", 50, onB);
            g.compact("b", "person");
            upsert(g, allocator, "b", "k0", 60, onB);
            assertThat(ages(g.scan("b", "person"))).isEqualTo(onB);
            assertThat(ages(g.scan("main", "person"))).isEqualTo(onMain);
        }
        try (BufferAllocator allocator = new RootAllocator(); Graph g = Palisade.open(p, options)) {
            upsert(g, allocator, "b", "k5", 70, onB);
            assertThat(ages(g.scan("b", "person"))).isEqualTo(onB);
            upsert(g, allocator, "main", "k5", 80, onMain);
            assertThat(ages(g.scan("main", "person"))).isEqualTo(onMain);
        }
    }

    private static void upsert(Graph g, BufferAllocator allocator, String branch, String key, long age,
                               Map<String, Long> model) {
        try (VectorSchemaRoot r = Rows.people(allocator, key, age)) {
            g.upsert(branch, "person", r);
        }
        model.put(key, age);
    }

    private static Map<String, Long> ages(List<Map<String, Object>> rows) {
        Map<String, Long> out = new java.util.TreeMap<>();
        rows.forEach(r -> assertThat(out.put((String) r.get("id"), (Long) r.get("age"))).as("id %s once", r.get("id"))
                .isNull());
        return out;
    }
}
