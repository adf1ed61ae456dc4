package io.palisade.coordinator;

import io.palisade.fencing.GraphClosedException;
import io.palisade.fencing.GraphRefusedException;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A write to a closed graph fails with {@link GraphClosedException} (a {@link GraphRefusedException}) and writes
 * nothing.
 */
class ClosedGraphTest extends GraphTestSupport {

    @Test
    void aWriteAfterCloseIsRefusedAsClosedAndJournalsNothing() {
        Path p = dir.resolve("g");
        Graph g = Palisade.create(p, Rows.catalog(), Options.defaults());
        try (VectorSchemaRoot r = Rows.people(allocator, "k0", 0)) {
            g.upsert("main", "person", r);
        }
        g.close();
        int events = BulkLoadTest.events(p).size();
        try (VectorSchemaRoot r = Rows.people(allocator, "k1", 1)) {
            assertThatThrownBy(() -> g.upsert("main", "person", r))
                    .isInstanceOf(GraphClosedException.class)
                    .isInstanceOf(GraphRefusedException.class)
                    .hasMessageContaining("closed");
        }
        assertThat(BulkLoadTest.events(p)).hasSize(events);
        try (Graph reopened = Palisade.open(p, Options.defaults())) {
            assertThat(BulkLoadTest.ids(reopened.scan("main", "person"))).containsExactly("k0");
        }
    }
}
