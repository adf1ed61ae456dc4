package io.palisade.cli;

import io.palisade.journal.IntentOutcome;
import io.palisade.journal.JournalEvent;
import io.palisade.journal.JournalEvent.IntentCompleted;
import io.palisade.journal.JournalEvent.IntentRecorded;
import io.palisade.journal.JournalRecord;
import io.palisade.journal.LogicalOperation;
import io.palisade.journal.RecoveryClassification;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Callable;

@Command(name = "report", mixinStandardHelpOptions = true,
        description = {"Write a self-contained HTML report of the journal. Read-only.",
                "The page has inline CSS and SVG and needs no network: a timeline per table of commits, conflicts, "
                        + "retries, crashes (writer restarts after a torn tail or with work left open) and recoveries, "
                        + "and a table of the busiest conflicting keys. A retry is an upsert of a key that lost a "
                        + "conflict before, or an intent reusing the idempotency key of one that lost."},
        footer = {"%nExample:%n  palisade report GRAPH --html incident.html --from '2h ago'"})
final class ReportCommand implements Callable<Integer>, ReadOnly {
    @Parameters(index = "0", paramLabel = "GRAPH", description = "The graph directory.")
    Path graph;

    @Option(names = "--html", required = true, paramLabel = "OUT.html", description = "The HTML file to write.")
    Path html;

    @Option(names = {"--from", "--since"}, paramLabel = "POINT",
            description = "The window's first event: a sequence, an ISO-8601 time (zone-less is UTC), a relative time "
                    + "(-10m, 2h ago) or 'last N'. --since is an older name of this option.")
    String since;

    @Option(names = {"--to", "--until"}, paramLabel = "POINT",
            description = "The window's last event (inclusive), in the same forms. --until is an older name of this option.")
    String until;

    /** One mark on the timeline. */
    record Mark(String lane, String kind, long seq, Instant time, String title) {
    }

    /** Conflict counts of one key. */
    static final class KeyStat {
        final String table;
        final String key;
        int conflicts;
        final Set<String> winners = new TreeSet<>();
        final Set<String> losers = new HashSet<>();
        long lastSeq;

        KeyStat(String table, String key) {
            this.table = table;
            this.key = key;
        }
    }

    @Override
    public Integer call() throws Exception {
        Seek.Point fromPoint = Seek.parse(since, "--from");
        Seek.Point toPoint = Seek.parse(until, "--to");
        io.palisade.journal.JournalReader reader = Cli.reader(graph);
        Seek.Span span = new Seek.Span(reader);
        long lo = fromPoint == null ? 0 : span.start(fromPoint, "--from", false);
        long hi = toPoint == null ? Long.MAX_VALUE : span.end(toPoint, "--to");
        if (fromPoint != null && toPoint != null) {
            Seek.Span.ordered(lo, "--from", fromPoint, hi, "--to", toPoint);
        }
        Instant from = fromPoint == null ? null : reader.record(lo).map(JournalRecord::time).orElse(null);
        Instant to = toPoint == null ? null : reader.record(hi).map(JournalRecord::time).orElse(null);
        List<JournalRecord> all = Cli.records(graph, 0);
        Map<String, IntentRecorded> intents = new HashMap<>();
        Map<String, Set<String>> lostKeys = new HashMap<>(); // table -> keys that lost a conflict so far
        Set<String> lostIdem = new HashSet<>();
        Set<String> retried = new HashSet<>();
        List<Mark> marks = new ArrayList<>();
        Map<String, KeyStat> keys = new LinkedHashMap<>();
        Set<String> tables = new TreeSet<>(Cli.catalog(graph).tables().stream().map(t -> t.name()).toList());
        int writerSessions = 0;
        JournalRecord lastStart = null;
        boolean sessionHadTorn = false;
        // a writer session that wrote through the graph closes with a CheckpointWritten (Graph.close); one that
        // ends without it was killed or crashed
        boolean sessionWrote = false;
        JournalEvent previous = null;
        long previousPid = -1;
        for (JournalRecord r : all) {
            boolean in = r.sequence() >= lo && r.sequence() <= hi;
            JournalEvent e = r.event();
            if ((e instanceof IntentRecorded ir && ir.operation() != LogicalOperation.CREATE_TABLE)
                    || e instanceof JournalEvent.GraphBranchCreated || e instanceof JournalEvent.GraphBranchDeleted) {
                sessionWrote = true;
            }
            JournalEvent before = previous;
            previous = e;
            switch (e) {
                case JournalEvent.WriterStarted w -> {
                    writerSessions++;
                    boolean crashed = writerSessions > 1 && sessionWrote && !(before instanceof JournalEvent.CheckpointWritten);
                    if (writerSessions > 1 && in) {
                        marks.add(new Mark("writer", "restart", r.sequence(), r.time(), "seq " + r.sequence()
                                + ": writer restarted (epoch " + w.epoch() + ", pid " + w.pid() + ")"));
                    }
                    if (crashed && in) {
                        marks.add(new Mark("writer", "crash", r.sequence(), r.time(), "seq " + r.sequence()
                                + ": the previous writer (pid " + previousPid + ") ended without closing the graph "
                                + "(no closing checkpoint): killed or crashed"));
                    }
                    lastStart = r;
                    sessionHadTorn = crashed;
                    sessionWrote = false;
                    previousPid = w.pid();
                }
                case JournalEvent.TornTailCut t -> {
                    boolean marked = sessionHadTorn;
                    sessionHadTorn = true;
                    if (in && !marked) {
                        marks.add(new Mark("writer", "crash", r.sequence(), r.time(), "seq " + r.sequence()
                                + ": previous writer (epoch " + t.previousEpoch() + ") died mid-append: torn tail after seq "
                                + t.lastGoodSequence() + " cut (" + t.reason() + ")"));
                    }
                }
                case IntentRecorded x -> {
                    intents.put(x.intentId(), x);
                    Set<String> lost = lostKeys.get(x.table());
                    // attributable retries only: the idempotency key of an intent that lost, or an upsert of keys that lost
                    // (racing strict inserts of the same keys are conflicts, not retries)
                    boolean retry = (x.idempotencyKey() != null && lostIdem.contains(x.idempotencyKey()))
                            || (x.operation() == LogicalOperation.UPSERT && lost != null && x.keyFilter() != null
                            && x.keyFilter().keys().stream().anyMatch(lost::contains));
                    if (retry && x.operation() != LogicalOperation.CREATE_TABLE) {
                        retried.add(x.intentId());
                        if (in) {
                            marks.add(new Mark(x.table(), "retry", r.sequence(), r.time(), "seq " + r.sequence() + ": retry "
                                    + x.intentId() + " (" + x.operation().name().toLowerCase(Locale.ROOT)
                                    + " of keys that lost a conflict before)"));
                        }
                    }
                }
                case IntentCompleted c -> {
                    IntentRecorded x = intents.get(c.intentId());
                    String table = x == null ? "?" : x.table();
                    tables.add(table);
                    boolean conflict = c.outcome() == IntentOutcome.KEY_CONFLICT || c.outcome() == IntentOutcome.WRITE_CONFLICT;
                    boolean applied = c.outcome() == IntentOutcome.COMMITTED || c.outcome() == IntentOutcome.ROLLED_FORWARD;
                    if (x != null && x.operation() == LogicalOperation.CREATE_TABLE) {
                        continue;
                    }
                    if (conflict) {
                        List<String> ks = !c.conflictingKeys().isEmpty() ? c.conflictingKeys()
                                : x != null && x.keyFilter() != null ? x.keyFilter().keys() : List.of();
                        lostKeys.computeIfAbsent(table, k -> new HashSet<>()).addAll(ks);
                        if (x != null && x.idempotencyKey() != null) {
                            lostIdem.add(x.idempotencyKey());
                        }
                        if (in) {
                            marks.add(new Mark(table, "conflict", r.sequence(), r.time(), "seq " + r.sequence() + ": "
                                    + c.outcome() + " " + c.intentId() + (c.conflictingIntent() == null ? ""
                                    : " lost to " + c.conflictingIntent()) + " keys " + ks));
                            for (String k : ks) {
                                KeyStat s = keys.computeIfAbsent(table + "\u0000" + k, z -> new KeyStat(table, k));
                                s.conflicts++;
                                s.losers.add(c.intentId());
                                if (c.conflictingIntent() != null) {
                                    s.winners.add(c.conflictingIntent());
                                }
                                s.lastSeq = r.sequence();
                            }
                        }
                    } else if (applied && in) {
                        marks.add(new Mark(table, "commit", r.sequence(), r.time(), "seq " + r.sequence() + ": "
                                + c.outcome() + " " + c.intentId() + (x == null ? "" : " ("
                                + x.operation().name().toLowerCase(Locale.ROOT) + (x.keyFilter() == null ? ""
                                : ", " + x.keyFilter().size() + " keys") + ")")));
                    } else if (c.outcome() == IntentOutcome.ABORTED && in) {
                        marks.add(new Mark(table, "aborted", r.sequence(), r.time(), "seq " + r.sequence() + ": ABORTED "
                                + c.intentId() + " (" + c.reason() + ")"));
                    }
                }
                case JournalEvent.RecoveryFinished f -> {
                    if (in) {
                        if (lastStart != null && !sessionHadTorn) {
                            marks.add(new Mark("writer", "crash", lastStart.sequence(), lastStart.time(), "seq "
                                    + lastStart.sequence() + ": the previous writer died with work open (recovery needed)"));
                        }
                        Set<String> ts = new TreeSet<>();
                        for (RecoveryClassification c : f.classifications()) {
                            ts.add(c.table());
                        }
                        for (String t : ts) {
                            StringBuilder sb = new StringBuilder("seq " + r.sequence() + ": recovery " + f.recoveryId() + ":");
                            for (RecoveryClassification c : f.classifications()) {
                                if (c.table().equals(t)) {
                                    sb.append(' ').append(c.kind()).append(' ').append(c.subjectId()).append(';');
                                }
                            }
                            marks.add(new Mark(t, "recovery", r.sequence(), r.time(), sb.toString()));
                        }
                        marks.add(new Mark("writer", "recovery", r.sequence(), r.time(), "seq " + r.sequence() + ": recovery "
                                + f.classifications().size() + " decision(s)"));
                    }
                }
                default -> {
                }
            }
        }
        List<KeyStat> busiest = new ArrayList<>(keys.values());
        busiest.sort((a, b) -> a.conflicts != b.conflicts ? Integer.compare(b.conflicts, a.conflicts)
                : a.key.compareTo(b.key));
        if (busiest.size() > 25) {
            busiest = busiest.subList(0, 25);
        }
        List<String> lanes = new ArrayList<>(tables);
        lanes.remove("?");
        lanes.add("writer");
        String page = Html.page(graph.toString(), lanes, marks, busiest, all.size(), from, to);
        Files.writeString(html, page, StandardCharsets.UTF_8);
        Map<String, Long> counts = new LinkedHashMap<>();
        for (String k : List.of("commit", "conflict", "retry", "crash", "recovery", "restart", "aborted")) {
            counts.put(k, marks.stream().filter(m -> m.kind().equals(k) && (!m.lane().equals("writer")
                    || k.equals("crash") || k.equals("restart"))).count());
        }
        System.out.println("wrote " + html + ": " + all.size() + " journal events; marks " + counts + "; "
                + busiest.size() + " conflicting keys listed");
        return Main.OK;
    }
}
