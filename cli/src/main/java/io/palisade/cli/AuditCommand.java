package io.palisade.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.palisade.journal.JournalCursor;
import io.palisade.journal.JournalReader;
import io.palisade.journal.JournalRecord;
import io.palisade.journal.JsonRenderer;
import io.palisade.journal.TornTail;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

@Command(name = "audit", mixinStandardHelpOptions = true,
        description = {"Print the journal's events, filtered by range, type, table, branch, intent or key. Read-only.",
                "It works while a writer holds the graph. The jsonl format (the default) prints one event per line "
                        + "with seq, time, epoch, type and the event's fields; json prints one array; table prints "
                        + "aligned columns. A range is given with --from and --to, each a journal point: "
                        + Seek.FORMS + ".",
                "The subcommands verify the whole journal and export it."},
        footer = {"%nExample:%n  palisade audit GRAPH --from '2h ago' --type intent_completed --format table",
                "  palisade audit GRAPH --follow --from 'last 20'"},
        subcommands = {AuditVerifyCommand.class, AuditExportCommand.class})
final class AuditCommand implements Callable<Integer>, ReadOnly {
    @Parameters(index = "0", arity = "0..1", paramLabel = "GRAPH", description = "The graph directory.")
    Path graph;

    @Option(names = {"--from", "--from-seq", "--since"}, paramLabel = "POINT",
            description = "The first event printed: a sequence, an ISO-8601 time (zone-less is UTC), a relative time "
                    + "(-10m, 2h ago) or 'last N'. --from-seq and --since are older names of this option.")
    String from;
    @Option(names = {"--to", "--to-seq", "--until"}, paramLabel = "POINT",
            description = "The last event printed (inclusive), in the same forms as --from. --to-seq and --until are "
                    + "older names of this option.")
    String to;
    @Option(names = "--type", paramLabel = "TYPE", split = ",",
            description = "Only events of these types (comma-separated, snake_case, e.g. intent_recorded,intent_completed).")
    List<String> types;
    @Option(names = "--table", paramLabel = "T", description = "Only events that name table T.")
    String table;
    @Option(names = "--branch", paramLabel = "B", description = "Only events that name graph branch B.")
    String branch;
    @Option(names = "--intent", paramLabel = "ID", description = "Only events of intent ID (or naming it as a winner).")
    String intent;
    @Option(names = "--key", paramLabel = "K", description = "Only events whose key filter or conflicting keys hold K.")
    String key;
    @Option(names = "--follow", description = "Keep printing events as they are appended (Ctrl-C to stop); with "
            + "--from 'last N' it starts N events back.")
    boolean follow;
    @picocli.CommandLine.Mixin
    OutputFormat output = new OutputFormat();

    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    /** Fixed-width table columns: a whole sequence, a full ISO timestamp (nanoseconds), the longest type name. */
    static final java.time.format.DateTimeFormatter TIME = java.time.format.DateTimeFormatter
            .ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSSSSSSSS'Z'").withZone(java.time.ZoneOffset.UTC);

    @Override
    public Integer call() {
        if (graph == null) {
            throw new picocli.CommandLine.ParameterException(spec.commandLine(), "missing required parameter 'GRAPH'");
        }
        OutputFormat.Format format = output.resolve(OutputFormat.Format.jsonl);
        if (follow && format == OutputFormat.Format.json) {
            throw new CliException(Main.USAGE, "--follow prints events as they come: use --format jsonl or table");
        }
        if (types != null) {
            for (String t : types) {
                EventTypes.require(t, "--type");
            }
        }
        if (table != null) {
            Cli.requireTable(Cli.catalog(graph), table, "--table");
        }
        Seek.Point fromPoint = Seek.parse(from, "--from");
        Seek.Point toPoint = Seek.parse(to, "--to");
        JournalReader reader = Cli.reader(graph);
        Seek.Span span = new Seek.Span(reader);
        long start = fromPoint == null ? Cli.firstLocal(reader) : span.start(fromPoint, "--from", follow);
        Long last = toPoint == null ? null : span.end(toPoint, "--to");
        if (last != null && fromPoint != null) {
            Seek.Span.ordered(start, "--from", fromPoint, last, "--to", toPoint);
        }
        if (follow && last != null) {
            throw new CliException(Main.USAGE, "--follow prints events without end: it takes no --to");
        }
        Cli.checkSkipped(reader, start);
        Filter f = new Filter(types, table, branch, intent, key);
        PrintStream out = System.out;
        int seqWidth = Math.max(3, Long.toString(Math.max(span.end, 1)).length() + (follow ? 2 : 0));
        String row = "%-" + seqWidth + "s  %-30s  %-" + EventTypes.WIDTH + "s  %s%n";
        if (format == OutputFormat.Format.table) {
            out.printf(row, "seq", "time", "type", "summary");
        }
        long matched = 0;
        com.fasterxml.jackson.databind.node.ArrayNode array = Cli.JSON.createArrayNode();
        try (JournalCursor c = follow ? reader.follow(start) : reader.read(start)) {
            while (true) {
                JournalRecord r = follow ? c.take(Duration.ofMillis(500)) : c.poll();
                if (r == null) {
                    if (follow && !Thread.currentThread().isInterrupted()) {
                        out.flush();
                        continue;
                    }
                    break;
                }
                if (last != null && r.sequence() > last) {
                    break;
                }
                ObjectNode n = JsonRenderer.toTree(r);
                if (!f.matches(n)) {
                    continue;
                }
                matched++;
                switch (format) {
                    case jsonl -> out.println(n.toString());
                    case json -> array.add(n);
                    case table -> out.printf(row, r.sequence(), TIME.format(r.time()), n.get("type").asText(), summary(n));
                }
            }
            for (TornTail t : c.cutTails()) {
                System.err.println("palisade: warning: read past a torn tail of writer epoch " + t.segmentEpoch()
                        + " after sequence " + t.lastGoodSequence() + " (" + t.excerpts() + " bad excerpts: " + t.reason()
                        + "), which a later writer cut; no record there was acknowledged");
            }
            c.openTail().ifPresent(t -> Cli.note("note: the journal ends in a torn tail after sequence "
                    + t.lastGoodSequence() + " (" + t.excerpts() + " excerpts, " + t.reason()
                    + "); the next writer will cut it"));
        }
        if (format == OutputFormat.Format.json) {
            Cli.printJson(out, array);
        }
        out.flush();
        if (matched == 0 && branch != null) {
            io.palisade.heads.HeadsState s = Cli.currentState(graph);
            if (!s.branchLive(branch)) {
                throw new CliException(Main.USAGE, "--branch '" + branch + "': no event names that graph branch; "
                        + "the graph's branches are " + String.join(", ", s.branches().keySet()));
            }
        }
        return Main.OK;
    }

    /** A one-line summary of an event for table output. */
    static String summary(JsonNode n) {
        StringBuilder sb = new StringBuilder();
        for (String f : List.of("intent_id", "operation", "graph_branch", "branch", "table", "outcome", "achieved_version",
                "conflicting_intent", "reason", "writer_epoch", "pid", "from_branch", "covered_sequence", "batch_index",
                "row_count")) {
            JsonNode v = n.get(f);
            if (v != null && !v.isNull() && !(v.isTextual() && v.asText().isEmpty())) {
                sb.append(f).append('=').append(v.isTextual() ? v.asText() : v.toString()).append(' ');
            }
        }
        if (n.path("type").asText().equals("catalog_recorded")) { // the tables it records, and its digest
            List<String> tables = new ArrayList<>();
            for (JsonNode t : n.path("catalog").path("tables")) {
                tables.add(t.path("name").asText() + ":" + t.path("kind").asText() + "(" + t.path("columns").size()
                        + " columns)");
            }
            sb.append("tables=").append(String.join(",", tables)).append(' ').append("digest=")
                    .append(abbrev(n.path("digest").asText(), 12)).append(' ');
        }
        if (n.path("type").asText().equals("load_progress")) {
            sb.append("rows=").append(n.path("rows").asLong()).append(' '); // the rows the load has committed so far
        }
        JsonNode kf = n.get("key_filter");
        if (kf != null && kf.isObject()) {
            sb.append("key_filter.keys=").append(abbrev(kf.get("keys").toString())).append(' ');
        }
        JsonNode ck = n.get("conflicting_keys");
        if (ck != null && ck.size() > 0) {
            sb.append("conflicting_keys=").append(abbrev(ck.toString())).append(' ');
        }
        JsonNode ids = n.get("intent_ids");
        if (ids != null) {
            sb.append("intent_ids=").append(abbrev(ids.toString())).append(' ');
        }
        JsonNode tr = n.get("transitions");
        if (tr != null) {
            for (JsonNode t : tr) {
                sb.append(t.path("graph_branch").asText()).append('/').append(t.path("table").asText()).append(" -> ")
                        .append(t.path("to").path("table_branch").asText()).append('@')
                        .append(t.path("to").path("version").asText()).append(' ');
            }
        }
        JsonNode cl = n.get("classifications");
        if (cl != null) {
            for (JsonNode c : cl) {
                sb.append(c.path("kind").asText()).append(':').append(c.path("subject_id").asText()).append(' ');
            }
        }
        return sb.toString().trim();
    }

    private static String abbrev(String s) {
        return abbrev(s, 60);
    }

    private static String abbrev(String s, int max) {
        return s.length() > max ? s.substring(0, max - 3) + "..." : s;
    }

    /** The filters of audit (the range is applied by the cursor). */
    record Filter(List<String> types, String table, String branch, String intent, String key) {
        boolean matches(JsonNode n) {
            if (types != null && !types.isEmpty() && !types.contains(n.get("type").asText())) {
                return false;
            }
            if (table != null && !mentions(n, "table", table)) {
                return false;
            }
            if (branch != null && !(mentions(n, "graph_branch", branch) || mentions(n, "branch", branch))) {
                return false;
            }
            if (intent != null && !(mentions(n, "intent_id", intent) || mentions(n, "intent_ids", intent)
                    || mentions(n, "conflicting_intent", intent) || mentions(n, "subject_id", intent))) {
                return false;
            }
            return key == null || mentions(n, "keys", key) || mentions(n, "conflicting_keys", key);
        }

        /** Whether any field named {@code field} anywhere in {@code n} is (or contains) {@code value}. */
        static boolean mentions(JsonNode n, String field, String value) {
            List<JsonNode> found = new ArrayList<>(n.findValues(field));
            for (JsonNode v : found) {
                if (v.isArray()) {
                    for (JsonNode x : v) {
                        if (x.asText().equals(value)) {
                            return true;
                        }
                    }
                } else if (!v.isNull() && v.asText().equals(value)) {
                    return true;
                }
            }
            return false;
        }
    }
}
