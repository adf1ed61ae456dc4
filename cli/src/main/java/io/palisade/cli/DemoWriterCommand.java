package io.palisade.cli;

import io.palisade.coordinator.Catalog;
import io.palisade.coordinator.Graph;
import io.palisade.coordinator.Receipt;
import io.palisade.coordinator.WriteOptions;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * Hidden: the demo's writer child. Upserts batches of {@code person} rows from several threads forever and
 * prints {@code ACK <batch> <intent> <seq> <version>} only after each receipt has returned (durable).
 */
@Command(name = "demo-writer", hidden = true, mixinStandardHelpOptions = true, description = "The demo's writer child process.")
final class DemoWriterCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "GRAPH", description = "The graph directory.")
    Path graph;

    @Option(names = "--threads", defaultValue = "3", description = "Writer threads.")
    int threads;

    @Option(names = "--rows", defaultValue = "400", description = "Rows per batch.")
    int rows;

    @Override
    public Integer call() throws Exception {
        PrintStream out = System.out;
        try (Graph g = Cli.openForWrite(graph); BufferAllocator alloc = new RootAllocator()) {
            Catalog.TableDef def = g.catalog().require("person");
            out.println("READY pid " + ProcessHandle.current().pid());
            out.flush();
            List<Thread> ts = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int tid = t;
                ts.add(Thread.ofPlatform().start(() -> {
                    for (int b = 0; ; b++) {
                        String batch = "w" + tid + "-" + b;
                        List<Map<String, Object>> rs = new ArrayList<>();
                        for (int i = 0; i < rows; i++) {
                            Map<String, Object> r = new LinkedHashMap<>();
                            r.put("id", batch + "-" + i);
                            r.put("name", "writer " + tid + " batch " + b);
                            r.put("age", (long) (20 + i % 50));
                            rs.add(r);
                        }
                        try (VectorSchemaRoot root = VectorSchemaRoot.create(def.arrowSchema(), alloc)) {
                            io.palisade.substrate.ArrowRows.fill(root, rs);
                            Receipt rc = g.upsert("main", "person", root, WriteOptions.NONE);
                            synchronized (out) {
                                out.println("ACK " + batch + " " + rc.intent() + " " + rc.seq() + " " + rc.version());
                                out.flush();
                            }
                        } catch (RuntimeException e) {
                            synchronized (out) {
                                out.println("ERR " + batch + " " + e.getMessage());
                                out.flush();
                            }
                        }
                    }
                }));
            }
            for (Thread t : ts) {
                t.join();
            }
        }
        return Main.OK;
    }
}
