package io.palisade.cli;

import io.palisade.heads.HeadsReplayer;
import io.palisade.heads.HeadsState;
import io.palisade.heads.OpenIntent;
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

@Command(name = "replay", mixinStandardHelpOptions = true,
        description = "Heads and open (in-flight) intents as they were at a journal sequence or time. Read-only.")
final class ReplayCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "GRAPH")
    Path graph;

    static final class To {
        @Option(names = "--to-seq", paramLabel = "N", required = true)
        Long seq;
        @Option(names = "--to-time", paramLabel = "T", required = true, description = "ISO-8601 time.")
        String time;
    }

    @ArgGroup(exclusive = true, multiplicity = "1")
    To to;

    @Option(names = "--json")
    boolean json;

    @Override
    public Integer call() {
        HeadsReplayer r = Cli.replayer(graph);
        Cli.Progress p = new Cli.Progress("replay", 0);
        p.at(0);
        HeadsState s = to.seq != null ? r.headsAt(to.seq) : r.headsAt(Cli.parseTime(to.time, "--to-time"));
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
        if (json) {
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
                    h.get("table_branch") + "@" + h.get("version"),
                    h.get("inherited_from") == null ? "owned" : "inherited from " + h.get("inherited_from")));
        }
        Tables.print(System.out, List.of("branch", "table", "head", "pin"), rows);
        System.out.println();
        if (open.isEmpty()) {
            System.out.println("no open intents (every write recorded so far had completed)");
        } else {
            System.out.println(open.size() + " open intent(s) in flight at that point:");
            List<List<String>> or = new ArrayList<>();
            for (Map<String, Object> x : open) {
                or.add(List.of(String.valueOf(x.get("intent")), String.valueOf(x.get("operation")),
                        x.get("branch") + "/" + x.get("table"), String.valueOf(x.get("phase")),
                        String.valueOf(x.get("recorded_seq")), String.valueOf(x.get("keys"))));
            }
            Tables.print(System.out, List.of("intent", "operation", "where", "phase", "recorded_seq", "keys"), or);
        }
        return Main.OK;
    }
}
