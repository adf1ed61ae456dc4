package io.palisade.cli;

import io.palisade.cli.IncidentModel.Attribution;
import io.palisade.cli.IncidentModel.Intent;
import io.palisade.cli.IncidentModel.Session;
import io.palisade.cli.IncidentModel.Step;
import io.palisade.cli.IncidentModel.StepAt;
import io.palisade.coordinator.Catalog;
import io.palisade.heads.HeadsState;
import io.palisade.journal.HeadTransition;
import io.palisade.journal.IntentOutcome;
import io.palisade.journal.JournalEvent;
import io.palisade.journal.JournalRecord;
import io.palisade.journal.RecoveryClassification;
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
                    + "validation_failed, aborted, rolled_forward, rolled_back, foreign_commit, journaled, open.")
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
                    + model.lastSequence() + ")"));
            switch (format) {
                case table -> {
                    legend(out);
                    printIntent(out, model, i, "");
                }
                case json -> Cli.printJson(out, intentJson(model, i));
                case jsonl -> out.println(Cli.toJson(intentJson(model, i)));
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
                .filter(i -> wanted == null || wanted.contains(outcomeName(i)))
                .toList();
        if (touched.isEmpty() && model.intentsOf(table, key).isEmpty()) {
            throw new CliException(Main.INVALID_INPUT, "no intent in the journal of " + graph + " touched key '" + key + "'"
                    + (table == null ? "" : " of table '" + table + "'"));
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
                doc.put("legend", legendJson());
                doc.put("definitions", "docs/conflict-resolution.md#conflicts-and-retries-definitions");
                Map<String, Object> journal = new LinkedHashMap<>();
                journal.put("records_read", model.records()); // one pass: each record decoded once
                journal.put("first_seq", model.firstSequence());
                journal.put("last_seq", model.lastSequence());
                doc.put("journal", journal);
                doc.put("summary", summary(touched));
                doc.put("intents", touched.stream().map(i -> intentJson(model, i)).toList());
                Cli.printJson(out, doc);
            }
            case jsonl -> {
                StringBuilder sb = new StringBuilder();
                for (Intent i : touched) {
                    sb.append(Cli.toJson(intentJson(model, i))).append('\n');
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
        try (io.palisade.journal.JournalCursor c = Cli.reader(graph).read(0)) {
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

    private static String outcomeName(Intent i) {
        return i.outcome().map(o -> o.name().toLowerCase(Locale.ROOT)).orElse("open");
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
            Map<String, Object> row = null;
            for (Map<String, Object> r : ScanCommand.rows(graph, catalog, def, state, readBranch, head)) {
                if (key.equals(String.valueOf(r.get("id")))) {
                    row = new LinkedHashMap<>();
                    for (Map.Entry<String, Object> e : r.entrySet()) {
                        row.put(e.getKey(), Cli.plain(e.getValue()));
                    }
                }
            }
            out.put(t, row);
        }
        return out;
    }

    // ------------------------------------------------------------------ table form

    static void legend(PrintStream out) {
        out.println("legend: " + Arrays.stream(Step.values()).map(s -> s.name() + " = " + s.legend)
                .collect(Collectors.joining("; ")));
        out.println("conflicts and retries: docs/conflict-resolution.md \"Conflicts and retries: definitions\"");
        out.println();
    }

    private static Map<String, String> legendJson() {
        Map<String, String> m = new LinkedHashMap<>();
        for (Step s : Step.values()) {
            m.put(s.name(), s.legend);
        }
        return m;
    }

    private void printKey(PrintStream out, IncidentModel model, List<Intent> touched, Map<String, Object> current,
                          String readBranch) {
        legend(out);
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
                printIntent(out, model, same.get(0), "  ");
            } else {
                Intent first = same.get(0);
                out.println("  " + same.size() + " intents lost the same way: " + lossLine(first));
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
        return i.recorded.operation() + "|" + i.recorded.graphBranch() + "|" + i.recorded.table() + "|" + outcomeName(i)
                + "|" + i.conflicts.stream().map(a -> a.key() + "=" + a.intentId() + "@" + a.sequence())
                .collect(Collectors.joining(","));
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

    private static String lossLine(Intent i) {
        return i.completion.outcome() + " on " + i.conflicts.stream().map(ExplainCommand::attribution)
                .collect(Collectors.joining("; "));
    }

    private static String attribution(Attribution a) {
        return a.intentId() == null ? a.key() + " (" + a.note() + ")"
                : a.key() + " committed by intent " + a.intentId() + " at seq " + a.sequence();
    }

    static void printIntent(PrintStream out, IncidentModel model, Intent i, String indent) {
        JournalEvent.IntentRecorded x = i.recorded;
        out.println(indent + "intent " + i.id + " (recorded at seq " + i.sequence + ")");
        out.println(indent + "  writer: " + writer(i.session));
        for (StepAt s : i.steps) {
            out.println(indent + "  seq " + s.sequence() + " " + s.time() + "  " + s.step() + "  " + stepText(i, s));
        }
        if (i.conflicted()) {
            out.println(indent + "  conflict: " + lossLine(i));
        }
        int shown = 0;
        for (Map.Entry<String, List<String>> b : i.beat.entrySet()) {
            if (++shown > 10) {
                out.println(indent + "  ... and " + (i.beat.size() - 10) + " more intent(s) lost to this one (--format json lists all)");
                break;
            }
            Intent l = model.intent(b.getKey()).orElseThrow();
            out.println(indent + "  seq " + l.completionSequence + ": intent " + l.id + " lost to this one ("
                    + l.completion.outcome() + ") on keys " + b.getValue());
        }
        if (i.retryOf != null) {
            Intent l = model.intent(i.retryOf).orElseThrow();
            out.println(indent + "  retry: this intent retried loser " + l.id + " (seq " + l.sequence + ", "
                    + outcomeName(l) + ") with idempotency key '" + x.idempotencyKey() + "'");
        }
        if (i.retriedBy != null) {
            Intent r = model.intent(i.retriedBy).orElseThrow();
            out.println(indent + "  retry: this intent was retried by " + r.id + " (seq " + r.sequence + ", "
                    + outcomeName(r) + ") with idempotency key '" + x.idempotencyKey() + "'");
        }
        String crash = crash(i);
        if (crash != null) {
            out.println(indent + "  crash: " + crash);
        }
        out.println(indent + "  outcome: " + (i.completion == null
                ? "OPEN - no completion yet (in flight, or the writer died; recovery classifies it at the next open)"
                : i.completion.outcome() + (i.completion.outcome() == IntentOutcome.JOURNALED
                ? (i.foldedBy != null ? ", folded by " + i.foldedBy : ", not folded yet") : "")));
    }

    static String writer(Session s) {
        return s == null ? "unknown (no writer_started before it)" : "epoch " + s.epoch + ", pid " + s.pid + ", host "
                + s.host + " (session from seq " + s.startSequence + ", " + ending(s) + ")";
    }

    private static String ending(Session s) {
        return switch (s.ending) {
            case LAST -> "the journal's last session";
            case CLOSED -> "ended with nothing in flight";
            case DIED -> "the writer died with intents in flight";
            case TORN_TAIL -> "the writer died mid-append: torn tail cut after seq " + s.tornTail.lastGoodSequence();
        };
    }

    /** "writer pid N (epoch E) died; recovered by epoch E' at seq S: rolled forward 1, aborted 2", for an intent whose writer died. */
    static String crash(Intent i) {
        Session s = i.session;
        if (s == null || s.recoveredBy == null) {
            return null;
        }
        IncidentModel.Recovery r = s.recoveredBy;
        Map<String, Integer> counts = new TreeMap<>();
        for (RecoveryClassification c : r.decisions) {
            counts.merge(decision(c.kind()), 1, Integer::sum);
        }
        return "writer pid " + s.pid + " (epoch " + s.epoch + ") died" + (s.ending == IncidentModel.Ending.TORN_TAIL
                ? " mid-append (torn tail cut)" : "") + "; recovered by epoch " + r.epoch + " at seq " + r.startSequence
                + (counts.isEmpty() ? "" : ": " + counts.entrySet().stream().map(e -> e.getKey() + " " + e.getValue())
                .collect(Collectors.joining(", ")))
                + (i.decision == null ? "; this intent had completed before" : "; this intent: " + decision(i.decision.kind()));
    }

    static String decision(RecoveryClassification.Kind k) {
        return switch (k) {
            case NO_EFFECT_ABORTED -> "aborted";
            case EFFECT_ROLLED_FORWARD -> "rolled forward";
            case PUBLISHED_COMPLETED -> "completed";
            case FOREIGN_COMMIT -> "foreign commit found";
            case MIGRATION_RESUMED -> "migration resumed";
            case LOAD_ROLLED_BACK -> "load rolled back";
            case TORN_VERSION_SET_ASIDE -> "torn version set aside";
        };
    }

    private static String sample(List<String> keys) {
        return keys.size() <= 5 ? keys.toString() : keys.subList(0, 5) + "... (" + keys.size() + ")";
    }

    static String stepText(Intent i, StepAt s) {
        return switch (s.event()) {
            case JournalEvent.IntentRecorded x -> "intent recorded: " + x.operation().name().toLowerCase(Locale.ROOT) + " on "
                    + x.graphBranch() + "/" + x.table() + ", expected base " + x.expectedBase().tableBranch() + "@"
                    + x.expectedBase().version() + " (journal seq " + x.expectedBase().graphSequence() + ")"
                    + (i.ownKeys.isEmpty() ? "" : ", own keys " + sample(i.ownKeys))
                    + (x.idempotencyKey() == null ? "" : ", idempotency key '" + x.idempotencyKey() + "'");
            case JournalEvent.RowsRecorded x -> "rows journaled: " + x.rowCount() + " row(s), " + x.rows().length
                    + " bytes (a journal-ack table: the journal holds the write until a fold commits it to the table)";
            case JournalEvent.DuplicatesRepaired x -> "repair of " + x.graphBranch() + "/" + x.table() + " at "
                    + x.tableBranch() + "@" + x.imageVersion() + (x.adoptedVersions().isEmpty() ? ""
                    : ", adopting foreign version(s) " + x.adoptedVersions()) + ": removes " + x.rows().size()
                    + " row(s) of duplicated ids (" + x.policy() + ")" + x.rows().stream().map(row -> "; removed row of '"
                    + row.key() + "': " + row.values()).collect(Collectors.joining());
            case JournalEvent.TableCommitted x -> "substrate commit: " + x.table() + " " + x.tableBranch() + "@"
                    + x.achievedVersion() + (x.intentIds().size() > 1 ? " (group commit of " + x.intentIds().size()
                    + " intents)" : "");
            case JournalEvent.ForeignCommitFound x -> "substrate commit landed over a foreign commit: " + x.table() + " "
                    + x.tableBranch() + "@" + x.achievedVersion() + " (base @" + x.baseVersion() + "; foreign versions "
                    + x.foreignVersions() + "); not published, not acknowledged";
            case JournalEvent.HeadPublished x -> "head published: " + x.transitions().stream()
                    .filter(t -> t.graphBranch().equals(i.recorded.graphBranch()) && t.table().equals(i.recorded.table()))
                    .map(ExplainCommand::transition).collect(Collectors.joining(", "));
            case JournalEvent.IntentCompleted x when !x.intentId().equals(i.id) -> "folded into the table by fold "
                    + x.intentId() + " (" + x.outcome() + ")";
            case JournalEvent.IntentCompleted x -> x.outcome() == IntentOutcome.JOURNALED
                    ? "acknowledged from the journal (JOURNALED): durable and read by every read through Palisade"
                    : "completed: " + x.outcome() + (x.reason().isEmpty() ? "" : " (" + x.reason() + ")")
                    + (x.conflictingIntent() == null ? "" : "; winner intent " + x.conflictingIntent());
            case JournalEvent.FoldPlanned x -> "fold planned: intent " + x.intentId() + " folds " + x.writes()
                    + " write(s) through seq " + x.throughSequence() + ", this one included";
            case JournalEvent.RecoveryFinished x -> "recovery " + x.recoveryId() + ": " + (i.decision == null ? "?"
                    : decision(i.decision.kind()) + " (" + i.decision.detail() + ")");
            case JournalEvent.TableVersionSetAside x -> "recovery " + x.recoveryId() + " set aside torn version "
                    + x.tableBranch() + "@" + x.version() + " (" + x.reason() + ")";
            case JournalEvent.WriterStarted x -> "writer started (epoch " + x.epoch() + ")";
            case JournalEvent.LoadProgress x -> "load batch " + x.batchIndex() + ": " + x.rows() + " row(s)";
            case JournalEvent.GraphBranchCreated x -> "branch " + x.branch() + " created";
            case JournalEvent.GraphBranchDeleted x -> "branch " + x.branch() + " deleted";
            case JournalEvent.CheckpointWritten x -> "checkpoint through seq " + x.coveredSequence();
            case JournalEvent.MigrationClaimed x -> "migration " + x.migrationId() + " claimed";
            case JournalEvent.MigrationUnitPlanned x -> "migration unit " + x.unitId() + " planned";
            case JournalEvent.MigrationUnitForked x -> "migration unit " + x.unitId() + " forked";
            case JournalEvent.MigrationPkInstalled x -> "migration unit " + x.unitId() + " primary key installed";
            case JournalEvent.MigrationUnitPublished x -> "migration unit " + x.unitId() + " published";
            case JournalEvent.MigrationBranchVerified x -> "migration branch " + x.graphBranch() + " verified";
            case JournalEvent.MigrationStampWritten x -> "migration stamp " + x.stamp() + " written";
            case JournalEvent.MigrationRefused x -> "migration refused: " + x.reason();
            case JournalEvent.RecoveryStarted x -> "recovery " + x.recoveryId() + " started";
            case JournalEvent.TornTailCut x -> "torn tail cut after seq " + x.lastGoodSequence();
        };
    }

    private static String transition(HeadTransition t) {
        return t.graphBranch() + "/" + t.table() + " -> " + t.to().tableBranch() + "@" + t.to().version();
    }

    // ------------------------------------------------------------------ json form

    static Map<String, Object> intentJson(IncidentModel model, Intent i) {
        Map<String, Object> m = new LinkedHashMap<>();
        JournalEvent.IntentRecorded x = i.recorded;
        m.put("intent_id", i.id);
        m.put("seq", i.sequence);
        m.put("time", i.time.toString());
        m.put("operation", x.operation().name().toLowerCase(Locale.ROOT));
        m.put("graph_branch", x.graphBranch());
        m.put("table", x.table());
        m.put("keys", i.ownKeys);
        m.put("idempotency_key", x.idempotencyKey());
        Map<String, Object> w = new LinkedHashMap<>();
        if (i.session != null) {
            w.put("epoch", i.session.epoch);
            w.put("pid", i.session.pid);
            w.put("host", i.session.host);
            w.put("session_start_seq", i.session.startSequence);
            w.put("session_ended", i.session.ending.name().toLowerCase(Locale.ROOT));
        }
        m.put("writer", w);
        m.put("outcome", outcomeName(i));
        m.put("completion_seq", i.completion == null ? null : i.completionSequence);
        m.put("reason", i.completion == null ? null : i.completion.reason());
        List<Map<String, Object>> cs = new ArrayList<>();
        for (Attribution a : i.conflicts) {
            Map<String, Object> c = new LinkedHashMap<>();
            c.put("key", a.key());
            c.put("committed_by", a.intentId());
            c.put("committed_at_seq", a.intentId() == null ? null : a.sequence());
            c.put("note", a.note().isEmpty() ? null : a.note());
            cs.add(c);
        }
        m.put("conflicts", cs);
        m.put("beat", i.beat);
        m.put("retry_of", i.retryOf);
        m.put("retried_by", i.retriedBy);
        m.put("folded_by", i.foldedBy);
        m.put("crash", crash(i));
        List<Map<String, Object>> steps = new ArrayList<>();
        for (StepAt s : i.steps) {
            Map<String, Object> st = new LinkedHashMap<>();
            st.put("step", s.step().name());
            st.put("seq", s.sequence());
            st.put("time", s.time().toString());
            st.put("text", stepText(i, s));
            steps.add(st);
        }
        m.put("steps", steps);
        return m;
    }
}
