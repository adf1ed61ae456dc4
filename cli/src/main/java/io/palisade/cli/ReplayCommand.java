package io.palisade.cli;

import io.palisade.heads.HeadsReplayer;
import io.palisade.heads.HeadsState;
import io.palisade.heads.OpenIntent;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

@Command(name = "replay", mixinStandardHelpOptions = true,
        description = {"Print the heads and the open (in-flight) intents as they were at a point of the journal. Read-only.",
                "The default format is table; json (or jsonl) prints one object {sequence, writer_epoch, heads_digest, "
                        + "heads, open_intents}, with the field names the table's columns use."},
        footer = {"%nExample:%n  palisade replay GRAPH --at '2026-11-29T14:03:10Z' --format json"})
final class ReplayCommand implements Callable<Integer>, ReadOnly {
    @Parameters(index = "0", paramLabel = "GRAPH", description = "The graph directory.")
    Path graph;

    @Option(names = {"--at", "--to", "--to-seq", "--to-time"}, required = true, paramLabel = "POINT",
            description = "The journal point (the record there included): a sequence, an ISO-8601 time (zone-less is "
                    + "UTC), a relative time (-10m, 2h ago) or 'last N' (before the last N records). --to, --to-seq "
                    + "and --to-time are older names of this option.")
    String at;

    @picocli.CommandLine.Mixin
    OutputFormat output = new OutputFormat();

    @Override
    public Integer call() {
        OutputFormat.Format format = output.resolve(OutputFormat.Format.table);
        Seek.Point point = Seek.parse(at, "--at");
        io.palisade.journal.JournalReader reader = Cli.reader(graph);
        long seq = new Seek.Span(reader).point(point, "--at");
        HeadsReplayer r = Cli.replayer(graph);
        Cli.Progress p = new Cli.Progress("replay", 0);
        p.at(0);
        Cli.checkSkipped(reader, seq + 1);
        HeadsState s = r.headsAt(seq);
        p.done();
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("sequence", s.lastSequence());
        m.put("writer_epoch", s.writerEpoch());
        m.put("heads_digest", s.digest());
        m.put("heads", HeadsCommand.heads(s, null));
        List<Map<String, Object>> open = new ArrayList<>();
        for (OpenIntent o : s.openIntents()) {
            Map<String, Object> x = new LinkedHashMap<>();
            x.put("intent", o.intentId());
            x.put("operation", o.recorded().operation().name().toLowerCase());
            x.put("branch", o.graphBranch());
            x.put("table", o.table());
            x.put("phase", o.phase().name());
            x.put("recorded_seq", o.recordedAt());
            x.put("expected_base_version", o.recorded().expectedBase().version());
            x.put("keys", o.recorded().keyFilter() == null ? 0 : o.recorded().keyFilter().size());
            open.add(x);
        }
        m.put("open_intents", open);
        if (format != OutputFormat.Format.table) {
            Cli.printJson(System.out, m);
            return Main.OK;
        }
        System.out.println("state as of sequence " + s.lastSequence() + " (writer epoch " + s.writerEpoch()
                + ", heads digest " + s.digest() + ")");
        System.out.println();
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> heads = (List<Map<String, Object>>) m.get("heads");
        List<List<String>> rows = new ArrayList<>();
        for (Map<String, Object> h : heads) {
            rows.add(List.of(String.valueOf(h.get("branch")), String.valueOf(h.get("table")),
                    String.valueOf(h.get("table_branch")), String.valueOf(h.get("version")),
                    h.get("inherited_from") == null ? "-" : String.valueOf(h.get("inherited_from"))));
        }
        Tables.print(System.out, List.of("branch", "table", "table_branch", "version", "inherited_from"), rows);
        System.out.println();
        if (open.isEmpty()) {
            System.out.println("no open intents (every write recorded so far had completed)");
        } else {
            System.out.println(open.size() + " open intent(s) in flight at that point:");
            List<List<String>> or = new ArrayList<>();
            for (Map<String, Object> x : open) {
                or.add(List.of(String.valueOf(x.get("intent")), String.valueOf(x.get("operation")),
                        String.valueOf(x.get("branch")), String.valueOf(x.get("table")), String.valueOf(x.get("phase")),
                        String.valueOf(x.get("recorded_seq")), String.valueOf(x.get("keys"))));
            }
            Tables.print(System.out, List.of("intent", "operation", "branch", "table", "phase", "recorded_seq", "keys"), or);
        }
        return Main.OK;
    }
}
