package io.palisade.heads;

import io.palisade.journal.JournalEvent;
import io.palisade.journal.JournalRecord;
import io.palisade.journal.TableHead;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The state of a graph as the pure reduction of its journal records (DESIGN §2 {@code table-heads}): the published
 * value and its queries. The reducer that applies a record ({@code HeadsReducer}) lives apart; {@link #apply} and
 * {@link #replay} are its entries.
 *
 * <p>Holds: per (graph branch, table) the published head as a {@link Pin} (owned or lazily inherited);
 * the live graph branches with their creation point; open intents with their Phase A payload and the
 * phase reached; completed intents' outcomes; idempotency keys → first {@link IntentReceipt}; PK migration
 * progress; the journal-ack tables' fold marks and open fold plans; the catalog last recorded; the format stamp; the
 * last sequence applied.
 *
 * <p><b>Bounded by what is in flight, not by history.</b> A completed intent is kept until a checkpoint covers it: a
 * {@code CheckpointWritten} forgets every intent completed at or before its covered sequence (the journal keeps its
 * records; {@link #completedIntent} answers only for intents completed after the last checkpoint). A receipt is kept
 * until a {@code ReceiptsExpired} names a sequence at or after its completion (the writer journals one under its
 * idempotency window); then its key no longer answers a repeat. Both are functions of the journal alone, so a state
 * decoded from a checkpoint and one replayed from the first record agree.
 *
 * <p>Immutable: every field is final and every collection a persistent map; {@link #apply} returns a new state
 * and shares every unchanged part with this one (persistent hash tries), so replaying a long journal costs
 * O(log n) per record. The digest is computed on first use from those parts and cached; any thread computes the
 * same value.
 *
 * <p>Invariants enforced by {@link #apply} (a violation throws {@link IllegalTransitionException} naming
 * the sequence, and the branch and table where there is one):
 * <ul>
 *   <li>records are applied densely: each sequence is {@code lastSequence() + 1};</li>
 *   <li>a head transition's {@code from} equals the current head of (branch, table) ({@code null} when none),
 *       the branch is live, the version never decreases on the same table branch and incarnation, and the
 *       incarnation never decreases;</li>
 *   <li>a branch is created once from a live parent, inheriting the parent's pins as of {@code fromSequence},
 *       which must not be older than the last head change of any inherited table; {@code main} is never deleted;</li>
 *   <li>an intent id is recorded once and completed once; a {@code TableCommitted} names only open,
 *       uncommitted intents of its (branch, table); {@code COMMITTED}/{@code ROLLED_FORWARD} require the
 *       head to have been published, every other outcome requires that no table commit was seen;</li>
 *   <li>an idempotency key that issued a receipt, or that an open intent carries, is never recorded again;</li>
 *   <li>migration units move forward only: planned, [forked,] installed, published;</li>
 *   <li>a fold plan follows its own open {@code FOLD} intent and covers exactly its table's unfolded writes, at most
 *       one is open per table, and a branch is created only from a parent whose tables have no unfolded writes.</li>
 * </ul>
 */
public final class HeadsState {
    /** The graph branch that exists before the first record. */
    public static final String MAIN = "main";

    private static final HeadsState EMPTY = new HeadsState(-1, -1, -1, -1, -1, null,
            PMap.<String, GraphBranch>empty().put(MAIN, new GraphBranch(MAIN, null, -1, -1)),
            PMap.empty(), PMap.empty(), PMap.empty(), PMap.empty(), PMap.empty(), PMap.empty(), PMap.empty(), PMap.empty(),
            null, null, null);

    final long lastSequence;
    final long writerEpoch;
    final int formatStamp;
    final long lastCheckpointSequence;
    /** The {@code throughSequence} of the last {@code ReceiptsExpired} (-1 when none): no receipt at or below it is kept. */
    final long receiptsExpiredThrough;
    final String openRecovery;
    final PMap<String, GraphBranch> branches;
    final PMap<String, PMap<String, Pin>> pins; // only branches with at least one pin
    final PMap<String, OpenIntent> open;
    final PMap<String, CompletedIntent> completed;
    final PMap<String, IntentReceipt> receipts;
    final PMap<String, MigrationProgress> migrations;
    /** Per graph branch, per journal-ack table that ever acknowledged a write: its fold mark. */
    final PMap<String, PMap<String, FoldMark>> folds;
    /** Open fold intents' plans, by intent id. */
    final PMap<String, JournalEvent.FoldPlanned> foldPlans;
    /**
     * By open fold intent id: the writes of its table acknowledged after its plan (a fold's Lance commit runs while
     * acknowledgements continue), as the mark the table has once the fold is applied ({@code foldedThrough} = the
     * plan's watermark). Absent while no write followed the plan.
     */
    final PMap<String, FoldMark> foldLater;
    /** Nullable: the catalog the last {@code CatalogRecorded} recorded (none in a journal older than the record). */
    final JournaledCatalog catalog;
    /**
     * Nullable: the intents completed in this state's lineage since the last {@code CheckpointWritten} applied in it
     * (or since the lineage began: replayed from the empty state or decoded from a checkpoint), newest first, each
     * with the receipt its completion issued. Derived from {@link #completed} and {@link #receipts} (not part of
     * equality): it lets a checkpoint write only what completed since its parent ({@link CheckpointCodec#encodeDelta}).
     */
    final Completion log;
    /**
     * The identity of this state's lineage (not part of equality): the states one replay or one decode leads to, record
     * by record, share it. A delta checkpoint is written only over a parent of the same lineage.
     */
    final Object lineage;

    private volatile String digest;

    /**
     * One completed intent and the receipt its completion issued (nullable: no idempotency key), in a persistent list
     * newest first. {@link #completed} and {@link #receipts} gain entries only in an {@code IntentCompleted}, which
     * also adds a node, so the entries a state has and an ancestor state of its lineage has not are exactly the nodes
     * completed after the ancestor's last sequence (a {@code CheckpointWritten} drops the nodes it covers, never newer
     * ones).
     */
    static final class Completion {
        final CompletedIntent intent;
        final IntentReceipt receipt;
        final Completion next;

        Completion(CompletedIntent intent, IntentReceipt receipt, Completion next) {
            this.intent = intent;
            this.receipt = receipt;
            this.next = next;
        }
    }

    HeadsState(long lastSequence, long writerEpoch, int formatStamp, long lastCheckpointSequence,
               long receiptsExpiredThrough, String openRecovery,
               PMap<String, GraphBranch> branches, PMap<String, PMap<String, Pin>> pins,
               PMap<String, OpenIntent> open, PMap<String, CompletedIntent> completed,
               PMap<String, IntentReceipt> receipts, PMap<String, MigrationProgress> migrations,
               PMap<String, PMap<String, FoldMark>> folds, PMap<String, JournalEvent.FoldPlanned> foldPlans,
               PMap<String, FoldMark> foldLater, JournaledCatalog catalog, Completion log, Object lineage) {
        this.lastSequence = lastSequence;
        this.writerEpoch = writerEpoch;
        this.formatStamp = formatStamp;
        this.lastCheckpointSequence = lastCheckpointSequence;
        this.receiptsExpiredThrough = receiptsExpiredThrough;
        this.openRecovery = openRecovery;
        this.branches = branches;
        this.pins = pins;
        this.open = open;
        this.completed = completed;
        this.receipts = receipts;
        this.migrations = migrations;
        this.folds = folds;
        this.foldPlans = foldPlans;
        this.foldLater = foldLater;
        this.catalog = catalog;
        this.log = log;
        this.lineage = lineage;
    }

    /** The state before the first record: only {@code main}, no heads, stamp and epoch unknown (-1). */
    public static HeadsState empty() {
        return EMPTY;
    }

    /** Applies {@code records} (in sequence order) to {@code state}, one after the other. */
    public static HeadsState replay(HeadsState state, Iterable<JournalRecord> records) {
        HeadsState s = state;
        for (JournalRecord r : records) {
            s = s.apply(r);
        }
        return s;
    }

    /**
     * This state with {@code record} applied: a new state whose {@link #lastSequence()} is the record's sequence; this
     * state is never changed, and a record that cannot follow it produces no state.
     *
     * @throws IllegalTransitionException when the record cannot follow this state
     */
    public HeadsState apply(JournalRecord record) {
        return HeadsReducer.apply(this, record);
    }

    // ------------------------------------------------------------------ queries

    /**
     * The fold mark of a journal-ack table on a graph branch; {@link FoldMark#NONE} when it never acknowledged a
     * write from the journal (every table-ack table).
     */
    public FoldMark foldMark(String branch, String table) {
        PMap<String, FoldMark> m = folds.get(branch);
        FoldMark f = m == null ? null : m.get(table);
        return f == null ? FoldMark.NONE : f;
    }

    /** The fold marks of a graph branch's tables that have unfolded writes, by table. */
    public SortedMap<String, FoldMark> unfoldedTables(String branch) {
        TreeMap<String, FoldMark> out = new TreeMap<>();
        PMap<String, FoldMark> m = folds.get(branch);
        if (m != null) {
            m.forEach((t, f) -> {
                if (f.unfolded() > 0) {
                    out.put(t, f);
                }
            });
        }
        return out;
    }

    /** The plan of an open fold intent. */
    public Optional<JournalEvent.FoldPlanned> foldPlan(String intentId) {
        return Optional.ofNullable(foldPlans.get(intentId));
    }

    /**
     * The catalog the journal last recorded; empty when the journal holds no {@code CatalogRecorded} (a graph created
     * before the record existed, until its first writer open records its catalog).
     */
    public Optional<JournaledCatalog> catalog() {
        return Optional.ofNullable(catalog);
    }

    /** The sequence of the last record applied (-1 for the empty state). */
    public long lastSequence() {
        return lastSequence;
    }

    /** The lease epoch of the last {@code WriterStarted} (-1 when none). */
    public long writerEpoch() {
        return writerEpoch;
    }

    /** The format stamp of the last {@code WriterStarted} or {@code MigrationStampWritten} (-1 when none). */
    public int formatStamp() {
        return formatStamp;
    }

    /** Covered sequence of the last {@code CheckpointWritten} (-1 when none). */
    public long lastCheckpointSequence() {
        return lastCheckpointSequence;
    }

    /** The id of a recovery started and not finished, if any. */
    public Optional<String> openRecovery() {
        return Optional.ofNullable(openRecovery);
    }

    public boolean branchLive(String branch) {
        return branches.containsKey(branch);
    }

    public Optional<GraphBranch> branch(String name) {
        return Optional.ofNullable(branches.get(name));
    }

    /** The live branches by name. */
    public SortedMap<String, GraphBranch> branches() {
        return sorted(branches);
    }

    /** The pin of (branch, table), if the branch has a head for the table. */
    public Optional<Pin> pin(String branch, String table) {
        PMap<String, Pin> p = pins.get(branch);
        return p == null ? Optional.empty() : Optional.ofNullable(p.get(table));
    }

    /** The published head of (branch, table), owned or inherited. */
    public Optional<TableHead> head(String branch, String table) {
        return pin(branch, table).map(Pin::head);
    }

    /** Every pin of a branch by table (empty for an unknown branch). */
    public SortedMap<String, Pin> pins(String branch) {
        PMap<String, Pin> p = pins.get(branch);
        return p == null ? Collections.emptySortedMap() : sorted(p);
    }

    public Optional<OpenIntent> openIntent(String intentId) {
        return Optional.ofNullable(open.get(intentId));
    }

    /** The open intents in the order they were recorded. */
    public List<OpenIntent> openIntents() {
        List<OpenIntent> out = new ArrayList<>(open.size());
        open.forEach((k, v) -> out.add(v));
        out.sort(Comparator.comparingLong(OpenIntent::recordedAt));
        return out;
    }

    /**
     * The outcome of an intent completed after the last checkpoint; empty for an intent still open, unknown, or
     * completed at or before {@link #lastCheckpointSequence()} (the journal keeps its records).
     */
    public Optional<CompletedIntent> completedIntent(String intentId) {
        return Optional.ofNullable(completed.get(intentId));
    }

    /** The completed intents this state keeps: those completed after the last checkpoint. */
    public int completedCount() {
        return completed.size();
    }

    /**
     * The first receipt issued for an idempotency key, if an applied intent carried it and no {@code ReceiptsExpired}
     * has forgotten it since.
     */
    public Optional<IntentReceipt> receipt(String idempotencyKey) {
        return Optional.ofNullable(receipts.get(idempotencyKey));
    }

    /** The idempotency keys whose receipts this state keeps. */
    public int receiptCount() {
        return receipts.size();
    }

    /** The completion sequences of the receipts kept, ascending (for the writer's idempotency window). */
    public long[] receiptSequences() {
        long[] out = new long[receipts.size()];
        int[] i = {0};
        receipts.forEach((k, r) -> out[i[0]++] = r.completionSequence());
        java.util.Arrays.sort(out);
        return out;
    }

    /** The {@code throughSequence} of the last {@code ReceiptsExpired} applied, -1 when none. */
    public long receiptsExpiredThrough() {
        return receiptsExpiredThrough;
    }

    public Optional<MigrationProgress> migration(String migrationId) {
        return Optional.ofNullable(migrations.get(migrationId));
    }

    public SortedMap<String, MigrationProgress> migrations() {
        return sorted(migrations);
    }

    private static <V> SortedMap<String, V> sorted(PMap<String, V> m) {
        TreeMap<String, V> t = new TreeMap<>();
        m.forEach(t::put);
        return Collections.unmodifiableSortedMap(t);
    }

    /**
     * SHA-256 (hex) of the canonical rendering of the live branches (name, parent, from sequence),
     * every pin (branch, table, table branch, version, schema id, incarnation, inherited-from), sorted by
     * name, the fold marks and the digests of the recorded catalog and of the one before it ({@code HeadsDigest}). Independent of sequences at which things happened and of intents, so that checkpoint + tail
     * replay, full replay and a re-run recovery agree exactly when the heads agree.
     */
    public String digest() {
        String d = digest;
        if (d == null) {
            d = HeadsDigest.of(this);
            digest = d;
        }
        return d;
    }

    /** Equal when every part of the state is equal (heads, branches, intents, receipts, migrations, marks). */
    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        return o instanceof HeadsState s && lastSequence == s.lastSequence && writerEpoch == s.writerEpoch
                && formatStamp == s.formatStamp && lastCheckpointSequence == s.lastCheckpointSequence
                && receiptsExpiredThrough == s.receiptsExpiredThrough
                && Objects.equals(openRecovery, s.openRecovery) && branches.equals(s.branches)
                && pins.equals(s.pins) && open.equals(s.open) && completed.equals(s.completed)
                && receipts.equals(s.receipts) && migrations.equals(s.migrations) && folds.equals(s.folds)
                && foldPlans.equals(s.foldPlans) && foldLater.equals(s.foldLater) && Objects.equals(catalog, s.catalog);
    }

    @Override
    public int hashCode() {
        return Objects.hash(lastSequence, branches, pins, open.size(), completed.size(), receipts.size());
    }

    @Override
    public String toString() {
        return "HeadsState[lastSequence=" + lastSequence + ", branches=" + branches.size() + ", open intents="
                + open.size() + ", completed=" + completed.size() + ", receipts=" + receipts.size() + ", stamp="
                + formatStamp + ", digest=" + digest() + "]";
    }
}
