package io.palisade.coordinator;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;

import java.nio.file.Path;

/**
 * Child JVM of {@link BulkLoadCrashTest}: opens the graph at {@code args[0]} and loads {@code args[1]}
 * rows {@code L0..} in commits of {@code args[2]} rows, printing "batch k" before each reader batch.
 * With {@code args[3] = slow} it sleeps between batches so the parent can kill it mid-load; otherwise a
 * {@code -Dpalisade.crash.at} crash point halts it.
 */
public final class BulkLoadChild {
    public static void main(String[] args) throws Exception {
        System.setProperty("chronicle.analytics.disable", "true");
        Path graph = Path.of(args[0]);
        int n = Integer.parseInt(args[1]);
        int batchRows = Integer.parseInt(args[2]);
        boolean slow = args.length > 3 && args[3].equals("slow");
        try (BufferAllocator allocator = new RootAllocator();
             Graph g = Palisade.open(graph, Options.defaults());
             PeopleReader in = new PeopleReader(allocator, PeopleReader.ids("L", n), 5, batchRows, b -> {
                 System.out.println("batch " + b);
                 System.out.flush();
                 if (slow && b >= 2) {
                     try {
                         Thread.sleep(60_000);
                     } catch (InterruptedException e) {
                         Thread.currentThread().interrupt();
                     }
                 }
             })) {
            g.load("main", "person", in, LoadMode.APPEND, batchRows);
        }
        System.out.println("done");
    }
}
