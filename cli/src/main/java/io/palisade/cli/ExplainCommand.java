package io.palisade.cli;

import io.palisade.journal.JournalEvent;
import io.palisade.journal.JournalEvent.ForeignCommitFound;
import io.palisade.journal.JournalEvent.HeadPublished;
import io.palisade.journal.JournalEvent.IntentCompleted;
import io.palisade.journal.JournalEvent.IntentRecorded;
import io.palisade.journal.JournalEvent.RecoveryFinished;
import io.palisade.journal.JournalEvent.TableCommitted;
import io.palisade.journal.JournalRecord;
import io.palisade.journal.RecoveryClassification;
import io.palisade.journal.HeadTransition;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

@Command(name = "explain", mixinStandardHelpOptions = true,
        description = {"Explain the life of a write (INTENT_ID) or of a key (--key K). Read-only.",
                "For each intent it prints, in journal order, the intent recorded (A), the substrate commit (B), the "
                        + "head published (C), the completion and its outcome (D) and recovery's decisions (R), with "
                        + "the conflicts it lost or won (which intent, which keys) and retries with the same "
                        + "idempotency key. The output is text for people (table format)."},
        footer = {"%nExample:%n  palisade explain GRAPH --key alice --table person"})
final class ExplainCommand implements Callable<Integer>, ReadOnly {
    @Parameters(index = "0", paramLabel = "GRAPH", description = "The graph directory.")
    Path graph;

    @Parameters(index = "1", arity = "0..1", paramLabel = "INTENT_ID", description = "The intent to explain.")
    String intent;

    @Option(names = "--key", paramLabel = "K", description = "Explain every intent whose key filter holds K.")
    String key;

    @Option(names = "--table", paramLabel = "T", description = "With --key: only intents on table T.")
    String table;

    @Option(names = "--format", paramLabel = "table", description = "Output format: table, the only one explain has.")
    OnlyTable format;

    enum OnlyTable { table }

    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        Cli.requireGraph(graph);
        if ((intent == null) == (key == null)) {
            throw new picocli.CommandLine.ParameterException(spec.commandLine(), "give either INTENT_ID or --key K");
        }
        if (table != null) {
            Cli.requireTable(Cli.catalog(graph), table, "--table");
        }
        List<JournalRecord> all = Cli.records(graph, 0);
        PrintStream out = System.out;
        if (intent != null) {
            if (!explainIntent(all, intent, out, "")) {
                throw new CliException(Main.INVALID_INPUT, "no intent '" + intent + "' in the journal of " + graph);
            }
            return Main.OK;
        }
        List<String> intents = new ArrayList<>();
        Map<String, IntentRecorded> recorded = new LinkedHashMap<>();
        for (JournalRecord r : all) {
            if (r.event() instanceof IntentRecorded e && e.keyFilter() != null && (table == null || table.equals(e.table()))
                    && e.keyFilter().keys().contains(key)) {
                intents.add(e.intentId());
                recorded.put(e.intentId(), e);
            }
        }
        if (intents.isEmpty()) {
            throw new CliException(Main.INVALID_INPUT, "no intent in the journal of " + graph + " touched key '" + key + "'"
                    + (table == null ? "" : " of table '" + table + "'"));
        }
        out.println("key '" + key + "'" + (table == null ? "" : " of table '" + table + "'") + ": " + intents.size()
                + " intent(s) touched it, in journal order");
        int conflicts = 0;
        int committed = 0;
        for (String id : intents) {
            out.println();
            explainIntent(all, id, out, "  ");
            for (JournalRecord r : all) {
                if (r.event() instanceof IntentCompleted c && c.intentId().equals(id)) {
                    if (c.outcome().name().contains("CONFLICT")) {
                        conflicts++;
                    } else if (c.outcome().name().equals("COMMITTED") || c.outcome().name().equals("ROLLED_FORWARD")
                            || c.outcome().name().equals("JOURNALED")) {
                        committed++;
                    }
                }
            }
        }
        out.println();
        out.println("summary: " + committed + " applied, " + conflicts + " lost a conflict"
                + (conflicts > 0 && committed > 0 ? " (a loser that wrote the key again later is a retry)" : ""));
        return Main.OK;
    }

    /** Prints the life of one intent; false when the journal does not know it. */
    static boolean explainIntent(List<JournalRecord> all, String id, PrintStream out, String indent) {
        final class St {
            IntentRecorded rec;
            String outcome;
            boolean published;
            boolean committedSeen;
            String idem;
            long acknowledgedAt = -1;   // a journal-ack write: the sequence of its JOURNALED completion
            String fold;                // the fold that covers it, once planned
            long foldVersion = -1;
            boolean folded;
        }
        St st = new St();
        long recAt = -1;
        List<String> lines = new ArrayList<>();
        List<String> beaten = new ArrayList<>();
        for (JournalRecord r : all) {
            JournalEvent e = r.event();
            String at = "seq " + r.sequence() + " " + r.time() + "  ";
            switch (e) {
                case IntentRecorded x when x.intentId().equals(id) -> {
                    st.rec = x;
                    recAt = r.sequence();
                    st.idem = x.idempotencyKey();
                    lines.add(at + "A  intent recorded: " + x.operation().name().toLowerCase() + " on " + x.graphBranch()
                            + "/" + x.table() + ", expected base " + x.expectedBase().tableBranch() + "@"
                            + x.expectedBase().version() + " (journal seq " + x.expectedBase().graphSequence() + ")"
                            + (x.keyFilter() == null ? "" : ", key filter of " + x.keyFilter().size() + " key(s) "
                            + sample(x.keyFilter().keys()))
                            + (x.idempotencyKey() == null ? "" : ", idempotency key '" + x.idempotencyKey() + "'"));
                }
                case IntentRecorded x when st.idem != null && st.idem.equals(x.idempotencyKey()) ->
                        lines.add(at + "   retried with the same idempotency key as intent " + x.intentId());
                case TableCommitted x when x.intentIds().contains(id) -> {
                    st.committedSeen = true;
                    lines.add(at + "B  substrate commit: "
                        + x.table() + " " + x.tableBranch() + "@" + x.achievedVersion()
                        + (x.intentIds().size() > 1 ? " (group commit of " + x.intentIds().size() + " intents)" : ""));
                }
                case ForeignCommitFound x when x.intentIds().contains(id) -> {
                    st.committedSeen = true;
                    lines.add(at + "B  substrate commit landed over a foreign commit: " + x.table() + " " + x.tableBranch()
                            + "@" + x.achievedVersion() + " (base @" + x.baseVersion() + "; foreign version"
                            + (x.foreignVersions().size() == 1 ? " " : "s ") + x.foreignVersions().stream().map(String::valueOf)
                            .collect(java.util.stream.Collectors.joining(", ")) + "); not published, not acknowledged"
                            + (x.duplicatesChecked() ? (x.duplicateKeys().isEmpty() ? "; none of its keys is duplicated"
                            : "; its keys now held twice: " + sample(x.duplicateKeys())) : ""));
                }
                case HeadPublished x when st.rec != null && st.committedSeen && st.outcome == null && !st.published && matches(x, st.rec) -> {
                    st.published = true;
                    HeadTransition t = x.transitions().get(0);
                    lines.add(at + "C  head published: " + t.graphBranch() + "/" + t.table() + " -> "
                            + t.to().tableBranch() + "@" + t.to().version());
                }
                case JournalEvent.RowsRecorded x when x.intentId().equals(id) -> lines.add(at + "A  rows journaled: "
                        + x.rowCount() + " row(s), " + x.rows().length + " bytes (a journal-ack table: the journal holds the "
                        + "write until a fold commits it to the table)");
                case JournalEvent.FoldPlanned x when st.acknowledgedAt >= 0 && !st.folded && st.fold == null
                        && x.graphBranch().equals(st.rec.graphBranch()) && x.table().equals(st.rec.table())
                        && x.throughSequence() >= st.acknowledgedAt -> {
                    st.fold = x.intentId();
                    lines.add(at + "F  fold planned: intent " + x.intentId() + " folds " + x.writes() + " write(s) through seq "
                            + x.throughSequence() + ", this one included");
                }
                case TableCommitted x when st.fold != null && !st.folded && x.intentIds().contains(st.fold) ->
                        st.foldVersion = x.achievedVersion();
                case IntentCompleted x when st.fold != null && !st.folded && x.intentId().equals(st.fold) -> {
                    boolean applied = x.outcome() == io.palisade.journal.IntentOutcome.COMMITTED
                            || x.outcome() == io.palisade.journal.IntentOutcome.ROLLED_FORWARD;
                    if (applied) {
                        st.folded = true;
                        lines.add(at + "F  folded into the table: " + st.rec.table() + (st.foldVersion < 0 ? ""
                                : " @" + st.foldVersion) + " by fold " + x.intentId() + " (" + x.outcome() + ")");
                    } else {
                        lines.add(at + "F  fold " + x.intentId() + " ended " + x.outcome()
                                + "; the write stays acknowledged and unfolded");
                        st.fold = null;
                        st.foldVersion = -1;
                    }
                }
                case IntentCompleted x when x.intentId().equals(id) -> {
                    st.outcome = x.outcome().name();
                    if (x.outcome() == io.palisade.journal.IntentOutcome.JOURNALED) {
                        st.acknowledgedAt = r.sequence();
                        lines.add(at + "D  acknowledged from the journal (JOURNALED): durable and read by every read "
                                + "through Palisade; not yet in the table itself");
                        continue;
                    }
                    lines.add(at + "D  completed: " + x.outcome()
                            + (x.reason().isEmpty() ? "" : " (" + x.reason() + ")")
                            + (x.conflictingIntent() == null ? "" : "; winner intent " + x.conflictingIntent())
                            + (x.conflictingKeys().isEmpty() ? "" : "; conflicting keys " + x.conflictingKeys()));
                }
                case IntentCompleted x when id.equals(x.conflictingIntent()) -> beaten.add("seq " + r.sequence()
                        + ": intent " + x.intentId() + " lost to this one (" + x.outcome() + ") on keys " + x.conflictingKeys());
                case JournalEvent.DuplicatesRepaired x when x.intentId().equals(id) -> {
                    lines.add(at + "A  repair of " + x.graphBranch() + "/" + x.table() + " at " + x.tableBranch() + "@"
                            + x.imageVersion() + (x.adoptedVersions().isEmpty() ? "" : ", adopting foreign version(s) "
                            + x.adoptedVersions()) + (x.primaryKeyReinstalled() ? ", re-installing the primary key" : "")
                            + ": removes " + x.rows().size() + " row(s) of duplicated ids (" + x.policy() + ")");
                    for (io.palisade.journal.RemovedRow row : x.rows()) {
                        lines.add("       removed row of '" + row.key() + "': " + row.values() + " (row address "
                                + row.rowAddress() + "; the row kept is at " + row.keptRowAddress() + ")");
                    }
                }
                case RecoveryFinished x -> {
                    for (RecoveryClassification c : x.classifications()) {
                        if (c.subjectId().equals(id)) {
                            lines.add(at + "R  recovery " + x.recoveryId() + ": " + c.kind() + " (" + c.detail() + ")");
                        }
                    }
                }
                default -> {
                }
            }
        }
        if (st.rec == null) {
            return false;
        }
        out.println(indent + "intent " + id + " (recorded at seq " + recAt + ")");
        for (String l : lines) {
            out.println(indent + "  " + l);
        }
        for (String b : beaten) {
            out.println(indent + "  " + b);
        }
        out.println(indent + "  outcome: " + (st.outcome == null
                ? "OPEN - no completion yet (in flight, or the writer died; recovery classifies it at the next open)"
                : st.acknowledgedAt >= 0 ? st.outcome + (st.folded ? ", folded" : ", not folded yet") : st.outcome));
        return true;
    }

    private static boolean matches(HeadPublished p, IntentRecorded rec) {
        return p.transitions().stream().anyMatch(t -> t.graphBranch().equals(rec.graphBranch()) && t.table().equals(rec.table()));
    }

    private static String sample(List<String> keys) {
        return keys.size() <= 5 ? keys.toString() : keys.subList(0, 5) + "...";
    }
}
