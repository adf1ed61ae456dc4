package io.palisade.cli;

import io.palisade.coordinator.Graph;
import io.palisade.coordinator.Options;
import io.palisade.coordinator.Palisade;
import io.palisade.fencing.GraphRefusedException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.nio.file.Path;
import java.util.concurrent.Callable;

/**
 * {@code palisade recover GRAPH [--adopt-foreign]}: opens the graph (which runs recovery, DESIGN §5),
 * prints recovery's JSON report and closes it. See docs/recovery.md.
 */
@Command(name = "recover", description = "Run recovery on a graph and print its JSON report.")
final class RecoverCommand implements Callable<Integer> {
    /** Exit status when the graph is refused (e.g. a foreign commit without --adopt-foreign). */
    static final int REFUSED = 3;

    @Parameters(index = "0", description = "the graph directory")
    Path graph;

    @Option(names = "--adopt-foreign", description = "publish table versions that no journaled intent explains "
            + "(only after inspecting them: see docs/recovery.md)")
    boolean adoptForeign;

    @Override
    public Integer call() {
        try (Graph g = Palisade.open(graph, Options.defaults(), adoptForeign)) {
            System.out.println(g.recoveryReport().toJson());
            return 0;
        } catch (GraphRefusedException e) {
            System.err.println("refused: " + e.getMessage());
            return REFUSED;
        }
    }
}
