package io.palisade.examples;

import io.palisade.coordinator.Catalog;
import io.palisade.coordinator.Graph;
import io.palisade.coordinator.Options;
import io.palisade.coordinator.Palisade;
import io.palisade.coordinator.Row;
import io.palisade.fencing.EndpointConflictException;
import io.palisade.fencing.UniqueConflictException;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Edges whose endpoints must exist and a unique column, declared in the catalog and checked at commit: the writes
 * that would break them are refused whole, with a typed conflict naming what broke. Its argument is the graph's
 * directory (default: a new temporary directory).
 */
public final class GraphIntegrity {
    private GraphIntegrity() {
    }

    public static void main(String[] args) throws Exception {
        Path dir = args.length > 0 ? Path.of(args[0]) : Files.createTempDirectory("palisade-example").resolve("graph");
        Catalog catalog = Catalog.fromJson("""
                {"tables": [
                  {"name": "person", "kind": "node", "unique": ["email"], "columns": [
                    {"name": "id", "type": "string"}, {"name": "email", "type": "string", "nullable": true}]},
                  {"name": "company", "kind": "node", "columns": [{"name": "id", "type": "string"}]},
                  {"name": "works_at", "kind": "edge", "src": "person", "dst": "company", "columns": [
                    {"name": "id", "type": "string"}, {"name": "src", "type": "string"}, {"name": "dst", "type": "string"}]}]}
                """);
        try (Graph g = Palisade.create(dir, catalog, Options.defaults())) {
            // nodes first, then the edges that name them
            g.insert("main", "person", List.of(Row.of("id", "alice", "email", "alice@example.com")));
            g.insert("main", "company", List.of(Row.of("id", "acme")));
            g.insert("main", "works_at", List.of(Row.of("id", "w1", "src", "alice", "dst", "acme")));
            try {
                g.insert("main", "works_at", List.of(Row.of("id", "w2", "src", "bob", "dst", "acme")));
            } catch (EndpointConflictException e) {
                System.out.println("refused: " + e.getMessage()); // bob is not a person
            }
            try {
                g.insert("main", "person", List.of(Row.of("id", "eve", "email", "alice@example.com")));
            } catch (UniqueConflictException e) {
                System.out.println("refused: " + e.column() + " " + e.value() + " is held by " + e.holder());
            }
            try {
                g.delete("main", "person", List.of("alice"));
            } catch (EndpointConflictException e) {
                System.out.println("refused: alice still has edges " + e.edges());
            }
            // the edge first, then the node
            g.delete("main", "works_at", List.of("w1"));
            g.delete("main", "person", List.of("alice"));
            System.out.println("people now: " + g.rows("main", "person").size());
        }
    }
}
