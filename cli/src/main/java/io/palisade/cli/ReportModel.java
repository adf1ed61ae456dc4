package io.palisade.cli;

import io.palisade.journal.IntentOutcome;
import io.palisade.journal.JournalEvent;
import io.palisade.journal.JournalEvent.IntentCompleted;
import io.palisade.journal.JournalEvent.IntentRecorded;
import io.palisade.journal.JournalRecord;
import io.palisade.journal.LogicalOperation;
import io.palisade.journal.RecoveryClassification;

import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The facts {@code palisade report} draws for one window of the journal, gathered in one pass over the whole journal
 * (the history before the window decides crashes, retries and the committing intent of a key).
 *
 * <p>Invariants: every {@link Activity} and every counted conflict lies in the window {@code [first, last]}; an
 * {@link Incident} is listed when its crash or its end lies in the window; {@link #times} never decreases along the
 * sequence (a record's wall time is raised to its predecessor's when a clock stepped back, so the time axis keeps the
 * journal's order); a conflict and a retry are the ones of docs/journal.md "Conflicts and retries".
 */
final class ReportModel {
    /** What one intent contributes to a table's lane. */
    enum Kind {
        /** An intent that applied (COMMITTED, ROLLED_FORWARD, JOURNALED), counted at its completion. */
        COMMIT,
        /** An intent that completed KEY_CONFLICT or WRITE_CONFLICT, counted at its completion. */
        CONFLICT,
        /** A retry: an intent carrying the idempotency key of an earlier one that did not apply, counted at its record. */
        RETRY,
        /** An intent recovery completed ABORTED or ROLLED_BACK. */
        ABORTED
    }

    /** One counted fact of a table's lane, with a one-line description for tooltips. */
    record Activity(String table, Kind kind, long seq, Instant time, String intentId, String detail) {
    }

    /**
     * A writer that died (no closing checkpoint, a torn tail, or work left open) and what the next session's recovery
     * did: from the dead writer's last record ({@code crashSeq}) to the recovery's end ({@code endSeq}, the restart
     * when no recovery ran).
     */
    record Incident(long crashSeq, Instant crashTime, long endSeq, Instant endTime, long pid, long epoch,
                    String cause, Map<RecoveryClassification.Kind, Integer> recovery, long restartPid) {
        /** The band's label: "writer pid N killed; recovery aborted 2". */
        String label() {
            StringBuilder sb = new StringBuilder("writer pid " + pid + " killed");
            if (recovery.isEmpty()) {
                sb.append("; restarted, nothing to recover");
            } else {
                sb.append("; recovery ");
                int i = 0;
                for (Map.Entry<RecoveryClassification.Kind, Integer> e : recovery.entrySet()) {
                    sb.append(i++ == 0 ? "" : ", ").append(verb(e.getKey())).append(' ').append(e.getValue());
                }
            }
            return sb.toString();
        }

        static String verb(RecoveryClassification.Kind k) {
            return switch (k) {
                case NO_EFFECT_ABORTED -> "aborted";
                case EFFECT_ROLLED_FORWARD -> "rolled forward";
                case PUBLISHED_COMPLETED -> "completed";
                case FOREIGN_COMMIT -> "found foreign commits";
                case MIGRATION_RESUMED -> "resumed migrations";
                case LOAD_ROLLED_BACK -> "rolled back loads";
                case TORN_VERSION_SET_ASIDE -> "set aside torn versions";
            };
        }
    }

    /** A busy key: its conflicts in the window and the intents (with sequences) that committed it before them. */
    record KeyRow(String table, String key, int conflicts, List<String> committers, long lastSeq) {
    }

    final long first;
    final long last;
    final int events;
    final int journalEvents;
    final Instant start;
    final Instant end;
    final List<String> tables;
    final List<Activity> activity = new ArrayList<>();
    final List<Incident> incidents = new ArrayList<>();
    final List<KeyRow> busiest;
    final int cleanRestarts;
    /** The window's records' (monotone) times by sequence, for the axis's sequence labels. */
    final TreeMap<Instant, Long> times = new TreeMap<>();

    private ReportModel(long first, long last, int events, int journalEvents, Instant start, Instant end,
                        List<String> tables, List<KeyRow> busiest, int cleanRestarts) {
        this.first = first;
        this.last = last;
        this.events = events;
        this.journalEvents = journalEvents;
        this.start = start;
        this.end = end;
        this.tables = tables;
        this.busiest = busiest;
        this.cleanRestarts = cleanRestarts;
    }

    long count(Kind k) {
        return activity.stream().filter(a -> a.kind() == k).count();
    }

    /** A session of one writer: its pid and epoch, whether it wrote, and how it ended. */
    private static final class Session {
        long pid;
        long epoch;
        boolean wrote;
        JournalRecord lastRecord;
    }

    /** An incident being built: the crash is known, the end comes with the next session's recovery. */
    private static final class Open {
        long crashSeq;
        Instant crashTime;
        long endSeq;
        Instant endTime;
        long pid;
        long epoch;
        long restartPid;
        String cause;
        final Map<RecoveryClassification.Kind, Integer> recovery = new EnumMap<>(RecoveryClassification.Kind.class);

        Incident done() {
            return new Incident(crashSeq, crashTime, endSeq, endTime, pid, epoch, cause, Map.copyOf(recovery), restartPid);
        }
    }

    /** Per-key conflict statistics of the window. */
    private static final class KeyStat {
        int conflicts;
        final Set<String> committers = new TreeSet<>();
        long lastSeq;
    }

    /**
     * Gathers the facts of the window {@code [lo, hi]} from {@code records} (the whole journal in sequence order).
     *
     * @param catalogTables the catalog's tables (every one gets a lane, active or not)
     * @param progress      advanced once per record
     */
    static ReportModel of(Iterable<JournalRecord> records, long lo, long hi, List<String> catalogTables, int topKeys,
                          Cli.Progress progress) {
        Map<String, IntentRecorded> intents = new HashMap<>();
        Map<String, String> notApplied = new HashMap<>(); // idempotency key -> the intent that did not apply
        // graph branch + table + key -> "intent@seq" of the last intent that applied a write holding the key
        Map<String, String> lastWriter = new HashMap<>();
        Map<String, KeyStat> keys = new LinkedHashMap<>();
        Set<String> tables = new TreeSet<>(catalogTables);
        List<Activity> activity = new ArrayList<>();
        List<Incident> incidents = new ArrayList<>();
        TreeMap<Instant, Long> times = new TreeMap<>();
        Session session = null;
        Open open = null;
        int cleanRestarts = 0;
        int journalEvents = 0;
        int events = 0;
        long first = -1;
        long last = -1;
        Instant clock = Instant.MIN;
        Instant start = null;
        Instant end = null;
        for (JournalRecord r : records) {
            journalEvents++;
            progress.at(journalEvents);
            clock = r.time().isAfter(clock) ? r.time() : clock;
            Instant t = clock;
            long seq = r.sequence();
            boolean in = seq >= lo && seq <= hi;
            if (in) {
                events++;
                first = first < 0 ? seq : first;
                last = seq;
                start = start == null ? t : start;
                end = t;
                times.putIfAbsent(t, seq);
            }
            JournalEvent e = r.event();
            switch (e) {
                case JournalEvent.WriterStarted w -> {
                    if (open != null) { // a crash whose session never recovered (killed again): it ends here
                        incidents.add(open.done());
                        open = null;
                    }
                    if (session != null) {
                        boolean closed = session.lastRecord != null
                                && session.lastRecord.event() instanceof JournalEvent.CheckpointWritten;
                        if (session.wrote && !closed) {
                            open = crash(session, "ended without closing the graph (no closing checkpoint)");
                        } else {
                            cleanRestarts++;
                        }
                    }
                    if (open != null) {
                        open.endSeq = seq;
                        open.endTime = t;
                        open.restartPid = w.pid();
                    }
                    session = new Session();
                    session.pid = w.pid();
                    session.epoch = w.epoch();
                }
                case JournalEvent.TornTailCut cut -> {
                    if (open == null && session != null) {
                        // the restart was counted clean (its last record was a checkpoint) but its tail was torn
                        Open o = new Open();
                        o.crashSeq = cut.lastGoodSequence();
                        o.crashTime = t;
                        o.pid = -1;
                        o.epoch = cut.previousEpoch();
                        o.endSeq = seq;
                        o.endTime = t;
                        o.restartPid = session.pid;
                        open = o;
                        cleanRestarts = Math.max(0, cleanRestarts - 1);
                    }
                    if (open != null) {
                        open.cause = "died mid-append: torn tail after seq " + cut.lastGoodSequence() + " cut ("
                                + cut.reason() + ")";
                        open.endSeq = seq;
                        open.endTime = t;
                    }
                }
                case JournalEvent.RecoveryStarted s -> {
                }
                case JournalEvent.RecoveryFinished f -> {
                    if (open == null && !f.classifications().isEmpty() && session != null) {
                        open = new Open(); // work left open by a writer the restart did not flag
                        open.crashSeq = seq;
                        open.crashTime = t;
                        open.pid = -1;
                        open.restartPid = session.pid;
                        open.cause = "left work open (recovery needed)";
                    }
                    if (open != null) {
                        for (RecoveryClassification c : f.classifications()) {
                            open.recovery.merge(c.kind(), 1, Integer::sum);
                        }
                        open.endSeq = seq;
                        open.endTime = t;
                        incidents.add(open.done());
                        open = null;
                    }
                }
                case IntentRecorded x -> {
                    intents.put(x.intentId(), x);
                    if (x.operation() != LogicalOperation.CREATE_TABLE) {
                        tables.add(x.table());
                        String loser = x.idempotencyKey() == null ? null : notApplied.get(x.idempotencyKey());
                        if (loser != null && in) {
                            activity.add(new Activity(x.table(), Kind.RETRY, seq, t, x.intentId(), "retry "
                                    + x.intentId() + " of " + loser + " (idempotency key " + x.idempotencyKey() + ")"));
                        }
                    }
                }
                case IntentCompleted c -> {
                    IntentRecorded x = intents.get(c.intentId());
                    if (x == null || x.operation() == LogicalOperation.CREATE_TABLE) {
                        break;
                    }
                    String op = x.operation().name().toLowerCase(java.util.Locale.ROOT);
                    List<String> own = x.keyFilter() == null ? List.of() : x.keyFilter().keys();
                    switch (c.outcome()) {
                        case COMMITTED, ROLLED_FORWARD, JOURNALED -> {
                            for (String k : own) {
                                lastWriter.put(x.graphBranch() + "\u0000" + x.table() + "\u0000" + k, c.intentId() + "@" + seq);
                            }
                            if (in) {
                                activity.add(new Activity(x.table(), Kind.COMMIT, seq, t, c.intentId(), c.outcome()
                                        + " " + c.intentId() + " (" + op + ", " + own.size() + " key(s))"));
                            }
                        }
                        case KEY_CONFLICT, WRITE_CONFLICT -> {
                            remember(notApplied, x);
                            List<String> named = c.conflictingKeys().stream().filter(own::contains).toList();
                            List<String> ks = named.isEmpty() ? own : named;
                            if (in) {
                                activity.add(new Activity(x.table(), Kind.CONFLICT, seq, t, c.intentId(), c.outcome()
                                        + " " + c.intentId() + " (" + op + ") keys " + abbrev(ks)));
                                for (String k : ks) {
                                    KeyStat s = keys.computeIfAbsent(x.table() + "\u0000" + k, z -> new KeyStat());
                                    s.conflicts++;
                                    String w = lastWriter.get(x.graphBranch() + "\u0000" + x.table() + "\u0000" + k);
                                    s.committers.add(w != null ? w : c.conflictingIntent() != null
                                            ? c.conflictingIntent() : "not journaled (bulk load or adopted commit)");
                                    s.lastSeq = seq;
                                }
                            }
                        }
                        case ABORTED, ROLLED_BACK -> {
                            remember(notApplied, x);
                            if (in) {
                                activity.add(new Activity(x.table(), Kind.ABORTED, seq, t, c.intentId(), c.outcome()
                                        + " " + c.intentId() + " (" + op + "): " + c.reason()));
                            }
                        }
                        case VALIDATION_FAILED, FOREIGN_COMMIT -> remember(notApplied, x);
                    }
                    if (x.idempotencyKey() != null && (c.outcome() == IntentOutcome.COMMITTED
                            || c.outcome() == IntentOutcome.ROLLED_FORWARD || c.outcome() == IntentOutcome.JOURNALED)) {
                        notApplied.remove(x.idempotencyKey());
                    }
                }
                case JournalEvent.TableCommitted x -> {
                }
                case JournalEvent.HeadPublished x -> {
                }
                case JournalEvent.LoadProgress x -> {
                }
                case JournalEvent.GraphBranchCreated x -> {
                }
                case JournalEvent.GraphBranchDeleted x -> {
                }
                case JournalEvent.CheckpointWritten x -> {
                }
                case JournalEvent.MigrationClaimed x -> {
                }
                case JournalEvent.MigrationUnitPlanned x -> {
                }
                case JournalEvent.MigrationUnitForked x -> {
                }
                case JournalEvent.MigrationPkInstalled x -> {
                }
                case JournalEvent.MigrationUnitPublished x -> {
                }
                case JournalEvent.MigrationBranchVerified x -> {
                }
                case JournalEvent.MigrationStampWritten x -> {
                }
                case JournalEvent.MigrationRefused x -> {
                }
                case JournalEvent.TableVersionSetAside x -> {
                }
                case JournalEvent.DuplicatesRepaired x -> {
                }
                case JournalEvent.ForeignCommitFound x -> {
                }
                case JournalEvent.RowsRecorded x -> {
                }
                case JournalEvent.FoldPlanned x -> {
                }
            }
            if (session != null) {
                // a session that wrote through the graph closes with a CheckpointWritten (Graph.close); creating
                // tables or recovering alone does not
                if ((e instanceof IntentRecorded ir && ir.operation() != LogicalOperation.CREATE_TABLE)
                        || e instanceof JournalEvent.GraphBranchCreated || e instanceof JournalEvent.GraphBranchDeleted) {
                    session.wrote = true;
                }
                session.lastRecord = r;
            }
        }
        if (open != null) {
            incidents.add(open.done());
        }
        List<Map.Entry<String, KeyStat>> ranked = new ArrayList<>(keys.entrySet());
        ranked.sort((a, b) -> a.getValue().conflicts != b.getValue().conflicts
                ? Integer.compare(b.getValue().conflicts, a.getValue().conflicts) : a.getKey().compareTo(b.getKey()));
        List<KeyRow> busiest = new ArrayList<>();
        for (Map.Entry<String, KeyStat> en : ranked.subList(0, Math.min(topKeys, ranked.size()))) {
            String[] tk = en.getKey().split("\u0000", 2);
            busiest.add(new KeyRow(tk[0], tk[1], en.getValue().conflicts, List.copyOf(en.getValue().committers),
                    en.getValue().lastSeq));
        }
        ReportModel m = new ReportModel(first, last, events, journalEvents, start, end, List.copyOf(tables), busiest,
                cleanRestarts);
        m.activity.addAll(activity);
        final long f = first;
        final long l = last;
        for (Incident i : incidents) {
            if ((i.crashSeq() >= f && i.crashSeq() <= l) || (i.endSeq() >= f && i.endSeq() <= l)
                    || (i.crashSeq() < f && i.endSeq() > l)) {
                m.incidents.add(i);
            }
        }
        m.times.putAll(times);
        return m;
    }

    private static Open crash(Session s, String cause) {
        Open o = new Open();
        o.crashSeq = s.lastRecord.sequence();
        o.crashTime = s.lastRecord.time();
        o.pid = s.pid;
        o.epoch = s.epoch;
        o.cause = cause;
        return o;
    }

    private static void remember(Map<String, String> notApplied, IntentRecorded x) {
        if (x.idempotencyKey() != null) {
            notApplied.put(x.idempotencyKey(), x.intentId());
        }
    }

    private static String abbrev(List<String> ks) {
        return ks.size() <= 8 ? ks.toString() : ks.subList(0, 8) + " and " + (ks.size() - 8) + " more";
    }
}
