package io.palisade.cli;

import picocli.AutoComplete;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.codegen.docgen.manpage.ManPageGenerator;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Writes the bash/zsh completion script and the AsciiDoc man pages of every command from the command model; the cli
 * build runs it before its tests (cli/pom.xml, exec-maven-plugin) and turns the AsciiDoc into man pages
 * (asciidoctor-maven-plugin). {@code CompletionAndManPagesTest} checks what it wrote.
 * <p>Usage: {@code CompletionAndManPages COMPLETION_FILE MAN_ADOC_DIR}.
 */
public final class CompletionAndManPages {
    private CompletionAndManPages() {
    }

    public static void main(String[] args) throws IOException {
        if (args.length != 2) {
            System.err.println("usage: CompletionAndManPages COMPLETION_FILE MAN_ADOC_DIR");
            System.exit(2);
        }
        Path completion = Path.of(args[0]);
        Path adoc = Path.of(args[1]);
        CommandLine cl = Main.commandLine();
        Files.createDirectories(completion.toAbsolutePath().getParent());
        Files.writeString(completion, AutoComplete.bash("palisade", cl), StandardCharsets.UTF_8);
        Files.createDirectories(adoc);
        forManPages(cl, Version.read().getProperty("version", ""));
        int code = ManPageGenerator.generateManPage(adoc.toFile(), null, new boolean[0], true, cl.getCommandSpec());
        if (code != 0) {
            System.err.println("the man page generator exited " + code);
            System.exit(code);
        }
    }

    /**
     * What a man page shows differently from --help, set on the model of this run only: the footer (the generator
     * leaves out a footer without a heading) under "Example" or, when it says more, "Notes"; the exit codes under
     * "Exit status"; and a version short enough for the page's bottom line ("palisade 0.1.0").
     */
    static void forManPages(CommandLine cl, String version) {
        CommandSpec spec = cl.getCommandSpec();
        spec.version("palisade " + version);
        spec.versionProvider(null);
        String[] lines = spec.usageMessage().footer();
        // a footer that is only "Example:" and its command lines goes under "Example" without its label
        boolean onlyExample = lines.length > 0 && lines[0].startsWith("%nExample:%n")
                && java.util.Arrays.stream(lines).skip(1).allMatch(l -> l.startsWith("  "));
        List<String> footer = new ArrayList<>();
        for (String line : lines) {
            String l = line.startsWith("%n") ? line.substring(2) : line;
            if (onlyExample && l.startsWith("Example:%n")) {
                l = l.substring("Example:%n".length());
            } else if (!footer.isEmpty() && !l.startsWith("  ")) {
                footer.add(""); // a new paragraph
            }
            footer.addAll(List.of(l.split("%n", -1)));
        }
        if (!footer.isEmpty()) {
            spec.usageMessage().footerHeading(onlyExample ? "Example" : "Notes");
            spec.usageMessage().footer(footer.toArray(String[]::new));
        }
        if (!spec.usageMessage().exitCodeList().isEmpty()) {
            spec.usageMessage().exitCodeListHeading("Exit status");
        }
        for (CommandLine sub : cl.getSubcommands().values()) {
            forManPages(sub, version);
        }
    }
}
