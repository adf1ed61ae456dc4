package io.palisade.cli;

import io.palisade.journal.HeadTransition;
import io.palisade.journal.IntentOutcome;
import io.palisade.journal.JournalEvent;
import io.palisade.journal.JournalEvent.IntentCompleted;
import io.palisade.journal.JournalEvent.IntentRecorded;
import io.palisade.journal.JournalEvent.WriterStarted;
import io.palisade.journal.JournalRecord;
import io.palisade.journal.RecoveryClassification;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The incident model of a journal, shared by {@code explain} and {@code report}: built in one pass over the records
 * (one exhaustive switch over {@link JournalEvent}), it holds per intent its own keys, the writer session that
 * recorded it, its steps and outcome, its conflict keys each attributed to the committing intent and sequence, and its
 * retry links; the writer sessions with how each ended and the recovery that followed; and a key → sequences index.
 *
 * <p>Conflicts and retries are exactly those of docs/conflict-resolution.md "Conflicts and retries: definitions":
 * <ul>
 *   <li>a <em>conflict</em> is an intent completed {@code KEY_CONFLICT}, {@code WRITE_CONFLICT} or
 *       {@code INTEGRITY_CONFLICT} (the coordinator's
 *       internal re-plans of one intent are one intent, never a conflict or a retry);</li>
 *   <li>its <em>keys</em> are its own keys (its key filter) among those the completion names, or all of its own keys
 *       when the completion names none of them: never a key of another intent of its group;</li>
 *   <li>each key is <em>attributed</em> to the last intent that applied a write holding the key ({@code COMMITTED},
 *       {@code ROLLED_FORWARD} or {@code JOURNALED}) on the same graph branch and table before the conflict's
 *       completion sequence, with that intent's completion sequence; when the journal has none (a key inherited from
 *       the parent branch, or from an adopted foreign commit) the attribution says so;</li>
 *   <li>a <em>retry</em> is a later intent carrying the idempotency key of an earlier intent that did not apply; the
 *       two are linked both ways. Without an idempotency key no retry is counted;</li>
 *   <li>"conflicts of key K" counts the conflicted intents whose conflict keys hold K; "conflicts in a window" the
 *       conflicted intents whose completion sequence lies in it.</li>
 * </ul>
 *
 * <p>Invariants: built once, immutable afterwards (the collections handed out are unmodifiable views); every intent
 * belongs to the writer session in which it was recorded; every conflict key of an intent is one of its own keys.
 */
final class IncidentModel {

    /** The step letters of an intent's life, with their legend. */
    enum Step {
        A("intent recorded (and its rows, for a journal-ack table), before any table effect"),
        B("substrate commit: the table version the intent's group reached"),
        C("head published: readers see the version"),
        D("completion: the intent's outcome"),
        R("recovery's decision, when the intent's writer died with it open"),
        F("fold of a journal-ack write into its table");

        final String legend;

        Step(String legend) {
            this.legend = legend;
        }
    }

    /** One step of an intent's life: its letter, the journal record and what it says. */
    record StepAt(Step step, long sequence, Instant time, JournalEvent event) {
    }

    /** Who committed a conflict key: the intent and the sequence of its completion; {@code intentId} null when none is journaled. */
    record Attribution(String key, String intentId, long sequence, String note) {
    }

    /** How a writer session ended. */
    enum Ending {
        /** The session is the journal's last: its writer holds the graph now, or stopped without a successor. */
        LAST,
        /** A successor opened and found nothing to recover: closed, or stopped with nothing in flight. */
        CLOSED,
        /** A successor found intents left open and recovered them: the writer died (killed or crashed) mid-write. */
        DIED,
        /** A successor cut a torn tail the session left (the writer died while appending). */
        TORN_TAIL
    }

    /** One recovery run: where it started and finished, the epoch that ran it, and its decisions. */
    static final class Recovery {
        final String id;
        final long startSequence;
        final long epoch;
        long finishSequence = -1;
        List<RecoveryClassification> decisions = List.of();

        Recovery(String id, long startSequence, long epoch) {
            this.id = id;
            this.startSequence = startSequence;
            this.epoch = epoch;
        }
    }

    /** One writer session: from its {@code WriterStarted} to the next one. */
    static final class Session {
        final int index;
        final long epoch;
        final long pid;
        final String host;
        final long startSequence;
        final Instant startTime;
        long lastSequence;
        Ending ending = Ending.LAST;
        /** The recovery the next session ran for this one's open intents; null when none. */
        Recovery recoveredBy;
        /** The torn tail cut after this session; null when none. */
        JournalEvent.TornTailCut tornTail;

        Session(int index, long epoch, long pid, String host, long startSequence, Instant startTime) {
            this.index = index;
            this.epoch = epoch;
            this.pid = pid;
            this.host = host;
            this.startSequence = startSequence;
            this.startTime = startTime;
            this.lastSequence = startSequence;
        }
    }

    /** One intent: its record, session, steps, outcome, conflict attribution and retry links. */
    static final class Intent {
        final String id;
        final long sequence;
        final Instant time;
        final IntentRecorded recorded;
        /** Null for an intent recorded before any WriterStarted (never in a journal written by Palisade). */
        final Session session;
        final List<String> ownKeys = new ArrayList<>();
        final List<StepAt> steps = new ArrayList<>();
        IntentCompleted completion;
        long completionSequence = -1;
        RecoveryClassification decision;
        Recovery decidedBy;
        final List<Attribution> conflicts = new ArrayList<>();
        /** The conflicts this intent's applied write caused: loser intent → the keys attributed to this one. */
        final Map<String, List<String>> beat = new LinkedHashMap<>();
        String retryOf;
        String retriedBy;
        String foldedBy;
        /** The graph transaction this intent is a part of, and every part's intent id (null: a single write). */
        JournalEvent.TransactionCommitted transaction;

        Intent(String id, long sequence, Instant time, IntentRecorded recorded, Session session) {
            this.id = id;
            this.sequence = sequence;
            this.time = time;
            this.recorded = recorded;
            this.session = session;
        }

        Optional<IntentOutcome> outcome() {
            return Optional.ofNullable(completion).map(IntentCompleted::outcome);
        }

        boolean applied() {
            return completion != null && IncidentModel.applied(completion.outcome());
        }

        boolean conflicted() {
            return completion != null && IncidentModel.conflict(completion.outcome());
        }

        List<String> conflictKeys() {
            return conflicts.stream().map(Attribution::key).toList();
        }
    }

    private final Map<String, Intent> intents = new LinkedHashMap<>();
    /** Per intent id, the graph transaction that named it as a part at its start. */
    private final Map<String, JournalEvent.TransactionStarted> started = new HashMap<>();
    private final List<Session> sessions = new ArrayList<>();
    private final List<Recovery> recoveries = new ArrayList<>();
    /** table → key → the sequences of the intents recorded with the key in their key filter, ascending. */
    private final Map<String, Map<String, List<Long>>> keyIndex = new HashMap<>();
    private final Map<Long, Intent> bySequence = new HashMap<>();
    private long records;
    private long firstSequence = -1;
    private long lastSequence = -1;
    private Instant firstTime;
    private Instant lastTime;

    // build state
    private final Map<String, Map<String, Attribution>> lastWriter = new HashMap<>(); // branch/table → key → writer
    private final Map<String, Intent> lastByIdempotencyKey = new HashMap<>();
    private final Map<String, List<Intent>> committedUnpublished = new HashMap<>(); // branch/table/tb@v → intents
    private final Map<String, List<Intent>> unfolded = new HashMap<>(); // branch/table → journaled writes not folded
    private final Map<String, List<Intent>> folding = new HashMap<>(); // fold intent → the writes it covers
    private Session current;
    private Recovery openRecovery;

    private IncidentModel() {
    }

    /** The model of {@code records}, in journal order (one pass). */
    static IncidentModel of(Iterable<JournalRecord> records) {
        IncidentModel m = new IncidentModel();
        for (JournalRecord r : records) {
            m.add(r);
        }
        return m;
    }

    static boolean applied(IntentOutcome o) {
        return switch (o) {
            case COMMITTED, ROLLED_FORWARD, JOURNALED -> true;
            case KEY_CONFLICT, WRITE_CONFLICT, VALIDATION_FAILED, ABORTED, ROLLED_BACK, FOREIGN_COMMIT,
                 INTEGRITY_CONFLICT -> false;
        };
    }

    static boolean conflict(IntentOutcome o) {
        return switch (o) {
            case KEY_CONFLICT, WRITE_CONFLICT, INTEGRITY_CONFLICT -> true;
            case COMMITTED, ROLLED_FORWARD, JOURNALED, VALIDATION_FAILED, ABORTED, ROLLED_BACK, FOREIGN_COMMIT -> false;
        };
    }

    private static String where(String branch, String table) {
        return branch + "/" + table;
    }

    private void add(JournalRecord r) {
        long seq = r.sequence();
        records++;
        if (firstSequence < 0) {
            firstSequence = seq;
            firstTime = r.time();
        }
        lastSequence = seq;
        lastTime = r.time();
        if (current != null) {
            current.lastSequence = seq;
        }
        switch (r.event()) {
            case WriterStarted w -> {
                if (current != null) {
                    current.ending = Ending.CLOSED; // until the new session recovers it or cuts its torn tail
                }
                current = new Session(sessions.size(), w.epoch(), w.pid(), w.host(), seq, r.time());
                sessions.add(current);
            }
            case IntentRecorded e -> recorded(r, e);
            case JournalEvent.TableCommitted e -> {
                List<Intent> group = new ArrayList<>();
                for (String id : e.intentIds()) {
                    Intent i = intents.get(id);
                    if (i != null) {
                        i.steps.add(new StepAt(Step.B, seq, r.time(), e));
                        group.add(i);
                    }
                }
                committedUnpublished.put(where(e.graphBranch(), e.table()) + "/" + e.tableBranch() + "@" + e.achievedVersion(), group);
            }
            case JournalEvent.HeadPublished e -> {
                for (HeadTransition t : e.transitions()) {
                    List<Intent> group = committedUnpublished.remove(where(t.graphBranch(), t.table()) + "/"
                            + t.to().tableBranch() + "@" + t.to().version());
                    if (group != null) {
                        for (Intent i : group) {
                            i.steps.add(new StepAt(Step.C, seq, r.time(), e));
                        }
                    }
                }
            }
            case IntentCompleted e -> completed(r, e);
            case JournalEvent.TransactionStarted e -> e.intentIds().forEach(id -> started.put(id, e));
            case JournalEvent.TransactionCommitted e -> {
                // the commit point of every part: each completes JOURNALED here, together
                for (String id : e.intentIds()) {
                    Intent i = intents.get(id);
                    if (i != null) {
                        i.transaction = e;
                    }
                    completed(r, new IntentCompleted(id, IntentOutcome.JOURNALED, "", null, List.of()));
                }
            }
            case JournalEvent.LoadProgress e -> {
                Intent i = intents.get(e.intentId());
                if (i != null && e.batchKeys() != null) {
                    for (String k : e.batchKeys().keys()) {
                        ownKey(i, k);
                    }
                }
            }
            case JournalEvent.GraphBranchCreated e -> {
                // a branch starts with its parent's keys; their writers stay the parent's (attributed "inherited")
            }
            case JournalEvent.GraphBranchDeleted e -> {
                lastWriter.keySet().removeIf(w -> w.startsWith(e.branch() + "/"));
            }
            case JournalEvent.CheckpointWritten e -> {
                // not part of an intent's life
            }
            case JournalEvent.MigrationClaimed e -> {
                // migrations are not intents of writes
            }
            case JournalEvent.MigrationUnitPlanned e -> {
            }
            case JournalEvent.MigrationUnitForked e -> {
            }
            case JournalEvent.MigrationPkInstalled e -> {
            }
            case JournalEvent.MigrationUnitPublished e -> {
            }
            case JournalEvent.MigrationBranchVerified e -> {
            }
            case JournalEvent.MigrationStampWritten e -> {
            }
            case JournalEvent.MigrationRefused e -> {
            }
            case JournalEvent.RecoveryStarted e -> {
                openRecovery = new Recovery(e.recoveryId(), seq, r.writerEpoch());
                recoveries.add(openRecovery);
                // the session it recovers: the last one before the current writer's
                if (sessions.size() >= 2) {
                    Session died = sessions.get(sessions.size() - 2);
                    if (died.recoveredBy == null) {
                        died.recoveredBy = openRecovery;
                        if (died.ending != Ending.TORN_TAIL) {
                            died.ending = Ending.DIED;
                        }
                    }
                }
            }
            case JournalEvent.RecoveryFinished e -> {
                Recovery rec = openRecovery != null && openRecovery.id.equals(e.recoveryId()) ? openRecovery
                        : recoveries.stream().filter(x -> x.id.equals(e.recoveryId())).findFirst().orElse(null);
                if (rec == null) {
                    rec = new Recovery(e.recoveryId(), seq, r.writerEpoch());
                    recoveries.add(rec);
                }
                rec.finishSequence = seq;
                rec.decisions = e.classifications();
                for (RecoveryClassification c : e.classifications()) {
                    Intent i = intents.get(c.subjectId());
                    if (i != null) {
                        i.decision = c;
                        i.decidedBy = rec;
                        if (i.session != null && i.session != current && i.session.recoveredBy == null) {
                            i.session.recoveredBy = rec;
                            if (i.session.ending != Ending.TORN_TAIL) {
                                i.session.ending = Ending.DIED;
                            }
                        }
                        i.steps.add(new StepAt(Step.R, seq, r.time(), e));
                    }
                }
                openRecovery = null;
            }
            case JournalEvent.TableVersionSetAside e -> {
                for (String id : e.intentIds()) {
                    Intent i = intents.get(id);
                    if (i != null) {
                        i.steps.add(new StepAt(Step.R, seq, r.time(), e));
                    }
                }
            }
            case JournalEvent.DuplicatesRepaired e -> {
                Intent i = intents.get(e.intentId());
                if (i != null) {
                    i.steps.add(new StepAt(Step.A, seq, r.time(), e));
                }
            }
            case JournalEvent.VersionsExpired e -> {
                // retention: no intent's life changes; a read of a point below it is refused by the reader
            }
            case JournalEvent.ReceiptsExpired e -> {
                // the idempotency window: no intent's life changes; the keys it names answer no repeat any more
            }
            case JournalEvent.CatalogRecorded e -> {
                // the catalog the graph uses from here: part of the life of the add-columns intent that changed it
                // (recorded after its table commit, before its head is published), which its reason names
                for (Intent i : intents.values()) {
                    if (i.completion == null && i.recorded.operation() == io.palisade.journal.LogicalOperation.ADD_COLUMNS
                            && e.reason().contains("table '" + i.recorded.table() + "'")) {
                        i.steps.add(new StepAt(Step.B, seq, r.time(), e));
                    }
                }
            }
            case JournalEvent.TornTailCut e -> {
                for (Session s : sessions) {
                    if (s.epoch == e.previousEpoch() && s != current) {
                        s.tornTail = e;
                        s.ending = Ending.TORN_TAIL;
                    }
                }
            }
            case JournalEvent.ForeignCommitFound e -> {
                for (String id : e.intentIds()) {
                    Intent i = intents.get(id);
                    if (i != null) {
                        i.steps.add(new StepAt(Step.B, seq, r.time(), e));
                    }
                }
            }
            case JournalEvent.RowsRecorded e -> {
                Intent i = intents.get(e.intentId());
                if (i != null) {
                    i.steps.add(new StepAt(Step.A, seq, r.time(), e));
                }
            }
            case JournalEvent.JournaledWrite e -> {
                // one record: the intent recorded, its rows (step A with it) and its completion JOURNALED
                recorded(r, e.intent());
                Intent i = intents.get(e.intentId());
                if (i != null) {
                    i.steps.add(new StepAt(Step.A, seq, r.time(), e));
                }
                completed(r, e.completed());
            }
            case JournalEvent.RowsReleased e -> {
                Intent i = intents.get(e.intentId());
                if (i != null) {
                    i.steps.add(new StepAt(Step.A, seq, r.time(), e));
                }
            }
            case JournalEvent.FoldPlanned e -> {
                List<Intent> covered = new ArrayList<>();
                List<Intent> waiting = unfolded.getOrDefault(where(e.graphBranch(), e.table()), List.of());
                for (Intent w : waiting) {
                    if (w.completionSequence <= e.throughSequence() && w.foldedBy == null) {
                        covered.add(w);
                        w.steps.add(new StepAt(Step.F, seq, r.time(), e));
                    }
                }
                folding.put(e.intentId(), covered);
            }
        }
    }

    private void recorded(JournalRecord r, IntentRecorded e) {
        Intent i = new Intent(e.intentId(), r.sequence(), r.time(), e, current);
        intents.put(i.id, i);
        bySequence.put(r.sequence(), i);
        // a fold re-commits journaled writes (each already applied, JOURNALED): it is shown as their F steps, and is
        // neither a writer of their keys nor an intent of the key index
        if (e.keyFilter() != null && e.operation() != io.palisade.journal.LogicalOperation.FOLD) {
            for (String k : e.keyFilter().keys()) {
                ownKey(i, k);
            }
        }
        i.steps.add(new StepAt(Step.A, r.sequence(), r.time(), e));
        if (e.idempotencyKey() != null) {
            Intent earlier = lastByIdempotencyKey.get(e.idempotencyKey());
            if (earlier != null && earlier.completion != null && !earlier.applied() && earlier.retriedBy == null) {
                earlier.retriedBy = i.id;
                i.retryOf = earlier.id;
            }
            lastByIdempotencyKey.put(e.idempotencyKey(), i);
        }
    }

    private void ownKey(Intent i, String k) {
        i.ownKeys.add(k);
        keyIndex.computeIfAbsent(i.recorded.table(), t -> new HashMap<>())
                .computeIfAbsent(k, x -> new ArrayList<>()).add(i.sequence);
    }

    private void completed(JournalRecord r, IntentCompleted e) {
        Intent i = intents.get(e.intentId());
        List<Intent> covered = folding.remove(e.intentId());
        if (covered != null && applied(e.outcome())) {
            for (Intent w : covered) {
                w.foldedBy = e.intentId();
                w.steps.add(new StepAt(Step.F, r.sequence(), r.time(), e));
            }
            for (List<Intent> waiting : unfolded.values()) {
                waiting.removeAll(covered);
            }
        }
        if (i == null || i.completion != null) {
            return;
        }
        i.completion = e;
        i.completionSequence = r.sequence();
        i.steps.add(new StepAt(Step.D, r.sequence(), r.time(), e));
        String where = where(i.recorded.graphBranch(), i.recorded.table());
        if (applied(e.outcome())) {
            Map<String, Attribution> writers = lastWriter.computeIfAbsent(where, w -> new HashMap<>());
            for (String k : i.ownKeys) {
                writers.put(k, new Attribution(k, i.id, r.sequence(), ""));
            }
            if (e.outcome() == IntentOutcome.JOURNALED) {
                unfolded.computeIfAbsent(where, w -> new ArrayList<>()).add(i);
            }
        } else if (conflict(e.outcome())) {
            Set<String> named = new LinkedHashSet<>(e.conflictingKeys());
            List<String> keys = i.ownKeys.stream().filter(named::contains).toList();
            if (keys.isEmpty()) {
                keys = i.ownKeys;
            }
            Map<String, Attribution> writers = lastWriter.getOrDefault(where, Map.of());
            for (String k : new LinkedHashSet<>(keys)) {
                Attribution a = writers.get(k);
                if (a == null) {
                    i.conflicts.add(new Attribution(k, null, -1, "no intent of " + where + " in the journal applied it"
                            + (i.recorded.graphBranch().equals("main") ? " (a bulk load or an adopted foreign commit)"
                            : " (inherited from the parent branch, or an adopted foreign commit)")));
                } else {
                    i.conflicts.add(a);
                    Intent winner = intents.get(a.intentId());
                    if (winner != null) {
                        winner.beat.computeIfAbsent(i.id, x -> new ArrayList<>()).add(k);
                    }
                }
            }
        }
    }

    // ------------------------------------------------------------------ queries

    /** The graph transaction whose start named intent {@code id} as a part (committed or not). */
    Optional<JournalEvent.TransactionStarted> startedTransaction(String id) {
        return Optional.ofNullable(started.get(id));
    }

    Optional<Intent> intent(String id) {
        return Optional.ofNullable(intents.get(id));
    }

    Map<String, Intent> intents() {
        return Collections.unmodifiableMap(intents);
    }

    List<Session> sessions() {
        return Collections.unmodifiableList(sessions);
    }

    List<Recovery> recoveries() {
        return Collections.unmodifiableList(recoveries);
    }

    /** The sequences of the intents of {@code table} (every table when null) whose own keys hold {@code key}, ascending. */
    List<Long> sequencesOf(String table, String key) {
        if (table != null) {
            return List.copyOf(keyIndex.getOrDefault(table, Map.of()).getOrDefault(key, List.of()));
        }
        List<Long> out = new ArrayList<>();
        for (Map<String, List<Long>> t : keyIndex.values()) {
            out.addAll(t.getOrDefault(key, List.of()));
        }
        Collections.sort(out);
        return out;
    }

    /** The intents of {@code table} (every table when null) whose own keys hold {@code key}, in journal order. */
    List<Intent> intentsOf(String table, String key) {
        List<Intent> out = new ArrayList<>();
        for (long s : sequencesOf(table, key)) {
            out.add(bySequence.get(s));
        }
        return out;
    }

    /** "Conflicts of key K": the conflicted intents of {@code table} (null: every table) whose conflict keys hold K. */
    List<Intent> conflictsOf(String table, String key) {
        return intentsOf(table, key).stream().filter(i -> i.conflicted() && i.conflictKeys().contains(key)).toList();
    }

    /** "Conflicts in a window": conflicted intents whose completion sequence lies in {@code [from, to]}. */
    List<Intent> conflictsIn(long from, long to) {
        return intents.values().stream().filter(i -> i.conflicted() && i.completionSequence >= from
                && i.completionSequence <= to).toList();
    }

    /** Every retry: intents linked to the loser they retried. */
    List<Intent> retries() {
        return intents.values().stream().filter(i -> i.retryOf != null).toList();
    }

    long records() {
        return records;
    }

    long firstSequence() {
        return firstSequence;
    }

    long lastSequence() {
        return lastSequence;
    }

    Instant firstTime() {
        return firstTime;
    }

    Instant lastTime() {
        return lastTime;
    }
}
