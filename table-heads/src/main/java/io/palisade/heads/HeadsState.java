package io.palisade.heads;

import io.palisade.journal.HeadTransition;
import io.palisade.journal.IntentOutcome;
import io.palisade.journal.JournalEvent;
import io.palisade.journal.JournalEvent.CheckpointWritten;
import io.palisade.journal.JournalEvent.GraphBranchCreated;
import io.palisade.journal.JournalEvent.GraphBranchDeleted;
import io.palisade.journal.JournalEvent.HeadPublished;
import io.palisade.journal.JournalEvent.LoadProgress;
import io.palisade.journal.JournalEvent.IntentCompleted;
import io.palisade.journal.JournalEvent.IntentRecorded;
import io.palisade.journal.JournalEvent.MigrationBranchVerified;
import io.palisade.journal.JournalEvent.MigrationClaimed;
import io.palisade.journal.JournalEvent.MigrationPkInstalled;
import io.palisade.journal.JournalEvent.MigrationRefused;
import io.palisade.journal.JournalEvent.MigrationStampWritten;
import io.palisade.journal.JournalEvent.MigrationUnitForked;
import io.palisade.journal.JournalEvent.MigrationUnitPlanned;
import io.palisade.journal.JournalEvent.MigrationUnitPublished;
import io.palisade.journal.JournalEvent.RecoveryFinished;
import io.palisade.journal.JournalEvent.RecoveryStarted;
import io.palisade.journal.JournalEvent.TableCommitted;
import io.palisade.journal.JournalEvent.TornTailCut;
import io.palisade.journal.JournalEvent.WriterStarted;
import io.palisade.journal.JournalRecord;
import io.palisade.journal.TableHead;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The state of a graph as a pure fold of its journal records (DESIGN §2 {@code table-heads}).
 *
 * <p>Holds: per (graph branch, table) the published head as a {@link Pin} (owned or lazily inherited);
 * the live graph branches with their creation point; open intents with their Phase A payload and the
 * phase reached; completed intents' outcomes; idempotency keys → first {@link Receipt}; PK migration
 * progress; the format stamp; the last sequence folded.
 *
 * <p>Immutable: {@link #apply} returns a new state and shares every unchanged part with this one
 * (persistent hash tries), so folding a long journal costs O(log n) per record.
 *
 * <p>Invariants enforced by {@link #apply} (a violation throws {@link IllegalTransitionException} naming
 * the sequence, and the branch and table where there is one):
 * <ul>
 *   <li>records are folded densely: each sequence is {@code lastSequence() + 1};</li>
 *   <li>a head transition's {@code from} equals the current head of (branch, table) ({@code null} when none),
 *       the branch is live, the version never decreases on the same table branch and incarnation, and the
 *       incarnation never decreases;</li>
 *   <li>a branch is created once from a live parent, inheriting the parent's pins as of {@code fromSequence},
 *       which must not be older than the last head change of any inherited table; {@code main} is never deleted;</li>
 *   <li>an intent id is recorded once and completed once; a {@code TableCommitted} names only open,
 *       uncommitted intents of its (branch, table); {@code COMMITTED}/{@code ROLLED_FORWARD} require the
 *       head to have been published, every other outcome requires that no table commit was seen;</li>
 *   <li>an idempotency key that issued a receipt, or that an open intent carries, is never recorded again;</li>
 *   <li>migration units move forward only: planned, [forked,] installed, published.</li>
 * </ul>
 */
public final class HeadsState {
    /** The graph branch that exists before the first record. */
    public static final String MAIN = "main";

    private static final HeadsState EMPTY = new HeadsState(-1, -1, -1, -1, null,
            PMap.<String, GraphBranch>empty().put(MAIN, new GraphBranch(MAIN, null, -1, -1)),
            PMap.empty(), PMap.empty(), PMap.empty(), PMap.empty(), PMap.empty(), PMap.empty(), PMap.empty(), PMap.empty(),
            null);

    final long lastSequence;
    final long writerEpoch;
    final int formatStamp;
    final long lastCheckpointSequence;
    final String openRecovery;
    final PMap<String, GraphBranch> branches;
    final PMap<String, PMap<String, Pin>> pins; // only branches with at least one pin
    final PMap<String, OpenIntent> open;
    final PMap<String, CompletedIntent> completed;
    final PMap<String, Receipt> receipts;
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
    /**
     * Nullable: the intents completed since this state's lineage began in this process (folded from the empty state or
     * decoded from a checkpoint), newest first, each with the receipt its completion issued. Derived from
     * {@link #completed} and {@link #receipts} (not part of equality): it lets a checkpoint write only what completed
     * since its parent ({@link CheckpointCodec#encodeDelta}).
     */
    final Completion log;

    private volatile String digest;

    /**
     * One completed intent and the receipt its completion issued (nullable: no idempotency key), in a persistent list
     * newest first. {@link #completed} and {@link #receipts} only ever gain entries, and each gains them only in an
     * {@code IntentCompleted}, so the entries a state has and an ancestor state has not are exactly the list's nodes
     * above the ancestor's head.
     */
    static final class Completion {
        final CompletedIntent intent;
        final Receipt receipt;
        final Completion next;

        Completion(CompletedIntent intent, Receipt receipt, Completion next) {
            this.intent = intent;
            this.receipt = receipt;
            this.next = next;
        }
    }

    HeadsState(long lastSequence, long writerEpoch, int formatStamp, long lastCheckpointSequence, String openRecovery,
               PMap<String, GraphBranch> branches, PMap<String, PMap<String, Pin>> pins,
               PMap<String, OpenIntent> open, PMap<String, CompletedIntent> completed,
               PMap<String, Receipt> receipts, PMap<String, MigrationProgress> migrations,
               PMap<String, PMap<String, FoldMark>> folds, PMap<String, JournalEvent.FoldPlanned> foldPlans,
               PMap<String, FoldMark> foldLater, Completion log) {
        this.lastSequence = lastSequence;
        this.writerEpoch = writerEpoch;
        this.formatStamp = formatStamp;
        this.lastCheckpointSequence = lastCheckpointSequence;
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
        this.log = log;
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
     * This state with {@code record} folded in.
     *
     * @throws IllegalTransitionException when the record cannot follow this state
     */
    public HeadsState apply(JournalRecord record) {
        long seq = record.sequence();
        if (seq != lastSequence + 1) {
            throw new IllegalTransitionException(seq, null, null,
                    "record out of order: expected sequence " + (lastSequence + 1));
        }
        Fold f = new Fold(this, seq);
        JournalEvent event = record.event();
        switch (event) {
            case WriterStarted e -> f.writerStarted(e);
            case IntentRecorded e -> f.intentRecorded(e);
            case TableCommitted e -> f.tableCommitted(e);
            case HeadPublished e -> f.headPublished(e);
            case IntentCompleted e -> f.intentCompleted(e, record.timestampNanos());
            case GraphBranchCreated e -> f.branchCreated(e);
            case GraphBranchDeleted e -> f.branchDeleted(e);
            case CheckpointWritten e -> f.checkpointWritten(e);
            case MigrationClaimed e -> f.migrationClaimed(e);
            case MigrationUnitPlanned e -> f.unitPlanned(e);
            case MigrationUnitForked e -> f.unitForked(e);
            case MigrationPkInstalled e -> f.pkInstalled(e);
            case MigrationUnitPublished e -> f.unitPublished(e);
            case MigrationBranchVerified e -> f.branchVerified(e);
            case MigrationStampWritten e -> f.stampWritten(e);
            case MigrationRefused e -> f.migrationRefused(e);
            case RecoveryStarted e -> f.openRecovery = e.recoveryId();
            case RecoveryFinished e -> f.openRecovery = null;
            case LoadProgress e -> f.loadProgress(e);
            case TornTailCut e -> {
                // the journal's own bookkeeping: nothing in the heads changes
            }
            case JournalEvent.TableVersionSetAside e -> {
                // a torn version above the head moved out of the table: no head changes; the open intents it
                // belonged to complete in their own IntentCompleted records
            }
            case JournalEvent.ForeignCommitFound e -> {
                // evidence only: the achieved version is not published (no head changes); its intents complete
                // FOREIGN_COMMIT in their own IntentCompleted records, and recovery refuses the table until adopted
            }
            case JournalEvent.DuplicatesRepaired e -> {
                // the rows a repair removes: evidence for explain; its intent's records move the head
            }
            case JournalEvent.RowsRecorded e -> f.rowsRecorded(e);
            case JournalEvent.FoldPlanned e -> f.foldPlanned(e);
        }
        return f.result();
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

    /** The sequence of the last record folded (-1 for the empty state). */
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

    public Optional<CompletedIntent> completedIntent(String intentId) {
        return Optional.ofNullable(completed.get(intentId));
    }

    public int completedCount() {
        return completed.size();
    }

    /** The first receipt issued for an idempotency key, if an applied intent carried it. */
    public Optional<Receipt> receipt(String idempotencyKey) {
        return Optional.ofNullable(receipts.get(idempotencyKey));
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
     * SHA-256 (hex) of the canonical rendering of the live branches (name, parent, from sequence) and
     * every pin (branch, table, table branch, version, schema id, incarnation, inherited-from), sorted by
     * name. Independent of sequences at which things happened and of intents, so that checkpoint + tail
     * replay, full replay and a re-run recovery agree exactly when the heads agree.
     */
    public String digest() {
        String d = digest;
        if (d == null) {
            d = computeDigest();
            digest = d;
        }
        return d;
    }

    private String computeDigest() {
        try {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            DataOutputStream out = new DataOutputStream(bytes);
            out.writeUTF("palisade-heads-digest-v1");
            List<Map.Entry<String, GraphBranch>> bs = branches.sortedEntries(Comparator.naturalOrder());
            out.writeInt(bs.size());
            for (Map.Entry<String, GraphBranch> b : bs) {
                GraphBranch g = b.getValue();
                out.writeUTF(g.name());
                writeNullable(out, g.parent());
                out.writeLong(g.fromSequence());
                PMap<String, Pin> p = pins.get(g.name());
                List<Map.Entry<String, Pin>> ps = p == null ? List.of() : p.sortedEntries(Comparator.naturalOrder());
                out.writeInt(ps.size());
                for (Map.Entry<String, Pin> e : ps) {
                    TableHead h = e.getValue().head();
                    out.writeUTF(e.getKey());
                    out.writeUTF(h.tableBranch());
                    out.writeLong(h.version());
                    out.writeLong(h.schemaId());
                    out.writeLong(h.incarnation());
                    writeNullable(out, e.getValue().inheritedFrom());
                }
            }
            // journal-ack fold marks (absent from states without any, so that their digest is unchanged)
            List<Map.Entry<String, PMap<String, FoldMark>>> fs = folds.sortedEntries(Comparator.naturalOrder());
            if (!fs.isEmpty()) {
                out.writeUTF("folds");
                out.writeInt(fs.size());
                for (Map.Entry<String, PMap<String, FoldMark>> b : fs) {
                    List<Map.Entry<String, FoldMark>> ts = b.getValue().sortedEntries(Comparator.naturalOrder());
                    out.writeUTF(b.getKey());
                    out.writeInt(ts.size());
                    for (Map.Entry<String, FoldMark> t : ts) {
                        out.writeUTF(t.getKey());
                        out.writeLong(t.getValue().foldedThrough());
                        out.writeLong(t.getValue().unfolded());
                    }
                }
            }
            out.flush();
            return java.util.HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes.toByteArray()));
        } catch (IOException e) {
            throw new UncheckedIOException(e); // in-memory stream: cannot happen
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required of every JDK", e);
        }
    }

    private static void writeNullable(DataOutputStream out, String s) throws IOException {
        out.writeBoolean(s != null);
        if (s != null) {
            out.writeUTF(s);
        }
    }

    /** Equal when every part of the state is equal (heads, branches, intents, receipts, migrations, marks). */
    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        return o instanceof HeadsState s && lastSequence == s.lastSequence && writerEpoch == s.writerEpoch
                && formatStamp == s.formatStamp && lastCheckpointSequence == s.lastCheckpointSequence
                && Objects.equals(openRecovery, s.openRecovery) && branches.equals(s.branches)
                && pins.equals(s.pins) && open.equals(s.open) && completed.equals(s.completed)
                && receipts.equals(s.receipts) && migrations.equals(s.migrations) && folds.equals(s.folds)
                && foldPlans.equals(s.foldPlans) && foldLater.equals(s.foldLater);
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

    // ------------------------------------------------------------------ the reducer

    /** One step of the fold: a mutable copy of the parts (persistent maps shared) that a record changes. */
    private static final class Fold {
        final long seq;
        long writerEpoch;
        int formatStamp;
        long lastCheckpointSequence;
        String openRecovery;
        PMap<String, GraphBranch> branches;
        PMap<String, PMap<String, Pin>> pins;
        PMap<String, OpenIntent> open;
        PMap<String, CompletedIntent> completed;
        PMap<String, Receipt> receipts;
        PMap<String, MigrationProgress> migrations;
        PMap<String, PMap<String, FoldMark>> folds;
        PMap<String, JournalEvent.FoldPlanned> foldPlans;
        PMap<String, FoldMark> foldLater;
        Completion log;

        Fold(HeadsState s, long seq) {
            this.seq = seq;
            writerEpoch = s.writerEpoch;
            formatStamp = s.formatStamp;
            lastCheckpointSequence = s.lastCheckpointSequence;
            openRecovery = s.openRecovery;
            branches = s.branches;
            pins = s.pins;
            open = s.open;
            completed = s.completed;
            receipts = s.receipts;
            migrations = s.migrations;
            folds = s.folds;
            foldPlans = s.foldPlans;
            foldLater = s.foldLater;
            log = s.log;
        }

        HeadsState result() {
            return new HeadsState(seq, writerEpoch, formatStamp, lastCheckpointSequence, openRecovery, branches, pins,
                    open, completed, receipts, migrations, folds, foldPlans, foldLater, log);
        }

        private FoldMark mark(String branch, String table) {
            PMap<String, FoldMark> m = folds.get(branch);
            FoldMark f = m == null ? null : m.get(table);
            return f == null ? FoldMark.NONE : f;
        }

        private void putMark(String branch, String table, FoldMark f) {
            PMap<String, FoldMark> m = folds.get(branch);
            folds = folds.put(branch, (m == null ? PMap.<String, FoldMark>empty() : m).put(table, f));
        }

        /** A journal-ack write's rows: only for an open insert, upsert or delete intent still in phase A. */
        void rowsRecorded(JournalEvent.RowsRecorded e) {
            OpenIntent o = open.get(e.intentId());
            if (o == null) {
                throw fail(e.graphBranch(), e.table(), "rows recorded for intent " + e.intentId() + ", which is not open");
            }
            if (!o.graphBranch().equals(e.graphBranch()) || !o.table().equals(e.table())
                    || o.phase() != IntentPhase.RECORDED || !journalable(o.recorded().operation())) {
                throw fail(e.graphBranch(), e.table(), "rows recorded for intent " + e.intentId() + " ("
                        + o.recorded().operation() + " of " + o.graphBranch() + "/" + o.table() + ", " + o.phase()
                        + "), which is not an open journal-ack write of this table");
            }
        }

        /** A fold's plan: follows its own open FOLD intent, and covers exactly the table's unfolded writes. */
        void foldPlanned(JournalEvent.FoldPlanned e) {
            OpenIntent o = open.get(e.intentId());
            if (o == null || o.recorded().operation() != io.palisade.journal.LogicalOperation.FOLD
                    || !o.graphBranch().equals(e.graphBranch()) || !o.table().equals(e.table())
                    || o.phase() != IntentPhase.RECORDED || foldPlans.containsKey(e.intentId())) {
                throw fail(e.graphBranch(), e.table(), "fold plan of intent " + e.intentId()
                        + ", which is not an open fold intent of this table in phase A");
            }
            if (openPlan(e.graphBranch(), e.table()) != null) {
                throw fail(e.graphBranch(), e.table(), "fold plan of intent " + e.intentId() + " while the fold "
                        + openPlan(e.graphBranch(), e.table()).intentId() + " of the table is open");
            }
            FoldMark m = mark(e.graphBranch(), e.table());
            if (m.unfolded() != e.writes() || m.newestSequence() != e.throughSequence()) {
                throw fail(e.graphBranch(), e.table(), "fold " + e.intentId() + " covers " + e.writes()
                        + " writes through sequence " + e.throughSequence() + ", but the table has " + m.unfolded()
                        + " unfolded writes through " + m.newestSequence());
            }
            foldPlans = foldPlans.put(e.intentId(), e);
        }

        /** The open fold plan of (branch, table), null when none (at most one is open per table). */
        private JournalEvent.FoldPlanned openPlan(String branch, String table) {
            JournalEvent.FoldPlanned[] found = {null};
            foldPlans.forEach((id, p) -> {
                if (p.graphBranch().equals(branch) && p.table().equals(table)) {
                    found[0] = p;
                }
            });
            return found[0];
        }

        IllegalTransitionException fail(String branch, String table, String message) {
            return new IllegalTransitionException(seq, branch, table, message);
        }

        void writerStarted(WriterStarted e) {
            if (e.epoch() < writerEpoch) {
                throw fail(null, null, "writer epoch goes backwards: " + e.epoch() + " after " + writerEpoch);
            }
            writerEpoch = e.epoch();
            formatStamp = e.formatStamp();
        }

        void intentRecorded(IntentRecorded e) {
            String id = e.intentId();
            if (open.containsKey(id) || completed.containsKey(id)) {
                throw fail(e.graphBranch(), e.table(), "intent " + id + " recorded twice");
            }
            if (!branches.containsKey(e.graphBranch())) {
                throw fail(e.graphBranch(), e.table(), "intent " + id + " on a graph branch that is not live");
            }
            String key = e.idempotencyKey();
            if (key != null) {
                Receipt r = receipts.get(key);
                if (r != null) {
                    throw fail(e.graphBranch(), e.table(), "intent " + id + " reuses idempotency key '" + key
                            + "' that already has the receipt of intent " + r.intentId());
                }
                String[] holder = {null};
                open.forEach((k, o) -> {
                    if (key.equals(o.recorded().idempotencyKey())) {
                        holder[0] = k;
                    }
                });
                if (holder[0] != null) {
                    throw fail(e.graphBranch(), e.table(), "intent " + id + " reuses idempotency key '" + key
                            + "' of the open intent " + holder[0]);
                }
            }
            open = open.put(id, OpenIntent.recorded(e, seq));
        }

        void tableCommitted(TableCommitted e) {
            if (e.intentIds().isEmpty()) {
                throw fail(e.graphBranch(), e.table(), "table commit at version " + e.achievedVersion()
                        + " names no intent");
            }
            for (String id : e.intentIds()) {
                OpenIntent o = open.get(id);
                if (o == null) {
                    throw fail(e.graphBranch(), e.table(), "table commit names intent " + id + ", which is not open");
                }
                if (!o.graphBranch().equals(e.graphBranch()) || !o.table().equals(e.table())) {
                    throw fail(e.graphBranch(), e.table(), "table commit names intent " + id + " of branch '"
                            + o.graphBranch() + "', table '" + o.table() + "'");
                }
                if (o.phase() != IntentPhase.RECORDED) {
                    throw fail(e.graphBranch(), e.table(), "intent " + id + " committed twice (already " + o.phase()
                            + ")");
                }
                open = open.put(id, o.committed(e.tableBranch(), e.achievedVersion(), seq));
            }
        }

        /**
         * A bulk load's batch progress: only valid for an open intent still before phase B's journaled
         * commit (a load journals its single TableCommitted at the end). It changes no head: the load
         * publishes once, at the end. Recovery reads the progress records from the journal itself.
         */
        void loadProgress(LoadProgress e) {
            OpenIntent o = open.get(e.intentId());
            if (o == null) {
                throw fail(null, null, "load progress names intent " + e.intentId() + ", which is not open");
            }
            if (o.phase() != IntentPhase.RECORDED) {
                throw fail(o.graphBranch(), o.table(), "load progress of intent " + e.intentId() + " after phase "
                        + o.phase());
            }
        }

        void headPublished(HeadPublished e) {
            for (HeadTransition t : e.transitions()) {
                publish(t);
                attribute(t);
            }
        }

        /** Marks phase C on the open intents whose effect the transition publishes. */
        private void attribute(HeadTransition t) {
            List<OpenIntent> hits = new ArrayList<>();
            open.forEach((id, o) -> {
                if (!o.graphBranch().equals(t.graphBranch()) || !o.table().equals(t.table())) {
                    return;
                }
                boolean hit = switch (o.phase()) {
                    case RECORDED -> o.recorded().intendedTransition().to().equals(t.to());
                    case TABLE_COMMITTED -> o.committedTableBranch().equals(t.to().tableBranch())
                            && o.committedVersion() == t.to().version();
                    case HEAD_PUBLISHED -> false;
                };
                if (hit) {
                    hits.add(o);
                }
            });
            for (OpenIntent o : hits) {
                open = open.put(o.intentId(), o.published(t.to(), seq));
            }
        }

        private void publish(HeadTransition t) {
            String b = t.graphBranch();
            String table = t.table();
            if (!branches.containsKey(b)) {
                throw fail(b, table, "head published on a graph branch that is not live");
            }
            PMap<String, Pin> bp = pins.get(b);
            Pin cur = bp == null ? null : bp.get(table);
            TableHead now = cur == null ? null : cur.head();
            TableHead to = t.to();
            if (!Objects.equals(now, t.from())) {
                throw fail(b, table, "head transition from " + t.from() + " does not match the current head " + now);
            }
            if (now != null) {
                if (to.incarnation() < now.incarnation()) {
                    throw fail(b, table, "incarnation goes backwards: " + now + " -> " + to);
                }
                if (to.incarnation() == now.incarnation() && to.tableBranch().equals(now.tableBranch())
                        && to.version() < now.version()) {
                    throw fail(b, table, "head version goes backwards on table branch '" + to.tableBranch() + "': "
                            + now.version() + " -> " + to.version());
                }
            }
            bp = (bp == null ? PMap.<String, Pin>empty() : bp).put(table, new Pin(to, null, seq));
            pins = pins.put(b, bp);
        }

        private static boolean journalable(io.palisade.journal.LogicalOperation op) {
            return switch (op) {
                case INSERT, UPSERT, DELETE -> true;
                case OVERWRITE, ADD_COLUMNS, CREATE_TABLE, BRANCH_MERGE, INDEX_MAINTENANCE, COMPACTION, MIGRATION_UNIT,
                     FOLD, REPAIR -> false;
            };
        }

        void intentCompleted(IntentCompleted e, long nanos) {
            OpenIntent o = open.get(e.intentId());
            if (o == null) {
                CompletedIntent c = completed.get(e.intentId());
                throw fail(c == null ? null : c.graphBranch(), c == null ? null : c.table(), "intent " + e.intentId()
                        + (c == null ? " completed but never recorded" : " completed twice (already " + c.outcome()
                        + " at sequence " + c.completedAt() + ")"));
            }
            IntentOutcome outcome = e.outcome();
            boolean applied = outcome == IntentOutcome.COMMITTED || outcome == IntentOutcome.ROLLED_FORWARD;
            if (applied && o.phase() != IntentPhase.HEAD_PUBLISHED) {
                throw fail(o.graphBranch(), o.table(), "intent " + o.intentId() + " completed " + outcome
                        + " but its head was never published (phase " + o.phase() + ")");
            }
            if (!applied && o.phase() != IntentPhase.RECORDED) {
                throw fail(o.graphBranch(), o.table(), "intent " + o.intentId() + " completed " + outcome
                        + " after its substrate effect was journaled (phase " + o.phase() + ")");
            }
            if (outcome == IntentOutcome.JOURNALED && !journalable(o.recorded().operation())) {
                throw fail(o.graphBranch(), o.table(), "intent " + o.intentId() + " (" + o.recorded().operation()
                        + ") completed JOURNALED; only inserts, upserts and deletes are acknowledged from the journal");
            }
            JournalEvent.FoldPlanned plan = foldPlans.get(o.intentId());
            if (plan != null) {
                foldPlans = foldPlans.remove(o.intentId());
                FoldMark later = foldLater.get(o.intentId());
                foldLater = foldLater.remove(o.intentId());
                if (applied) {
                    // the writes acknowledged after the plan stay unfolded, above the fold's watermark
                    FoldMark m = mark(o.graphBranch(), o.table());
                    long newest = later == null ? plan.throughSequence() : later.newestSequence();
                    if (m.newestSequence() != newest
                            || m.unfolded() != plan.writes() + (later == null ? 0 : later.unfolded())) {
                        throw fail(o.graphBranch(), o.table(), "fold " + o.intentId() + " completed " + outcome
                                + " through sequence " + plan.throughSequence() + " (" + plan.writes()
                                + " writes), but the table has " + m.unfolded() + " unfolded writes through "
                                + m.newestSequence());
                    }
                    putMark(o.graphBranch(), o.table(), later == null ? m.folded(plan.throughSequence()) : later);
                }
            }
            if (outcome == IntentOutcome.JOURNALED) {
                putMark(o.graphBranch(), o.table(), mark(o.graphBranch(), o.table()).acknowledged(o.recordedAt(), seq, nanos));
                JournalEvent.FoldPlanned folding = openPlan(o.graphBranch(), o.table());
                if (folding != null) {
                    FoldMark later = foldLater.get(folding.intentId());
                    foldLater = foldLater.put(folding.intentId(), (later == null
                            ? FoldMark.NONE.folded(folding.throughSequence()) : later).acknowledged(o.recordedAt(), seq, nanos));
                }
            }
            open = open.remove(o.intentId());
            String key = o.recorded().idempotencyKey();
            CompletedIntent done = new CompletedIntent(o.intentId(), outcome, o.graphBranch(), o.table(), key, seq,
                    applied ? o.publishedHead() : null);
            completed = completed.put(o.intentId(), done);
            Receipt receipt = null;
            if (outcome == IntentOutcome.JOURNALED && key != null) {
                PMap<String, Pin> bp = pins.get(o.graphBranch());
                Pin pin = bp == null ? null : bp.get(o.table());
                TableHead h = pin == null ? o.recorded().intendedTransition().to() : pin.head();
                long rows = o.recorded().keyFilter() == null ? -1 : o.recorded().keyFilter().size();
                receipt = new Receipt(o.intentId(), seq, o.graphBranch(), o.table(), h.tableBranch(), h.version(),
                        outcome, rows);
            }
            if (applied && key != null) {
                TableHead h = o.publishedHead();
                long rows = o.recorded().keyFilter() == null ? -1 : o.recorded().keyFilter().size();
                receipt = new Receipt(o.intentId(), seq, o.graphBranch(), o.table(), h.tableBranch(), h.version(),
                        outcome, rows);
            }
            if (receipt != null) {
                receipts = receipts.put(key, receipt);
            }
            log = new Completion(done, receipt, log);
        }

        void branchCreated(GraphBranchCreated e) {
            String b = e.branch();
            String p = e.fromBranch();
            if (branches.containsKey(b)) {
                throw fail(b, null, "graph branch created twice");
            }
            GraphBranch parent = branches.get(p);
            if (parent == null) {
                throw fail(b, null, "graph branch created from '" + p + "', which is not live");
            }
            long from = e.fromSequence();
            if (from >= seq || from < parent.createdAt()) {
                throw fail(b, null, "graph branch created from '" + p + "' as of sequence " + from
                        + ", outside the parent's life [" + parent.createdAt() + ", " + seq + ")");
            }
            PMap<String, FoldMark> parentFolds = folds.get(p);
            if (parentFolds != null) {
                parentFolds.forEach((t, m) -> {
                    if (m.unfolded() > 0) {
                        throw fail(b, t, "graph branch created from '" + p + "' while its journal-ack table has "
                                + m.unfolded() + " unfolded writes; a branch is created after its parent's tables are folded");
                    }
                });
            }
            PMap<String, Pin> pp = pins.get(p);
            if (pp != null) {
                PMap<String, Pin> child = PMap.empty();
                for (Map.Entry<String, Pin> en : pp.sortedEntries(Comparator.naturalOrder())) {
                    Pin pin = en.getValue();
                    if (pin.since() > from) {
                        throw fail(b, en.getKey(), "graph branch created from '" + p + "' as of sequence " + from
                                + ", but the parent's head of this table changed after it (at " + pin.since()
                                + "); the inherited head is unknown");
                    }
                    child = child.put(en.getKey(), new Pin(pin.head(), p, seq));
                }
                pins = pins.put(b, child);
            }
            branches = branches.put(b, new GraphBranch(b, p, from, seq));
        }

        void branchDeleted(GraphBranchDeleted e) {
            String b = e.branch();
            if (MAIN.equals(b)) {
                throw fail(b, null, "the main graph branch cannot be deleted");
            }
            if (!branches.containsKey(b)) {
                throw fail(b, null, "deleted graph branch is not live");
            }
            branches = branches.remove(b);
            pins = pins.remove(b);
            folds = folds.remove(b);
        }

        void checkpointWritten(CheckpointWritten e) {
            if (e.coveredSequence() >= seq || e.coveredSequence() < 0) {
                throw fail(null, null, "checkpoint written covering sequence " + e.coveredSequence());
            }
            lastCheckpointSequence = e.coveredSequence();
        }

        private MigrationProgress migration(String id, String branch, String table) {
            MigrationProgress m = migrations.get(id);
            if (m == null) {
                throw fail(branch, table, "migration " + id + " was never claimed");
            }
            return m;
        }

        private MigrationUnit unit(MigrationProgress m, String unitId, MigrationUnit.Phase... allowed) {
            MigrationUnit u = m.units().get(unitId);
            if (u == null) {
                throw fail(null, null, "migration " + m.migrationId() + " unit " + unitId + " was never planned");
            }
            for (MigrationUnit.Phase a : allowed) {
                if (u.phase() == a) {
                    return u;
                }
            }
            throw fail(u.graphBranch(), u.table(), "migration " + m.migrationId() + " unit " + unitId + " is "
                    + u.phase() + ", expected one of " + List.of(allowed));
        }

        void migrationClaimed(MigrationClaimed e) {
            if (migrations.containsKey(e.migrationId())) {
                throw fail(null, null, "migration " + e.migrationId() + " claimed twice");
            }
            migrations = migrations.put(e.migrationId(), MigrationProgress.claimed(e.migrationId(), e.ownerToken(),
                    e.fromStamp(), e.toStamp(), seq));
        }

        void unitPlanned(MigrationUnitPlanned e) {
            MigrationProgress m = migration(e.migrationId(), e.graphBranch(), e.table());
            if (m.units().containsKey(e.unitId())) {
                throw fail(e.graphBranch(), e.table(), "migration " + e.migrationId() + " unit " + e.unitId()
                        + " planned twice");
            }
            migrations = migrations.put(m.migrationId(), m.withUnit(new MigrationUnit(e.unitId(), e.graphBranch(),
                    e.table(), e.pinnedTableBranch(), e.pinnedVersion(), e.lazyInherited(), MigrationUnit.Phase.PLANNED,
                    null, -1, null)));
        }

        void unitForked(MigrationUnitForked e) {
            MigrationProgress m = migration(e.migrationId(), null, null);
            MigrationUnit u = unit(m, e.unitId(), MigrationUnit.Phase.PLANNED);
            migrations = migrations.put(m.migrationId(), m.withUnit(u.forked(e.tableBranch())));
        }

        void pkInstalled(MigrationPkInstalled e) {
            MigrationProgress m = migration(e.migrationId(), null, e.table());
            MigrationUnit u = unit(m, e.unitId(), MigrationUnit.Phase.PLANNED, MigrationUnit.Phase.FORKED);
            migrations = migrations.put(m.migrationId(), m.withUnit(u.installed(e.achievedVersion())));
        }

        void unitPublished(MigrationUnitPublished e) {
            MigrationProgress m = migration(e.migrationId(), e.transition().graphBranch(), e.transition().table());
            MigrationUnit u = unit(m, e.unitId(), MigrationUnit.Phase.INSTALLED);
            publish(e.transition());
            migrations = migrations.put(m.migrationId(), m.withUnit(u.published(e.transition().to())));
        }

        void branchVerified(MigrationBranchVerified e) {
            MigrationProgress m = migration(e.migrationId(), e.graphBranch(), null);
            migrations = migrations.put(m.migrationId(), m.withVerified(e.graphBranch(), e.digest()));
        }

        void stampWritten(MigrationStampWritten e) {
            MigrationProgress m = migration(e.migrationId(), null, null);
            migrations = migrations.put(m.migrationId(), m.withStamp(e.stamp()));
            formatStamp = e.stamp();
        }

        void migrationRefused(MigrationRefused e) {
            MigrationProgress m = migration(e.migrationId(), e.graphBranch(), e.table());
            migrations = migrations.put(m.migrationId(), m.refused(e.reason()));
        }
    }
}
