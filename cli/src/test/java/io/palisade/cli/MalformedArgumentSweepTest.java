package io.palisade.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Model.PositionalParamSpec;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every subcommand, enumerated from the picocli model (a new command is covered without touching this test), run
 * in-process with malformed arguments: an unknown option, a bad number, a bad journal point, no graph, a graph
 * directory that does not exist, a reversed range, an unknown enum value. None may exit 1 or print a stack trace,
 * "Exception" or "internal error"; the usage errors exit 2 naming the problem; a command asked for JSON answers with
 * a JSON error on stdout.
 */
class MalformedArgumentSweepTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    /** Commands whose DIR is created rather than read: given a missing directory they would run. */
    private static final Set<String> CREATES = Set.of("palisade demo", "palisade init");

    @TempDir
    static Path tmp;
    static String graph;

    @BeforeAll
    static void graph() throws Exception {
        graph = CliRun.graph(tmp, 2);
    }

    /** The commands from the root down, each with the chain of specs that leads to it. */
    static List<List<CommandSpec>> commands() {
        List<List<CommandSpec>> out = new ArrayList<>();
        walk(List.of(Main.commandLine().getCommandSpec()), out);
        return out;
    }

    private static void walk(List<CommandSpec> chain, List<List<CommandSpec>> out) {
        CommandSpec last = chain.get(chain.size() - 1);
        if (chain.size() > 1) {
            out.add(chain);
        }
        for (CommandLine sub : last.subcommands().values()) {
            if (chain.stream().noneMatch(c -> c == sub.getCommandSpec())
                    && out.stream().noneMatch(c -> c.get(c.size() - 1) == sub.getCommandSpec())) {
                List<CommandSpec> next = new ArrayList<>(chain);
                next.add(sub.getCommandSpec());
                walk(next, out);
            }
        }
    }

    private static boolean isGraph(PositionalParamSpec p) {
        return p.paramLabel().equals("GRAPH") || p.paramLabel().equals("DIR");
    }

    private static String value(OptionSpec o, String graphArg) {
        Class<?> t = o.type();
        if (o.converters().length > 0 && o.paramLabel().contains("|")) {
            return o.paramLabel().split("\\|")[0];
        }
        if (t.isEnum()) {
            return t.getEnumConstants()[0].toString();
        }
        if (t == Long.class || t == long.class || t == Integer.class || t == int.class) {
            return "1";
        }
        if (o.paramLabel().equals("POINT")) {
            return "0";
        }
        if (t == Path.class) {
            return tmp.resolve("out-" + System.nanoTime()).toString();
        }
        return o.longestName().equals("--table") ? "person" : o.longestName().equals("--out") ? "-" : "main";
    }

    /**
     * The arguments of {@code chain}: each command's name, its positionals (GRAPH = {@code graphArg}, left out when
     * null) and its required options, then {@code extra} on the leaf.
     */
    private static List<String> args(List<CommandSpec> chain, String graphArg, List<String> extra, Set<String> skip) {
        List<String> a = new ArrayList<>();
        int graphAt = -1; // GRAPH goes to the last command of the chain that takes one (audit GRAPH, audit verify GRAPH)
        for (int i = 1; i < chain.size(); i++) {
            if (chain.get(i).positionalParameters().stream().anyMatch(MalformedArgumentSweepTest::isGraph)) {
                graphAt = i;
            }
        }
        for (int i = 1; i < chain.size(); i++) {
            CommandSpec c = chain.get(i);
            a.add(c.name());
            boolean leaf = i == chain.size() - 1;
            for (PositionalParamSpec p : c.positionalParameters()) {
                if (isGraph(p)) {
                    if (graphArg != null && i == graphAt) {
                        a.add(graphArg);
                    }
                } else if (p.required() && leaf) {
                    a.add("x");
                }
            }
            if (leaf) {
                for (OptionSpec o : c.options()) {
                    if (o.required() && !skip.contains(o.longestName())) {
                        a.add(o.longestName());
                        a.add(value(o, graphArg));
                    }
                }
                a.addAll(extra);
            }
        }
        return a;
    }

    private static boolean takesGraph(List<CommandSpec> chain) {
        return chain.stream().anyMatch(c -> c.positionalParameters().stream().anyMatch(MalformedArgumentSweepTest::isGraph));
    }

    /** A command that only groups subcommands (branch GRAPH SUB): without one it is a usage error, graph or not. */
    private static boolean groupOnly(CommandSpec c) {
        return !c.subcommands().isEmpty() && !(c.userObject() instanceof java.util.concurrent.Callable);
    }

    private static boolean json(CommandSpec leaf) {
        return leaf.findOption("--json") != null;
    }

    private static int cases;

    private static CliRun.Result check(List<CommandSpec> chain, List<String> args, boolean usage, String... named) {
        cases++;
        CliRun.Result r = CliRun.run(args.toArray(String[]::new));
        String what = String.join(" ", args) + "\n" + r;
        assertThat(r.code()).as(what).isNotIn(0, 1);
        assertThat(r.out() + r.err()).as(what).doesNotContain("Exception", "internal error", "\tat ");
        if (usage) {
            assertThat(r.code()).as(what).isEqualTo(2);
        }
        for (String n : named) {
            assertThat(r.err()).as(what).contains(n);
        }
        if (json(chain.get(chain.size() - 1))) {
            List<String> withJson = new ArrayList<>(args);
            withJson.add("--json");
            CliRun.Result j = CliRun.run(withJson.toArray(String[]::new));
            String[] lines = j.out().strip().split("\n");
            JsonNode err = parse(lines[lines.length - 1], String.join(" ", withJson) + "\n" + j);
            assertThat(err.path("error").path("code").asInt()).as(String.join(" ", withJson) + "\n" + j).isEqualTo(j.code());
            assertThat(err.path("error").path("message").asText()).isNotEmpty();
        }
        return r;
    }

    private static JsonNode parse(String line, String what) {
        try {
            return JSON.readTree(line);
        } catch (Exception e) {
            throw new AssertionError("not a JSON error: " + what, e);
        }
    }

    @Test
    void everySubcommandAnswersMalformedArgumentsWithATypedErrorAndNoStackTrace() {
        List<List<CommandSpec>> all = commands();
        assertThat(all).extracting(c -> c.get(c.size() - 1).qualifiedName())
                .contains("palisade audit verify", "palisade branch create", "palisade recover", "palisade scan");
        Set<String> none = Set.of();
        for (List<CommandSpec> chain : all) {
            CommandSpec leaf = chain.get(chain.size() - 1);
            String name = leaf.qualifiedName();
            boolean graphs = takesGraph(chain);
            String g = graphs ? graph : null;
            // an unknown option
            check(chain, args(chain, g, List.of("--no-such-option"), none), true, "--no-such-option");
            for (OptionSpec o : leaf.options()) {
                if (o.usageHelp() || o.versionHelp() || o.arity().max() == 0) {
                    continue;
                }
                Set<String> skip = Set.of(o.longestName());
                Class<?> t = o.type();
                if (t == Long.class || t == long.class || t == Integer.class || t == int.class) {
                    check(chain, args(chain, g, List.of(o.longestName(), "lots"), skip), true, o.longestName(), "lots");
                }
                if (o.paramLabel().equals("POINT")) {
                    check(chain, args(chain, g, List.of(o.longestName(), "yesterdayish"), skip), true, "yesterdayish",
                            "ISO-8601");
                    check(chain, args(chain, g, List.of(o.longestName(), "99999999"), skip), true, "past the journal's end",
                            "the journal holds sequences 0..");
                }
                if (t.isEnum() || o.converters().length > 0) {
                    check(chain, args(chain, g, List.of(o.longestName(), "bogus"), skip), true, "bogus");
                }
            }
            // a reversed range
            if (leaf.findOption("--from") != null && leaf.findOption("--to") != null) {
                check(chain, args(chain, g, List.of("--from", "3", "--to", "1"), none), true, "reversed range");
            }
            if (!graphs) {
                continue;
            }
            // no graph at all
            if (!CREATES.contains(name)) {
                check(chain, args(chain, null, List.of(), none), true, "GRAPH");
            }
            // a graph directory that does not exist
            String missing = tmp.resolve("no-such-graph").toString();
            if (name.equals("palisade init")) {
                check(chain, List.of("init", missing, "--catalog", tmp.resolve("no-such-catalog.json").toString()), false,
                        "no-such-catalog.json");
            } else if (!CREATES.contains(name) && !groupOnly(leaf)) {
                check(chain, args(chain, missing, List.of(), none), false, missing);
            }
        }
        // explain's list-valued --outcome: an unknown outcome is a usage error listing the valid ones
        List<CommandSpec> explain = all.stream().filter(c -> c.get(c.size() - 1).qualifiedName().equals("palisade explain"))
                .findFirst().orElseThrow();
        check(explain, List.of("explain", graph, "--key", "alice0", "--outcome", "committed,bogus"), true, "bogus",
                "key_conflict", "open");
        check(explain, List.of("explain", graph, "--key", "alice0", "--outcome", "key_confict"), true,
                "did you mean key_conflict");
        check(explain, List.of("explain", graph, "--key", "alice0", "--format", "table", "--json"), true, "contradict");
        assertThat(cases).as("cases run").isGreaterThan(60);
    }
}
