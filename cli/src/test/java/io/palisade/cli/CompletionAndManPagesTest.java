package io.palisade.cli;

import org.junit.jupiter.api.Test;
import picocli.CommandLine.Model.CommandSpec;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The completion script and the man pages the build writes before the tests (cli/pom.xml; CompletionAndManPages):
 * the script completes every command and subcommand, and every command has its man page, so neither can stop being
 * generated, or miss a new command, without this failing.
 */
class CompletionAndManPagesTest {
    private static final Path COMPLETION = Path.of("target", "completion", "palisade_completion");
    private static final Path MAN = Path.of("target", "man");

    /** Every command a user sees (hidden ones, the test and demo helpers, left out), root included. */
    private static List<CommandSpec> visible() {
        List<CommandSpec> out = new ArrayList<>();
        out.add(Main.commandLine().getCommandSpec());
        for (List<CommandSpec> chain : MalformedArgumentSweepTest.commands()) {
            if (chain.stream().noneMatch(c -> c.usageMessage().hidden())) {
                out.add(chain.get(chain.size() - 1));
            }
        }
        return out;
    }

    @Test
    void theCompletionScriptHasAFunctionForEveryCommandAndEachParentListsItsSubcommands() throws Exception {
        assertThat(COMPLETION).as("written by the build (mvn process-test-classes or later)").isRegularFile();
        String script = Files.readString(COMPLETION);
        List<CommandSpec> all = visible();
        assertThat(all).extracting(CommandSpec::qualifiedName).contains("palisade compact", "palisade optimize",
                "palisade audit verify", "palisade branch merge");
        for (CommandSpec c : all) {
            String fn = "_picocli_" + c.qualifiedName("_");
            assertThat(script).as(c.qualifiedName()).contains("function " + fn + "() {");
            List<String> subs = c.subcommands().entrySet().stream()
                    .filter(e -> !e.getValue().getCommandSpec().usageMessage().hidden()).map(java.util.Map.Entry::getKey)
                    .toList();
            String body = script.substring(script.indexOf("function " + fn + "() {"));
            assertThat(body).as(c.qualifiedName()).contains("local commands=\"" + String.join(" ", subs) + "\"");
        }
    }

    @Test
    void bashCompletesACommandASubcommandAndAnOptionFromTheScript() throws Exception {
        assertThat(complete("palisade", "opt")).containsExactly("optimize");
        assertThat(complete("palisade", "audit", "ver")).containsExactly("verify");
        assertThat(complete("palisade", "compact", "GRAPH", "--br")).containsExactly("--branch");
        assertThat(complete("palisade", "scan", "GRAPH", "--qu")).containsExactly("--quiet");
    }

    /** What bash offers for the last of {@code words} after sourcing the script. */
    private static List<String> complete(String... words) throws Exception {
        String script = "source '" + COMPLETION.toAbsolutePath() + "'; COMP_WORDS=(" + String.join(" ", words)
                + "); COMP_CWORD=" + (words.length - 1) + "; COMP_LINE='" + String.join(" ", words) + "'; "
                + "_complete_palisade 2>/dev/null; printf '%s\\n' \"${COMPREPLY[@]}\"";
        Process p = new ProcessBuilder("bash", "-c", script).redirectErrorStream(false).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).as("bash ended").isTrue();
        return out.lines().map(String::strip).filter(l -> !l.isEmpty()).toList();
    }

    @Test
    void everyCommandHasAManPageNamingIt() throws Exception {
        assertThat(MAN).as("written by the build (mvn process-test-classes or later)").isDirectory();
        for (CommandSpec c : visible()) {
            String name = c.qualifiedName("-");
            Path page = MAN.resolve(name + ".1");
            assertThat(page).as(c.qualifiedName()).isRegularFile();
            String roff = Files.readString(page);
            String escaped = name.replace("-", "\\-");
            assertThat(roff).as(page.toString()).contains(".TH \"" + escaped.toUpperCase(java.util.Locale.ROOT) + "\" \"1\"");
            assertThat(roff).as(page.toString()).contains(".SH \"NAME\"\n" + name + " \\- ");
            assertThat(roff).as(page.toString()).contains(".SH \"SYNOPSIS\"");
        }
        try (var pages = Files.list(MAN)) {
            assertThat(pages.filter(p -> p.toString().endsWith(".1")).count()).as("no page of a command that is gone")
                    .isEqualTo(visible().size());
        }
    }
}
