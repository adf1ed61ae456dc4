package io.palisade.coordinator;

import io.palisade.journal.IntentOutcome;
import io.palisade.journal.JournalEvent.IntentCompleted;
import io.palisade.journal.JournalEvent.IntentRecorded;
import io.palisade.journal.LogicalOperation;
import io.palisade.substrate.KeyedTable;
import io.palisade.substrate.TableRef;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link Options#indexRefreshEvery()}: the committer extends the {@code id} index by itself after every
 * N row-adding commits to a keyed table, as an ordinary journaled maintenance operation.
 */
class AutoIndexRefreshTest extends GraphTestSupport {
    private int next;

    private void upserts(Graph g, int n) {
        for (int i = 0; i < n; i++, next++) {
            try (VectorSchemaRoot r = Rows.people(allocator, "k" + next, next)) {
                g.upsert("main", "person", r);
            }
        }
    }

    /** Whether the id index covers every fragment of the table's head (an optimise would do nothing). */
    private static boolean indexCoversHead(Graph g) {
        var head = g.state().head("main", "person").orElseThrow();
        try (KeyedTable t = g.engine().context().store().openKeyed("person", new TableRef(head.tableBranch(), head.version()))) {
            return t.planIndexOptimize().isEmpty();
        }
    }

    private static List<IntentRecorded> maintenanceIntents(Path p) {
        return BulkLoadTest.events(p).stream().filter(e -> e instanceof IntentRecorded ir
                && ir.operation() == LogicalOperation.INDEX_MAINTENANCE).map(e -> (IntentRecorded) e).toList();
    }

    @Test
    void everyNthRowAddingCommitIsFollowedByAJournaledIndexOptimise() {
        Path p = dir.resolve("g");
        try (Graph g = Palisade.create(p, Rows.catalog(), Options.defaults().withIndexRefreshEvery(3))) {
            upserts(g, 2);
            assertThat(indexCoversHead(g)).isFalse(); // two fragments the index does not cover yet
            upserts(g, 1);
            // the refresh runs on the committer right after the third commit, before any later write
            upserts(g, 1);
            assertThat(g.metrics().autoIndexRefreshes()).isEqualTo(1);
            upserts(g, 2);
            long head = g.state().head("main", "person").orElseThrow().version();
            // queued behind the second refresh, which left nothing to do: a no-op at the refreshed head
            Receipt explicit = g.optimizeIndex("main", "person");
            assertThat(g.metrics().autoIndexRefreshes()).isEqualTo(2);
            assertThat(explicit.version()).isEqualTo(head + 1);
            assertThat(indexCoversHead(g)).isTrue();
            assertThat(g.metrics().autoIndexRefreshFailures()).isZero();
            assertThat(BulkLoadTest.ids(g.scan("main", "person"))).hasSize(6).doesNotHaveDuplicates();
        }
        List<IntentRecorded> maintenance = maintenanceIntents(p);
        assertThat(maintenance).hasSize(3); // two automatic refreshes, then the explicit no-op
        assertThat(maintenance.get(0).expectedBase().version()).isLessThan(maintenance.get(1).expectedBase().version());
        Set<String> ids = maintenance.subList(0, 2).stream().map(IntentRecorded::intentId).collect(Collectors.toSet());
        // both refreshes committed a table version (not a no-op)
        assertThat(BulkLoadTest.events(p).stream().filter(e -> e instanceof IntentCompleted c && ids.contains(c.intentId())
                && c.outcome() == IntentOutcome.COMMITTED && !c.reason().startsWith("no-op"))).hasSize(2);
    }

    @Test
    void zeroTurnsItOffAndAGraphWithoutTheIndexNeverRefreshes() {
        Path off = dir.resolve("off");
        try (Graph g = Palisade.create(off, Rows.catalog(), Options.defaults().withIndexRefreshEvery(0))) {
            upserts(g, 5);
            assertThat(g.metrics().autoIndexRefreshes()).isZero();
        }
        assertThat(maintenanceIntents(off)).isEmpty();
        Path v2 = dir.resolve("v2");
        try (Graph g = Palisade.create(v2, Rows.catalog(), Options.defaults().withIndexedMerge(false).withIndexRefreshEvery(2))) {
            upserts(g, 5);
            assertThat(g.metrics().autoIndexRefreshes()).isZero();
        }
        assertThat(maintenanceIntents(v2)).isEmpty();
    }
}
