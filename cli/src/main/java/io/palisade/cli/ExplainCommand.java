package io.palisade.cli;

import io.palisade.cli.IncidentModel.Intent;
import io.palisade.coordinator.Catalog;
import io.palisade.heads.HeadsState;
import io.palisade.journal.IntentOutcome;
import io.palisade.journal.JournalRecord;
import io.palisade.journal.TableHead;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;

/**
 * {@code palisade explain}: the life of one intent, or of every intent that touched a key, read from the
 * {@link IncidentModel} (conflicts and retries as docs/conflict-resolution.md "Conflicts and retries: definitions"
 * defines them). Read-only.
 */
@Command(name = "explain", mixinStandardHelpOptions = true,
        description = {"Explain the life of a write (INTENT_ID) or of a key (--key K). Read-only.",
                "For each intent it prints, in journal order, its steps (A intent recorded, B substrate commit, C head "
                        + "published, D completion, R recovery's decision, F fold; the legend is printed first), the "
                        + "writer that issued it (epoch, pid, host) and how that writer's session ended, the keys of "
                        + "each conflict with the intent and sequence that committed them, and retry links (a later "
                        + "intent with the same idempotency key). For a key it also prints the key's current value. "
                        + "Conflicts and retries are those of docs/conflict-resolution.md \"Conflicts and retries: "
                        + "definitions\". Many intents are shown compactly (identical losers folded into one line); "
                        + "--all shows each. The default format is table; json prints one document, jsonl one intent "
                        + "per line. --from and --to take journal points: " + Seek.FORMS + "."},
        footer = {"%nExample:%n  palisade explain GRAPH --key alice --table person --outcome key_conflict --from '1h ago'"})
final class ExplainCommand implements Callable<Integer>, ReadOnly {
    /** Above this many intents the table form folds identical losers unless --all is given. */
    static final int COMPACT_ABOVE = 12;

    @Parameters(index = "0", paramLabel = "GRAPH", description = "The graph directory.")
    Path graph;

    @Parameters(index = "1", arity = "0..1", paramLabel = "INTENT_ID", description = "The intent to explain.")
    String intent;

    @Option(names = "--key", paramLabel = "K", description = "Explain every intent whose key filter holds K.")
    String key;

    @Option(names = "--table", paramLabel = "T", description = "With --key: only intents on table T (and its current value).")
    String table;

    @Option(names = "--branch", paramLabel = "B", description = "With --key: only intents on graph branch B; the "
            + "current value is read on B (default: main).")
    String branch;

    @Option(names = {"--from", "--since"}, paramLabel = "POINT",
            description = "With --key: only intents recorded at or after this journal point.")
    String from;

    @Option(names = {"--to", "--until"}, paramLabel = "POINT",
            description = "With --key: only intents recorded at or before this journal point (inclusive).")
    String to;

    @Option(names = "--outcome", paramLabel = "O[,O...]", split = ",",
            description = "With --key: only intents with these outcomes: committed, key_conflict, write_conflict, "
                    + "validation_failed, aborted, rolled_forward, rolled_back, foreign_commit, journaled, integrity_conflict, open.")
    List<String> outcomes;

    @Option(names = "--all", description = "Show every intent in full, even when many identical losers could be folded.")
    boolean all;

    @picocli.CommandLine.Mixin
    OutputFormat output = new OutputFormat();

    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        OutputFormat.Format format = output.resolve(OutputFormat.Format.table);
        Cli.requireGraph(graph);
        Set<String> wanted = outcomes(outcomes);
        Seek.Point fromPoint = Seek.parse(from, "--from");
        Seek.Point toPoint = Seek.parse(to, "--to");
        long lo = 0;
        long hi = Long.MAX_VALUE;
        if (fromPoint != null || toPoint != null) {
            Seek.Span span = new Seek.Span(Cli.reader(graph));
            lo = fromPoint == null ? 0 : span.start(fromPoint, "--from", false);
            hi = toPoint == null ? Long.MAX_VALUE : span.end(toPoint, "--to");
            if (fromPoint != null && toPoint != null) {
                Seek.Span.ordered(lo, "--from", fromPoint, hi, "--to", toPoint);
            }
        }
        if ((intent == null) == (key == null)) {
            throw new CliException(Main.USAGE, "give either INTENT_ID or --key K");
        }
        Catalog catalog = Cli.catalog(graph);
        if (table != null) {
            Cli.requireTable(catalog, table, "--table");
        }
        IncidentModel model = model(graph);
        PrintStream out = System.out;
        if (intent != null) {
            Intent i = model.intent(intent).orElseThrow(() -> new CliException(Main.INVALID_INPUT, "no intent '" + intent
                    + "' in the journal of " + graph + " (sequences " + model.firstSequence() + ".."
                    + model.lastSequence() + ")" + (model.firstSequence() == 0 ? ""
                    : "; the journal's file retention moved the records before sequence " + model.firstSequence()
                    + " out")));
            switch (format) {
                case table -> {
                    IntentLife.legend(out);
                    IntentLife.printIntent(out, model, i, "");
                }
                case json -> Cli.printJson(out, IntentLife.intentJson(model, i));
                case jsonl -> out.println(Cli.toJson(IntentLife.intentJson(model, i)));
            }
            return Main.OK;
        }
        HeadsState state = Cli.currentState(graph);
        String readBranch = branch == null ? HeadsState.MAIN : branch;
        Cli.requireBranch(state, readBranch, "--branch");
        long from = lo;
        long until = hi;
        List<Intent> touched = model.intentsOf(table, key).stream()
                .filter(i -> branch == null || branch.equals(i.recorded.graphBranch()))
                .filter(i -> i.sequence >= from && i.sequence <= until)
                .filter(i -> wanted == null || wanted.contains(IntentLife.outcomeName(i)))
                .toList();
        if (touched.isEmpty() && model.intentsOf(table, key).isEmpty()) {
            long first = Cli.reader(graph).firstSequence();
            throw new CliException(Main.INVALID_INPUT, "no intent in the journal of " + graph + " touched key '" + key + "'"
                    + (table == null ? "" : " of table '" + table + "'") + (first == 0 ? ""
                    : " since sequence " + first + " (the journal's file retention moved the records before it out)"));
        }
        Map<String, Object> current = currentValues(model, catalog, state, readBranch);
        switch (format) {
            case table -> printKey(out, model, touched, current, readBranch);
            case json -> {
                Map<String, Object> doc = new LinkedHashMap<>();
                doc.put("key", key);
                doc.put("table", table);
                doc.put("branch", readBranch);
                doc.put("current_value", current);
                doc.put("legend", IntentLife.legendJson());
                doc.put("definitions", "docs/conflict-resolution.md#conflicts-and-retries-definitions");
                Map<String, Object> journal = new LinkedHashMap<>();
                journal.put("records_read", model.records()); // one pass: each record decoded once
                journal.put("first_seq", model.firstSequence());
                journal.put("last_seq", model.lastSequence());
                doc.put("journal", journal);
                doc.put("summary", summary(touched));
                doc.put("intents", touched.stream().map(i -> IntentLife.intentJson(model, i)).toList());
                Cli.printJson(out, doc);
            }
            case jsonl -> {
                StringBuilder sb = new StringBuilder();
                for (Intent i : touched) {
                    sb.append(Cli.toJson(IntentLife.intentJson(model, i))).append('\n');
                }
                out.print(sb);
            }
        }
        return Main.OK;
    }

    /** The model of the whole journal, with progress on stderr on a terminal. */
    static IncidentModel model(Path graph) {
        List<JournalRecord> records = new ArrayList<>();
        Cli.Progress p = new Cli.Progress("reading the journal", -1);
        try (io.palisade.journal.JournalCursor c = Cli.readAll(Cli.reader(graph))) {
            for (JournalRecord r; (r = c.poll()) != null; ) {
                records.add(r);
                if ((records.size() & 1023) == 0) {
                    p.at(records.size());
                }
            }
        } finally {
            p.done();
        }
        return IncidentModel.of(records);
    }

    /** The accepted --outcome values, lower case: the outcomes and "open". */
    static List<String> outcomeValues() {
        List<String> v = new ArrayList<>(Arrays.stream(IntentOutcome.values()).map(o -> o.name().toLowerCase(Locale.ROOT)).toList());
        v.add("open");
        return v;
    }

    private static Set<String> outcomes(List<String> given) {
        if (given == null || given.isEmpty()) {
            return null;
        }
        List<String> valid = outcomeValues();
        Set<String> out = new java.util.HashSet<>();
        for (String g : given) {
            String v = g.trim().toLowerCase(Locale.ROOT).replace('-', '_');
            if (!valid.contains(v)) {
                List<String> near = Suggest.nearest(v, valid);
                throw new CliException(Main.USAGE, "--outcome '" + g + "': no such outcome"
                        + (near.isEmpty() ? "" : " (did you mean " + String.join(" or ", near) + "?)")
                        + "; the outcomes are " + String.join(", ", valid));
            }
            out.add(v);
        }
        return out;
    }

    // ------------------------------------------------------------------ current value

    /** table → the key's row now (null: absent) for the tables asked about (--table, else every table the key was written to). */
    private Map<String, Object> currentValues(IncidentModel model, Catalog catalog, HeadsState state, String readBranch) {
        Map<String, Object> out = new TreeMap<>();
        List<String> tables = table != null ? List.of(table)
                : model.intentsOf(null, key).stream().map(i -> i.recorded.table()).distinct().toList();
        for (String t : tables) {
            Catalog.TableDef def = catalog.require(t);
            if (!def.kind().keyed()) {
                continue;
            }
            TableHead head = state.head(readBranch, t).orElse(null);
            if (head == null) {
                out.put(t, null);
                continue;
            }
            io.palisade.fencing.KeyFilter lookup;
            try {
                lookup = def.keyFilter(List.of(key));
            } catch (io.palisade.fencing.ValidationException e) {
                out.put(t, null); // not a key this table's id can hold: no row
                continue;
            }
            Map<String, Object> row = new LinkedHashMap<>();
            ScanCommand.rows(graph, catalog, def, state, readBranch, head,
                    io.palisade.substrate.ScanSpec.all().withKeys(lookup), r -> {
                        if (key.equals(String.valueOf(r.get("id")))) {
                            row.clear();
                            r.forEach((k, v) -> row.put(k, Cli.plain(v)));
                        }
                        return true;
                    });
            out.put(t, row.isEmpty() ? null : row);
        }
        return out;
    }

    // ------------------------------------------------------------------ table form

    private void printKey(PrintStream out, IncidentModel model, List<Intent> touched, Map<String, Object> current,
                          String readBranch) {
        IntentLife.legend(out);
        out.println("key '" + key + "'" + (table == null ? "" : " of table '" + table + "'") + ": " + touched.size()
                + " intent(s) touched it, in journal order" + (filtered() ? " (filtered)" : ""));
        for (Map.Entry<String, Object> e : current.entrySet()) {
            out.println("current value on " + readBranch + " in " + e.getKey() + ": "
                    + (e.getValue() == null ? "absent" : Cli.toJson(e.getValue())));
        }
        Map<String, Object> sum = summary(touched);
        out.println("summary: " + sum.get("applied") + " applied, " + sum.get("conflicts") + " conflict(s) of this key, "
                + sum.get("conflicts_on_other_keys") + " lost on other keys of theirs, " + sum.get("retries") + " retr" + (((Number) sum.get("retries")).intValue() == 1 ? "y" : "ies")
                + ", " + sum.get("other") + " other");
        boolean compact = !all && touched.size() > COMPACT_ABOVE;
        if (compact) {
            out.println("(compact: identical losers folded into one entry; --all shows each intent)");
        }
        Map<String, List<Intent>> folded = new LinkedHashMap<>();
        for (Intent i : touched) {
            String sig = compact && i.conflicted() && i.retryOf == null && i.retriedBy == null ? loserSignature(i) : i.id;
            folded.computeIfAbsent(sig, s -> new ArrayList<>()).add(i);
        }
        for (List<Intent> same : folded.values()) {
            out.println();
            if (same.size() == 1) {
                IntentLife.printIntent(out, model, same.get(0), "  ");
            } else {
                Intent first = same.get(0);
                out.println("  " + same.size() + " intents lost the same way: " + IntentLife.lossLine(first));
                out.println("    " + first.recorded.operation().name().toLowerCase(Locale.ROOT) + " on "
                        + first.recorded.graphBranch() + "/" + first.recorded.table() + ", recorded at seqs "
                        + same.stream().map(i -> Long.toString(i.sequence)).collect(Collectors.joining(", ")));
                out.println("    intents " + same.stream().map(i -> i.id).collect(Collectors.joining(", ")));
            }
        }
    }

    private boolean filtered() {
        return from != null || to != null || outcomes != null || branch != null;
    }

    /** Two losers fold together when they lost the same way: operation, outcome, conflict keys and their committers. */
    private static String loserSignature(Intent i) {
        return i.recorded.operation() + "|" + i.recorded.graphBranch() + "|" + i.recorded.table() + "|"
                + IntentLife.outcomeName(i) + "|" + i.conflicts.stream().map(a -> a.key() + "=" + a.intentId() + "@"
                + a.sequence()).collect(Collectors.joining(","));
    }

    /**
     * The counts of a key's intents: "conflicts" is "conflicts of key K" of the definitions (conflicted intents whose
     * conflict keys hold K); a conflicted intent that touched K but lost on other keys of its own is counted apart.
     */
    private Map<String, Object> summary(List<Intent> touched) {
        long applied = touched.stream().filter(Intent::applied).count();
        long conflicts = touched.stream().filter(i -> i.conflicted() && i.conflictKeys().contains(key)).count();
        long elsewhere = touched.stream().filter(i -> i.conflicted() && !i.conflictKeys().contains(key)).count();
        long retries = touched.stream().filter(i -> i.retryOf != null).count();
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("intents", touched.size());
        m.put("applied", applied);
        m.put("conflicts", conflicts);
        m.put("conflicts_on_other_keys", elsewhere);
        m.put("retries", retries);
        m.put("other", touched.size() - applied - conflicts - elsewhere);
        return m;
    }
}
