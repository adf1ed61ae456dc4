package io.palisade.examples;

import io.palisade.coordinator.Catalog;
import io.palisade.coordinator.Graph;
import io.palisade.coordinator.Options;
import io.palisade.coordinator.Palisade;
import io.palisade.coordinator.Row;
import io.palisade.coordinator.TransactionReceipt;
import io.palisade.fencing.KeyConflictException;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * A graph transaction: a person, the company they join and the edge between them, committed together (all or
 * nothing), then the person and their edge deleted together. Its argument is the graph's directory (default: a new
 * temporary directory).
 */
public final class GraphTransaction {
    private GraphTransaction() {
    }

    public static void main(String[] args) throws Exception {
        Path dir = args.length > 0 ? Path.of(args[0]) : Files.createTempDirectory("palisade-example").resolve("graph");
        Catalog catalog = Catalog.fromJson("""
                {"tables": [
                  {"name": "person", "kind": "node", "unique": ["email"], "columns": [
                    {"name": "id", "type": "string"}, {"name": "email", "type": "string", "nullable": true}]},
                  {"name": "company", "kind": "node", "ack": "journal", "columns": [{"name": "id", "type": "string"}]},
                  {"name": "works_at", "kind": "edge", "ack": "journal", "src": "person", "dst": "company", "columns": [
                    {"name": "id", "type": "string"}, {"name": "src", "type": "string"}, {"name": "dst", "type": "string"}]}]}
                """);
        try (Graph g = Palisade.create(dir, catalog, Options.defaults())) {
            // a node, another node and the edge between them: published together, in both ack modes
            TransactionReceipt hired = g.transaction("main")
                    .insert("person", List.of(Row.of("id", "alice", "email", "alice@example.com")))
                    .insert("company", List.of(Row.of("id", "acme")))
                    .insert("works_at", List.of(Row.of("id", "w1", "src", "alice", "dst", "acme")))
                    .commit();
            System.out.println("committed " + hired.parts().size() + " parts at seq " + hired.seq());
            try {
                // acme exists, so the whole transaction fails: bob is not written either
                g.transaction("main")
                        .insert("person", List.of(Row.of("id", "bob", "email", "bob@example.com")))
                        .insert("company", List.of(Row.of("id", "acme")))
                        .commit();
            } catch (KeyConflictException e) {
                System.out.println("refused: " + e.table() + " already holds " + e.keys());
            }
            // a node and its edge deleted together
            g.transaction("main")
                    .delete("works_at", List.of("w1"))
                    .delete("person", List.of("alice"))
                    .commit();
            System.out.println("people now: " + g.rows("main", "person").size()
                    + ", companies: " + g.rows("main", "company").size());
        }
    }
}
