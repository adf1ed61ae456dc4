package io.palisade.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.palisade.journal.JournalCursor;
import io.palisade.journal.JournalReader;
import io.palisade.journal.JournalRecord;
import io.palisade.journal.JsonRenderer;
import io.palisade.journal.TornTail;
import io.palisade.journal.VerificationReport;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.BufferedWriter;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

@Command(name = "audit", mixinStandardHelpOptions = true,
        description = {"Inspect the journal; verify it; export it. Read-only.",
                "Works while a writer holds the graph.",
                "jsonl: one event per line with seq, time, epoch, type and the event's fields."},
        subcommands = {AuditCommand.Verify.class, AuditCommand.Export.class})
final class AuditCommand implements Callable<Integer> {
    enum Format { jsonl, table }

    @Parameters(index = "0", arity = "0..1", paramLabel = "GRAPH")
    Path graph;

    @Option(names = "--from-seq", paramLabel = "N")
    Long fromSeq;
    @Option(names = "--to-seq", paramLabel = "N", description = "Inclusive.")
    Long toSeq;
    @Option(names = "--since", paramLabel = "T", description = "ISO-8601 time.")
    String since;
    @Option(names = "--until", paramLabel = "T", description = "ISO-8601 time (inclusive).")
    String until;
    @Option(names = "--type", paramLabel = "TYPE", split = ",",
            description = "Event types (snake_case, e.g. intent_recorded,intent_completed,writer_started).")
    List<String> types;
    @Option(names = "--table")
    String table;
    @Option(names = "--branch")
    String branch;
    @Option(names = "--intent", paramLabel = "ID")
    String intent;
    @Option(names = "--key", paramLabel = "K", description = "Events whose key filter or conflicting keys hold K.")
    String key;
    @Option(names = "--follow", description = "Keep printing events as they are appended (Ctrl-C to stop).")
    boolean follow;
    @Option(names = "--format", defaultValue = "jsonl", description = "jsonl or table (default: ${DEFAULT-VALUE}).")
    Format format;

    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        if (graph == null) {
            throw new picocli.CommandLine.ParameterException(spec.commandLine(), "Missing required parameter: 'GRAPH'");
        }
        Filter f = new Filter(fromSeq, toSeq, Cli.parseTime(since, "--since"), Cli.parseTime(until, "--until"), types,
                table, branch, intent, key);
        JournalReader reader = Cli.reader(graph);
        long start = fromSeq == null ? 0 : fromSeq;
        if (f.since != null && fromSeq == null) {
            start = reader.sequenceAt(f.since).orElse(reader.endSequence());
        }
        PrintStream out = System.out;
        if (format == Format.table) {
            out.printf("%-7s %-27s %-22s %s%n", "seq", "time", "type", "summary");
        }
        try (JournalCursor c = follow ? reader.follow(start) : reader.read(start)) {
            while (true) {
                JournalRecord r = follow ? c.take(Duration.ofMillis(500)) : c.poll();
                if (r == null) {
                    if (follow) {
                        out.flush();
                        continue;
                    }
                    break;
                }
                if (f.pastEnd(r)) {
                    break;
                }
                ObjectNode n = JsonRenderer.toTree(r);
                if (!f.matches(r, n)) {
                    continue;
                }
                if (format == Format.jsonl) {
                    out.println(n.toString());
                } else {
                    out.printf("%-7d %-27s %-22s %s%n", r.sequence(), r.time(), n.get("type").asText(), summary(n));
                }
            }
            if (!follow) {
                c.openTail().ifPresent(t -> System.err.println("palisade: note: the journal ends in a torn tail after sequence "
                        + t.lastGoodSequence() + " (" + t.excerpts() + " excerpts, " + t.reason()
                        + "); the next writer will cut it"));
            }
        }
        out.flush();
        return Main.OK;
    }

    /** A one-line summary of an event for table output. */
    static String summary(JsonNode n) {
        StringBuilder sb = new StringBuilder();
        for (String f : List.of("intent_id", "operation", "graph_branch", "branch", "table", "outcome", "achieved_version",
                "conflicting_intent", "reason", "writer_epoch", "pid", "from_branch", "covered_sequence")) {
            JsonNode v = n.get(f);
            if (v != null && !v.isNull() && !(v.isTextual() && v.asText().isEmpty())) {
                sb.append(f).append('=').append(v.isTextual() ? v.asText() : v.toString()).append(' ');
            }
        }
        JsonNode kf = n.get("key_filter");
        if (kf != null && kf.isObject()) {
            sb.append("keys=").append(abbrev(kf.get("keys").toString())).append(' ');
        }
        JsonNode ck = n.get("conflicting_keys");
        if (ck != null && ck.size() > 0) {
            sb.append("conflicting_keys=").append(abbrev(ck.toString())).append(' ');
        }
        JsonNode ids = n.get("intent_ids");
        if (ids != null) {
            sb.append("intents=").append(abbrev(ids.toString())).append(' ');
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
        return s.length() > 60 ? s.substring(0, 57) + "..." : s;
    }

    /** The filters of audit. */
    record Filter(Long fromSeq, Long toSeq, Instant since, Instant until, List<String> types, String table,
                  String branch, String intent, String key) {
        boolean pastEnd(JournalRecord r) {
            return (toSeq != null && r.sequence() > toSeq) || (until != null && r.time().isAfter(until));
        }

        boolean matches(JournalRecord r, JsonNode n) {
            if (fromSeq != null && r.sequence() < fromSeq) {
                return false;
            }
            if (since != null && r.time().isBefore(since)) {
                return false;
            }
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

    @Command(name = "verify", mixinStandardHelpOptions = true,
            description = {"Check every record's CRC32C and the whole hash chain, then every published table head's files",
                    "(manifest decodes, files its commit added whole); exit 7 naming the first bad sequence or file."})
    static final class Verify implements Callable<Integer> {
        @Parameters(index = "0", paramLabel = "GRAPH")
        Path graph;
        @Option(names = "--json")
        boolean json;

        @Override
        public Integer call() {
            VerificationReport r = Cli.reader(graph).verify();
            // the table heads' files: every published head's manifest decodes and the files its commit added are whole
            List<io.palisade.fencing.TableCorruptedException> damaged = List.of();
            if (r.ok()) {
                try (io.palisade.substrate.lance.LanceTableStore store =
                             new io.palisade.substrate.lance.LanceTableStore(Cli.tablesDir(graph).toString())) {
                    damaged = io.palisade.recovery.PublishedHeads.damaged(Cli.currentState(graph), store,
                            () -> Cli.reader(graph));
                }
            }
            // versions no journaled write explains: reported (stderr, --json), not a verification failure
            List<io.palisade.recovery.ForeignVersions.Pending> pending = r.ok() ? Cli.warnForeign(graph) : List.of();
            if (json) {
                java.util.Map<String, Object> m = new java.util.LinkedHashMap<>();
                m.put("ok", r.ok());
                m.put("records", r.records());
                m.put("end_sequence", r.endSequence());
                m.put("chain_head", r.lastHash());
                m.put("first_bad_sequence", r.firstBadSequence());
                m.put("problem", r.problem());
                m.put("cut_tails", r.cutTails().size());
                java.util.Map<String, Object> tail = null;
                if (r.openTail() != null) {
                    tail = new java.util.LinkedHashMap<>();
                    tail.put("segment_epoch", r.openTail().segmentEpoch());
                    tail.put("last_good_sequence", r.openTail().lastGoodSequence());
                    tail.put("excerpts", r.openTail().excerpts());
                    tail.put("reason", r.openTail().reason());
                }
                m.put("open_tail", tail);
                List<java.util.Map<String, Object>> tables = new java.util.ArrayList<>();
                for (io.palisade.fencing.TableCorruptedException d : damaged) {
                    java.util.Map<String, Object> t = new java.util.LinkedHashMap<>();
                    t.put("table", d.table());
                    t.put("graph_branch", d.graphBranch());
                    t.put("table_branch", d.tableBranch());
                    t.put("version", d.version());
                    t.put("reason", d.reason());
                    t.put("files", d.files());
                    t.put("intents", d.intentIds());
                    tables.add(t);
                }
                m.put("tables_ok", r.ok() ? damaged.isEmpty() : null);
                m.put("damaged_tables", tables);
                m.put("foreign_versions", pending.stream().map(Cli::foreignJson).toList());
                Cli.printJson(System.out, m);
            } else if (r.ok()) {
                System.out.println("journal verified: " + r.records() + " records (sequences 0.." + (r.endSequence() - 1)
                        + "), every CRC32C and the hash chain intact; chain head " + r.lastHash());
                for (TornTail t : r.cutTails()) {
                    System.out.println("  torn tail cut by a later writer: epoch " + t.segmentEpoch() + " after sequence "
                            + t.lastGoodSequence() + " (" + t.excerpts() + " excerpts: " + t.reason() + ")");
                }
                if (r.openTail() != null) {
                    System.out.println("  open torn tail after sequence " + r.openTail().lastGoodSequence()
                            + " (the next writer cuts it): " + r.openTail().reason());
                }
            }
            if (!r.ok()) {
                throw new CliException(Main.CORRUPTED, "verification failed at sequence " + r.firstBadSequence() + ": "
                        + r.problem() + " (" + r.records() + " records verified before it)");
            }
            if (!damaged.isEmpty()) {
                for (int i = 1; i < damaged.size(); i++) {
                    System.err.println("palisade: " + ErrorKind.TABLE_CORRUPTED.words() + ": " + damaged.get(i).getMessage());
                }
                throw new CliException(ErrorKind.TABLE_CORRUPTED, "journal verified, but " + damaged.size() + " published table "
                        + (damaged.size() == 1 ? "head is" : "heads are") + " damaged: " + damaged.get(0).getMessage());
            }
            if (!json) {
                System.out.println("table heads verified: every published head's manifest decodes and the files its "
                        + "commit added are whole");
            }
            return Main.OK;
        }
    }

    @Command(name = "export", mixinStandardHelpOptions = true,
            description = {"Export the whole journal, one row per event: jsonl, or an Arrow IPC file (columns seq,",
                    "time, epoch, type, intent_id, graph_branch, table, outcome, json) that pyarrow/DuckDB load."})
    static final class Export implements Callable<Integer> {
        enum Format { jsonl, arrow }

        @Parameters(index = "0", paramLabel = "GRAPH")
        Path graph;
        @Option(names = "--format", required = true)
        Format format;
        @Option(names = "--out", required = true, paramLabel = "FILE")
        Path out;

        @Override
        public Integer call() throws Exception {
            JournalReader reader = Cli.reader(graph);
            long end = reader.endSequence();
            Cli.Progress p = new Cli.Progress("export", end);
            long n = 0;
            if (format == Format.jsonl) {
                try (BufferedWriter w = Files.newBufferedWriter(out, StandardCharsets.UTF_8);
                     JournalCursor c = reader.read(0)) {
                    JournalRecord r;
                    while ((r = c.poll()) != null) {
                        w.write(JsonRenderer.toJson(r));
                        w.write('\n');
                        p.at(++n);
                    }
                }
            } else {
                n = ArrowExport.write(reader, out, p);
            }
            p.done();
            System.out.println("exported " + n + " events to " + out + " (" + format + ")");
            return Main.OK;
        }
    }
}
