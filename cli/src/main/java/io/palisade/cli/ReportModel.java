package io.palisade.cli;

import io.palisade.journal.IntentOutcome;
import io.palisade.journal.JournalEvent.IntentRecorded;
import io.palisade.journal.JournalRecord;
import io.palisade.journal.LogicalOperation;
import io.palisade.journal.RecoveryClassification;

import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
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
 * journal's order); conflicts, retries, writer sessions and recoveries are {@link IncidentModel}'s, the definitions
 * of docs/conflict-resolution.md "Conflicts and retries: definitions", shared with {@code explain}.
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
    /** The graph transactions committed in the window (their commit point in it): each counted once, not per part. */
    final Set<String> transactions = new TreeSet<>();
    /** The commits in the window that are parts of graph transactions. */
    long transactionParts;
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

    /**
     * Gathers the facts of the window {@code [lo, hi]} from {@code records} (the whole journal in sequence order) in
     * one pass, through the shared {@link IncidentModel}: its conflicts (with their attributed keys), retries, writer
     * sessions and recoveries are the report's.
     *
     * @param catalogTables the catalog's tables (every one gets a lane, active or not)
     * @param progress      advanced once per record
     */
    static ReportModel of(Iterable<JournalRecord> records, long lo, long hi, List<String> catalogTables, int topKeys,
                          Cli.Progress progress) {
        Clock clock = new Clock();
        int[] window = new int[1];
        long[] firstLast = {-1, -1};
        TreeMap<Instant, Long> times = new TreeMap<>();
        IncidentModel im = IncidentModel.of(() -> new java.util.Iterator<>() {
            final java.util.Iterator<JournalRecord> it = records.iterator();

            @Override
            public boolean hasNext() {
                return it.hasNext();
            }

            @Override
            public JournalRecord next() {
                JournalRecord r = it.next();
                Instant t = clock.add(r.sequence(), r.time());
                progress.at(clock.size());
                if (r.sequence() >= lo && r.sequence() <= hi) {
                    window[0]++;
                    firstLast[0] = firstLast[0] < 0 ? r.sequence() : firstLast[0];
                    firstLast[1] = r.sequence();
                    times.putIfAbsent(t, r.sequence());
                }
                return r;
            }
        });
        long first = firstLast[0];
        long last = firstLast[1];
        Set<String> tables = new TreeSet<>(catalogTables);
        List<Activity> activity = new ArrayList<>();
        Set<String> transactions = new TreeSet<>();
        long[] transactionParts = {0};
        Map<String, KeyStat> keys = new LinkedHashMap<>();
        for (IncidentModel.Intent i : im.intents().values()) {
            IntentRecorded x = i.recorded;
            if (x.operation() == LogicalOperation.CREATE_TABLE) {
                continue;
            }
            tables.add(x.table());
            String op = x.operation().name().toLowerCase(java.util.Locale.ROOT);
            if (i.retryOf != null && i.sequence >= first && i.sequence <= last) {
                activity.add(new Activity(x.table(), Kind.RETRY, i.sequence, clock.at(i.sequence), i.id, "retry "
                        + i.id + " (" + op + ") of " + i.retryOf + ", idempotency key " + x.idempotencyKey()));
            }
            long done = i.completionSequence;
            if (i.completion == null || done < first || done > last) {
                continue;
            }
            Instant t = clock.at(done);
            IntentOutcome o = i.completion.outcome();
            if (IncidentModel.applied(o)) {
                if (i.transaction != null) {
                    transactions.add(i.transaction.transactionId());
                    transactionParts[0]++;
                }
                activity.add(new Activity(x.table(), Kind.COMMIT, done, t, i.id, o + " " + i.id + " (" + op + ", "
                        + i.ownKeys.size() + " key(s))"));
            } else if (IncidentModel.conflict(o)) {
                activity.add(new Activity(x.table(), Kind.CONFLICT, done, t, i.id, o + " " + i.id + " (" + op
                        + ") keys " + abbrev(i.conflictKeys())));
                for (IncidentModel.Attribution a : i.conflicts) {
                    KeyStat st = keys.computeIfAbsent(x.table() + "\u0000" + a.key(), z -> new KeyStat());
                    st.conflicts++;
                    st.committers.add(a.intentId() != null ? a.intentId() + "@" + a.sequence() : a.note());
                    st.lastSeq = Math.max(st.lastSeq, done);
                }
            } else if (o == IntentOutcome.ABORTED || o == IntentOutcome.ROLLED_BACK) {
                activity.add(new Activity(x.table(), Kind.ABORTED, done, t, i.id, o + " " + i.id + " (" + op + "): "
                        + i.completion.reason()));
            }
        }
        activity.sort(java.util.Comparator.comparingLong(Activity::seq));
        List<Incident> incidents = new ArrayList<>();
        int cleanRestarts = 0;
        List<IncidentModel.Session> sessions = im.sessions();
        for (int k = 0; k < sessions.size(); k++) {
            IncidentModel.Session s = sessions.get(k);
            IncidentModel.Session next = k + 1 < sessions.size() ? sessions.get(k + 1) : null;
            switch (s.ending) {
                case LAST -> {
                }
                case CLOSED -> {
                    if (next != null && next.startSequence >= first && next.startSequence <= last) {
                        cleanRestarts++;
                    }
                }
                case DIED, TORN_TAIL -> {
                    long endSeq = s.recoveredBy != null && s.recoveredBy.finishSequence >= 0 ? s.recoveredBy.finishSequence
                            : next != null ? next.startSequence : s.lastSequence;
                    if (s.tornTail != null && next != null) {
                        endSeq = Math.max(endSeq, next.startSequence);
                    }
                    Map<RecoveryClassification.Kind, Integer> rec = new EnumMap<>(RecoveryClassification.Kind.class);
                    if (s.recoveredBy != null) {
                        for (RecoveryClassification c : s.recoveredBy.decisions) {
                            rec.merge(c.kind(), 1, Integer::sum);
                        }
                    }
                    String cause = s.tornTail != null ? "died mid-append: torn tail after seq "
                            + s.tornTail.lastGoodSequence() + " cut (" + s.tornTail.reason() + ")"
                            : "died with intents open (killed or crashed)";
                    long crash = s.lastSequence;
                    boolean inWindow = (crash >= first && crash <= last) || (endSeq >= first && endSeq <= last)
                            || (crash < first && endSeq > last);
                    if (inWindow) {
                        incidents.add(new Incident(crash, clock.at(crash), endSeq, clock.at(endSeq), s.pid, s.epoch,
                                cause, Map.copyOf(rec), next == null ? -1 : next.pid));
                    }
                }
            }
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
        ReportModel m = new ReportModel(first, last, window[0], clock.size(), first < 0 ? null : clock.at(first),
                first < 0 ? null : clock.at(last), List.copyOf(tables), busiest, cleanRestarts);
        m.activity.addAll(activity);
        m.transactions.addAll(transactions);
        m.transactionParts = transactionParts[0];
        m.incidents.addAll(incidents);
        m.times.putAll(times);
        return m;
    }

    /**
     * The journal's wall times by sequence, made monotone: a record's time is raised to its predecessor's when a
     * clock stepped back (another process, an NTP step), so the axis keeps the journal's order.
     */
    private static final class Clock {
        private long[] seqs = new long[1024];
        private long[] nanos = new long[1024];
        private int n;

        Instant add(long seq, Instant t) {
            long v = t.getEpochSecond() * 1_000_000_000L + t.getNano();
            if (n > 0 && v < nanos[n - 1]) {
                v = nanos[n - 1];
            }
            if (n == seqs.length) {
                seqs = java.util.Arrays.copyOf(seqs, n * 2);
                nanos = java.util.Arrays.copyOf(nanos, n * 2);
            }
            seqs[n] = seq;
            nanos[n] = v;
            n++;
            return instant(v);
        }

        int size() {
            return n;
        }

        /** The time of the record at {@code seq}, or of the last record before it when the journal has none there. */
        Instant at(long seq) {
            int i = java.util.Arrays.binarySearch(seqs, 0, n, seq);
            if (i < 0) {
                i = Math.max(0, -i - 2);
            }
            return instant(nanos[i]);
        }

        private static Instant instant(long v) {
            return Instant.ofEpochSecond(Math.floorDiv(v, 1_000_000_000L), Math.floorMod(v, 1_000_000_000L));
        }
    }

    /** Per-key conflict statistics of the window. */
    private static final class KeyStat {
        int conflicts;
        final Set<String> committers = new TreeSet<>();
        long lastSeq;
    }

    private static String abbrev(List<String> ks) {
        return ks.size() <= 8 ? ks.toString() : ks.subList(0, 8) + " and " + (ks.size() - 8) + " more";
    }
}
