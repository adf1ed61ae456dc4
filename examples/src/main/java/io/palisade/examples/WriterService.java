package io.palisade.examples;

import io.palisade.coordinator.Catalog;
import io.palisade.coordinator.Graph;
import io.palisade.coordinator.MergeResult;
import io.palisade.coordinator.Options;
import io.palisade.coordinator.Palisade;
import io.palisade.coordinator.Receipt;
import io.palisade.coordinator.Row;
import io.palisade.fencing.KeyConflictException;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * A small writer service embedding Palisade: two writers race to insert the same new key (exactly one wins, the
 * other gets a typed key conflict), the service reads its own write, works on a branch and merges it back.
 * Run it with the JVM options of Palisade's README ("JVM flags"); its argument is the graph's directory
 * (default: a new temporary directory).
 */
public final class WriterService {
    private WriterService() {
    }

    public static void main(String[] args) throws Exception {
        Path dir = args.length > 0 ? Path.of(args[0]) : Files.createTempDirectory("palisade-example").resolve("graph");
        System.out.println("graph at " + dir);
        Catalog catalog = Catalog.fromJson("""
                {"tables": [{"name": "person", "kind": "node", "columns": [
                  {"name": "id", "type": "string"}, {"name": "age", "type": "int64", "nullable": true}]}]}
                """);
        try (Graph g = Palisade.create(dir, catalog, Options.defaults());
             ExecutorService writers = Executors.newFixedThreadPool(2)) {
            // two writers insert the same new key at once: exactly one wins, the other gets a typed conflict
            CountDownLatch go = new CountDownLatch(1);
            List<Future<String>> race = List.of(1, 2).stream().map(n -> writers.submit(() -> {
                go.await();
                try {
                    Receipt r = g.insert("main", "person", List.of(Row.of("id", "alice", "age", 30 + n)));
                    return "writer " + n + " inserted alice: table version " + r.version() + ", journal seq " + r.seq();
                } catch (KeyConflictException e) {
                    return "writer " + n + " lost: " + e.getMessage(); // the key exists: do not retry blindly
                }
            })).toList();
            go.countDown();
            for (Future<String> f : race) {
                System.out.println(f.get());
            }
            // the receipt means durable: the service reads its own write at once
            System.out.println("alice is " + g.get("main", "person", List.of("alice")).get("alice").int64("age"));
            // work on a branch, then merge it back (a key changed on both sides would be a MergeConflictException)
            g.createBranch("dev", "main");
            g.upsert("dev", "person", List.of(Row.of("id", "alice", "age", 40), Row.of("id", "bob", "age", 25)));
            MergeResult m = g.merge("dev", "main");
            System.out.println("merged dev into main: " + m.inserted() + " inserted, " + m.updated() + " updated");
            System.out.println("main now: " + g.rows("main", "person"));
        }
    }
}
