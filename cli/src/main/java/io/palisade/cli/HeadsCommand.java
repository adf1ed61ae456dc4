package io.palisade.cli;

import io.palisade.heads.HeadsReplayer;
import io.palisade.heads.HeadsState;
import io.palisade.heads.Pin;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

@Command(name = "heads", mixinStandardHelpOptions = true,
        description = {"Print the published table heads of every graph branch, now or at a past point of the journal. Read-only.",
                "The default format is table; json prints one array of {branch, table, table_branch, version, "
                        + "inherited_from, since_seq, foreign_versions} objects, jsonl one such object per line. "
                        + "foreign_versions lists the table versions above the head that no journaled write explains; "
                        + "it is given for the heads now, not with --at."},
        footer = {"%nExample:%n  palisade heads GRAPH --branch main --at '2026-11-29T14:00' --format json"})
final class HeadsCommand implements Callable<Integer>, ReadOnly {
    @Parameters(index = "0", paramLabel = "GRAPH", description = "The graph directory.")
    Path graph;

    @Option(names = "--branch", paramLabel = "B", description = "Only this graph branch (default: every branch).")
    String branch;

    @Option(names = {"--at", "--at-seq", "--at-time"}, paramLabel = "POINT",
            description = "The heads as of this journal point (the record there included): a sequence, an ISO-8601 "
                    + "time (zone-less is UTC), a relative time (-10m, 2h ago) or 'last N' (before the last N records). "
                    + "--at-seq and --at-time are older names of this option.")
    String at;

    @picocli.CommandLine.Mixin
    OutputFormat output = new OutputFormat();

    @Override
    public Integer call() {
        OutputFormat.Format format = output.resolve(OutputFormat.Format.table);
        Seek.Point point = Seek.parse(at, "--at");
        HeadsReplayer r = Cli.replayer(graph);
        HeadsState s;
        io.palisade.journal.JournalReader reader = Cli.reader(graph);
        if (point != null) {
            long seq = new Seek.Span(reader).point(point, "--at");
            Cli.checkSkipped(reader, seq + 1);
            s = r.headsAt(seq);
        } else {
            HeadsReplayer.Replay replay = r.replay();
            Cli.warnSkippedCheckpoints(replay);
            Cli.checkSkipped(reader, replay.checkpointSequence() + 1);
            s = replay.state();
        }
        Cli.requireBranch(s, branch, "--branch");
        List<Map<String, Object>> out = heads(s, branch);
        // journal-ack tables (docs/journal-ack.md): how far the Lance table lags behind what was acknowledged
        io.palisade.coordinator.Catalog catalog = Cli.catalog(graph);
        Long now = point == null ? System.currentTimeMillis() : null;
        for (Map<String, Object> m : out) {
            String t = (String) m.get("table");
            m.put("ack", catalog.table(t).map(d -> d.ack().json()).orElse("table"));
            if (catalog.table(t).map(io.palisade.coordinator.Catalog.TableDef::journalAck).orElse(false)
                    || s.foldMark((String) m.get("branch"), t).unfolded() > 0) {
                // a table-ack table has unfolded writes only while a graph transaction's part waits for its fold
                putFold(m, s, (String) m.get("branch"), t, now);
            } else { // as status: a table-ack table has no fold to report
                m.put("unfolded", null);
                m.put("folded_through", null);
                m.put("fold_lag_ms", null);
            }
        }
        if (point == null) { // the heads now: say which tables hold versions no journaled write explains
            List<io.palisade.recovery.ForeignVersions.Pending> pending = Cli.warnForeign(graph);
            for (Map<String, Object> m : out) {
                m.put("foreign_versions", pending.stream().filter(p -> p.graphBranch().equals(m.get("branch"))
                        && p.table().equals(m.get("table"))).findFirst()
                        .map(io.palisade.recovery.ForeignVersions.Pending::versions).orElse(List.of()));
            }
        }
        switch (format) {
            case json -> Cli.printJson(System.out, out);
            case jsonl -> {
                for (Map<String, Object> m : out) {
                    System.out.println(Cli.toJson(m));
                }
            }
            case table -> {
                List<String> header = new ArrayList<>(List.of("branch", "table", "table_branch", "version",
                        "inherited_from", "since_seq"));
                if (point == null) {
                    header.add("foreign_versions");
                }
                header.add("ack");
                header.add("unfolded");
                List<List<String>> rows = new ArrayList<>();
                for (Map<String, Object> m : out) {
                    List<String> row = new ArrayList<>();
                    for (String h : header) {
                        Object v = m.get(h);
                        row.add(v == null ? "-" : v instanceof List<?> l && l.isEmpty() ? "-" : String.valueOf(v));
                    }
                    rows.add(row);
                }
                Tables.print(System.out, header, rows);
                System.out.println("(as of sequence " + s.lastSequence() + "; inherited_from '-' = the branch owns "
                        + "its head)");
            }
        }
        return Main.OK;
    }

    /**
     * Where the fold of (branch, table) stands in {@code s}: {@code unfolded} (acknowledged writes not yet folded),
     * {@code folded_through} (the watermark, -1 before the first fold) and {@code fold_lag_ms} (the age of the oldest
     * unfolded write on the wall clock {@code nowMillis}, 0 when none; null when {@code nowMillis} is null, as of a past
     * point, where the lag is not known). {@code status} shows the same figures.
     */
    static void putFold(Map<String, Object> m, HeadsState s, String branch, String table, Long nowMillis) {
        io.palisade.heads.FoldMark fm = s.foldMark(branch, table);
        m.put("unfolded", fm.unfolded());
        m.put("folded_through", fm.foldedThrough());
        // never unbox a null lag
        Long lag = fm.unfolded() == 0 ? Long.valueOf(0)
                : nowMillis != null ? Long.valueOf(Math.max(0, nowMillis - fm.oldestNanos() / 1_000_000L)) : null;
        m.put("fold_lag_ms", lag);
    }

    static List<Map<String, Object>> heads(HeadsState s, String branch) {
        Cli.requireBranch(s, branch, "--branch");
        List<Map<String, Object>> out = new ArrayList<>();
        for (String b : s.branches().keySet()) {
            if (branch != null && !branch.equals(b)) {
                continue;
            }
            for (Map.Entry<String, Pin> e : s.pins(b).entrySet()) {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("branch", b);
                m.put("table", e.getKey());
                m.put("table_branch", e.getValue().head().tableBranch());
                m.put("version", e.getValue().head().version());
                m.put("inherited_from", e.getValue().inheritedFrom());
                m.put("since_seq", e.getValue().since());
                out.add(m);
            }
        }
        return out;
    }
}
