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

/** Index maintenance and compaction run as journaled operations and never change rows. */
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
}
