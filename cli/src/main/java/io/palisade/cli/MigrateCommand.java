package io.palisade.cli;

import io.palisade.coordinator.MigrationOptions;
import io.palisade.coordinator.MigrationReport;
import io.palisade.coordinator.PkMigration;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

import java.nio.file.Path;
import java.util.concurrent.Callable;

@Command(name = "migrate", mixinStandardHelpOptions = true,
        description = {"Migrate a graph to a newer format."},
        footer = {"%nExample:%n  palisade migrate pk GRAPH"}, subcommands = MigrateCommand.Pk.class)
final class MigrateCommand implements Runnable {
    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        throw new picocli.CommandLine.ParameterException(spec.commandLine(), "missing subcommand: pk");
    }

    @Command(name = "pk", mixinStandardHelpOptions = true,
            description = {"Upgrade a pre-fencing graph to the fencing format.",
                    "It installs the id primary key on every table of every branch (including lazily inherited table "
                            + "states), then writes the fencing format stamp (RFC-023 §8). It is journaled and "
                            + "resumable: run it again after a crash and it rolls forward. Writers must be stopped.",
                    "It exits 0 when the graph is (or already was) at the fencing format, and 6 when the migration "
                            + "refused (duplicate or null ids, a different primary key; the report names table, branch, "
                            + "version and ids). See docs/migration.md."},
            footer = {"%nExample:%n  palisade migrate pk GRAPH"})
    static final class Pk implements Callable<Integer> {
        @Parameters(index = "0", paramLabel = "GRAPH", description = "The graph directory.")
        Path graph;

        @Override
        public Integer call() {
            Cli.requireGraph(graph);
            MigrationReport report;
            try (AutoCloseable progress = Cli.journalProgress(graph, "migrate pk", 0, e -> e instanceof
                    io.palisade.journal.JournalEvent.MigrationUnitPublished
                    || e instanceof io.palisade.journal.JournalEvent.MigrationBranchVerified)) {
                report = PkMigration.run(graph, MigrationOptions.defaults());
            } catch (RuntimeException e) {
                throw e;
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
            System.out.println(report.describe());
            return report.status() == MigrationReport.Status.REFUSED ? Main.REFUSED : Main.OK;
        }
    }
}
