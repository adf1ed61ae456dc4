package io.palisade.cli;

import io.palisade.coordinator.Graph;
import io.palisade.coordinator.Options;
import io.palisade.coordinator.Palisade;
import io.palisade.journal.JournalCursor;
import io.palisade.journal.JournalEvent;
import io.palisade.journal.JournalRecord;
import io.palisade.journal.RecoveryClassification;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;

@Command(name = "recover", mixinStandardHelpOptions = true,
        description = {"Run recovery (open the graph for writing) and print what it found and did; --dry-run only says what it would do.",
                "Recovery (DESIGN §5) classifies and completes every intent without a completion (ABORTED, "
                        + "ROLLED_FORWARD or COMMITTED), cuts a torn journal tail, and refuses the graph (exit 8) when "
                        + "a table version no intent explains (a foreign commit) is found, unless --adopt-foreign is "
                        + "given. Adoption checks the adopted version first (ids non-null and unique, the primary key "
                        + "kept) and refuses with exit 8, publishing nothing, when it breaks the table's contract.",
                "With --dry-run nothing is written: no writer_started record, no decision, no table file touched; "
                        + "the journal stays byte-identical. It classifies every open intent, torn version and foreign "
                        + "version as recovery would and exits with the code recovery would (6 when a live writer holds "
                        + "the graph, 7 on corruption, 8 on a foreign commit). The checks that follow recovery when a "
                        + "graph opens (format stamp, catalog reconciliation) are not run.",
                "A graph transaction torn before its commit point is listed once, with its parts, under "
                        + "open_transactions (docs/transactions.md).",
                "The default format is table; json prints the report as one object."},
        footer = {"%nExample:%n  palisade recover GRAPH --dry-run --format json"})
final class RecoverCommand implements Callable<Integer>, ReadOnly {
    @Parameters(index = "0", paramLabel = "GRAPH", description = "The graph directory.")
    Path graph;

    @picocli.CommandLine.Mixin
    OutputFormat output = new OutputFormat();

    @Option(names = "--adopt-foreign", description = "Publish table versions no intent explains (the operator's decision),"
            + " once they pass the checks above.")
    boolean adoptForeign;

    @Option(names = "--dry-run", description = "Classify and print what recovery would do; write nothing.")
    boolean dryRun;

    @Override
    public boolean readOnly() {
        return dryRun;
    }

    @Override
    public Integer call() {
        boolean json = output.resolve(OutputFormat.Format.table) != OutputFormat.Format.table;
        Map<String, Object> report = dryRun ? dryRun(graph, adoptForeign) : recover(graph, adoptForeign);
        if (json) {
            Cli.printJson(System.out, report);
        } else {
            System.out.print(text(report));
        }
        return Main.OK;
    }

    /** What recovery would do, without writing anything (the checks of Journal.open, then Recovery.plan). */
    static Map<String, Object> dryRun(Path graph, boolean adoptForeign) {
        Cli.requireGraph(graph);
        Path palisade = Cli.palisadeDir(graph);
        java.util.Optional<io.palisade.journal.LeaseOwner> owner = io.palisade.journal.WriterLease.readOwner(palisade);
        if (owner.isPresent() && owner.get().pid() != ProcessHandle.current().pid() && sameHost(owner.get().host())
                && ProcessHandle.of(owner.get().pid()).map(ProcessHandle::isAlive).orElse(false)) {
            io.palisade.journal.LeaseOwner o = owner.get();
            throw new CliException(Main.REFUSED, "recovery would be refused: the writer lease is held by pid " + o.pid()
                    + " on " + o.host() + " since " + o.since() + " (epoch " + o.epoch() + "), so its open intents are "
                    + "in flight, not interrupted; nothing was written");
        }
        io.palisade.journal.JournalReader reader = Cli.reader(graph);
        io.palisade.journal.VerificationReport v = reader.verify();
        if (!v.ok()) {
            throw new CliException(Main.CORRUPTED, "recovery would be refused: the journal is corrupt at sequence "
                    + v.firstBadSequence() + " (" + v.problem() + "); nothing was written");
        }
        long end = v.endSequence();
        io.palisade.heads.HeadsReplayer.Replay replay = Cli.replayer(graph).replay();
        long epoch = Math.max(owner.map(io.palisade.journal.LeaseOwner::epoch).orElse(0L),
                replay.state().writerEpoch()) + 1;
        // what opening the journal appends first: writer_started, then torn_tail_cut when the tail is torn
        List<JournalEvent> opening = new ArrayList<>();
        opening.add(new JournalEvent.WriterStarted(epoch, "dry-run", ProcessHandle.current().pid(), "dry-run", "dry-run",
                Math.max(0, replay.state().formatStamp())));
        if (v.openTail() != null) {
            opening.add(new JournalEvent.TornTailCut(v.openTail().segmentEpoch(), v.openTail().lastGoodSequence(),
                    v.openTail().excerpts(), v.openTail().reason()));
        }
        io.palisade.recovery.RecoveryReport r;
        try (io.palisade.substrate.TableStore store = Cli.tables(graph).open(false)) {
            r = io.palisade.recovery.Recovery.plan(palisade, replay, opening, epoch, store, adoptForeign);
        }
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("graph", graph.toString());
        m.put("dry_run", true);
        m.put("journal_end_before", end);
        m.put("writer_epoch", epoch);
        List<Map<String, Object>> tails = new ArrayList<>();
        if (v.openTail() != null) {
            Map<String, Object> x = new LinkedHashMap<>();
            x.put("seq", end + 1);
            x.put("previous_epoch", v.openTail().segmentEpoch());
            x.put("last_good_sequence", v.openTail().lastGoodSequence());
            x.put("excerpts_cut", v.openTail().excerpts());
            x.put("reason", v.openTail().reason());
            tails.add(x);
        }
        m.put("torn_tails_cut", tails);
        m.put("classifications", classifications(r.classifications()));
        m.put("open_transactions", transactions(openTransactions(graph, replay.state()), r.classifications()));
        m.put("changed", !r.classifications().isEmpty() || !tails.isEmpty() || r.closedRecovery() != null);
        m.put("heads_digest", r.headsDigest());
        return m;
    }

    private static boolean sameHost(String host) {
        try {
            return host.equals(java.net.InetAddress.getLocalHost().getHostName());
        } catch (java.io.IOException e) {
            return host.equals(System.getenv("HOSTNAME"));
        }
    }

    private static List<Map<String, Object>> classifications(List<RecoveryClassification> cs) {
        List<Map<String, Object>> cls = new ArrayList<>();
        for (RecoveryClassification c : cs) {
            Map<String, Object> x = new LinkedHashMap<>();
            x.put("subject_id", c.subjectId());
            x.put("kind", c.kind().name());
            x.put("table", c.table());
            x.put("detail", c.detail());
            cls.add(x);
        }
        return cls;
    }

    /**
     * The graph transactions with parts open in {@code state}: started (a {@code transaction_started} names them) and
     * never committed (the commit point completes every part), so torn before their commit point, whole or after some
     * of their parts. Read from the oldest open intent's record on (a transaction's start is journaled just before its
     * parts).
     */
    static List<JournalEvent.TransactionStarted> openTransactions(Path graph, io.palisade.heads.HeadsState state) {
        Set<String> open = new HashSet<>();
        long from = Long.MAX_VALUE;
        for (io.palisade.heads.OpenIntent o : state.openIntents()) {
            open.add(o.intentId());
            from = Math.min(from, o.recordedAt());
        }
        List<JournalEvent.TransactionStarted> out = new ArrayList<>();
        if (open.isEmpty()) {
            return out;
        }
        try (JournalCursor c = Cli.reader(graph).read(Math.max(0, from - 1))) {
            for (JournalRecord r = c.poll(); r != null; r = c.poll()) {
                if (r.event() instanceof JournalEvent.TransactionStarted t
                        && t.intentIds().stream().anyMatch(open::contains)) {
                    out.add(t);
                }
            }
        }
        return out;
    }

    /** Each open transaction with what recovery does to it: every part's classification, and the transaction's fate. */
    private static List<Map<String, Object>> transactions(List<JournalEvent.TransactionStarted> open,
                                                          List<RecoveryClassification> cs) {
        Map<String, RecoveryClassification> byIntent = new HashMap<>();
        cs.forEach(c -> byIntent.put(c.subjectId(), c));
        List<Map<String, Object>> out = new ArrayList<>();
        for (JournalEvent.TransactionStarted t : open) {
            Map<String, Object> x = new LinkedHashMap<>();
            x.put("transaction", t.transactionId());
            x.put("branch", t.graphBranch());
            List<Map<String, Object>> parts = new ArrayList<>();
            boolean aborted = true;
            for (String id : t.intentIds()) {
                RecoveryClassification c = byIntent.get(id);
                Map<String, Object> p = new LinkedHashMap<>();
                p.put("intent", id);
                // a part the torn tail cut off before its record was never journaled: nothing to recover
                p.put("table", c == null ? null : c.table());
                p.put("kind", c == null ? "NOT_JOURNALED" : c.kind().name());
                aborted &= c == null || c.kind() == RecoveryClassification.Kind.NO_EFFECT_ABORTED
                        || c.kind() == RecoveryClassification.Kind.TORN_VERSION_SET_ASIDE;
                parts.add(p);
            }
            x.put("parts", parts);
            // a part of a transaction never committed left its table's head as it was: only an abort explains it
            x.put("outcome", aborted ? "absent: torn before its commit point; every part aborted, nothing of it applied"
                    : "not aborted whole: see each part's classification");
            out.add(x);
        }
        return out;
    }

    /** Opens (recovery runs) and closes the graph; returns what the journal says recovery found and did. */
    static Map<String, Object> recover(Path graph, boolean adoptForeign) {
        Cli.requireGraph(graph);
        long before = Cli.reader(graph).endSequence();
        // the transactions torn before their commit point, told before recovery completes their parts
        List<JournalEvent.TransactionStarted> open = openTransactions(graph, Cli.replayer(graph).replay().state());
        String digest;
        try (Graph g = Palisade.open(graph, Options.defaults(), adoptForeign)) {
            digest = g.state().digest();
        }
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("graph", graph.toString());
        m.put("journal_end_before", before);
        List<Map<String, Object>> cls = new ArrayList<>();
        List<RecoveryClassification> recoveredClassifications = new ArrayList<>();
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
                    cls.addAll(classifications(f.classifications()));
                    recoveredClassifications.addAll(f.classifications());
                }
                // every other event is not part of what a recovery run reports (an exhaustive switch: a new event
                // type must be judged here)
                case JournalEvent.IntentRecorded e -> { }
                case JournalEvent.TableCommitted e -> { }
                case JournalEvent.HeadPublished e -> { }
                case JournalEvent.IntentCompleted e -> { }
                case JournalEvent.LoadProgress e -> { }
                case JournalEvent.GraphBranchCreated e -> { }
                case JournalEvent.GraphBranchDeleted e -> { }
                case JournalEvent.CheckpointWritten e -> { }
                case JournalEvent.MigrationClaimed e -> { }
                case JournalEvent.MigrationUnitPlanned e -> { }
                case JournalEvent.MigrationUnitForked e -> { }
                case JournalEvent.MigrationPkInstalled e -> { }
                case JournalEvent.MigrationUnitPublished e -> { }
                case JournalEvent.MigrationBranchVerified e -> { }
                case JournalEvent.MigrationStampWritten e -> { }
                case JournalEvent.MigrationRefused e -> { }
                case JournalEvent.TableVersionSetAside e -> { }
                case JournalEvent.DuplicatesRepaired e -> { }
                case JournalEvent.ForeignCommitFound e -> { }
                case JournalEvent.RowsRecorded e -> { }
                case JournalEvent.RowsReleased e -> { }
                case JournalEvent.JournaledWrite e -> { }
                case JournalEvent.FoldPlanned e -> { }
                case JournalEvent.VersionsExpired e -> { }
                case JournalEvent.ReceiptsExpired e -> { }
                case JournalEvent.CatalogRecorded e -> { }
                case JournalEvent.TransactionCommitted e -> { }
                case JournalEvent.TransactionStarted e -> { }
            }
        }
        m.put("torn_tails_cut", tails);
        m.put("classifications", cls);
        m.put("open_transactions", transactions(open, recoveredClassifications));
        m.put("changed", !cls.isEmpty() || !tails.isEmpty());
        m.put("heads_digest", digest);
        return m;
    }

    @SuppressWarnings("unchecked")
    static String text(Map<String, Object> m) {
        StringBuilder sb = new StringBuilder();
        List<Map<String, Object>> tails = (List<Map<String, Object>>) m.get("torn_tails_cut");
        List<Map<String, Object>> cls = (List<Map<String, Object>>) m.get("classifications");
        boolean dry = Boolean.TRUE.equals(m.get("dry_run"));
        sb.append("recovery of ").append(m.get("graph")).append(" (writer epoch ").append(m.get("writer_epoch"))
                .append(dry ? "; dry run: nothing was written, this is what recovery would do" : "").append(")\n");
        for (Map<String, Object> t : tails) {
            sb.append(dry ? "  would cut the torn journal tail after sequence " : "  torn journal tail cut after sequence ").append(t.get("last_good_sequence")).append(": ")
                    .append(t.get("excerpts_cut")).append(" excerpt(s) of epoch ").append(t.get("previous_epoch"))
                    .append(" (").append(t.get("reason")).append(")\n");
        }
        for (Map<String, Object> c : cls) {
            sb.append("  ").append(c.get("kind")).append("  ").append(c.get("subject_id")).append("  table ")
                    .append(c.get("table")).append(": ").append(c.get("detail")).append('\n');
        }
        for (Map<String, Object> t : (List<Map<String, Object>>) m.getOrDefault("open_transactions", List.of())) {
            List<Map<String, Object>> parts = (List<Map<String, Object>>) t.get("parts");
            sb.append("  transaction ").append(t.get("transaction")).append(" on ").append(t.get("branch")).append(", ")
                    .append(parts.size()).append(" part").append(parts.size() == 1 ? "" : "s").append(" (");
            for (int i = 0; i < parts.size(); i++) {
                Object table = parts.get(i).get("table");
                sb.append(i == 0 ? "" : ", ").append(table == null ? "not journaled" : table).append(' ')
                        .append(parts.get(i).get("intent"));
            }
            sb.append("): ").append(t.get("outcome")).append('\n');
        }
        if (cls.isEmpty() && tails.isEmpty()) {
            sb.append("  nothing to recover: every intent had an outcome and every table version is explained\n");
        }
        sb.append(dry ? "  heads digest after recovery " : "  heads digest ").append(m.get("heads_digest")).append('\n');
        return sb.toString();
    }
}
