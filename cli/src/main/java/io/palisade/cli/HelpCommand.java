package io.palisade.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

import java.util.List;
import java.util.concurrent.Callable;

@Command(name = "help", mixinStandardHelpOptions = true,
        description = {"Print the help of a command or subcommand, the same as its --help; without one, palisade's."},
        footer = {"%nExample:%n  palisade help branch merge"})
final class HelpCommand implements Callable<Integer> {
    @Parameters(paramLabel = "COMMAND", arity = "0..*",
            description = "The command, then its subcommand if it has them (audit verify).")
    List<String> command = List.of();

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        CommandLine cl = spec.parent().commandLine();
        for (int i = 0; i < command.size(); i++) {
            CommandLine sub = cl.getSubcommands().get(command.get(i));
            if (sub == null) {
                throw new CommandLine.UnmatchedArgumentException(cl, command.subList(i, command.size()));
            }
            cl = sub;
        }
        cl.usage(System.out);
        return Main.OK;
    }
}
