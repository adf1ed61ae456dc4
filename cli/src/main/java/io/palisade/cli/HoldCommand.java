package io.palisade.cli;

import io.palisade.coordinator.Graph;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.nio.file.Path;
import java.util.concurrent.Callable;

/** Hidden: holds the writer lease of a graph for a while (tests of a held lease). */
@Command(name = "hold", hidden = true, mixinStandardHelpOptions = true, description = "Open GRAPH for writing and hold its lease (for tests).")
final class HoldCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "GRAPH", description = "The graph directory.")
    Path graph;

    @Option(names = "--seconds", defaultValue = "300", description = "How long to hold the lease.")
    long seconds;

    @Override
    public Integer call() throws Exception {
        try (Graph g = Cli.openForWrite(graph)) {
            System.out.println("holding " + graph + " pid " + ProcessHandle.current().pid());
            System.out.flush();
            Thread.sleep(seconds * 1000);
        }
        return Main.OK;
    }
}
