package io.palisade.cli;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * docs/cli.md's command reference is the help of every command and subcommand, rendered from the picocli model at a
 * fixed width: it cannot drift from the build. {@code -Dpalisade.cli.doc.write=true} rewrites the generated section.
 */
class CliReferenceTest {
    private static final Path DOC = Path.of("").toAbsolutePath().getParent().resolve("docs/cli.md");
    static final String BEGIN = "<!-- BEGIN the commands' help, generated from the picocli model by CliReferenceTest -->";
    static final String END = "<!-- END the commands' help -->";

    /** The help of every visible command, depth first in the order the commands are declared. */
    static String render() {
        CommandLine root = Main.commandLine();
        root.setUsageHelpAutoWidth(false);
        root.setUsageHelpWidth(110);
        StringBuilder sb = new StringBuilder();
        walk(root, sb, Collections.newSetFromMap(new IdentityHashMap<>()));
        return sb.toString();
    }

    private static void walk(CommandLine cl, StringBuilder sb, Set<CommandLine> seen) {
        if (!seen.add(cl) || cl.getCommandSpec().usageMessage().hidden()) {
            return;
        }
        sb.append("### `").append(cl.getCommandSpec().qualifiedName()).append("`\n\n```text\n")
                .append(cl.getUsageMessage(CommandLine.Help.Ansi.OFF).stripTrailing()).append("\n```\n\n");
        for (CommandLine sub : cl.getSubcommands().values()) {
            walk(sub, sb, seen);
        }
    }

    @Test
    void docsCliMdHoldsTheHelpOfEveryCommand() throws IOException {
        String doc = Files.readString(DOC);
        int begin = doc.indexOf(BEGIN);
        int end = doc.indexOf(END);
        assertThat(begin).as("docs/cli.md has the generated section's markers").isNotNegative();
        assertThat(end).isGreaterThan(begin);
        String rendered = "\n\n" + render();
        if (Boolean.getBoolean("palisade.cli.doc.write")) {
            Files.writeString(DOC, doc.substring(0, begin + BEGIN.length()) + rendered + doc.substring(end));
            doc = Files.readString(DOC);
            end = doc.indexOf(END);
        }
        assertThat(doc.substring(begin + BEGIN.length(), end))
                .as("docs/cli.md is stale; regenerate it with: mvn -B -pl cli test -Dtest=CliReferenceTest "
                        + "-Dpalisade.cli.doc.write=true")
                .isEqualTo(rendered);
        for (String command : new String[] {"palisade init", "palisade write", "palisade scan", "palisade status",
                "palisade compact", "palisade branch merge", "palisade audit verify"}) {
            assertThat(rendered).contains("### `" + command + "`");
        }
    }
}
