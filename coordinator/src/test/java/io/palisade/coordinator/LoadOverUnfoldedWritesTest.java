package io.palisade.coordinator;

import io.palisade.fencing.KeyConflictException;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A bulk load folds its table's unfolded writes first (docs/journal-ack.md): it commits over them, never under them,
 * so a read after the load and the table after the next fold both hold the load's rows, and a strict load meets the
 * keys the unfolded writes hold.
 */
class LoadOverUnfoldedWritesTest extends GraphTestSupport {
    private static final String CATALOG = """
            {"tables": [{"name": "person", "kind": "node", "ack": "journal", "columns": [{"name": "id", "type": "string"},
              {"name": "age", "type": "int64", "nullable": true}]}]}""";

    @Test
    void aMergeLoadOverAnUnfoldedWriteOfItsKeyWins() throws Exception {
        Object during;
        Object afterFold;
        try (Graph g = Palisade.create(dir.resolve("g"), Catalog.fromJson(CATALOG), IntegrityTest.options())) {
            g.upsert("main", "person", List.of(Row.of("id", "k0", "age", 1L)));
            try (PeopleReader in = new PeopleReader(allocator, List.of("k0"), 7, 4, b -> { })) {
                g.load("main", "person", in, LoadMode.MERGE, 10);
            }
            during = g.get("main", "person", List.of("k0")).get("k0").get("age");
        }
        try (Graph g = Palisade.open(dir.resolve("g"), IntegrityTest.options())) {
            afterFold = g.get("main", "person", List.of("k0")).get("k0").get("age");
        }
        assertThat(during).as("read after the load").isEqualTo(7L);
        assertThat(afterFold).as("after the close's fold").isEqualTo(7L);
    }

    @Test
    void aStrictLoadOfAKeyHeldByAnUnfoldedWriteConflicts() throws Exception {
        try (Graph g = Palisade.create(dir.resolve("g"), Catalog.fromJson(CATALOG), IntegrityTest.options())) {
            g.insert("main", "person", List.of(Row.of("id", "k1", "age", 1L)));
            Throwable thrown = null;
            try (PeopleReader in = new PeopleReader(allocator, List.of("k1"), 7, 4, b -> { })) {
                g.load("main", "person", in, LoadMode.APPEND, 10);
            } catch (Throwable t) {
                thrown = t;
            }
            assertThat(thrown).isInstanceOf(KeyConflictException.class);
        }
    }
}
