package io.palisade.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** Entry point of the {@code palisade} command. */
@Command(name = "palisade", mixinStandardHelpOptions = true, version = "palisade 0.1.0",
        description = "Write coordinator for keyed Lance tables.",
        subcommands = {DemoCommand.class, RecoverCommand.class})
public final class Main implements Runnable {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    public static void main(String[] args) {
        System.setProperty("chronicle.analytics.disable", "true");
        System.exit(new CommandLine(new Main()).execute(args));
    }

    @Override
    public void run() {
        spec.commandLine().usage(System.out);
    }
}
