package io.palisade.it.foreign;

import io.palisade.coordinator.Catalog;
import io.palisade.coordinator.Graph;
import io.palisade.coordinator.Options;
import io.palisade.coordinator.Palisade;
import io.palisade.coordinator.Row;
import io.palisade.fencing.EndpointConflictException;
import io.palisade.fencing.ForeignCommitException;
import io.palisade.fencing.PalisadeException;
import io.palisade.substrate.lance.ForeignLanceWriter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Integrity checks next to a table this session refuses (docs/integrity.md): a foreign Lance writer deletes a node
 * that an edge names; once the graph has found the foreign commit and refuses the node table, a write whose checks
 * must read that table is refused with the table's error, never judged against what the graph last knew of it.
 */
class IntegrityForeignTest {
    static final String CATALOG = """
            {"tables": [
              {"name": "person", "kind": "node", "columns": [{"name": "id", "type": "string"},
                {"name": "age", "type": "int64", "nullable": true}]},
              {"name": "company", "kind": "node", "columns": [{"name": "id", "type": "string"}]},
              {"name": "works_at", "kind": "edge", "src": "person", "dst": "company", "columns": [
                {"name": "id", "type": "string"}, {"name": "src", "type": "string"}, {"name": "dst", "type": "string"}]}]}
            """;

    @TempDir
    Path dir;

    @Test
    void anEdgeNamingANodeOfARefusedTableIsRefusedNotJudgedOnWhatTheGraphLastKnew() {
        Path graph = dir.resolve("g");
        try (Graph g = Palisade.create(graph, Catalog.fromJson(CATALOG), Options.defaults())) {
            g.insert("main", "person", List.of(Row.of("id", "ann", "age", 30), Row.of("id", "bob", "age", 40)));
            g.insert("main", "company", List.of(Row.of("id", "acme")));
            g.insert("main", "works_at", List.of(Row.of("id", "e0", "src", "bob", "dst", "acme")));
            // the checks' image of person now holds ann; a foreign writer deletes her behind the graph's back
            try (ForeignLanceWriter w = new ForeignLanceWriter(graph, "person")) {
                w.delete("id = 'ann'");
            }
            assertThatThrownBy(() -> g.insert("main", "person", List.of(Row.of("id", "zed", "age", 1))))
                    .isInstanceOf(ForeignCommitException.class);
            assertThatThrownBy(() -> g.insert("main", "works_at", List.of(Row.of("id", "e1", "src", "ann", "dst", "acme"))))
                    .isInstanceOf(PalisadeException.class).isNotInstanceOf(EndpointConflictException.class)
                    .hasMessageContaining("person");
            assertThatThrownBy(() -> g.delete("main", "company", List.of("acme")))
                    .isInstanceOf(EndpointConflictException.class); // works_at is not refused: its image answers
            assertThat(g.scan("main", "works_at")).hasSize(1);
        }
    }
}
