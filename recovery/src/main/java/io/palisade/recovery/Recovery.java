package io.palisade.recovery;

import io.palisade.fencing.ForeignCommitException;
import io.palisade.fencing.TableCorruptedException;
import io.palisade.heads.Checkpoints;
import io.palisade.heads.HeadsReplayer;
import io.palisade.heads.HeadsState;
import io.palisade.heads.IntentPhase;
import io.palisade.heads.OpenIntent;
import io.palisade.heads.PhaseCrashPoints;
import io.palisade.heads.Pin;
import io.palisade.journal.Durability;
import io.palisade.journal.HeadTransition;
import io.palisade.journal.IntentOutcome;
import io.palisade.journal.Journal;
import io.palisade.journal.JournalEvent;
import io.palisade.journal.JournalEvent.HeadPublished;
import io.palisade.journal.JournalEvent.IntentCompleted;
import io.palisade.journal.JournalEvent.LoadProgress;
import io.palisade.journal.JournalCursor;
import io.palisade.journal.JournalReader;
import io.palisade.journal.JournalEvent.TableCommitted;
import io.palisade.journal.JournalEvent.TableVersionSetAside;
import io.palisade.journal.JournalRecord;
import io.palisade.journal.RecoveryClassification;
import io.palisade.journal.RecoveryClassification.Kind;
import io.palisade.journal.TableHead;
import io.palisade.substrate.DamagedVersion;
import io.palisade.substrate.OperationKind;
import io.palisade.substrate.TableRef;
import io.palisade.substrate.TableStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * Classifies every intent without a completion exactly as DESIGN §5's table says, journals each
 * decision, and refuses the graph when a table version is explained by no journaled intent.
 *
 * <table>
 *   <caption>Classification</caption>
 *   <tr><td>head published, no completion</td><td>complete as COMMITTED</td></tr>
 *   <tr><td>table branch still at the expected base</td><td>complete as ABORTED</td></tr>
 *   <tr><td>effect present, head not published</td><td>publish the achieved version, complete as ROLLED_FORWARD</td></tr>
 *   <tr><td>a version no intent explains</td><td>{@link ForeignCommitException} (PENDING) naming table, branch and versions</td></tr>
 * </table>
 *
 * <p>Journaling: {@code RecoveryStarted} (synced), then one synced batch per (graph branch, table)
 * group holding that group's decisions, then {@code RecoveryFinished}. Each step is followed by a
 * crash point ({@link PhaseCrashPoints}).
 *
 * <p>Invariant: one substrate commit is in flight per table, so every open intent of a (graph branch,
 * table) belongs to the same group and the versions past its expected base are that group's effect.
 * Recovery is idempotent and crash-safe: it only appends records for intents still open (and closes a
 * recovery left open by an earlier, killed run), so a second run finds nothing to do; killed part-way,
 * a re-run decides exactly what is still open, from the same substrate evidence, and so converges to
 * the same heads.
 */
public final class Recovery {
    private static final Logger LOG = LoggerFactory.getLogger(Recovery.class);

    private Recovery() {
    }

    /** Runs recovery over a replay (checkpoint + tail); the report names the checkpoint and what was skipped. */
    public static RecoveryReport run(Journal journal, HeadsReplayer.Replay replay, TableStore store, boolean adoptForeign) {
        List<String> skipped = replay.skippedCheckpoints().stream()
                .map(s -> s.file().getFileName() + ": " + s.reason()).toList();
        return run(new Live(journal), replay.state(), replay.checkpointSequence(), skipped, replay.recordsReplayed(),
                store, adoptForeign);
    }

    /**
     * What recovery would decide over {@code replay}, without writing anything: the same classification of every
     * open intent, torn version and foreign version as {@link #run}, with no journal record appended and no table
     * file made durable, set aside or restored ({@code palisade recover --dry-run}). {@code opening} are the records
     * opening the journal would append first ({@code WriterStarted}, a {@code TornTailCut}); they are folded, not
     * written, and the report's state folds the records a real run would append after them; {@code recoveryId} is null.
     *
     * @throws ForeignCommitException when a real run would refuse the graph
     */
    public static RecoveryReport plan(Path palisadeDir, HeadsReplayer.Replay replay, List<JournalEvent> opening,
                                      long epoch, TableStore store, boolean adoptForeign) {
        List<String> skipped = replay.skippedCheckpoints().stream()
                .map(s -> s.file().getFileName() + ": " + s.reason()).toList();
        DryRun dry = new DryRun(palisadeDir, replay.state().lastSequence() + 1, epoch);
        HeadsState opened = dry.fold(replay.state(), opening);
        RecoveryReport r = run(dry, opened, replay.checkpointSequence(), skipped, replay.recordsReplayed(), store,
                adoptForeign);
        return new RecoveryReport(null, r.checkpointSequence(), r.skippedCheckpoints(), r.recordsReplayed(),
                r.closedRecovery(), r.classifications(), r.headsDigestBefore(), r.headsDigest(), adoptForeign, r.state());
    }

    /** Where recovery's effects go: the journal and the table files (a run), or nowhere (a dry run). */
    private interface Effects {
        JournalReader reader();

        Path palisadeDirectory();

        /** Appends {@code events} (one synced batch) and folds them onto {@code state}. */
        HeadsState fold(HeadsState state, List<JournalEvent> events);

        void makeDurable(TableStore store, String table, String branch, long afterVersion, long upToVersion);

        void setAside(TableStore store, String table, DamagedVersion version, Path destination);

        TableRef restore(TableStore store, String table, TableRef to);
    }

    private record Live(Journal journal) implements Effects {
        @Override
        public JournalReader reader() {
            return journal.reader();
        }

        @Override
        public Path palisadeDirectory() {
            return journal.palisadeDirectory();
        }

        @Override
        public HeadsState fold(HeadsState state, List<JournalEvent> events) {
            long first = journal.appendBatch(events, Durability.POWER_LOSS);
            HeadsState s = state;
            long now = System.currentTimeMillis() * 1_000_000L;
            for (int i = 0; i < events.size(); i++) {
                s = s.apply(new JournalRecord(first + i, now, journal.epoch(), events.get(i)));
            }
            return s;
        }

        @Override
        public void makeDurable(TableStore store, String table, String branch, long afterVersion, long upToVersion) {
            store.makeDurable(table, branch, afterVersion, upToVersion);
        }

        @Override
        public void setAside(TableStore store, String table, DamagedVersion version, Path destination) {
            store.setAside(table, version, destination);
        }

        @Override
        public TableRef restore(TableStore store, String table, TableRef to) {
            return store.restore(table, to);
        }
    }

    /** Folds in memory what a run would append; touches no file. */
    private static final class DryRun implements Effects {
        private final Path palisadeDir;
        private final long epoch;
        private long next;

        DryRun(Path palisadeDir, long firstSequence, long epoch) {
            this.palisadeDir = palisadeDir;
            this.next = firstSequence;
            this.epoch = epoch;
        }

        @Override
        public JournalReader reader() {
            return JournalReader.open(palisadeDir);
        }

        @Override
        public Path palisadeDirectory() {
            return palisadeDir;
        }

        @Override
        public HeadsState fold(HeadsState state, List<JournalEvent> events) {
            HeadsState s = state;
            long now = System.currentTimeMillis() * 1_000_000L;
            for (JournalEvent e : events) {
                s = s.apply(new JournalRecord(next++, now, epoch, e));
            }
            return s;
        }

        @Override
        public void makeDurable(TableStore store, String table, String branch, long afterVersion, long upToVersion) {
            // a dry run makes nothing durable
        }

        @Override
        public void setAside(TableStore store, String table, DamagedVersion version, Path destination) {
            // a dry run moves no file
        }

        @Override
        public TableRef restore(TableStore store, String table, TableRef to) {
            // the Restore commit a run would make: the next version of the branch
            return new TableRef(to.branch(), store.latest(table, to.branch()).version() + 1);
        }
    }

    /**
     * Runs recovery over {@code state} (the folded journal), appending its decisions to {@code journal}.
     *
     * @param adoptForeign publish foreign versions instead of refusing (the operator's explicit decision)
     * @return the report, with the state after the appended records
     * @throws ForeignCommitException when a table version no journaled intent explains is found (and not adopted)
     */
    public static RecoveryReport run(Journal journal, HeadsState state, TableStore store, boolean adoptForeign) {
        return run(new Live(journal), state, state.lastCheckpointSequence(), List.of(), -1, store, adoptForeign);
    }

    private static RecoveryReport run(Effects journal, HeadsState state, long checkpointSeq, List<String> skipped,
                                      long replayed, TableStore store, boolean adoptForeign) {
        String before = state.digest();
        // Damaged published heads first: they held acknowledged rows, nothing here can repair them.
        PublishedHeads.check(state, store, journal::reader);
        // Torn versions above heads no open intent explains, then foreign versions: refusing must not leave
        // half a recovery in the journal.
        List<Torn> orphans = new ArrayList<>();
        List<Foreign> foreign = foreign(state, store, orphans);
        foreign.addAll(racedOpenGroups(journal, state, store));
        if (!foreign.isEmpty() && !adoptForeign) {
            Foreign f = foreign.get(0);
            List<Long> versions = new ArrayList<>();
            for (long v = f.head().version() + 1; v <= f.latest(); v++) {
                versions.add(v);
            }
            String others = foreign.size() == 1 ? "" : " (and " + (foreign.size() - 1) + " more table"
                    + (foreign.size() == 2 ? "" : "s") + ": " + String.join(", ", foreign.subList(1, foreign.size())
                    .stream().map(o -> "'" + o.table() + "' on graph branch '" + o.graphBranch() + "'").toList()) + ")";
            throw new ForeignCommitException(ForeignCommitException.Situation.PENDING, f.table(), f.graphBranch(),
                    f.head().tableBranch(), f.head().version(), f.latest(), versions, List.of(), false, List.of(),
                    "foreign commit: " + f.detail() + others + ". Nothing was changed; the graph stays refused until an "
                    + "operator decides. Inspect the versions, then adopt them with `palisade recover GRAPH "
                    + "--adopt-foreign` (see docs/recovery.md \"Foreign commits\")");
        }
        if (!foreign.isEmpty()) { // adoption validates before it publishes: nothing is journaled yet
            Adoption.validate(store, foreign.stream().map(f -> new Adoption.Candidate(f.graphBranch(), f.table(),
                    f.head(), f.latest())).toList());
        }
        Map<String, List<OpenIntent>> groups = new LinkedHashMap<>();
        for (OpenIntent o : state.openIntents()) {
            groups.computeIfAbsent(o.graphBranch() + "\u0000" + o.table(), k -> new ArrayList<>()).add(o);
        }
        // Torn versions above each group's base, found before anything is journaled (and before any group is
        // classified: a torn newest version of main hides every branch's latest version from Lance).
        Map<String, List<DamagedVersion>> tornByGroup = new LinkedHashMap<>();
        for (Map.Entry<String, List<OpenIntent>> g : groups.entrySet()) {
            OpenIntent first = g.getValue().get(0);
            if (g.getValue().stream().allMatch(o -> o.publishedHead() != null)) {
                continue; // published: its version is checked with the heads
            }
            List<DamagedVersion> torn = store.tornVersions(first.table(),
                    first.recorded().intendedTransition().to().tableBranch(), first.recorded().expectedBase().version());
            if (!torn.isEmpty()) {
                refuseIfCommitted(g.getValue(), torn);
                tornByGroup.put(g.getKey(), torn);
            }
        }
        Optional<String> leftOpen = state.openRecovery();
        // a recovery killed between journaling a set-aside and moving the files: finish its moves
        List<TableVersionSetAside> earlier = leftOpen.isEmpty() ? List.of() : setAsides(journal, state, leftOpen.get());
        for (TableVersionSetAside e : earlier) {
            journal.setAside(store, e.table(), new DamagedVersion(new TableRef(e.tableBranch(), e.version()), e.damaged(),
                    e.files(), e.reason()), Path.of(e.destination()));
        }
        if (groups.isEmpty() && foreign.isEmpty() && orphans.isEmpty()) {
            if (leftOpen.isEmpty()) {
                return new RecoveryReport(null, checkpointSeq, skipped, replayed, null, List.of(), before, before,
                        adoptForeign, state);
            }
            // an earlier run was killed after its last decision: close it
            HeadsState next = fold(journal, state, List.of(
                    new JournalEvent.RecoveryFinished(leftOpen.get(), List.of(), state.digest())));
            LOG.info("recovery {} left open by a killed run: closed, nothing else to do", leftOpen.get());
            return new RecoveryReport(leftOpen.get(), checkpointSeq, skipped, replayed, leftOpen.get(), List.of(),
                    before, next.digest(), adoptForeign, next);
        }

        String id = "recovery-" + UUID.randomUUID();
        List<RecoveryClassification> found = new ArrayList<>();
        HeadsState s = fold(journal, state, List.of(
                new JournalEvent.RecoveryStarted(id, state.lastCheckpointSequence(), state.lastSequence())));
        PhaseCrashPoints.hit(PhaseCrashPoints.RECOVERY_AFTER_STARTED);
        Path tornDir = journal.palisadeDirectory().resolve(TORN_DIRECTORY).resolve(id);
        for (Torn t : orphans) {
            s = setAside(journal, s, store, id, tornDir, t.graphBranch(), t.table(), t.versions(), List.of(), earlier);
            for (DamagedVersion v : t.versions()) {
                found.add(new RecoveryClassification(v.ref().branch() + "@" + v.ref().version(), Kind.TORN_VERSION_SET_ASIDE,
                        t.table(), "torn version above the published head " + v.ref().branch() + "@"
                        + (t.versions().get(0).ref().version() - 1) + ", no open intent: " + v.reason()
                        + "; set aside to " + tornDir.resolve(t.table()).resolve(v.ref().branch())
                        .resolve(Long.toString(v.ref().version()))));
            }
        }
        Map<String, String> tornDetails = new LinkedHashMap<>();
        for (Map.Entry<String, List<OpenIntent>> g : groups.entrySet()) {
            OpenIntent first = g.getValue().get(0);
            String tableBranch = first.recorded().intendedTransition().to().tableBranch();
            List<DamagedVersion> torn = tornByGroup.get(g.getKey());
            if (torn != null) {
                s = setAside(journal, s, store, id, tornDir, first.graphBranch(), first.table(), torn,
                        g.getValue().stream().map(OpenIntent::intentId).toList(), earlier);
                tornDetails.put(g.getKey(), torn.stream().map(v -> v.ref().branch() + "@" + v.ref().version() + " "
                        + v.reason()).toList() + " set aside to " + tornDir.resolve(first.table()).resolve(tableBranch));
            } else {
                String detail = earlierDetail(earlier, first.table(), tableBranch, first.recorded().expectedBase().version());
                if (detail != null) {
                    tornDetails.put(g.getKey(), detail);
                }
            }
        }
        for (Map.Entry<String, List<OpenIntent>> g : groups.entrySet()) {
            List<OpenIntent> group = g.getValue();
            List<JournalEvent> events = new ArrayList<>();
            String tornDetail = tornDetails.get(g.getKey());
            if (!classifyLoad(journal, group, s, store, found, events)) {
                classify(journal, group, s, store, found, events, tornDetail);
            }
            s = fold(journal, s, events);
            PhaseCrashPoints.hit(PhaseCrashPoints.RECOVERY_AFTER_CLASSIFY);
        }
        for (Foreign f : foreign) {
            found.add(new RecoveryClassification(f.head().tableBranch() + "@" + f.latest(), Kind.FOREIGN_COMMIT, f.table(),
                    "adopted by operator: " + f.detail()));
            if (f.openIntents()) {
                // the open group's classification above rolled forward to the latest version and published it
                LOG.warn("recovery {}: adopted foreign commit with an interrupted write (operator decision): {}", id,
                        f.detail());
                continue;
            }
            journal.makeDurable(store, f.table(), f.head().tableBranch(), f.head().version(), f.latest());
            TableHead to = new TableHead(f.head().tableBranch(), f.latest(), f.head().schemaId(), f.head().incarnation());
            s = fold(journal, s, List.of(new HeadPublished(List.of(new HeadTransition(f.graphBranch(), f.table(),
                    f.head(), to)))));
            LOG.warn("recovery {}: adopted foreign commit (operator decision): {}", id, f.detail());
        }
        s = fold(journal, s, List.of(new JournalEvent.RecoveryFinished(id, found, s.digest())));
        PhaseCrashPoints.hit(PhaseCrashPoints.RECOVERY_AFTER_FINISHED);
        LOG.info("recovery {}: {}", id, found);
        return new RecoveryReport(id, checkpointSeq, skipped, replayed, leftOpen.orElse(null), found, before,
                s.digest(), adoptForeign, s);
    }

    /** A table version past an owned head that no open intent explains. */
    private record Foreign(String graphBranch, String table, TableHead head, long latest, String detail,
                           boolean openIntents) {
        Foreign(String graphBranch, String table, TableHead head, long latest, String detail) {
            this(graphBranch, table, head, latest, detail, false);
        }
    }

    /**
     * Open write groups (no TableCommitted journaled, not a bulk load) whose table branch holds more than one
     * effective version above their base: one interrupted commit makes one version (a compaction: one, after
     * Lance's own ReserveFragments), so the others are foreign — Lance may have rebased the write over them, or
     * they came after it. Rolling forward would publish them as the write's effect; they are refused like any
     * foreign version (issue 14).
     */
    private static List<Foreign> racedOpenGroups(Effects journal, HeadsState state, TableStore store) {
        Map<String, List<OpenIntent>> groups = new LinkedHashMap<>();
        for (OpenIntent o : state.openIntents()) {
            groups.computeIfAbsent(o.graphBranch() + "\u0000" + o.table(), k -> new ArrayList<>()).add(o);
        }
        List<Foreign> out = new ArrayList<>();
        for (List<OpenIntent> group : groups.values()) {
            OpenIntent first = group.get(0);
            if (group.stream().anyMatch(o -> o.phase() != IntentPhase.RECORDED)) {
                continue; // a TableCommitted names the version, or the head is published
            }
            String table = first.table();
            String tableBranch = first.recorded().intendedTransition().to().tableBranch();
            long base = first.recorded().expectedBase().version();
            if (!store.exists(table) || !store.listBranches(table).contains(tableBranch)) {
                continue;
            }
            List<DamagedVersion> torn = store.tornVersions(table, tableBranch, base);
            long latest = torn.isEmpty() ? store.latest(table, tableBranch).version() : torn.get(0).ref().version() - 1;
            if (latest <= base) {
                continue;
            }
            if (latest == base + 1) {
                // one version: the write's own commit, or a foreign one (Lance's metadata cannot tell a merge-insert's
                // author). The write's keys decide what recovery can: after the write's commit every key it inserted or
                // upserted is held exactly once and every key it deleted is gone; anything else means the version is
                // not (only) the write's, and rolling it forward would publish a foreign change (a duplicate id).
                notTheWrites(store, state, group, new TableRef(tableBranch, latest)).ifPresent(why -> {
                    TableHead h = state.head(first.graphBranch(), table).orElse(first.recorded().intendedTransition().from());
                    out.add(new Foreign(first.graphBranch(), table, h, latest, "table '" + table + "' (graph branch '"
                            + first.graphBranch() + "', table branch '" + tableBranch + "') is at version " + latest
                            + ", one above the interrupted write " + String.join(", ", group.stream().map(OpenIntent::intentId)
                            .toList()) + " (base " + base + "), but that version is not the write's commit: " + why, true));
                });
                continue;
            }
            if (first.recorded().operation() == io.palisade.journal.LogicalOperation.COMPACTION
                    || (group.size() == 1 && isLoad(journal, first))) {
                // a compaction commits Lance's ReserveFragments versions before its Rewrite (whose transactions
                // Lance's JNI cannot read back) and is judged by its journaled plan; a bulk load's batches by its
                // progress records (classifyLoad)
                continue;
            }
            long versions = latest - base;
            TableHead head = state.head(first.graphBranch(), table).orElse(first.recorded().intendedTransition().from());
            out.add(new Foreign(first.graphBranch(), table, head, latest, "table '" + table + "' (graph branch '"
                    + first.graphBranch() + "', table branch '" + tableBranch + "') is at version " + latest
                    + " but the interrupted write " + String.join(", ", group.stream().map(OpenIntent::intentId).toList())
 
                    + " based on version " + base + " explains one version; " + versions
                    + " versions were committed above its base: " + describe(store, table, tableBranch, base), true));
        }
        return out;
    }

    /**
     * Why version {@code at} cannot be the commit of the open group (inserts, upserts or deletes with key filters on a
     * keyed table), judged by the group's keys there; empty when it can be (or the group carries no keys).
     */
    private static Optional<String> notTheWrites(TableStore store, HeadsState state, List<OpenIntent> group, TableRef at) {
        io.palisade.fencing.KeyFilter written = null;
        io.palisade.fencing.KeyFilter deleted = null;
        for (OpenIntent o : group) {
            io.palisade.fencing.KeyFilter k = o.recorded().keyFilter();
            if (k == null || k.isEmpty()) {
                continue;
            }
            switch (o.recorded().operation()) {
                case INSERT, UPSERT -> written = written == null ? k : written.union(k);
                case DELETE -> deleted = deleted == null ? k : deleted.union(k);
                case FOLD -> {
                    // a fold upserts the newest row of every key of its filter and deletes its plan's deleted keys
                    io.palisade.fencing.KeyFilter gone = state.foldPlan(o.intentId())
                            .map(io.palisade.journal.JournalEvent.FoldPlanned::deletedKeys).orElse(null);
                    io.palisade.fencing.KeyFilter kept = gone == null ? k : without(k, gone);
                    if (kept != null) {
                        written = written == null ? kept : written.union(kept);
                    }
                    if (gone != null) {
                        deleted = deleted == null ? gone : deleted.union(gone);
                    }
                }
                case OVERWRITE, ADD_COLUMNS, INDEX_MAINTENANCE, COMPACTION, CREATE_TABLE, BRANCH_MERGE, MIGRATION_UNIT,
                     REPAIR -> {
                    return Optional.empty(); // judged by its version count only
                }
            }
        }
        if (written == null && deleted == null) {
            return Optional.empty();
        }
        try (io.palisade.substrate.KeyedTable t = store.openKeyed(group.get(0).table(), at)) {
            if (written != null) {
                Map<String, Long> counts = t.keyCounts(written);
                List<String> twice = counts.entrySet().stream().filter(e -> e.getValue() > 1).map(Map.Entry::getKey)
                        .sorted().limit(20).toList();
                if (!twice.isEmpty()) {
                    return Optional.of("it holds the write's keys " + twice + " more than once");
                }
                if (counts.size() < written.size()) {
                    List<String> missing = written.keys().stream().filter(k -> !counts.containsKey(k)).sorted().limit(20).toList();
                    return Optional.of("it lacks the write's keys " + missing);
                }
            }
            if (deleted != null) {
                Map<String, Long> still = t.keyCounts(deleted);
                if (!still.isEmpty()) {
                    return Optional.of("it still holds the keys the write deleted " + still.keySet().stream().limit(20).toList());
                }
            }
        }
        return Optional.empty();
    }

    /** The keys of {@code all} not in {@code minus}, as a filter of the same fields; null when none remain. */
    private static io.palisade.fencing.KeyFilter without(io.palisade.fencing.KeyFilter all, io.palisade.fencing.KeyFilter minus) {
        boolean ints = all.keyType() == io.palisade.fencing.KeyFilter.KeyType.INT64;
        List<String> kept = all.keys().stream().filter(x -> ints ? !minus.contains(Long.parseLong(x)) : !minus.contains(x))
                .toList();
        if (kept.isEmpty()) {
            return null;
        }
        if (all.keyType() == io.palisade.fencing.KeyFilter.KeyType.INT64) {
            return io.palisade.fencing.KeyFilter.ofLongs(all.fieldIds(), kept.stream().mapToLong(Long::parseLong).toArray());
        }
        return io.palisade.fencing.KeyFilter.ofStrings(all.fieldIds(), kept);
    }

    /** Whether the open intent is a bulk load (it has progress records). */
    private static boolean isLoad(Effects journal, OpenIntent o) {
        try (JournalReader reader = journal.reader(); JournalCursor cursor = reader.read(o.recordedAt())) {
            for (JournalRecord r = cursor.poll(); r != null; r = cursor.poll()) {
                if (r.event() instanceof LoadProgress lp && lp.intentId().equals(o.intentId())) {
                    return true;
                }
            }
        }
        return false;
    }

    /** Torn versions above an owned head that no open intent explains. */
    private record Torn(String graphBranch, String table, List<DamagedVersion> versions) {
    }

    private static List<Foreign> foreign(HeadsState state, TableStore store, List<Torn> orphans) {
        List<String> explained = state.openIntents().stream().map(o -> o.graphBranch() + "/" + o.table()).toList();
        List<Foreign> out = new ArrayList<>();
        for (String branch : state.branches().keySet()) {
            for (Map.Entry<String, Pin> e : state.pins(branch).entrySet()) {
                if (!e.getValue().owned() || explained.contains(branch + "/" + e.getKey())) {
                    continue;
                }
                TableHead head = e.getValue().head();
                List<DamagedVersion> torn = store.tornVersions(e.getKey(), head.tableBranch(), head.version());
                if (!torn.isEmpty() && torn.get(0).ref().version() == head.version() + 1) {
                    // nothing complete above the head: a torn commit, never acknowledged; set aside below
                    orphans.add(new Torn(branch, e.getKey(), torn));
                    continue;
                }
                if (!store.exists(e.getKey()) || !store.listBranches(e.getKey()).contains(head.tableBranch())) {
                    continue;
                }
                // complete versions below torn ones are foreign; the torn ones are set aside once those are adopted
                long latest = torn.isEmpty() ? store.latest(e.getKey(), head.tableBranch()).version()
                        : torn.get(0).ref().version() - 1;
                if (latest > head.version()) {
                    out.add(new Foreign(branch, e.getKey(), head, latest, "table '" + e.getKey() + "' (graph branch '"
                            + branch + "', table branch '" + head.tableBranch() + "') is at version " + latest
                            + " but the journal's head is version " + head.version() + "; no intent explains "
                            + describe(store, e.getKey(), head.tableBranch(), head.version())));
                }
            }
        }
        return out;
    }

    private static void classify(Effects journal, List<OpenIntent> group, HeadsState state, TableStore store,
                                 List<RecoveryClassification> found, List<JournalEvent> events, String tornDetail) {
        OpenIntent first = group.get(0);
        boolean published = group.stream().allMatch(o -> o.publishedHead() != null);
        if (published) {
            for (OpenIntent o : group) {
                found.add(new RecoveryClassification(o.intentId(), Kind.PUBLISHED_COMPLETED, o.table(),
                        "head published at " + o.publishedHead().tableBranch() + "@" + o.publishedHead().version()));
                events.add(new IntentCompleted(o.intentId(), IntentOutcome.COMMITTED, "completed by recovery", null, List.of()));
            }
            return;
        }
        HeadTransition intended = first.recorded().intendedTransition();
        String tableBranch = intended.to().tableBranch();
        long base = first.recorded().expectedBase().version();
        long achieved = store.exists(first.table()) && store.listBranches(first.table()).contains(tableBranch)
                ? store.latest(first.table(), tableBranch).version() : -1;
        boolean forkOnly = !tableBranch.equals(first.recorded().expectedBase().tableBranch()) && achieved == base;
        boolean anyCommitted = group.stream().anyMatch(o -> o.phase() == IntentPhase.TABLE_COMMITTED);
        if ((achieved <= base || forkOnly) && !anyCommitted) {
            for (OpenIntent o : group) {
                if (tornDetail != null) {
                    found.add(new RecoveryClassification(o.intentId(), Kind.TORN_VERSION_SET_ASIDE, o.table(),
                            "commit torn by a power cut: " + tornDetail + "; " + tableBranch + " at " + achieved
                                    + ", expected base " + base));
                    events.add(new IntentCompleted(o.intentId(), IntentOutcome.ABORTED,
                            "its commit was torn by a power cut and set aside by recovery", null, List.of()));
                    continue;
                }
                found.add(new RecoveryClassification(o.intentId(), Kind.NO_EFFECT_ABORTED, o.table(),
                        tableBranch + " at " + achieved + ", expected base " + base));
                events.add(new IntentCompleted(o.intentId(), IntentOutcome.ABORTED,
                        "no substrate effect found by recovery", null, List.of()));
            }
            return;
        }
        TableHead from = state.head(first.graphBranch(), first.table()).orElse(intended.from());
        // A TableCommitted already journaled (a killed Phase C/D batch) names the achieved version: journal it
        // once only (a second one is an illegal transition) and publish exactly that version.
        List<String> uncommitted = group.stream().filter(o -> o.phase() == IntentPhase.RECORDED)
                .map(OpenIntent::intentId).toList();
        long version = group.stream().filter(o -> o.phase() == IntentPhase.TABLE_COMMITTED)
                .mapToLong(OpenIntent::committedVersion).max().orElse(achieved);
        TableHead to = new TableHead(tableBranch, version, intended.to().schemaId(), intended.to().incarnation());
        // found, not seen committed: make its files durable before the journal publishes it
        journal.makeDurable(store, first.table(), tableBranch, base, version);
        if (!uncommitted.isEmpty()) {
            events.add(new TableCommitted(uncommitted, first.graphBranch(), first.table(), tableBranch, version));
        }
        events.add(new HeadPublished(List.of(new HeadTransition(first.graphBranch(), first.table(), from, to))));
        for (OpenIntent o : group) {
            found.add(new RecoveryClassification(o.intentId(), Kind.EFFECT_ROLLED_FORWARD, o.table(),
                    "expected base " + base + ", found " + tableBranch + "@" + achieved + "; published " + version));
            events.add(new IntentCompleted(o.intentId(), IntentOutcome.ROLLED_FORWARD, "rolled forward by recovery", null,
                    List.of()));
        }
    }

    /**
     * The rule for an unfinished bulk load (docs/bulk-load.md): an open intent with {@link LoadProgress}
     * records that never reached its single TableCommitted is rolled BACK to the version its last start
     * marker names, by a Restore commit (or by adopting the Restore an interrupted earlier rollback
     * made); that restored version (same content as the start) is published and the intent completes
     * as ROLLED_BACK. The batches between are explained by the progress records, plus at most one
     * in-flight batch (committed, not yet journaled); anything beyond is a foreign commit.
     *
     * @return false when the group is not an unfinished load (the general rule applies)
     */
    private static boolean classifyLoad(Effects journal, List<OpenIntent> group, HeadsState state, TableStore store,
                                        List<RecoveryClassification> found, List<JournalEvent> events) {
        OpenIntent o = group.get(0);
        if (group.size() != 1 || o.phase() != IntentPhase.RECORDED) {
            return false;
        }
        LoadProgress startMarker = null;
        LoadProgress lastBatch = null;
        int progressRecords = 0;
        try (JournalReader reader = journal.reader(); JournalCursor cursor = reader.read(o.recordedAt())) {
            for (JournalRecord r = cursor.poll(); r != null; r = cursor.poll()) {
                if (r.event() instanceof LoadProgress lp && lp.intentId().equals(o.intentId())) {
                    progressRecords++;
                    if (lp.batchIndex() < 0) {
                        startMarker = lp;
                    } else {
                        // keep no key filters: memory stays bounded however long the load was
                        lastBatch = new LoadProgress(lp.intentId(), lp.batchIndex(), lp.tableBranch(),
                                lp.achievedVersion(), lp.rows(), null);
                    }
                }
            }
        }
        if (progressRecords == 0) {
            return false;
        }
        String table = o.table();
        String tableBranch = startMarker.tableBranch();
        long startVersion = startMarker.achievedVersion();
        long journaled = lastBatch == null || !lastBatch.tableBranch().equals(tableBranch) ? startVersion
                : lastBatch.achievedVersion();
        long latest = store.exists(table) && store.listBranches(table).contains(tableBranch)
                ? store.latest(table, tableBranch).version() : -1;
        String evidence = "load started at " + tableBranch + "@" + startVersion + ", "
                + (lastBatch == null ? "no batch journaled" : (lastBatch.batchIndex() + 1) + " batches (" + lastBatch.rows()
                + " rows) journaled up to @" + journaled) + ", table branch at @" + latest;
        if (latest <= startVersion) {
            found.add(new RecoveryClassification(o.intentId(), Kind.NO_EFFECT_ABORTED, table, evidence));
            events.add(new IntentCompleted(o.intentId(), IntentOutcome.ABORTED,
                    "bulk load without substrate effect, aborted by recovery", null, List.of()));
            return true;
        }
        TableRef restored;
        boolean restoredEarlier = latest <= journaled + 2
                && store.decompose(table, new TableRef(tableBranch, latest)).kind() == OperationKind.RESTORE;
        if (restoredEarlier) {
            restored = new TableRef(tableBranch, latest);
        } else if (latest <= journaled + 1) {
            restored = journal.restore(store, table, new TableRef(tableBranch, startVersion));
        } else {
            List<Long> versions = new ArrayList<>();
            for (long v = journaled + 2; v <= latest; v++) {
                versions.add(v);
            }
            throw new ForeignCommitException(ForeignCommitException.Situation.PENDING, table, o.graphBranch(), tableBranch,
                    journaled, latest, versions, List.of(o.intentId()), false, List.of(),
                    "foreign commit: table '" + table + "' branch '" + tableBranch + "' is at version " + latest
                    + " but the unfinished bulk load " + o.intentId() + " explains at most version " + (journaled + 1)
                    + " (" + evidence + "); versions above it: " + describe(store, table, tableBranch, journaled + 1)
                    + ". Nothing was changed; see docs/recovery.md \"Foreign commits\"");
        }
        TableHead from = state.head(o.graphBranch(), table).orElse(o.recorded().intendedTransition().from());
        TableHead to = new TableHead(tableBranch, restored.version(), from.schemaId(), from.incarnation());
        events.add(new HeadPublished(List.of(new HeadTransition(o.graphBranch(), table, from, to))));
        events.add(new IntentCompleted(o.intentId(), IntentOutcome.ROLLED_BACK,
                "unfinished bulk load rolled back by recovery: " + tableBranch + "@" + startVersion + " restored as @"
                        + restored.version(), null, List.of()));
        found.add(new RecoveryClassification(o.intentId(), Kind.LOAD_ROLLED_BACK, table,
                evidence + "; restored @" + startVersion + " as @" + restored.version() + " and published it"));
        return true;
    }

    /** Where set-aside versions go: {@code <graph>/_palisade/torn/<recovery id>/<table>/<table branch>/<version>/}. */
    public static final String TORN_DIRECTORY = "torn";

    /**
     * Journals the set-aside of {@code torn} (one synced batch, before anything moves), then moves each version's
     * files, newest first. A version an earlier, killed run already journaled is not journaled again: its
     * files go to the directory that run named.
     */
    private static HeadsState setAside(Effects journal, HeadsState s, TableStore store, String recoveryId, Path tornDir,
                                       String graphBranch, String table, List<DamagedVersion> torn, List<String> intents,
                                       List<TableVersionSetAside> earlier) {
        List<JournalEvent> events = new ArrayList<>();
        List<Path> destinations = new ArrayList<>();
        for (DamagedVersion v : torn) {
            Optional<TableVersionSetAside> before = earlier.stream().filter(e -> e.table().equals(table)
                    && e.tableBranch().equals(v.ref().branch()) && e.version() == v.ref().version()).findFirst();
            if (before.isPresent()) {
                destinations.add(Path.of(before.get().destination()));
                continue;
            }
            Path dest = tornDir.resolve(table).resolve(v.ref().branch()).resolve(Long.toString(v.ref().version()));
            destinations.add(dest);
            events.add(new TableVersionSetAside(recoveryId, graphBranch, table, v.ref().branch(), v.ref().version(),
                    intents, v.setAside(), v.damaged(), dest.toString(), "torn by a power cut: " + v.reason()));
        }
        HeadsState next = events.isEmpty() ? s : fold(journal, s, events);
        PhaseCrashPoints.hit(PhaseCrashPoints.RECOVERY_AFTER_SET_ASIDE_JOURNALED);
        for (int i = torn.size() - 1; i >= 0; i--) {
            journal.setAside(store, table, torn.get(i), destinations.get(i));
            LOG.warn("recovery {}: table '{}' {}: torn version set aside to {} ({}; damaged: {})", recoveryId, table,
                    torn.get(i).ref(), destinations.get(i), torn.get(i).reason(), torn.get(i).damaged());
        }
        return next;
    }

    /**
     * A torn version whose TableCommitted is journaled: Lance returned from that commit, yet its files are gone
     * (a store that did not sync its commit). The journal says it happened; it cannot be set aside silently.
     */
    private static void refuseIfCommitted(List<OpenIntent> group, List<DamagedVersion> torn) {
        for (OpenIntent o : group) {
            if (o.phase() != IntentPhase.TABLE_COMMITTED) {
                continue;
            }
            for (DamagedVersion v : torn) {
                if (v.ref().version() <= o.committedVersion()) {
                    throw new TableCorruptedException(o.table(), o.graphBranch(), v.ref().branch(), v.ref().version(),
                            v.damaged(), group.stream().map(OpenIntent::intentId).toList(),
                            v.reason() + ", though the journal records the commit that made it (TableCommitted)", null);
                }
            }
        }
    }

    /** The detail of a set-aside an earlier, killed run journaled for this table branch above {@code base}, or null. */
    private static String earlierDetail(List<TableVersionSetAside> earlier, String table, String tableBranch, long base) {
        return earlier.stream().filter(e -> e.table().equals(table) && e.tableBranch().equals(tableBranch)
                        && e.version() > base).map(e -> "[" + tableBranch + "@" + e.version() + " " + e.reason()
                        + "] set aside to " + e.destination()).findFirst().orElse(null);
    }

    /** The set-asides journaled by the recovery run {@code recoveryId}, which was killed before it finished. */
    private static List<TableVersionSetAside> setAsides(Effects journal, HeadsState state, String recoveryId) {
        List<TableVersionSetAside> out = new ArrayList<>();
        try (JournalReader reader = journal.reader();
             JournalCursor cursor = reader.read(Math.max(0, state.lastCheckpointSequence()))) {
            for (JournalRecord r = cursor.poll(); r != null; r = cursor.poll()) {
                if (r.event() instanceof TableVersionSetAside e && e.recoveryId().equals(recoveryId)) {
                    out.add(e);
                }
            }
        }
        return out;
    }

    private static String describe(TableStore store, String table, String branch, long after) {
        try {
            return String.join(", ", store.listVersions(table, branch).stream().filter(v -> v.ref().version() > after)
                    .map(v -> "version " + v.ref().version() + " (" + v.totalRows() + " rows)").toList());
        } catch (RuntimeException e) {
            return "(versions unreadable: " + e.getMessage() + ")";
        }
    }

    private static HeadsState fold(Effects journal, HeadsState state, List<JournalEvent> events) {
        return journal.fold(state, events);
    }

    /** The table ref a head names. */
    public static TableRef ref(TableHead head) {
        return new TableRef(head.tableBranch(), head.version());
    }

    /** For reports: the checkpoints a replay skipped, as "file: reason". */
    static List<String> describe(List<Checkpoints.Skipped> skipped) {
        return skipped.stream().map(s -> s.file().getFileName() + ": " + s.reason()).toList();
    }
}
