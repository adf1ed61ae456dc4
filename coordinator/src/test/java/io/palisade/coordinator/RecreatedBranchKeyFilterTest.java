package io.palisade.coordinator;

import io.palisade.fencing.KeyConflictException;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The negative key filter of a strict insert's fence belongs to one incarnation of a graph branch: a branch deleted
 * and created again under its name (allowed while the first never forked a table) starts from its parent's head now,
 * whose keys the old filter never saw. A strict insert of such a key is a key conflict, in a transaction or alone.
 */
class RecreatedBranchKeyFilterTest extends GraphTestSupport {
    private static String catalog(String ack) {
        return """
                {"tables": [{"name": "person", "kind": "node", "ack": "%s", "columns": [
                  {"name": "id", "type": "string"}, {"name": "name", "type": "string", "nullable": true}]}]}"""
                .formatted(ack);
    }

    @ParameterizedTest
    @CsvSource({"table,transaction", "journal,transaction", "journal,single"})
    void aStrictInsertOnARecreatedBranchMeetsTheKeysItsHeadHolds(String ack, String how) {
        try (Graph g = Palisade.create(dir.resolve("g"), Catalog.fromJson(catalog(ack)), IntegrityTest.options())) {
            g.insert("main", "person", List.of(Row.of("id", "a", "name", "A")));
            g.createBranch("b", "main");
            // builds the filter of b/person from b's head ({a}); writes nothing
            assertThatThrownBy(() -> g.transaction("b").insert("person", List.of(Row.of("id", "a"))).commit())
                    .isInstanceOf(KeyConflictException.class);
            g.deleteBranch("b");
            g.insert("main", "person", List.of(Row.of("id", "k", "name", "original")));
            g.createBranch("b", "main");
            assertThat(g.get("b", "person", List.of("k"))).containsKey("k");
            Runnable insert = how.equals("transaction")
                    ? () -> g.transaction("b").insert("person", List.of(Row.of("id", "k", "name", "clobbered"))).commit()
                    : () -> g.insert("b", "person", List.of(Row.of("id", "k", "name", "clobbered")));
            Throwable thrown = null;
            try {
                insert.run();
            } catch (Throwable t) {
                thrown = t;
            }
            g.awaitFold();
            Object name = g.get("b", "person", List.of("k")).get("k").get("name");
            assertThat(thrown).as("strict insert of a key b holds; k's name now " + name)
                    .isInstanceOf(KeyConflictException.class);
            assertThat(name).isEqualTo("original");
        }
    }
}
