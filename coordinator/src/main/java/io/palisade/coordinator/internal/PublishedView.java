package io.palisade.coordinator.internal;

import io.palisade.coordinator.Catalog;
import io.palisade.coordinator.Options;
import io.palisade.heads.Checkpoints;
import io.palisade.heads.HeadsState;
import io.palisade.journal.Journal;
import io.palisade.journal.JournalEvent;
import io.palisade.journal.JournalEvent.CheckpointWritten;
import io.palisade.journal.JournalRecord;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * What readers of one open graph see: the published heads state, the acknowledged-but-unfolded writes of its
 * journal-ack tables, and its catalog. The committer changes them only here, by journaling records durably and then
 * applying them ({@link #journal}); every checkpoint of the heads is written from here.
 *
 * <p>Invariants: the heads and the unfolded tail change together under one lock, so a reader that takes both
 * ({@link #read}) gets a tail and a head of the same journal position; nothing is applied before the journal append
 * that holds it has returned (it is durable at the graph's durability); only the committer thread journals,
 * checkpoints or changes the catalog, while any thread reads.
 */
public final class PublishedView {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(PublishedView.class);

    /** A table's unfolded writes at a glance (for the fold agent, {@code heads} and metrics). */
    public record TailSummary(String branch, String table, int writes, long oldestNanos, long bytes) {
    }

    /** The heads and one table's unfolded writes, taken together (a copy of the tail: newest write per key). */
    record Snapshot(HeadsState state, Map<String, UnfoldedWrites.Entry> tail) {
    }

    private final Object lock = new Object();
    private final Meters meters;
    private final GraphLayout layout;
    private final Options options;
    private final Journal journal;
    private final Checkpoints checkpoints;
    private final UnfoldedWrites unfolded;
    private volatile HeadsState state;
    private volatile Catalog catalog;
    private long recordsSinceCheckpoint;
    /**
     * When receipts were issued: per journaled batch that issued at least one, {sequence of its last record, epoch
     * milliseconds of the clock}, oldest first; entries at or below the receipts' expiry bound are dropped. The
     * receipts of the state this view opened with count as issued at the open (their time is not kept in the state),
     * so a key is never forgotten before its window, only perhaps after it.
     */
    private final java.util.ArrayDeque<long[]> receiptTimes = new java.util.ArrayDeque<>();
    /**
     * The wall clock (epoch milliseconds) the fold bounds compare journal times with ({@link Options#foldLagMillis()},
     * {@link Options#maxFoldLagMillis()}). Tests only may replace it (to age the unfolded writes without waiting).
     */
    private volatile LongSupplier clockMillis = System::currentTimeMillis;
    /** The journal's row release and file retention, after each checkpoint. */
    private final JournalRetention journalRetention;

    /** The graph's options. */
    Options options() {
        return options;
    }

    /** @param inlineRelease run the journal's row release on the committer thread (the deterministic simulation) */
    PublishedView(GraphLayout layout, Catalog catalog, Options options, Journal journal, HeadsState state,
                  Meters meters, boolean inlineRelease) {
        this.meters = meters;
        this.layout = layout;
        this.catalog = catalog;
        this.options = options;
        this.journal = journal;
        this.state = state;
        this.checkpoints = Checkpoints.of(layout.palisade());
        this.journalRetention = new JournalRetention(journal, checkpoints, options, meters, inlineRelease);
        this.unfolded = Reads.rebuildUnfolded(layout.palisade(), catalog, state, state.lastSequence());
        if (state.receiptCount() > 0) {
            receiptTimes.addLast(new long[] {state.lastSequence(), clockMillis.getAsLong()});
        }
    }

    /** The current published state (heads, branches, intents). */
    public HeadsState state() {
        return state;
    }

    public Catalog catalog() {
        return catalog;
    }

    /** The heads and the unfolded writes of (branch, table), of one journal position. */
    Snapshot read(String branch, String table) {
        synchronized (lock) {
            return new Snapshot(state, unfolded.newest(branch, table));
        }
    }

    /**
     * Journals {@code events} durably (one sync) and applies them to the heads and the unfolded tail; writes a
     * checkpoint once {@link Options#checkpointEvery()} records have been journaled since the last one. Committer
     * thread only.
     *
     * @return the sequence of the first record
     */
    public long journal(List<JournalEvent> events) {
        long first = journal.appendBatch(events, options.durability());
        long now = System.currentTimeMillis() * 1_000_000L;
        synchronized (lock) {
            HeadsState s = state;
            int receipts = s.receiptCount();
            for (int i = 0; i < events.size(); i++) {
                JournalRecord r = new JournalRecord(first + i, now, journal.epoch(), events.get(i));
                s = s.apply(r);
                unfolded.apply(r);
            }
            state = s;
            if (s.receiptCount() > receipts) {
                receiptTimes.addLast(new long[] {s.lastSequence(), clockMillis.getAsLong()});
            }
        }
        recordsSinceCheckpoint += events.size();
        if (recordsSinceCheckpoint >= options.checkpointEvery()) {
            checkpoint();
        }
        return first;
    }

    /** Writes a checkpoint if any record was journaled since the last one (at close; never by a fenced writer). */
    void checkpointIfBehind() {
        if (recordsSinceCheckpoint > 0 && !journal.fenced()) { // a fenced writer leaves the graph to the new one
            checkpoint();
        } else if (!journal.fenced()) {
            journal.anchor(); // the records this session's open appended: the next open verifies from them
        }
    }

    /**
     * Writes a checkpoint of the heads and journals it, together with the expiry of the receipts the idempotency window
     * no longer keeps, if any. Applying the {@code CheckpointWritten} forgets the intents the checkpoint covers
     * ({@link HeadsState#completedIntent}).
     */
    private void checkpoint() {
        HeadsState written = state;
        Checkpoints.Written w = checkpoints.write(written);
        recordsSinceCheckpoint = 0;
        List<JournalEvent> events = new ArrayList<>(2);
        events.add(new CheckpointWritten(w.sequence(), w.file().getFileName().toString(), w.headsDigest()));
        JournalEvent.ReceiptsExpired expired = receiptsToExpire(state);
        if (expired != null) {
            events.add(expired);
        }
        long releaseBelow = Math.min(w.sequence() + 1, Reads.oldestUnfolded(written));
        long seq = journal.appendBatch(events, options.durability());
        journal.anchor(); // the next open verifies the journal's chain from here, not from sequence 0
        journalRetention.afterCheckpoint(w.sequence(), releaseBelow, written);
        synchronized (lock) {
            HeadsState s = state;
            for (int i = 0; i < events.size(); i++) {
                s = s.apply(new JournalRecord(seq + i, System.currentTimeMillis() * 1_000_000L, journal.epoch(),
                        events.get(i)));
            }
            meters.intentsForgotten.increment(state.completedCount() - s.completedCount());
            meters.keysForgotten.increment(state.receiptCount() - s.receiptCount());
            state = s;
        }
        if (expired != null) {
            while (!receiptTimes.isEmpty() && receiptTimes.peekFirst()[0] <= expired.throughSequence()) {
                receiptTimes.pollFirst();
            }
        }
    }

    /** Stops the journal's row release and file retention (waiting for a run in progress); the journal closes after. */
    void closeRelease() {
        journalRetention.close();
    }

    /**
     * The expiry the idempotency window asks of {@code s}'s receipts ({@link io.palisade.coordinator.Idempotency}):
     * through the newest sequence whose receipts are older than the window, or beyond the newest {@code maxKeys}, or
     * null when every kept receipt is inside both bounds.
     */
    private JournalEvent.ReceiptsExpired receiptsToExpire(HeadsState s) {
        int n = s.receiptCount();
        if (n == 0) {
            return null;
        }
        io.palisade.coordinator.Idempotency rule = options.idempotency();
        long through = -1;
        long[] seqs = null;
        if (n > rule.maxKeys()) {
            seqs = s.receiptSequences();
            through = seqs[n - rule.maxKeys() - 1];
        }
        long cutoff = clockMillis.getAsLong() - rule.window().toMillis();
        for (long[] t : receiptTimes) {
            if (t[1] >= cutoff) {
                break;
            }
            through = Math.max(through, t[0]);
        }
        if (through <= s.receiptsExpiredThrough()) {
            return null;
        }
        if (seqs == null) {
            seqs = s.receiptSequences();
        }
        if (seqs[0] > through) {
            return null; // no kept receipt is that old
        }
        return new JournalEvent.ReceiptsExpired(through, rule.describe());
    }

    /**
     * Adds columns to the catalog: journals the new catalog (synced), then writes {@code catalog.json} durably, so a
     * crash in between leaves a file one record behind, which the next open rewrites from the journal (committer
     * thread only).
     */
    void addToCatalog(String table, List<Catalog.ColumnDef> columns) {
        List<Catalog.TableDef> tables = new ArrayList<>();
        for (Catalog.TableDef t : catalog.tables()) {
            if (t.name().equals(table)) {
                List<Catalog.ColumnDef> cols = new ArrayList<>(t.columns());
                cols.addAll(columns);
                tables.add(t.withColumns(cols));
            } else {
                tables.add(t);
            }
        }
        Catalog next = new Catalog(tables);
        journal(List.of(CatalogRecords.record(next, "columns added to table '" + table + "': "
                + String.join(", ", columns.stream().map(Catalog.ColumnDef::name).toList()))));
        CrashPoints.hit("add-columns-after-catalog-journaled");
        layout.writeCatalog(next);
        catalog = next;
    }

    // ------------------------------------------------------------------ the unfolded tail

    /** The newest unfolded write of each key of (branch, table): a copy, empty for a table without unfolded writes. */
    Map<String, UnfoldedWrites.Entry> unfoldedNewest(String branch, String table) {
        synchronized (lock) {
            return unfolded.newest(branch, table);
        }
    }

    /** The newest unfolded write of each of {@code keys} that has one (the strict-insert fence: no copy of the tail). */
    Map<String, UnfoldedWrites.Entry> unfoldedNewest(String branch, String table, Collection<String> keys) {
        synchronized (lock) {
            return unfolded.newest(branch, table, keys);
        }
    }

    /** Every table with unfolded writes. */
    public List<TailSummary> unfoldedSummary() {
        List<TailSummary> out = new ArrayList<>();
        synchronized (lock) {
            for (String b : state.branches().keySet()) {
                for (Catalog.TableDef t : catalog.tables()) {
                    unfolded.of(b, t.name()).ifPresent(tail -> out.add(new TailSummary(b, t.name(), tail.entries.size(),
                            tail.oldestNanos(), tail.bytes)));
                }
            }
        }
        return out;
    }

    /**
     * The fold lag of (branch, table) in milliseconds: now minus the journal time of its oldest unfolded write (as
     * {@code heads} computes {@code fold_lag_ms}), at least 0; -1 when the table has no unfolded write.
     */
    public long foldLagMillis(String branch, String table) {
        long oldest;
        synchronized (lock) {
            oldest = unfolded.of(branch, table).map(UnfoldedWrites.Tail::oldestNanos).orElse(-1L);
        }
        return oldest < 0 ? -1 : Math.max(0, clockMillis.getAsLong() - oldest / 1_000_000L);
    }

    /** Unfolded writes of {@code table} on every graph branch. */
    long unfoldedWrites(String table) {
        synchronized (lock) {
            long n = 0;
            for (String b : state.branches().keySet()) {
                n += unfolded.of(b, table).map(t -> t.entries.size()).orElse(0);
            }
            return n;
        }
    }

    /** Payload bytes of the unfolded writes of {@code table} on every graph branch. */
    long unfoldedBytes(String table) {
        synchronized (lock) {
            long n = 0;
            for (String b : state.branches().keySet()) {
                n += unfolded.of(b, table).map(t -> t.bytes).orElse(0L);
            }
            return n;
        }
    }

    /** The largest fold lag of {@code table} over the graph branches ({@link #foldLagMillis(String, String)}); 0: none. */
    long foldLagMillis(String table) {
        long lag = 0;
        for (String b : state.branches().keySet()) {
            lag = Math.max(lag, foldLagMillis(b, table));
        }
        return lag;
    }

    /** Payload bytes of every unfolded write (the memory bound's measure). */
    public long unfoldedBytes() {
        synchronized (lock) {
            return unfolded.bytes();
        }
    }

    /** Now, on the clock the fold bounds use (epoch milliseconds). */
    long clockMillis() {
        return clockMillis.getAsLong();
    }

    /** Replaces the fold bounds' clock (tests: age the unfolded writes without waiting). */
    void clock(LongSupplier clockMillis) {
        this.clockMillis = clockMillis;
    }
}
