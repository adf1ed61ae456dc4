package io.palisade.cli;

import io.palisade.coordinator.Catalog;
import io.palisade.coordinator.Graph;
import io.palisade.coordinator.Options;
import io.palisade.coordinator.Palisade;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.nio.file.Path;
import java.util.concurrent.Callable;

@Command(name = "init", mixinStandardHelpOptions = true,
        description = {"Create a graph from a catalog of node, edge and append-only tables.",
                "The graph is built beside GRAPH and renamed into place, so a failed create leaves nothing behind."},
        footer = {"%nExample:%n  palisade init GRAPH --catalog catalog.json"})
final class InitCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "GRAPH", description = "Directory of the new graph.")
    Path graph;

    @Option(names = "--catalog", required = true, paramLabel = "FILE", description = "The catalog JSON.")
    Path catalog;

    @Override
    public Integer call() {
        Catalog c = Catalog.read(catalog);
        try (Graph g = Palisade.create(graph, c, Options.defaults())) {
            System.out.println("created graph " + graph + " with tables "
                    + c.tables().stream().map(t -> t.name() + " (" + t.kind().json() + ")").toList());
        }
        return Main.OK;
    }
}
