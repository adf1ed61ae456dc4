package io.palisade.cli;

import io.palisade.cli.IncidentModel.Attribution;
import io.palisade.cli.IncidentModel.Intent;
import io.palisade.cli.IncidentModel.Session;
import io.palisade.cli.IncidentModel.Step;
import io.palisade.cli.IncidentModel.StepAt;
import io.palisade.journal.HeadTransition;
import io.palisade.journal.IntentOutcome;
import io.palisade.journal.JournalEvent;
import io.palisade.journal.RecoveryClassification;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * The life of one intent of an {@link IncidentModel} as {@code explain} shows it: the step legend, and the intent's
 * steps, writer, conflicts, retries and crash, as text lines or as one JSON document.
 */
final class IntentLife {
    private IntentLife() {
    }

    // ------------------------------------------------------------------ table form

    static void legend(PrintStream out) {
        out.println("legend: " + Arrays.stream(Step.values()).map(s -> s.name() + " = " + s.legend)
                .collect(Collectors.joining("; ")));
        out.println("conflicts and retries: docs/conflict-resolution.md \"Conflicts and retries: definitions\"");
        out.println();
    }

    static Map<String, String> legendJson() {
        Map<String, String> m = new LinkedHashMap<>();
        for (Step s : Step.values()) {
            m.put(s.name(), s.legend);
        }
        return m;
    }

    static String outcomeName(Intent i) {
        return i.outcome().map(o -> o.name().toLowerCase(Locale.ROOT)).orElse("open");
    }

    static String lossLine(Intent i) {
        return i.completion.outcome() + " on " + i.conflicts.stream().map(IntentLife::attribution)
                .collect(Collectors.joining("; "));
    }

    private static String attribution(Attribution a) {
        return a.intentId() == null ? a.key() + " (" + a.note() + ")"
                : a.key() + " committed by intent " + a.intentId() + " at seq " + a.sequence();
    }

    static void printIntent(PrintStream out, IncidentModel model, Intent i, String indent) {
        JournalEvent.IntentRecorded x = i.recorded;
        out.println(indent + "intent " + i.id + " (recorded at seq " + i.sequence + ")");
        out.println(indent + "  writer: " + writer(i.session));
        for (StepAt s : i.steps) {
            out.println(indent + "  seq " + s.sequence() + " " + s.time() + "  " + s.step() + "  " + stepText(i, s));
        }
        if (i.conflicted()) {
            out.println(indent + "  conflict: " + lossLine(i));
        }
        int shown = 0;
        for (Map.Entry<String, List<String>> b : i.beat.entrySet()) {
            if (++shown > 10) {
                out.println(indent + "  ... and " + (i.beat.size() - 10) + " more intent(s) lost to this one (--format json lists all)");
                break;
            }
            Intent l = model.intent(b.getKey()).orElseThrow();
            out.println(indent + "  seq " + l.completionSequence + ": intent " + l.id + " lost to this one ("
                    + l.completion.outcome() + ") on keys " + b.getValue());
        }
        if (i.retryOf != null) {
            Intent l = model.intent(i.retryOf).orElseThrow();
            out.println(indent + "  retry: this intent retried loser " + l.id + " (seq " + l.sequence + ", "
                    + outcomeName(l) + ") with idempotency key '" + x.idempotencyKey() + "'");
        }
        if (i.retriedBy != null) {
            Intent r = model.intent(i.retriedBy).orElseThrow();
            out.println(indent + "  retry: this intent was retried by " + r.id + " (seq " + r.sequence + ", "
                    + outcomeName(r) + ") with idempotency key '" + x.idempotencyKey() + "'");
        }
        if (i.transaction != null) {
            out.println(indent + "  transaction: " + i.transaction.transactionId() + ", committed at seq "
                    + i.completionSequence + " with its " + i.transaction.intentIds().size() + " parts: "
                    + String.join(", ", parts(model, i.transaction.intentIds())));
        } else if (model.startedTransaction(i.id).isPresent()) {
            JournalEvent.TransactionStarted t = model.startedTransaction(i.id).get();
            out.println(indent + "  transaction: " + t.transactionId() + ", never committed (no commit point in the "
                    + "journal: torn before it, none of its parts applied); its " + t.intentIds().size() + " parts: "
                    + String.join(", ", parts(model, t.intentIds())));
        }
        String crash = crash(i);
        if (crash != null) {
            out.println(indent + "  crash: " + crash);
        }
        out.println(indent + "  outcome: " + (i.completion == null
                ? "OPEN - no completion yet (in flight, or the writer died; recovery classifies it at the next open)"
                : i.completion.outcome() + (i.completion.outcome() == IntentOutcome.JOURNALED
                ? (i.foldedBy != null ? ", folded by " + i.foldedBy : ", not folded yet") : "")));
    }

    /** A transaction's parts as {@code table/intent}, in its order. */
    private static List<String> parts(IncidentModel model, List<String> intentIds) {
        List<String> out = new ArrayList<>();
        for (String id : intentIds) {
            out.add(model.intent(id).map(p -> p.recorded.table() + "/" + id).orElse(id));
        }
        return out;
    }

    static String writer(Session s) {
        return s == null ? "unknown (no writer_started before it)" : "epoch " + s.epoch + ", pid " + s.pid + ", host "
                + s.host + " (session from seq " + s.startSequence + ", " + ending(s) + ")";
    }

    private static String ending(Session s) {
        return switch (s.ending) {
            case LAST -> "the journal's last session";
            case CLOSED -> "ended with nothing in flight";
            case DIED -> "the writer died with intents in flight";
            case TORN_TAIL -> "the writer died mid-append: torn tail cut after seq " + s.tornTail.lastGoodSequence();
        };
    }

    /** "writer pid N (epoch E) died; recovered by epoch E' at seq S: rolled forward 1, aborted 2", for an intent whose writer died. */
    static String crash(Intent i) {
        Session s = i.session;
        if (s == null || s.recoveredBy == null) {
            return null;
        }
        IncidentModel.Recovery r = s.recoveredBy;
        Map<String, Integer> counts = new TreeMap<>();
        for (RecoveryClassification c : r.decisions) {
            counts.merge(decision(c.kind()), 1, Integer::sum);
        }
        return "writer pid " + s.pid + " (epoch " + s.epoch + ") died" + (s.ending == IncidentModel.Ending.TORN_TAIL
                ? " mid-append (torn tail cut)" : "") + "; recovered by epoch " + r.epoch + " at seq " + r.startSequence
                + (counts.isEmpty() ? "" : ": " + counts.entrySet().stream().map(e -> e.getKey() + " " + e.getValue())
                .collect(Collectors.joining(", ")))
                + (i.decision == null ? "; this intent had completed before" : "; this intent: " + decision(i.decision.kind()));
    }

    static String decision(RecoveryClassification.Kind k) {
        return switch (k) {
            case NO_EFFECT_ABORTED -> "aborted";
            case EFFECT_ROLLED_FORWARD -> "rolled forward";
            case PUBLISHED_COMPLETED -> "completed";
            case FOREIGN_COMMIT -> "foreign commit found";
            case MIGRATION_RESUMED -> "migration resumed";
            case LOAD_ROLLED_BACK -> "load rolled back";
            case TORN_VERSION_SET_ASIDE -> "torn version set aside";
        };
    }

    private static String sample(List<String> keys) {
        return keys.size() <= 5 ? keys.toString() : keys.subList(0, 5) + "... (" + keys.size() + ")";
    }

    static String stepText(Intent i, StepAt s) {
        return switch (s.event()) {
            case JournalEvent.IntentRecorded x -> "intent recorded: " + x.operation().name().toLowerCase(Locale.ROOT) + " on "
                    + x.graphBranch() + "/" + x.table() + ", expected base " + x.expectedBase().tableBranch() + "@"
                    + x.expectedBase().version() + " (journal seq " + x.expectedBase().graphSequence() + ")"
                    + (i.ownKeys.isEmpty() ? "" : ", own keys " + sample(i.ownKeys))
                    + (x.idempotencyKey() == null ? "" : ", idempotency key '" + x.idempotencyKey() + "'");
            case JournalEvent.RowsRecorded x -> "rows journaled: " + x.rowCount() + " row(s), " + x.rows().length
                    + " bytes (a journal-ack table: the journal holds the write until a fold commits it to the table)";
            case JournalEvent.WriteJournaled x -> "rows journaled: " + x.rowCount() + " row(s), " + x.rows().length
                    + " bytes, in one record with the intent and its acknowledgement (a journal-ack table: the journal "
                    + "holds the write until a fold commits it to the table)";
            case JournalEvent.WriteReleased x -> "rows journaled: " + x.rowCount() + " row(s), " + x.rowsBytes()
                    + " bytes, in one record with the intent and its acknowledgement, since released from the journal "
                    + "once a fold had committed them to the table";
            case JournalEvent.RowsReleased x -> "rows journaled: " + x.rowCount() + " row(s), " + x.rowsBytes()
                    + " bytes, since released from the journal once a fold had committed them to the table";
            case JournalEvent.DuplicatesRepaired x -> "repair of " + x.graphBranch() + "/" + x.table() + " at "
                    + x.tableBranch() + "@" + x.imageVersion() + (x.adoptedVersions().isEmpty() ? ""
                    : ", adopting foreign version(s) " + x.adoptedVersions()) + ": removes " + x.rows().size()
                    + " row(s) of duplicated ids (" + x.policy() + ")" + x.rows().stream().map(row -> "; removed row of '"
                    + row.key() + "': " + row.values()).collect(Collectors.joining());
            case JournalEvent.TableCommitted x -> "substrate commit: " + x.table() + " " + x.tableBranch() + "@"
                    + x.achievedVersion() + (x.intentIds().size() > 1 ? " (group commit of " + x.intentIds().size()
                    + " intents)" : "");
            case JournalEvent.ForeignCommitFound x -> "substrate commit landed over a foreign commit: " + x.table() + " "
                    + x.tableBranch() + "@" + x.achievedVersion() + " (base @" + x.baseVersion() + "; foreign versions "
                    + x.foreignVersions() + "); not published, not acknowledged";
            case JournalEvent.HeadPublished x -> "head published: " + x.transitions().stream()
                    .filter(t -> t.graphBranch().equals(i.recorded.graphBranch()) && t.table().equals(i.recorded.table()))
                    .map(IntentLife::transition).collect(Collectors.joining(", "));
            case JournalEvent.IntentCompleted x when !x.intentId().equals(i.id) -> "folded into the table by fold "
                    + x.intentId() + " (" + x.outcome() + ")";
            case JournalEvent.IntentCompleted x -> x.outcome() == IntentOutcome.JOURNALED
                    ? "acknowledged from the journal (JOURNALED): durable and read by every read through Palisade"
                    : "completed: " + x.outcome() + (x.reason().isEmpty() ? "" : " (" + x.reason() + ")")
                    + (x.conflictingIntent() == null ? "" : "; winner intent " + x.conflictingIntent());
            case JournalEvent.FoldPlanned x -> "fold planned: intent " + x.intentId() + " folds " + x.writes()
                    + " write(s) through seq " + x.throughSequence() + ", this one included";
            case JournalEvent.RecoveryFinished x -> "recovery " + x.recoveryId() + ": " + (i.decision == null ? "?"
                    : decision(i.decision.kind()) + " (" + i.decision.detail() + ")");
            case JournalEvent.TableVersionSetAside x -> "recovery " + x.recoveryId() + " set aside torn version "
                    + x.tableBranch() + "@" + x.version() + " (" + x.reason() + ")";
            case JournalEvent.WriterStarted x -> "writer started (epoch " + x.epoch() + ")";
            case JournalEvent.LoadProgress x -> "load batch " + x.batchIndex() + ": " + x.rows() + " row(s)";
            case JournalEvent.GraphBranchCreated x -> "branch " + x.branch() + " created";
            case JournalEvent.GraphBranchDeleted x -> "branch " + x.branch() + " deleted";
            case JournalEvent.CheckpointWritten x -> "checkpoint through seq " + x.coveredSequence();
            case JournalEvent.MigrationClaimed x -> "migration " + x.migrationId() + " claimed";
            case JournalEvent.MigrationUnitPlanned x -> "migration unit " + x.unitId() + " planned";
            case JournalEvent.MigrationUnitForked x -> "migration unit " + x.unitId() + " forked";
            case JournalEvent.MigrationPkInstalled x -> "migration unit " + x.unitId() + " primary key installed";
            case JournalEvent.MigrationUnitPublished x -> "migration unit " + x.unitId() + " published";
            case JournalEvent.MigrationBranchVerified x -> "migration branch " + x.graphBranch() + " verified";
            case JournalEvent.MigrationStampWritten x -> "migration stamp " + x.stamp() + " written";
            case JournalEvent.MigrationRefused x -> "migration refused: " + x.reason();
            case JournalEvent.RecoveryStarted x -> "recovery " + x.recoveryId() + " started";
            case JournalEvent.TornTailCut x -> "torn tail cut after seq " + x.lastGoodSequence();
            case JournalEvent.VersionsExpired x -> "versions of " + x.table() + " " + x.tableBranch() + " below @"
                    + x.beforeVersion() + " removed (" + x.rule() + ")";
            case JournalEvent.ReceiptsExpired x -> "idempotency keys of writes completed through seq " + x.throughSequence()
                    + " forgotten (" + x.rule() + ")";
            case JournalEvent.CatalogRecorded x -> "catalog recorded: " + x.reason() + " (SHA-256 " + x.digest()
                    + "); catalog.json is rewritten from it";
            case JournalEvent.TransactionCommitted x -> "transaction " + x.transactionId() + " committed on "
                    + x.graphBranch() + ": " + x.intentIds().size() + " part" + (x.intentIds().size() == 1 ? "" : "s")
                    + " acknowledged together";
            case JournalEvent.TransactionStarted x -> "transaction " + x.transactionId() + " started on "
                    + x.graphBranch() + ": " + x.intentIds().size() + " part" + (x.intentIds().size() == 1 ? "" : "s")
                    + " follow; its commit point makes them visible";
        };
    }

    private static String transition(HeadTransition t) {
        return t.graphBranch() + "/" + t.table() + " -> " + t.to().tableBranch() + "@" + t.to().version();
    }

    // ------------------------------------------------------------------ json form

    static Map<String, Object> intentJson(IncidentModel model, Intent i) {
        Map<String, Object> m = new LinkedHashMap<>();
        JournalEvent.IntentRecorded x = i.recorded;
        m.put("intent_id", i.id);
        m.put("seq", i.sequence);
        m.put("time", i.time.toString());
        m.put("operation", x.operation().name().toLowerCase(Locale.ROOT));
        m.put("graph_branch", x.graphBranch());
        m.put("table", x.table());
        m.put("keys", i.ownKeys);
        m.put("idempotency_key", x.idempotencyKey());
        Map<String, Object> w = new LinkedHashMap<>();
        if (i.session != null) {
            w.put("epoch", i.session.epoch);
            w.put("pid", i.session.pid);
            w.put("host", i.session.host);
            w.put("session_start_seq", i.session.startSequence);
            w.put("session_ended", i.session.ending.name().toLowerCase(Locale.ROOT));
        }
        m.put("writer", w);
        m.put("outcome", outcomeName(i));
        m.put("completion_seq", i.completion == null ? null : i.completionSequence);
        m.put("reason", i.completion == null ? null : i.completion.reason());
        List<Map<String, Object>> cs = new ArrayList<>();
        for (Attribution a : i.conflicts) {
            Map<String, Object> c = new LinkedHashMap<>();
            c.put("key", a.key());
            c.put("committed_by", a.intentId());
            c.put("committed_at_seq", a.intentId() == null ? null : a.sequence());
            c.put("note", a.note().isEmpty() ? null : a.note());
            cs.add(c);
        }
        m.put("conflicts", cs);
        m.put("beat", i.beat);
        m.put("retry_of", i.retryOf);
        m.put("retried_by", i.retriedBy);
        m.put("folded_by", i.foldedBy);
        if (i.transaction != null) {
            Map<String, Object> t = new LinkedHashMap<>();
            t.put("id", i.transaction.transactionId());
            t.put("committed", true);
            t.put("parts", parts(model, i.transaction.intentIds()));
            m.put("transaction", t);
        } else if (model.startedTransaction(i.id).isPresent()) {
            JournalEvent.TransactionStarted s = model.startedTransaction(i.id).get();
            Map<String, Object> t = new LinkedHashMap<>();
            t.put("id", s.transactionId());
            t.put("committed", false);
            t.put("parts", parts(model, s.intentIds()));
            m.put("transaction", t);
        }
        m.put("crash", crash(i));
        List<Map<String, Object>> steps = new ArrayList<>();
        for (StepAt s : i.steps) {
            Map<String, Object> st = new LinkedHashMap<>();
            st.put("step", s.step().name());
            st.put("seq", s.sequence());
            st.put("time", s.time().toString());
            st.put("text", stepText(i, s));
            steps.add(st);
        }
        m.put("steps", steps);
        return m;
    }
}
