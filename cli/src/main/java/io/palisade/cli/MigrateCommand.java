package io.palisade.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

import java.nio.file.Path;
import java.util.concurrent.Callable;

@Command(name = "migrate", mixinStandardHelpOptions = true,
        description = "Graph migrations.", subcommands = MigrateCommand.Pk.class)
final class MigrateCommand implements Runnable {
    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        throw new picocli.CommandLine.ParameterException(spec.commandLine(), "missing subcommand: pk");
    }

    @Command(name = "pk", mixinStandardHelpOptions = true,
            description = {"Upgrade a pre-fencing graph: install the id primary key on every table of every branch,",
                    "then write the fencing format stamp (RFC-023 §8).",
                    "NOT IMPLEMENTED YET: the coordinator has no migration executor (issue 7); exits 1."})
    static final class Pk implements Callable<Integer> {
        @Parameters(index = "0", paramLabel = "GRAPH")
        Path graph;

        @Override
        public Integer call() {
            Cli.requireGraph(graph);
            throw new CliException(Main.INTERNAL, "migrate pk is not implemented yet: see issue 7 (the coordinator has "
                    + "no PK migration executor); graphs created by this binary are already at the fencing format");
        }
    }
}
