package io.palisade.cli;

import org.junit.jupiter.api.Test;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Help at every level: it works (COMMAND --help and palisade help COMMAND alike), its sentences are whole, every option
 * is described, every command has an example.
 */
class HelpConventionsTest {

    @Test
    void everyCommandHasHelpWithWholeSentencesDescribedOptionsAndAnExample() {
        for (List<CommandSpec> chain : MalformedArgumentSweepTest.commands()) {
            CommandSpec c = chain.get(chain.size() - 1);
            String name = c.qualifiedName();
            List<String> args = new java.util.ArrayList<>(chain.stream().skip(1).map(CommandSpec::name).toList());
            args.add("--help");
            CliRun.Result h = CliRun.run(args.toArray(String[]::new));
            assertThat(h.code()).as(name + " --help\n" + h).isZero();
            assertThat(h.out()).as(name).startsWith("Usage: " + name);
            // palisade help COMMAND [SUBCOMMAND] prints the same
            List<String> help = new java.util.ArrayList<>(List.of("help"));
            help.addAll(args.subList(0, args.size() - 1));
            CliRun.Result viaHelp = CliRun.run(help.toArray(String[]::new));
            assertThat(viaHelp.code()).as(String.join(" ", help) + "\n" + viaHelp).isZero();
            assertThat(viaHelp.out()).as(String.join(" ", help)).isEqualTo(h.out());
            String[] description = c.usageMessage().description();
            assertThat(description).as(name + " has a description").isNotEmpty();
            for (String paragraph : description) {
                // each element is a whole paragraph: it ends a sentence and the next does not continue it
                assertThat(paragraph.strip()).as(name + ": " + paragraph).matches("(?s)[A-Z\\-a-z`].*[.:)]");
                assertThat(paragraph).as(name + ": a paragraph, not a hard-wrapped line").doesNotContain("\n");
            }
            assertThat(Character.isLowerCase(description[0].charAt(0)) && !description[0].startsWith("jsonl"))
                    .as(name + ": the summary starts a sentence").isFalse();
            for (ArgSpec a : c.args()) {
                if (a.hidden()) {
                    continue;
                }
                assertThat(String.join(" ", a.description()).strip()).as(name + " " + a.paramLabel() + " "
                        + (a.isOption() ? ((picocli.CommandLine.Model.OptionSpec) a).longestName() : "")).isNotEmpty();
            }
            if (!c.usageMessage().hidden()) {
                assertThat(h.out()).as(name + " shows an example").contains("Example:").contains("  " + name.replace(
                        "palisade branch", "palisade branch GRAPH").split(" GRAPH")[0]);
            }
        }
    }
}
