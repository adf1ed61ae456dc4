package io.palisade.coordinator.internal;


import io.palisade.journal.IntentOutcome;
import io.palisade.journal.JournalEvent;
import io.palisade.journal.JournalRecord;
import io.palisade.journal.LogicalOperation;
import org.apache.arrow.memory.BufferAllocator;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The acknowledged-but-unfolded writes of a graph (docs/journal-ack.md), as a fold of journal records: an insert,
 * upsert or delete intent, its {@code RowsRecorded} and its completion {@code JOURNALED} (its own
 * {@code IntentCompleted}, or the {@code TransactionCommitted} of the graph transaction it is a part of, which adds all
 * its parts at one sequence) add one {@link Entry} to the (graph branch, table) tail; so does one
 * {@code WriteJournaled} (or the {@code WriteReleased} in its place), which is all three in one record.
 * Journal-ack tables' writes, and every part of a graph transaction whatever its table's ack mode, are acknowledged
 * so. A fold intent completing
 * {@code COMMITTED} or {@code ROLLED_FORWARD} drops the writes up to its watermark (the tail when it was planned; the
 * writes acknowledged while its Lance commit ran stay); deleting a graph branch drops
 * its tails. Anything else is ignored.
 *
 * <p>Mutable, and not thread-safe by itself: the graph applies records and answers reads under one lock, together with
 * the published heads, so that a reader always sees a tail and a head of the same journal position. Entries are
 * immutable once added; their rows are decoded on first use.
 */
final class UnfoldedWrites {

    /**
     * The rows of a write whose {@code RowsRecorded} or {@code WriteJournaled} the journal's row release replaced:
     * only ever below every fold mark, so a tail rebuilt for the graph's present never keeps such a write; one rebuilt
     * for an older point may.
     */
    private static final byte[] RELEASED = new byte[0];

    /** One acknowledged write. {@code rows} is its Arrow IPC payload (empty for a delete). */
    static final class Entry {
        final String intentId;
        final LogicalOperation operation;
        final List<String> keys;
        final long recordedAt;
        final long acknowledgedAt;
        final long acknowledgedNanos;
        final byte[] rows;
        private volatile Map<String, Map<String, Object>> byKey;

        Entry(String intentId, LogicalOperation operation, List<String> keys, long recordedAt, long acknowledgedAt,
              long acknowledgedNanos, byte[] rows) {
            this.intentId = intentId;
            this.operation = operation;
            this.keys = List.copyOf(keys);
            this.recordedAt = recordedAt;
            this.acknowledgedAt = acknowledgedAt;
            this.acknowledgedNanos = acknowledgedNanos;
            this.rows = rows;
        }

        boolean deletes() {
            return operation == LogicalOperation.DELETE;
        }

        /** Whether the journal no longer holds this write's rows (row release; folded since). */
        boolean released() {
            return rows == RELEASED;
        }

        /** The rows of an insert or upsert by key (decoded once). */
        Map<String, Map<String, Object>> rows(BufferAllocator allocator) {
            Map<String, Map<String, Object>> m = byKey;
            if (m == null && released()) {
                throw new IllegalStateException("the rows of journal-ack write " + intentId + " (acknowledged at "
                        + "sequence " + acknowledgedAt + ") were released from the journal, yet no fold covers it");
            }
            if (m == null) {
                m = new LinkedHashMap<>();
                for (Map<String, Object> r : JournaledRows.decode(rows, allocator)) {
                    m.put(String.valueOf(r.get("id")), r);
                }
                byKey = m;
            }
            return m;
        }
    }

    /** The unfolded writes of one (graph branch, table), oldest first, and the newest write of each key. */
    static final class Tail {
        final List<Entry> entries = new ArrayList<>();
        final Map<String, Entry> newest = new HashMap<>();
        long bytes;

        void add(Entry e) {
            entries.add(e);
            for (String k : e.keys) {
                newest.put(k, e);
            }
            bytes += e.rows.length + 64L * e.keys.size();
        }

        long oldestNanos() {
            return entries.isEmpty() ? -1 : entries.get(0).acknowledgedNanos;
        }

        /**
         * Drops the writes acknowledged at or before {@code through} (a fold's watermark); the writes acknowledged
         * while the fold ran stay, and the newest write of each key is taken again from them.
         */
        void foldedThrough(long through) {
            int n = 0;
            while (n < entries.size() && entries.get(n).acknowledgedAt <= through) {
                n++;
            }
            List<Entry> rest = new ArrayList<>(entries.subList(n, entries.size()));
            entries.clear();
            newest.clear();
            bytes = 0;
            rest.forEach(this::add);
        }
    }

    /** The answer of the tail for one key. */
    sealed interface Answer {
        /** The newest unfolded write of the key inserted or upserted {@code row}. */
        record Present(Map<String, Object> row, String intentId) implements Answer {
        }

        /** The newest unfolded write of the key deleted it. */
        record Deleted(String intentId) implements Answer {
        }
    }

    private record Staged(JournalEvent.IntentRecorded intent, long recordedAt, byte[] rows) {
    }

    private final Map<String, Staged> staged = new HashMap<>();
    private final Map<String, JournalEvent.FoldPlanned> plans = new HashMap<>();
    private final Map<String, Map<String, Tail>> tails = new HashMap<>();

    UnfoldedWrites() {
    }

    void apply(JournalRecord record) {
        switch (record.event()) {
            case JournalEvent.IntentRecorded e -> {
                // any table's: a graph transaction acknowledges its parts from the journal whatever the ack mode (an
                // intent that completes otherwise is dropped from here at its completion)
                if (switch (e.operation()) {
                    case INSERT, UPSERT, UPDATE, DELETE -> true;
                    case OVERWRITE, ADD_COLUMNS, CREATE_TABLE, BRANCH_MERGE, INDEX_MAINTENANCE, COMPACTION, MIGRATION_UNIT,
                         FOLD, REPAIR -> false;
                }) {
                    staged.put(e.intentId(), new Staged(e, record.sequence(), null));
                }
            }
            case JournalEvent.RowsRecorded e -> {
                Staged s = staged.get(e.intentId());
                if (s != null) {
                    staged.put(e.intentId(), new Staged(s.intent(), s.recordedAt(), e.rows()));
                }
            }
            case JournalEvent.RowsReleased e -> {
                Staged s = staged.get(e.intentId());
                if (s != null) {
                    staged.put(e.intentId(), new Staged(s.intent(), s.recordedAt(), RELEASED));
                }
            }
            case JournalEvent.WriteJournaled e -> journaled(new Staged(e.intent(), record.sequence(), e.rows()), record);
            case JournalEvent.WriteReleased e -> journaled(new Staged(e.intent(), record.sequence(), RELEASED), record);
            case JournalEvent.FoldPlanned e -> plans.put(e.intentId(), e);
            case JournalEvent.TransactionStarted e -> {
                // the parts are staged as they are recorded, and added at the commit point
            }
            case JournalEvent.TransactionCommitted e -> {
                for (String id : e.intentIds()) {
                    journaled(staged.remove(id), record);
                }
            }
            case JournalEvent.IntentCompleted e -> {
                Staged s = staged.remove(e.intentId());
                if (e.outcome() == IntentOutcome.JOURNALED) {
                    journaled(s, record);
                }
                JournalEvent.FoldPlanned plan = plans.remove(e.intentId());
                if (plan != null && (e.outcome() == IntentOutcome.COMMITTED || e.outcome() == IntentOutcome.ROLLED_FORWARD)) {
                    Map<String, Tail> b = tails.get(plan.graphBranch());
                    Tail t = b == null ? null : b.get(plan.table());
                    if (t != null) {
                        t.foldedThrough(plan.throughSequence());
                        if (t.entries.isEmpty()) {
                            b.remove(plan.table());
                        }
                    }
                }
            }
            case JournalEvent.GraphBranchDeleted e -> tails.remove(e.branch());
            case JournalEvent.WriterStarted e -> {
            }
            case JournalEvent.VersionsExpired e -> {
            }
            case JournalEvent.ReceiptsExpired e -> {
            }
            case JournalEvent.CatalogRecorded e -> {
            }
            case JournalEvent.TableCommitted e -> {
            }
            case JournalEvent.HeadPublished e -> {
            }
            case JournalEvent.GraphBranchCreated e -> {
            }
            case JournalEvent.CheckpointWritten e -> {
            }
            case JournalEvent.MigrationClaimed e -> {
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
            }
            case JournalEvent.RecoveryFinished e -> {
            }
            case JournalEvent.TornTailCut e -> {
            }
            case JournalEvent.LoadProgress e -> {
            }
            case JournalEvent.TableVersionSetAside e -> {
            }
            case JournalEvent.ForeignCommitFound e -> {
            }
            case JournalEvent.DuplicatesRepaired e -> {
            }
        }
    }

    /** The staged write {@code s} (null: none staged) completed {@code JOURNALED} at {@code record}: it joins its tail. */
    private void journaled(Staged s, JournalRecord record) {
        if (s == null) {
            return;
        }
        JournalEvent.IntentRecorded i = s.intent();
        List<String> keys = i.keyFilter() == null ? List.of() : i.keyFilter().keys();
        tail(i.graphBranch(), i.table()).add(new Entry(i.intentId(), i.operation(), keys, s.recordedAt(),
                record.sequence(), record.timestampNanos(), s.rows() == null ? new byte[0] : s.rows()));
    }

    private Tail tail(String branch, String table) {
        return tails.computeIfAbsent(branch, b -> new HashMap<>()).computeIfAbsent(table, t -> new Tail());
    }

    /** The tail of (branch, table), if it has unfolded writes. */
    Optional<Tail> of(String branch, String table) {
        Map<String, Tail> b = tails.get(branch);
        Tail t = b == null ? null : b.get(table);
        return t == null || t.entries.isEmpty() ? Optional.empty() : Optional.of(t);
    }

    /** The oldest write of (branch, table)'s tail whose rows the journal released, if any. */
    Optional<Entry> firstReleased(String branch, String table) {
        return of(branch, table).flatMap(t -> t.entries.stream().filter(Entry::released).findFirst());
    }

    /** The newest unfolded write of each key, for the keys that have one (a copy, safe to use outside the lock). */
    Map<String, Entry> newest(String branch, String table) {
        return of(branch, table).map(t -> (Map<String, Entry>) new HashMap<>(t.newest)).orElse(Map.of());
    }

    /** The newest unfolded write of each of {@code keys} that has one. */
    Map<String, Entry> newest(String branch, String table, java.util.Collection<String> keys) {
        Optional<Tail> t = of(branch, table);
        if (t.isEmpty()) {
            return Map.of();
        }
        Map<String, Entry> out = new HashMap<>();
        for (String k : keys) {
            Entry e = t.get().newest.get(k);
            if (e != null) {
                out.put(k, e);
            }
        }
        return out;
    }

    /** Per graph branch and table with unfolded writes, the rows they wrote (a delete: the keys it named). */
    Map<String, Map<String, Long>> rowCounts() {
        Map<String, Map<String, Long>> out = new java.util.TreeMap<>();
        tails.forEach((b, byTable) -> byTable.forEach((t, tail) -> {
            if (!tail.entries.isEmpty()) {
                out.computeIfAbsent(b, x -> new java.util.TreeMap<>()).put(t,
                        tail.entries.stream().mapToLong(e -> e.keys.size()).sum());
            }
        }));
        return out;
    }

    /** Total payload bytes held (for the memory bound). */
    long bytes() {
        long n = 0;
        for (Map<String, Tail> b : tails.values()) {
            for (Tail t : b.values()) {
                n += t.bytes;
            }
        }
        return n;
    }

    /** What the tail says of {@code key}: empty when no unfolded write touches it. */
    static Optional<Answer> answer(Map<String, Entry> newest, String key, BufferAllocator allocator) {
        Entry e = newest.get(key);
        if (e == null) {
            return Optional.empty();
        }
        if (e.deletes()) {
            return Optional.of(new Answer.Deleted(e.intentId));
        }
        Map<String, Object> row = e.rows(allocator).get(key);
        if (row == null) {
            throw new IllegalStateException("journaled write " + e.intentId + " names key '" + key + "' but its rows lack it");
        }
        return Optional.of(new Answer.Present(row, e.intentId));
    }

    /**
     * {@code tableRows} (a scan of the folded head) with the tail laid over it: rows of keys the tail touches are
     * replaced by the tail's newest row or removed when the newest write deleted them; keys new to the table follow, in
     * the order their newest write was acknowledged.
     */
    static List<Map<String, Object>> overlay(List<Map<String, Object>> tableRows, Map<String, Entry> newest,
                                             BufferAllocator allocator) {
        if (newest.isEmpty()) {
            return tableRows;
        }
        List<Map<String, Object>> out = new ArrayList<>(tableRows.size() + newest.size());
        java.util.HashSet<String> seen = new java.util.HashSet<>();
        for (Map<String, Object> r : tableRows) {
            String k = String.valueOf(r.get("id"));
            if (!newest.containsKey(k)) {
                out.add(r);
                continue;
            }
            if (seen.add(k)) {
                answer(newest, k, allocator).ifPresent(a -> {
                    if (a instanceof Answer.Present p) {
                        out.add(p.row());
                    }
                });
            }
        }
        List<Map.Entry<String, Entry>> rest = new ArrayList<>();
        for (Map.Entry<String, Entry> e : newest.entrySet()) {
            if (!seen.contains(e.getKey()) && !e.getValue().deletes()) {
                rest.add(e);
            }
        }
        rest.sort(java.util.Comparator.comparingLong((Map.Entry<String, Entry> e) -> e.getValue().acknowledgedAt)
                .thenComparing(Map.Entry::getKey));
        for (Map.Entry<String, Entry> e : rest) {
            out.add(e.getValue().rows(allocator).get(e.getKey()));
        }
        return out;
    }
}
