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
        footer = {"%nExample:%n  palisade init GRAPH --catalog catalog.json",
                "  PALISADE_STORAGE_FILE=s3.properties palisade init GRAPH --catalog catalog.json --tables s3://bucket/g1"})
final class InitCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "GRAPH", description = "Directory of the new graph.")
    Path graph;

    @Option(names = "--catalog", required = true, paramLabel = "FILE", description = "The catalog JSON.")
    Path catalog;

    @Option(names = "--tables", paramLabel = "URI", description = {"Keep the tables on an object store "
            + "(s3://bucket/prefix) instead of GRAPH/tables; the journal and lease stay in GRAPH. Storage options "
            + "(credentials, endpoint) come from the file named by PALISADE_STORAGE_FILE and from PALISADE_STORAGE_* "
            + "variables, never from the graph (docs/scale-out.md)."})
    String tables;

    @Override
    public Integer call() {
        Catalog c = Catalog.read(catalog);
        try (Graph g = tables == null ? Palisade.create(graph, c, Options.defaults())
                : Palisade.create(graph, c, Options.defaults(), tables, java.util.Map.of())) {
            System.out.println("created graph " + graph + " with tables "
                    + c.tables().stream().map(t -> t.name() + " (" + t.kind().json() + ")").toList()
                    + (tables == null ? "" : " on " + tables));
        }
        return Main.OK;
    }
}
