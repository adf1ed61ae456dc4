package io.palisade.cli;

import io.palisade.fencing.ValidationException;
import io.palisade.heads.HeadsReplayer;
import io.palisade.heads.HeadsState;
import io.palisade.heads.Pin;
import picocli.CommandLine.ArgGroup;
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
        description = "The published table heads per graph branch, now or at a past sequence or time. Read-only.")
final class HeadsCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "GRAPH")
    Path graph;

    @Option(names = "--branch", description = "Only this graph branch (default: every branch).")
    String branch;

    static final class At {
        @Option(names = "--at-seq", paramLabel = "N")
        Long seq;
        @Option(names = "--at-time", paramLabel = "ISO-8601")
        String time;
    }

    @ArgGroup(exclusive = true)
    At at;

    @Option(names = "--json", description = {"[{\"branch\",\"table\",\"table_branch\",\"version\",...,",
            "\"foreign_versions\"}] (foreign_versions: table versions above the head no journaled write explains;",
            "present for the heads now, not with --at-seq/--at-time)"})
    boolean json;

    @Override
    public Integer call() {
        HeadsReplayer r = Cli.replayer(graph);
        HeadsState s;
        if (at != null && at.seq != null) {
            s = r.headsAt(at.seq);
        } else if (at != null && at.time != null) {
            s = r.headsAt(Cli.parseTime(at.time, "--at-time"));
        } else {
            s = r.replay().state();
        }
        List<Map<String, Object>> out = heads(s, branch);
        // journal-ack tables (docs/journal-ack.md): how far the Lance table lags behind what was acknowledged
        io.palisade.coordinator.Catalog catalog = Cli.catalog(graph);
        long now = System.currentTimeMillis();
        for (Map<String, Object> m : out) {
            String t = (String) m.get("table");
            io.palisade.heads.FoldMark fm = s.foldMark((String) m.get("branch"), t);
            m.put("ack", catalog.table(t).map(d -> d.ack().json()).orElse("table"));
            m.put("unfolded", fm.unfolded());
            m.put("folded_through", fm.foldedThrough());
            m.put("fold_lag_ms", fm.unfolded() == 0 ? 0L : at == null ? Math.max(0, now - fm.oldestNanos() / 1_000_000L) : null);
        }
        if (at == null) { // the heads now: say which tables hold versions no journaled write explains
            List<io.palisade.recovery.ForeignVersions.Pending> pending = Cli.warnForeign(graph);
            for (Map<String, Object> m : out) {
                m.put("foreign_versions", pending.stream().filter(p -> p.graphBranch().equals(m.get("branch"))
                        && p.table().equals(m.get("table"))).findFirst()
                        .map(io.palisade.recovery.ForeignVersions.Pending::versions).orElse(List.of()));
            }
        }
        if (json) {
            Cli.printJson(System.out, out);
        } else {
            List<List<String>> rows = new ArrayList<>();
            for (Map<String, Object> m : out) {
                rows.add(List.of(String.valueOf(m.get("branch")), String.valueOf(m.get("table")),
                        String.valueOf(m.get("table_branch")), String.valueOf(m.get("version")),
                        m.get("inherited_from") == null ? "owned" : "inherited from " + m.get("inherited_from"),
                        String.valueOf(m.get("since_seq")), "journal".equals(m.get("ack"))
                                ? m.get("unfolded") + " unfolded" : "-"));
            }
            Tables.print(System.out, List.of("branch", "table", "table_branch", "version", "pin", "since_seq", "journal_ack"),
                    rows);
            System.out.println("(as of sequence " + s.lastSequence() + ")");
        }
        return Main.OK;
    }

    static List<Map<String, Object>> heads(HeadsState s, String branch) {
        if (branch != null && !s.branchLive(branch)) {
            throw new ValidationException("unknown graph branch '" + branch + "'"
                    + " (branches: " + s.branches().keySet() + ")");
        }
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
