package io.palisade.cli;

import picocli.CommandLine;
import picocli.CommandLine.MissingParameterException;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.UnmatchedArgumentException;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;
import java.util.stream.StreamSupport;

/** "Did you mean": the candidates nearest a mistyped word, and the command line's usage errors in plain words. */
final class Suggest {
    private Suggest() {
    }

    /**
     * The message of a usage error found while parsing: an unknown command, option or value with the nearest known
     * ones, and every option by the name it is typed by now ({@link #name}). An unknown option is reported before a
     * missing required one (a mistyped option is often the missing one).
     */
    static String usage(ParameterException ex) {
        CommandLine cl = ex.getCommandLine();
        CommandSpec spec = cl.getCommandSpec();
        if (ex instanceof UnmatchedArgumentException u) {
            return unmatched(u);
        }
        if (ex instanceof MissingParameterException m) {
            // an argument group reports all its options missing: the required ones are
            List<ArgSpec> required = m.getMissing().stream().filter(ArgSpec::required).toList();
            List<ArgSpec> missing = required.isEmpty() ? m.getMissing() : required;
            boolean noValue = ex.getMessage().startsWith("Missing required parameter for "); // an option without its value
            List<String> typed = cl.getUnmatchedArguments();
            if (typed.isEmpty()) {
                return noValue ? plain(ex) : missing(missing);
            }
            UnmatchedArgumentException u = new UnmatchedArgumentException(cl, typed);
            List<String> near = u.isUnknownOption() ? options(spec, typed.get(0)) : List.of();
            List<ArgSpec> rest = missing.stream().filter(a -> !(a instanceof OptionSpec o && near.contains(name(o)))).toList();
            return unmatched(u) + (noValue ? "; " + plain(ex) : rest.isEmpty() ? "" : "; " + missing(rest));
        }
        if (ex.getArgSpec() instanceof OptionSpec o && ex.getValue() != null && o.completionCandidates() != null) {
            List<String> values = StreamSupport.stream(o.completionCandidates().spliterator(), false).toList();
            String v = ex.getValue();
            if (!values.contains(v)) {
                List<String> near = nearest(v.toLowerCase(Locale.ROOT), values);
                String word = values.size() == 1 ? values.get(0) : String.join(", ", values.subList(0, values.size() - 1))
                        + " or " + values.get(values.size() - 1);
                return name(o) + " '" + v + "' is not " + word + (near.isEmpty() ? "" : " (did you mean "
                        + String.join(" or ", near) + "?" + (near.get(0).equalsIgnoreCase(v) ? " case matters" : "") + ")");
            }
        }
        return plain(ex);
    }

    /** picocli's message, starting lower case, its options named as they are typed now. */
    private static String plain(ParameterException ex) {
        String msg = ex.getMessage();
        for (OptionSpec o : ex.getCommandLine().getCommandSpec().options()) {
            msg = msg.replace("'" + o.longestName() + "'", "'" + name(o) + "'");
        }
        return Character.toLowerCase(msg.charAt(0)) + msg.substring(1);
    }

    /** The name an option is typed by now: its first long name (the others are older names of it). */
    static String name(OptionSpec o) {
        return Arrays.stream(o.names()).filter(n -> n.startsWith("--")).findFirst().orElse(o.longestName());
    }

    /** The options of {@code spec} nearest {@code typed} (an unknown option, {@code --name} or {@code --name=value}). */
    private static List<String> options(CommandSpec spec, String typed) {
        List<String> names = spec.options().stream().filter(o -> !o.hidden()).flatMap(o -> Arrays.stream(o.names())).toList();
        return nearest(typed.split("=", 2)[0], names).stream().map(n -> name(spec.findOption(n))).distinct().toList();
    }

    private static String unmatched(UnmatchedArgumentException u) {
        CommandLine cl = u.getCommandLine();
        List<String> args = u.getUnmatched();
        if (u.isUnknownOption()) {
            return "unknown option '" + args.get(0) + "'" + didYouMean(options(cl.getCommandSpec(), args.get(0)));
        }
        List<String> commands = cl.getSubcommands().entrySet().stream()
                .filter(e -> !e.getValue().getCommandSpec().usageMessage().hidden()).map(java.util.Map.Entry::getKey).toList();
        if (!commands.isEmpty()) {
            // a mistyped command may have been taken for the command's own parameter (audit verfy GRAPH)
            List<String> words = new ArrayList<>();
            if (cl.getParseResult() != null) {
                cl.getParseResult().matchedPositionals().forEach(p -> words.addAll(p.originalStringValues()));
            }
            words.addAll(args);
            for (String w : words) {
                List<String> near = nearest(w, commands);
                if (!near.isEmpty()) {
                    return "unknown command '" + w + "'" + didYouMean(near);
                }
            }
            if (cl.getCommandSpec().positionalParameters().isEmpty()) {
                return "unknown command '" + args.get(0) + "'";
            }
        }
        return "unexpected argument" + (args.size() == 1 ? " " : "s ")
                + args.stream().map(a -> "'" + a + "'").collect(Collectors.joining(", "));
    }

    private static String missing(List<ArgSpec> missing) {
        boolean options = missing.stream().allMatch(ArgSpec::isOption);
        return "missing required " + (options ? "option" : "parameter") + (missing.size() == 1 ? " " : "s ")
                + missing.stream().map(a -> "'" + (a instanceof OptionSpec o ? name(o)
                        + (o.arity().max() > 0 ? "=" + o.paramLabel() : "") : a.paramLabel()) + "'")
                .collect(Collectors.joining(", "));
    }

    private static String didYouMean(List<String> near) {
        return near.isEmpty() ? "" : " (did you mean " + String.join(" or ", near) + "?)";
    }

    /** The candidates at the smallest edit distance from {@code typed}, if it is small for the word (or a prefix). */
    static List<String> nearest(String typed, List<String> candidates) {
        List<String> prefixed = candidates.stream().filter(c -> c.startsWith(typed) || typed.startsWith(c)).toList();
        int best = candidates.stream().mapToInt(c -> distance(typed, c)).min().orElse(Integer.MAX_VALUE);
        int limit = Math.max(2, typed.length() / 3);
        List<String> close = best <= limit ? candidates.stream().filter(c -> distance(typed, c) == best).toList() : List.of();
        if (!close.isEmpty()) {
            return close.stream().limit(3).toList();
        }
        return prefixed.stream().sorted(Comparator.comparingInt(c -> distance(typed, c))).limit(3).toList();
    }

    /** Levenshtein distance. */
    static int distance(String a, String b) {
        int[] prev = new int[b.length() + 1];
        int[] cur = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            prev[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            cur[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                cur[j] = Math.min(Math.min(cur[j - 1] + 1, prev[j] + 1), prev[j - 1] + cost);
            }
            int[] t = prev;
            prev = cur;
            cur = t;
        }
        return prev[b.length()];
    }
}
