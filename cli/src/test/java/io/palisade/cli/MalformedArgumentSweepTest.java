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
 * directory that does not exist, a reversed range, an unknown enum value, --quiet with --verbose. None may exit 1 or
 * print a stack trace, "Exception" or "internal error"; the usage errors exit 2 naming the problem; a command asked for
 * JSON answers with a JSON error on stdout.
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
                // a mistyped option (its first two letters swapped) gets a "did you mean" that names it; a mistyped
                // required option is reported as that, not as missing
                String n = Suggest.name(o);
                String typo = "--" + n.charAt(3) + n.charAt(2) + n.substring(4);
                CliRun.Result r = check(chain, args(chain, g, List.of(typo), Set.of(o.longestName())), true,
                        "unknown option '" + typo + "' (did you mean ");
                assertThat(r.err()).as(typo + "\n" + r).containsPattern("did you mean ([^)]* )?" + n + "[ ?]")
                        .doesNotContain("missing required");
                if (o.required() && o.group() == null) {
                    check(chain, args(chain, g, List.of(), Set.of(o.longestName())), true, "missing required option '" + n
                            + (o.arity().max() > 0 ? "=" + o.paramLabel() : "") + "'");
                }
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
                    // a mistyped value (its first letter dropped) gets a "did you mean" naming the value
                    for (String v : o.completionCandidates() == null ? List.<String>of() : o.completionCandidates()) {
                        check(chain, args(chain, g, List.of(o.longestName(), v.substring(1)), skip), true,
                                Suggest.name(o) + " '" + v.substring(1) + "' is not ", "(did you mean " + v + "?)");
                    }
                }
            }
            // --quiet with --verbose, both inherited from the root
            check(chain, args(chain, g, List.of("-q", "--verbose"), none), true,
                    "--quiet and --verbose contradict each other; give one");
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

    @Test
    void scanRefusesAFilterExpressionItCannotEvaluateAndALimitThatIsNotAPositiveNumber() {
        List<CommandSpec> scan = commands().stream()
                .filter(c -> c.get(c.size() - 1).qualifiedName().equals("palisade scan")).findFirst().orElseThrow();
        List<String> base = List.of("scan", graph, "--table", "person");
        String[][] cases = {
                {"--where", "age >", "--where: the filter 'age >'", "does not parse"},
                {"--where", "nosuch = 1", "'nosuch = 1'", "no column nosuch (its columns are id, age)"},
                {"--where", "age = 'x'", "'age = 'x''", "cannot be compared"},
                {"--where", "", "--where: give a filter expression"},
                {"--where", "   ", "--where: give a filter expression"},
                {"--limit", "0", "--limit: give a number of rows, at least 1, not 0"},
                {"--limit", "-3", "--limit", "-3"},
                {"--limit", "ten", "--limit", "ten"},
                {"--limit", "1.5", "--limit", "1.5"},
                {"--limit", "99999999999999999999", "--limit", "99999999999999999999"},
        };
        for (String[] c : cases) {
            List<String> a = new ArrayList<>(base);
            a.add(c[0]);
            a.add(c[1]);
            CliRun.Result r = check(scan, a, true, java.util.Arrays.copyOfRange(c, 2, c.length));
            assertThat(r.out()).as(r.toString()).isEmpty();
        }
    }

    /** A usage error: exit 2, the message line, then the hint naming the command's help; nothing on stdout. */
    private static void usage(CliRun.Result r, String message, String command) {
        assertThat(r.code()).as(r.toString()).isEqualTo(2);
        assertThat(r.err().lines().toList()).as(r.toString())
                .containsExactly("palisade: " + message, "usage: " + command + " --help");
        assertThat(r.out()).as(r.toString()).isEmpty();
    }

    @Test
    void aMistypedOptionGetsTheNearestOptionOfItsCommand() {
        usage(CliRun.run("scan", graph, "--table", "person", "--fromat", "json"),
                "unknown option '--fromat' (did you mean --format?)", "palisade scan");
        usage(CliRun.run("scan", graph, "--table", "person", "--fromat=json"),
                "unknown option '--fromat=json' (did you mean --format?)", "palisade scan");
        usage(CliRun.run("heads", graph, "--brnach", "main"), "unknown option '--brnach' (did you mean --branch?)",
                "palisade heads");
        // asked for JSON, the error is JSON too
        CliRun.Result j = CliRun.run("scan", graph, "--table", "person", "--json", "--fromat", "json");
        assertThat(j.code()).isEqualTo(2);
        assertThat(parse(j.out().strip(), j.toString()).path("error").path("message").asText())
                .isEqualTo("unknown option '--fromat' (did you mean --format?)");
    }

    @Test
    void aMistypedValueOfAnEnumOptionGetsTheNearestValue() {
        usage(CliRun.run("write", graph, "--table", "person", "--mode", "insrt"),
                "--mode 'insrt' is not insert, upsert, update or delete (did you mean insert?)", "palisade write");
        usage(CliRun.run("write", graph, "--table", "person", "--mode", "INSERT"),
                "--mode 'INSERT' is not insert, upsert, update or delete (did you mean insert? case matters)", "palisade write");
        usage(CliRun.run("scan", graph, "--table", "person", "--format=jsn"),
                "--format 'jsn' is not table, json or jsonl (did you mean json?)", "palisade scan");
        usage(CliRun.run("repair", graph, "--table", "person", "--duplicates", "keep-nwest"),
                "--duplicates 'keep-nwest' is not keep-newest, keep-oldest or fail (did you mean keep-newest?)",
                "palisade repair");
    }

    @Test
    void aMistypedRequiredOptionIsReportedAsMistypedNotAsMissing() {
        usage(CliRun.run("scan", graph, "--tabel", "person"), "unknown option '--tabel' (did you mean --table?)",
                "palisade scan");
        usage(CliRun.run("audit", "export", graph, "--out", "-", "--formt", "jsonl"),
                "unknown option '--formt' (did you mean --format?)", "palisade audit export");
        // an unknown option that is not the missing one: both are said
        usage(CliRun.run("scan", graph, "--bogus"), "unknown option '--bogus'; missing required option '--table=T'",
                "palisade scan");
    }

    @Test
    void helpPrintsTheHelpOfACommandOrSubcommandAndNamesAMistypedOne() {
        CliRun.Result heads = CliRun.run("help", "heads");
        assertThat(heads.code()).as(heads.toString()).isZero();
        assertThat(heads.out()).startsWith("Usage: palisade heads ").isEqualTo(CliRun.run("heads", "--help").out());
        CliRun.Result merge = CliRun.run("help", "branch", "merge");
        assertThat(merge.code()).as(merge.toString()).isZero();
        assertThat(merge.out()).startsWith("Usage: palisade branch merge ");
        assertThat(CliRun.run("help").out()).isEqualTo(CliRun.run("--help").out());
        usage(CliRun.run("help", "hedas"), "unknown command 'hedas' (did you mean heads?)", "palisade");
        usage(CliRun.run("help", "branch", "mrege"), "unknown command 'mrege' (did you mean merge?)", "palisade branch");
    }

    @Test
    void aRequiredOptionWithOlderNamesIsNamedByItsCurrentName() {
        usage(CliRun.run("replay", graph), "missing required option '--at=POINT'", "palisade replay");
        usage(CliRun.run("replay", graph, "--at"), "missing required parameter for option '--at' (POINT)",
                "palisade replay");
        usage(CliRun.run("replay", graph, "--at", "1", "--to-time", "2"),
                "option '--at' (POINT) should be specified only once", "palisade replay");
        usage(CliRun.run("heads", graph, "--at-seq"), "missing required parameter for option '--at' (POINT)",
                "palisade heads");
    }

    @Test
    void anUnknownCommandOrArgumentIsSaidInPlainWords() {
        usage(CliRun.run("hedas", graph), "unknown command 'hedas' (did you mean heads?)", "palisade");
        usage(CliRun.run("zzz"), "unknown command 'zzz'", "palisade");
        usage(CliRun.run("audit", "verfy", graph), "unknown command 'verfy' (did you mean verify?)", "palisade audit");
        usage(CliRun.run("branch", graph, "mrege", "x"), "unknown command 'mrege' (did you mean merge?)",
                "palisade branch");
        usage(CliRun.run("scan", graph, "--table", "person", "x"), "unexpected argument 'x'", "palisade scan");
        usage(CliRun.run("heads", graph, "x", "y"), "unexpected arguments 'x', 'y'", "palisade heads");
    }
}
