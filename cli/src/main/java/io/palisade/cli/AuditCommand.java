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
        description = {"Print the journal's events, filtered by range, type, table, branch, intent or key. Read-only.",
                "It works while a writer holds the graph. The jsonl format (the default) prints one event per line "
                        + "with seq, time, epoch, type and the event's fields; json prints one array; table prints "
                        + "aligned columns. A range is given with --from and --to, each a journal point: "
                        + Seek.FORMS + ".",
                "The subcommands verify the whole journal and export it."},
        footer = {"%nExample:%n  palisade audit GRAPH --from '2h ago' --type intent_completed --format table",
                "  palisade audit GRAPH --follow --from 'last 20'"},
        subcommands = {AuditCommand.Verify.class, AuditCommand.Export.class})
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
            throw new picocli.CommandLine.ParameterException(spec.commandLine(), "Missing required parameter: 'GRAPH'");
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
        long start = fromPoint == null ? 0 : span.start(fromPoint, "--from", follow);
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
            c.openTail().ifPresent(t -> System.err.println("palisade: note: the journal ends in a torn tail after sequence "
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
        return s.length() > 60 ? s.substring(0, 57) + "..." : s;
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

    @Command(name = "verify", mixinStandardHelpOptions = true,
            description = {"Verify the whole journal, its checkpoints and every published table head, and say what was checked. Read-only.",
                    "Every record's CRC32C, the SHA-256 hash chain, dense sequences and writer epochs are checked from "
                            + "sequence 0; every checkpoint is decoded and compared with the journal folded to its "
                            + "sequence; every published table head's manifest must decode and the files its commit "
                            + "added must be whole, and a table version above a head that no journaled write explains "
                            + "is reported. The output names the records, sequence range, segments and epochs, time span, "
                            + "checkpoints and heads covered, and the chain head.",
                    "A hash chain can be recomputed by whoever rewrites the journal, so pin the chain head printed "
                            + "here (--print-head) somewhere the graph's writers cannot change, and give it back with "
                            + "--expect-head: a journal whose record at the pinned sequence has another hash fails. "
                            + "Exit 7 names the first bad sequence, file or the differing head."},
            footer = {"%nExample:%n  palisade audit verify GRAPH --expect-head 299:3f1c...e9"})
    static final class Verify implements Callable<Integer>, ReadOnly {
        @Parameters(index = "0", paramLabel = "GRAPH", description = "The graph directory.")
        Path graph;
        @picocli.CommandLine.Mixin
        OutputFormat output = new OutputFormat();
        @Option(names = "--print-head", description = "Print only the chain head to pin, as SEQ:HASH (after verifying).")
        boolean printHead;
        @Option(names = "--expect-head", paramLabel = "[SEQ:]HASH",
                description = "Fail (exit 7) unless the record at SEQ has this hash; without SEQ, unless the "
                        + "journal's last record has it.")
        String expectHead;

        /** What the verification covered. */
        record Scope(long segments, java.util.SortedSet<Long> epochs, Instant first, Instant last,
                     List<java.util.Map<String, Object>> checkpoints, int checkpointProblems) {
        }

        @Override
        public Integer call() {
            OutputFormat.Format format = output.resolve(OutputFormat.Format.table);
            boolean json = format != OutputFormat.Format.table;
            Pin pin = expectHead == null ? null : Pin.parse(expectHead);
            JournalReader reader = Cli.reader(graph);
            VerificationReport r = reader.verify();
            Scope scope = r.ok() ? scope(graph, reader) : null;
            // the table heads' files: every published head's manifest decodes and the files its commit added are whole
            List<io.palisade.fencing.TableCorruptedException> damaged = List.of();
            int headsChecked = 0;
            if (r.ok()) {
                io.palisade.heads.HeadsState state = Cli.currentState(graph);
                headsChecked = publishedHeads(state);
                try (io.palisade.substrate.lance.LanceTableStore store =
                             Cli.tables(graph).open(true)) {
                    damaged = io.palisade.recovery.PublishedHeads.damaged(state, store, () -> Cli.reader(graph));
                }
            }
            // versions no journaled write explains: reported (stderr, --json), not a verification failure
            List<io.palisade.recovery.ForeignVersions.Pending> pending = r.ok() ? Cli.warnForeign(graph) : List.of();
            long headSeq = r.endSequence() - 1;
            String pinProblem = null;
            if (r.ok() && pin != null) {
                pinProblem = pin.check(reader, headSeq, r.lastHash());
            }
            if (printHead && r.ok() && pinProblem == null && damaged.isEmpty()) {
                System.out.println(headSeq + ":" + r.lastHash());
                return Main.OK;
            }
            if (json) {
                java.util.Map<String, Object> m = new java.util.LinkedHashMap<>();
                m.put("ok", r.ok());
                m.put("records", r.records());
                m.put("end_sequence", r.endSequence());
                m.put("chain_head", r.lastHash());
                m.put("chain_head_seq", r.ok() ? headSeq : null);
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
                if (scope != null) {
                    m.put("segments", scope.segments());
                    m.put("epochs", scope.epochs());
                    m.put("first_time", String.valueOf(scope.first()));
                    m.put("last_time", String.valueOf(scope.last()));
                    m.put("checkpoints", scope.checkpoints());
                }
                m.put("heads_checked", r.ok() ? headsChecked : null);
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
                m.put("expected_head", expectHead);
                m.put("head_matches", pin == null || !r.ok() ? null : pinProblem == null);
                Cli.printJson(System.out, m);
            } else if (r.ok()) {
                System.out.println("journal verified: " + r.records() + " records, sequences 0.." + headSeq + ", from "
                        + scope.first() + " to " + scope.last());
                System.out.println("  segments: " + scope.segments() + " (writer epochs " + ranges(scope.epochs())
                        + "); every record's CRC32C, the SHA-256 hash chain, dense sequences and epochs checked from "
                        + "sequence 0");
                for (TornTail t : r.cutTails()) {
                    System.out.println("  torn tail cut by a later writer: epoch " + t.segmentEpoch() + " after sequence "
                            + t.lastGoodSequence() + " (" + t.excerpts() + " excerpts: " + t.reason() + ")");
                }
                if (r.openTail() != null) {
                    System.out.println("  open torn tail after sequence " + r.openTail().lastGoodSequence()
                            + " (the next writer cuts it): " + r.openTail().reason());
                }
                System.out.println("  checkpoints: " + (scope.checkpoints().isEmpty() ? "none written"
                        : scope.checkpoints().size() + " checked (" + String.join("; ", scope.checkpoints().stream()
                        .map(c -> "seq " + c.get("sequence") + " " + c.get("result")).toList()) + ")"));
                System.out.println("  chain head: " + headSeq + ":" + r.lastHash()
                        + (pin == null ? " (pin it; check it later with --expect-head)"
                        : pinProblem == null ? " (the pinned head " + expectHead + " matches)" : ""));
            }
            if (!r.ok()) {
                throw new CliException(Main.CORRUPTED, "verification failed at sequence " + r.firstBadSequence() + ": "
                        + r.problem() + " (" + r.records() + " records verified before it)");
            }
            if (pinProblem != null) {
                throw new CliException(Main.CORRUPTED, "journal verified, but it is not the pinned journal: " + pinProblem);
            }
            if (!damaged.isEmpty()) {
                for (int i = 1; i < damaged.size(); i++) {
                    System.err.println("palisade: " + ErrorKind.TABLE_CORRUPTED.words() + ": " + damaged.get(i).getMessage());
                }
                throw new CliException(ErrorKind.TABLE_CORRUPTED, "journal verified, but " + damaged.size() + " published table "
                        + (damaged.size() == 1 ? "head is" : "heads are") + " damaged: " + damaged.get(0).getMessage());
            }
            if (!json) {
                System.out.println("table heads verified: " + headsChecked + " published head(s) checked against the "
                        + "journal: every manifest decodes and the files each commit added are whole; "
                        + (pending.isEmpty() ? "no table version above a head" : pending.size()
                        + " table(s) hold versions no journaled write explains (warned above)"));
            }
            return Main.OK;
        }

        /** One pass over the verified journal: segments, epochs, time span, and every checkpoint against the fold. */
        static Scope scope(Path graph, JournalReader reader) {
            java.util.Map<Long, Path> cps = new java.util.TreeMap<>();
            for (Path p : io.palisade.heads.Checkpoints.of(Cli.palisadeDir(graph)).list()) {
                cps.put(io.palisade.heads.Checkpoints.sequenceOf(p), p);
            }
            List<java.util.Map<String, Object>> checked = new ArrayList<>();
            int problems = 0;
            long segments = 0;
            java.util.SortedSet<Long> epochs = new java.util.TreeSet<>();
            Instant first = null;
            Instant last = null;
            io.palisade.heads.HeadsState s = io.palisade.heads.HeadsState.empty();
            try (JournalCursor c = reader.read(0)) {
                JournalRecord rec;
                while ((rec = c.poll()) != null) {
                    if (first == null) {
                        first = rec.time();
                    }
                    last = rec.time();
                    epochs.add(rec.writerEpoch());
                    if (rec.event() instanceof io.palisade.journal.JournalEvent.WriterStarted) {
                        segments++;
                    }
                    s = s.apply(rec);
                    Path cp = cps.remove(rec.sequence());
                    if (cp != null) {
                        java.util.Map<String, Object> m = checkpoint(cp, rec.sequence(), s);
                        problems += m.get("ok").equals(Boolean.TRUE) ? 0 : 1;
                        checked.add(m);
                    }
                }
            }
            for (java.util.Map.Entry<Long, Path> e : cps.entrySet()) {
                java.util.Map<String, Object> m = new java.util.LinkedHashMap<>();
                m.put("sequence", e.getKey());
                m.put("file", e.getValue().getFileName().toString());
                m.put("ok", false);
                m.put("result", "covers a sequence the journal does not hold (readers skip it)");
                problems++;
                checked.add(m);
            }
            for (java.util.Map<String, Object> m : checked) {
                if (!Boolean.TRUE.equals(m.get("ok"))) {
                    System.err.println("palisade: warning: checkpoint " + m.get("file") + ": " + m.get("result"));
                }
            }
            return new Scope(segments, epochs, first, last, checked, problems);
        }

        private static java.util.Map<String, Object> checkpoint(Path file, long seq, io.palisade.heads.HeadsState folded) {
            java.util.Map<String, Object> m = new java.util.LinkedHashMap<>();
            m.put("sequence", seq);
            m.put("file", file.getFileName().toString());
            try {
                io.palisade.heads.HeadsState cp = io.palisade.heads.Checkpoints.read(file);
                boolean same = cp.digest().equals(folded.digest());
                m.put("ok", same);
                m.put("result", same ? "decodes and equals the journal folded to it"
                        : "decodes but differs from the journal folded to it (digest " + cp.digest() + ", journal "
                        + folded.digest() + "; readers skip it)");
            } catch (RuntimeException e) {
                m.put("ok", false);
                m.put("result", "damaged (" + e.getMessage() + "; readers skip it)");
            }
            return m;
        }

        private static int publishedHeads(io.palisade.heads.HeadsState s) {
            java.util.Set<String> heads = new java.util.HashSet<>();
            for (String b : s.branches().keySet()) {
                s.pins(b).forEach((t, p) -> heads.add(t + "/" + p.head().tableBranch() + "@" + p.head().version()));
            }
            return heads.size();
        }

        private static String ranges(java.util.SortedSet<Long> epochs) {
            if (epochs.isEmpty()) {
                return "none";
            }
            return epochs.size() > 6 ? epochs.first() + ".." + epochs.last() + ", " + epochs.size() + " in all"
                    : String.join(", ", epochs.stream().map(String::valueOf).toList());
        }
    }

    /** A pinned chain head, {@code [SEQ:]HASH}. */
    record Pin(Long sequence, String hash) {
        static Pin parse(String text) {
            String s = text.strip();
            int colon = s.indexOf(':');
            Long seq = null;
            String hash = s;
            if (colon >= 0) {
                try {
                    seq = Long.parseLong(s.substring(0, colon));
                } catch (NumberFormatException e) {
                    seq = -1L;
                }
                hash = s.substring(colon + 1);
                if (seq < 0) {
                    throw new CliException(Main.USAGE, "--expect-head '" + text + "': SEQ must be a sequence (0 or more)");
                }
            }
            if (!hash.matches("(?i)[0-9a-f]{64}")) {
                throw new CliException(Main.USAGE, "--expect-head '" + text + "': the hash is 64 hex digits, as "
                        + "`palisade audit verify GRAPH --print-head` prints it (SEQ:HASH)");
            }
            return new Pin(seq, hash.toLowerCase(java.util.Locale.ROOT));
        }

        /** Null when the journal holds the pinned record; else what differs. */
        String check(JournalReader reader, long headSeq, String headHash) {
            if (sequence == null) {
                return hash.equals(headHash) ? null : "its chain head (sequence " + headSeq + ") is " + headHash
                        + ", the pinned head is " + hash + " (a journal extended since the pin differs too: pin SEQ:HASH)";
            }
            if (sequence > headSeq) {
                return "the pinned sequence " + sequence + " is past its last record " + headSeq
                        + " (the journal was cut back or replaced)";
            }
            String at = reader.recordHash(sequence).orElse("(unreadable)");
            return at.equals(hash) ? null : "the record at sequence " + sequence + " has hash " + at + ", the pin says "
                    + hash + ": the journal was rewritten up to there (and its chain recomputed), or it is another graph's";
        }
    }

    @Command(name = "export", mixinStandardHelpOptions = true,
            description = {"Export the whole journal, one row per event, to a file or to stdout. Read-only.",
                    "jsonl writes one event per line as audit prints it; arrow writes an Arrow IPC file (columns seq, "
                            + "time, epoch, type, intent_id, graph_branch, table, outcome, json) that pyarrow and "
                            + "DuckDB load. --out - writes to stdout (the summary line then goes to stderr)."},
            footer = {"%nExample:%n  palisade audit export GRAPH --format arrow --out audit.arrow"})
    static final class Export implements Callable<Integer>, ReadOnly {
        enum Format { jsonl, arrow }

        @Parameters(index = "0", paramLabel = "GRAPH", description = "The graph directory.")
        Path graph;
        @Option(names = "--format", required = true, paramLabel = "jsonl|arrow", description = "The file format: jsonl or arrow.")
        Format format;
        @Option(names = "--out", required = true, paramLabel = "FILE|-", description = "The file to write, or - for stdout.")
        String out;

        @Override
        public Integer call() throws Exception {
            JournalReader reader = Cli.reader(graph);
            long end = reader.endSequence();
            boolean stdout = out.equals("-");
            Cli.Progress p = new Cli.Progress("export", stdout ? 0 : end);
            long n = 0;
            java.io.OutputStream sink = stdout ? new java.io.FilterOutputStream(System.out) {
                @Override
                public void write(byte[] b, int off, int len) throws java.io.IOException {
                    out.write(b, off, len);
                }

                @Override
                public void close() throws java.io.IOException {
                    flush(); // stdout stays open
                }
            } : null;
            if (format == Format.jsonl) {
                try (java.io.Writer w = stdout ? new BufferedWriter(new java.io.OutputStreamWriter(sink, StandardCharsets.UTF_8))
                        : Files.newBufferedWriter(Path.of(out), StandardCharsets.UTF_8);
                     JournalCursor c = reader.read(0)) {
                    JournalRecord r;
                    while ((r = c.poll()) != null) {
                        w.write(JsonRenderer.toJson(r));
                        w.write('\n');
                        p.at(++n);
                    }
                }
            } else if (stdout) {
                n = ArrowExport.write(reader, java.nio.channels.Channels.newChannel(sink), p);
            } else {
                n = ArrowExport.write(reader, Path.of(out), p);
            }
            p.done();
            (stdout ? System.err : System.out).println((stdout ? "palisade: " : "") + "exported " + n + " events to "
                    + (stdout ? "stdout" : out) + " (" + format + ")");
            return Main.OK;
        }
    }
}
