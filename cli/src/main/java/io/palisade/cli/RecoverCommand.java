package io.palisade.cli;

import io.palisade.coordinator.Graph;
import io.palisade.coordinator.Options;
import io.palisade.coordinator.Palisade;
import io.palisade.journal.JournalEvent;
import io.palisade.journal.JournalRecord;
import io.palisade.journal.RecoveryClassification;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

@Command(name = "recover", mixinStandardHelpOptions = true,
        description = {"Run recovery (open the graph for writing) and print its report.",
                "Recovery (DESIGN §5): every intent without a completion is",
                "classified and completed (ABORTED / ROLLED_FORWARD / COMMITTED), a torn journal tail is cut, and a",
                "table version no intent explains (a foreign commit) refuses the graph (exit 8) unless --adopt-foreign.",
                "Adoption checks the adopted version first (ids non-null and unique, the primary key kept) and",
                "refuses with exit 8, publishing nothing, when it breaks the table's contract. Prints the report."})
final class RecoverCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "GRAPH")
    Path graph;

    @Option(names = "--json")
    boolean json;

    @Option(names = "--adopt-foreign", description = "Publish table versions no intent explains (the operator's decision),"
            + " once they pass the checks above.")
    boolean adoptForeign;

    @Override
    public Integer call() {
        Map<String, Object> report = recover(graph, adoptForeign);
        if (json) {
            Cli.printJson(System.out, report);
        } else {
            System.out.print(text(report));
        }
        return Main.OK;
    }

    /** Opens (recovery runs) and closes the graph; returns what the journal says recovery found and did. */
    static Map<String, Object> recover(Path graph, boolean adoptForeign) {
        Cli.requireGraph(graph);
        long before = Cli.reader(graph).endSequence();
        String digest;
        try (Graph g = Palisade.open(graph, Options.defaults(), adoptForeign)) {
            digest = g.state().digest();
        }
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("graph", graph.toString());
        m.put("journal_end_before", before);
        List<Map<String, Object>> cls = new ArrayList<>();
        List<Map<String, Object>> tails = new ArrayList<>();
        for (JournalRecord r : Cli.records(graph, before)) {
            switch (r.event()) {
                case JournalEvent.WriterStarted w -> {
                    m.put("writer_epoch", w.epoch());
                    m.put("writer_started_seq", r.sequence());
                }
                case JournalEvent.TornTailCut t -> {
                    Map<String, Object> x = new LinkedHashMap<>();
                    x.put("seq", r.sequence());
                    x.put("previous_epoch", t.previousEpoch());
                    x.put("last_good_sequence", t.lastGoodSequence());
                    x.put("excerpts_cut", t.excerptsCut());
                    x.put("reason", t.reason());
                    tails.add(x);
                }
                case JournalEvent.RecoveryStarted s -> m.put("recovery_id", s.recoveryId());
                case JournalEvent.RecoveryFinished f -> {
                    m.put("recovery_finished_seq", r.sequence());
                    for (RecoveryClassification c : f.classifications()) {
                        Map<String, Object> x = new LinkedHashMap<>();
                        x.put("subject_id", c.subjectId());
                        x.put("kind", c.kind().name());
                        x.put("table", c.table());
                        x.put("detail", c.detail());
                        cls.add(x);
                    }
                }
                default -> {
                }
            }
        }
        m.put("torn_tails_cut", tails);
        m.put("classifications", cls);
        m.put("changed", !cls.isEmpty() || !tails.isEmpty());
        m.put("heads_digest", digest);
        return m;
    }

    @SuppressWarnings("unchecked")
    static String text(Map<String, Object> m) {
        StringBuilder sb = new StringBuilder();
        List<Map<String, Object>> tails = (List<Map<String, Object>>) m.get("torn_tails_cut");
        List<Map<String, Object>> cls = (List<Map<String, Object>>) m.get("classifications");
        sb.append("recovery of ").append(m.get("graph")).append(" (writer epoch ").append(m.get("writer_epoch")).append(")\n");
        for (Map<String, Object> t : tails) {
            sb.append("  torn journal tail cut after sequence ").append(t.get("last_good_sequence")).append(": ")
                    .append(t.get("excerpts_cut")).append(" excerpt(s) of epoch ").append(t.get("previous_epoch"))
                    .append(" (").append(t.get("reason")).append(")\n");
        }
        for (Map<String, Object> c : cls) {
            sb.append("  ").append(c.get("kind")).append("  ").append(c.get("subject_id")).append("  table ")
                    .append(c.get("table")).append(": ").append(c.get("detail")).append('\n');
        }
        if (cls.isEmpty() && tails.isEmpty()) {
            sb.append("  nothing to recover: every intent had an outcome and every table version is explained\n");
        }
        sb.append("  heads digest ").append(m.get("heads_digest")).append('\n');
        return sb.toString();
    }
}
