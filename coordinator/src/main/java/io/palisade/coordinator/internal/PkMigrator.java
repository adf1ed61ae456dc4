package io.palisade.coordinator.internal;

import io.palisade.coordinator.Catalog;
import io.palisade.coordinator.MigrationOptions;
import io.palisade.coordinator.MigrationReport;
import io.palisade.coordinator.TableLocation;

import io.palisade.fencing.FormatStamp;
import io.palisade.fencing.GraphRefusedException;
import io.palisade.fencing.ValidationException;
import io.palisade.heads.HeadsReplayer;
import io.palisade.heads.HeadsState;
import io.palisade.heads.MigrationProgress;
import io.palisade.heads.MigrationUnit;
import io.palisade.heads.Pin;
import io.palisade.journal.HeadTransition;
import io.palisade.journal.Journal;
import io.palisade.journal.JournalEvent;
import io.palisade.journal.JournalEvent.MigrationBranchVerified;
import io.palisade.journal.JournalEvent.MigrationClaimed;
import io.palisade.journal.JournalEvent.MigrationPkInstalled;
import io.palisade.journal.JournalEvent.MigrationRefused;
import io.palisade.journal.JournalEvent.MigrationStampWritten;
import io.palisade.journal.JournalEvent.MigrationUnitForked;
import io.palisade.journal.JournalEvent.MigrationUnitPlanned;
import io.palisade.journal.JournalEvent.MigrationUnitPublished;
import io.palisade.journal.JournalOptions;
import io.palisade.journal.JournalRecord;
import io.palisade.journal.TableHead;
import io.palisade.substrate.PrimaryKeyInstall;
import io.palisade.substrate.TableRef;
import io.palisade.substrate.TableStore;
import io.palisade.substrate.VersionInfo;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;

/**
 * The engine of {@code PkMigration}: one run (or resumption) of the all-branch PK migration of one graph, holding the
 * writer lease and the migration claim for its duration. Its steps, records and crash points are documented on
 * {@code PkMigration} and in docs/migration.md; this class journals each step before its effect and applies the
 * records to its own heads state.
 */
public final class PkMigrator {
    private static final Logger LOG = LoggerFactory.getLogger(PkMigrator.class);

    private final Path root;
    private final GraphLayout layout;
    private final MigrationOptions options;
    private final Catalog catalog;
    private final Journal journal;
    private final TableStore store;
    private HeadsState state;
    private final List<String> classifications = new ArrayList<>();
    private final Map<String, Boolean> alreadyPresent = new HashMap<>();

    private PkMigrator(Path root, MigrationOptions options, Catalog catalog, Journal journal, TableStore store,
                        HeadsState state) {
        this.root = root;
        this.layout = new GraphLayout(root);
        this.options = options;
        this.catalog = catalog;
        this.journal = journal;
        this.store = store;
        this.state = state;
    }

    /** Runs (or resumes) the migration of the graph at {@code root}. */
    public static MigrationReport run(Path root, MigrationOptions options) {
        GraphLayout layout = new GraphLayout(root);
        if (!layout.exists()) {
            throw new ValidationException("no graph at " + root + " (missing " + layout.catalogFile() + ")");
        }
        Optional<Integer> raw = GraphFormat.read(root);
        if (raw.isPresent()) {
            FormatStamp s = GraphFormat.check(root, raw.get());
            if (s == FormatStamp.FENCING) {
                MigrationClaim.release(root); // a claim left after the stamp (crash before release) is moot
                return new MigrationReport(MigrationReport.Status.ALREADY_FENCING, null, null, false, List.of(), List.of(),
                        new TreeMap<>(), List.of());
            }
        }
        HeadsState peek = HeadsReplayer.of(layout.palisade()).replay().state();
        if (raw.isEmpty() && peek.formatStamp() != FormatStamp.PRE_FENCING.number()) {
            return new MigrationReport(MigrationReport.Status.ALREADY_FENCING, null, null, false, List.of(), List.of(),
                    new TreeMap<>(), List.of());
        }
        boolean stampJournaled = peek.migrations().values().stream()
                .anyMatch(m -> m.stampWritten() == FormatStamp.FENCING.number());
        Catalog catalog = io.palisade.coordinator.StoredCatalog.read(layout.catalogFile(), peek).catalog();
        Journal journal = Journal.open(layout.palisade(), JournalOptions.defaults()
                .withDefaultDurability(options.durability()).withBinaryVersion(BinaryVersion.VERSION)
                .withFormatStamp(stampJournaled ? FormatStamp.FENCING.number() : FormatStamp.PRE_FENCING.number()));
        TableStore store = null;
        try {
            store = TableLocation.of(root, options.storageOptions())
                    .openForWriting(options.durability() == io.palisade.journal.Durability.POWER_LOSS);
            HeadsState state = HeadsReplayer.of(layout.palisade()).replay().state();
            return new PkMigrator(root, options, catalog, journal, store, state).execute();
        } finally {
            try {
                journal.close();
            } finally {
                if (store != null) {
                    store.close();
                }
            }
        }
    }

    private MigrationReport execute() {
        // a migration whose stamp is journaled only lacks the stamp file: finish it
        for (MigrationProgress m : state.migrations().values()) {
            if (m.stampWritten() == FormatStamp.FENCING.number()) {
                classifications.add("migration " + m.migrationId() + ": stamp journaled, stamp file missing: written now");
                GraphFormat.write(root, FormatStamp.FENCING.number());
                CrashPoints.hit("migration-after-stamp");
                MigrationClaim.release(root);
                return report(MigrationReport.Status.COMPLETED, m.migrationId(), null, true, List.of());
            }
        }
        if (!state.openIntents().isEmpty()) {
            throw new GraphRefusedException("graph " + root + " has " + state.openIntents().size()
                    + " open write intent(s) from before the migration; recover them with the binary that wrote them first");
        }
        MigrationProgress open = state.migrations().values().stream().filter(m -> !m.finished()).findFirst().orElse(null);
        Optional<MigrationClaim> stale = MigrationClaim.read(root);
        String migrationId;
        MigrationClaim claim;
        boolean resumed = false;
        if (open != null) {
            migrationId = open.migrationId();
            classify(open);
            resumed = true;
            claim = stale.isPresent() ? MigrationClaim.replace(root, migrationId) : MigrationClaim.create(root, migrationId);
        } else {
            if (stale.isPresent()) {
                classifications.add("stale claim " + stale.get().migrationId() + " has no unfinished journaled migration: "
                        + "nothing to classify; replaced");
                MigrationClaim.release(root);
                resumed = true;
            }
            migrationId = "m-" + UUID.randomUUID();
            claim = MigrationClaim.create(root, migrationId);
            append(List.of(new MigrationClaimed(migrationId, claim.ownerToken(), FormatStamp.PRE_FENCING.number(),
                    FormatStamp.FENCING.number())));
            CrashPoints.hit("migration-after-claim");
        }
        LOG.info("PK migration {} of {} (owner token {}, resumed {})", migrationId, root, claim.ownerToken(), resumed);

        List<MigrationReport.Refusal> refusals = plan(migrationId);
        if (!refusals.isEmpty()) {
            return refuse(migrationId, claim, resumed, refusals);
        }
        try {
            for (MigrationUnit u : units(migrationId)) {
                migrateUnit(migrationId, u.unitId());
            }
            refusals = verify(migrationId);
        } catch (GraphRefusedException e) {
            refusals = List.of(new MigrationReport.Refusal(null, null, null, -1, e.getMessage(), List.of()));
        }
        if (!refusals.isEmpty()) {
            return refuse(migrationId, claim, resumed, refusals);
        }
        append(List.of(new MigrationStampWritten(migrationId, FormatStamp.FENCING.number())));
        CrashPoints.hit("migration-after-stamp-journaled");
        GraphFormat.write(root, FormatStamp.FENCING.number());
        CrashPoints.hit("migration-after-stamp");
        MigrationClaim.release(root);
        LOG.info("PK migration {} of {} completed: stamp {}", migrationId, root, FormatStamp.FENCING.number());
        return report(MigrationReport.Status.COMPLETED, migrationId, claim.ownerToken(), resumed, List.of());
    }

    // ------------------------------------------------------------------ classification (resume)

    private void classify(MigrationProgress m) {
        for (MigrationUnit u : m.units().values()) {
            String tb = MigrationChecks.tableBranch(state, u);
            String seen;
            if (!store.listBranches(u.table()).contains(tb)) {
                seen = "table branch " + tb + " absent";
            } else {
                TableRef latest = store.latest(u.table(), tb);
                seen = tb + " at " + latest.version() + ", primary key " + store.primaryKey(u.table(), latest);
            }
            classifications.add("unit " + u.unitId() + " (" + u.graphBranch() + "/" + u.table() + ", pinned "
                    + u.pinnedTableBranch() + "@" + u.pinnedVersion() + (u.lazyInherited() ? ", lazy" : ", owned")
                    + "): journaled " + u.phase() + "; found " + seen);
        }
        if (m.units().isEmpty()) {
            classifications.add("migration " + m.migrationId() + ": claimed, no unit planned");
        }
    }

    // ------------------------------------------------------------------ plan

    private List<MigrationReport.Refusal> plan(String migrationId) {
        MigrationProgress m = state.migration(migrationId).orElseThrow();
        Set<String> planned = new HashSet<>();
        for (MigrationUnit u : m.units().values()) {
            planned.add(u.graphBranch() + "\u0000" + u.table());
        }
        List<MigrationUnitPlanned> events = new ArrayList<>();
        List<MigrationReport.Refusal> refusals = new ArrayList<>();
        int next = m.units().size();
        for (String branch : MigrationChecks.branchesMainFirst(state)) {
            for (Map.Entry<String, Pin> e : state.pins(branch).entrySet()) {
                String table = e.getKey();
                if (!keyed(table) || planned.contains(branch + "\u0000" + table)) {
                    continue;
                }
                TableHead h = e.getValue().head();
                TableRef ref = new TableRef(h.tableBranch(), h.version());
                refusals.addAll(MigrationChecks.validate(store, branch, table, ref, options.maxReportedIds()));
                String unitId = String.format("u%04d-%s-%s", next++, branch, table);
                events.add(new MigrationUnitPlanned(migrationId, unitId, branch, table, h.tableBranch(), h.version(),
                        !e.getValue().owned()));
            }
        }
        if (!refusals.isEmpty()) {
            return refusals;
        }
        if (!events.isEmpty()) {
            append(new ArrayList<>(events));
            CrashPoints.hit("migration-after-plan");
        }
        return List.of();
    }

    // ------------------------------------------------------------------ one unit

    private void migrateUnit(String migrationId, String unitId) {
        MigrationUnit u = unit(migrationId, unitId);
        String table = u.table();
        String tb = MigrationChecks.tableBranch(state, u);
        TableRef pinned = new TableRef(u.pinnedTableBranch(), u.pinnedVersion());
        if (u.phase() == MigrationUnit.Phase.PUBLISHED) {
            return;
        }
        if (u.phase() == MigrationUnit.Phase.PLANNED && u.lazyInherited()) {
            long achieved;
            if (store.listBranches(table).contains(tb)) {
                achieved = forkVersion(table, tb);
                if (achieved != u.pinnedVersion()) {
                    throw new GraphRefusedException("unit " + unitId + ": table '" + table + "' already has branch " + tb
                            + " forked at version " + achieved + ", not at the pinned version " + u.pinnedVersion()
                            + "; no journaled unit explains it");
                }
                classifications.add("unit " + unitId + ": adopted the exact fork " + tb + "@" + achieved
                        + " a crash left unjournaled");
            } else {
                achieved = store.forkBranch(table, pinned, tb).version();
                CrashPoints.hit("migration-after-fork-commit");
            }
            append(List.of(new MigrationUnitForked(migrationId, unitId, tb, u.pinnedVersion(), achieved)));
            CrashPoints.hit("migration-after-fork");
            u = unit(migrationId, unitId);
        }
        if (u.phase() == MigrationUnit.Phase.PLANNED || u.phase() == MigrationUnit.Phase.FORKED) {
            TableRef base = u.lazyInherited() ? new TableRef(tb, forkVersion(table, tb)) : pinned;
            long latest = store.latest(table, tb).version();
            PrimaryKeyInstall r;
            if (latest == base.version()) {
                r = store.installPrimaryKey(table, base, unitId);
                if (r.outcome() == PrimaryKeyInstall.Outcome.INSTALLED && r.ref().version() != base.version() + 1) {
                    // Lance rebased the install over a foreign commit: the unit's image is not the verified one
                    throw MigrationChecks.foreign(u, table, tb, base.version(), r.ref().version(), "the primary-key install of unit "
                            + unitId + " was committed as version " + r.ref().version() + " over a foreign commit");
                }
                CrashPoints.hit("migration-after-pk-commit");
            } else if (latest == base.version() + 1 && unitId.equals(store.decompose(table, new TableRef(tb, latest))
                    .properties().get(TableStore.INTENT_ID_PROPERTY))) {
                r = new PrimaryKeyInstall(PrimaryKeyInstall.Outcome.INSTALLED, new TableRef(tb, latest));
                classifications.add("unit " + unitId + ": adopted the PK install " + tb + "@" + latest
                        + " a crash left unjournaled (its commit carries the unit id)");
            } else {
                throw MigrationChecks.foreign(u, table, tb, base.version(), latest, "unit " + unitId + ": table '" + table + "' branch '"
                        + tb + "' is at version " + latest + ", past the unit's base " + base.version()
                        + "; no journaled unit explains it");
            }
            alreadyPresent.put(unitId, r.outcome() == PrimaryKeyInstall.Outcome.ALREADY_PRESENT);
            append(List.of(new MigrationPkInstalled(migrationId, unitId, table, tb, r.ref().version(),
                    r.outcome() == PrimaryKeyInstall.Outcome.ALREADY_PRESENT)));
            CrashPoints.hit("migration-after-install");
            u = unit(migrationId, unitId);
        }
        // INSTALLED: publish the annotated image with the migration marker, rows unchanged
        Pin pin = state.pins(u.graphBranch()).get(table);
        if (pin == null || !pin.head().tableBranch().equals(u.pinnedTableBranch()) || pin.head().version() != u.pinnedVersion()) {
            throw new GraphRefusedException("unit " + unitId + ": graph branch '" + u.graphBranch() + "' no longer pins "
                    + pinned + " for table '" + table + "' (pins " + (pin == null ? "nothing" : pin.head()) + ")");
        }
        TableRef installed = new TableRef(tb, u.installedVersion());
        String before = RowDigest.of(store.scanUnchecked(table, pinned));
        String after = RowDigest.of(store.scanUnchecked(table, installed));
        if (!before.equals(after)) {
            throw new GraphRefusedException("unit " + unitId + ": rows of " + installed + " differ from the pinned image "
                    + pinned + " of table '" + table + "'");
        }
        TableHead from = pin.head();
        TableHead to = new TableHead(tb, u.installedVersion(), from.schemaId(), from.incarnation());
        append(List.of(new MigrationUnitPublished(migrationId, unitId, new HeadTransition(u.graphBranch(), table, from, to),
                after)));
        CrashPoints.hit("migration-after-publish");
    }

    /** The version a table branch was forked at (its first listed version). */
    private long forkVersion(String table, String tb) {
        List<VersionInfo> vs = store.listVersions(table, tb);
        return vs.get(0).ref().version();
    }

    // ------------------------------------------------------------------ verification

    private List<MigrationReport.Refusal> verify(String migrationId) {
        MigrationProgress m = state.migration(migrationId).orElseThrow();
        Map<String, MigrationUnit> byPin = new HashMap<>();
        for (MigrationUnit u : m.units().values()) {
            byPin.put(u.graphBranch() + "\u0000" + u.table(), u);
        }
        List<MigrationReport.Refusal> refusals = new ArrayList<>();
        for (String branch : MigrationChecks.branchesMainFirst(state)) {
            String digest = MigrationChecks.branchDigest(state, byPin, branch, store, this::keyed, refusals);
            if (!refusals.isEmpty()) {
                continue;
            }
            if (!digest.equals(m.verifiedBranches().get(branch))) {
                append(List.of(new MigrationBranchVerified(migrationId, branch, digest)));
                CrashPoints.hit("migration-after-verify");
            }
        }
        return refusals;
    }

    // ------------------------------------------------------------------ support

    private MigrationReport refuse(String migrationId, MigrationClaim claim, boolean resumed,
                                   List<MigrationReport.Refusal> refusals) {
        List<JournalEvent> events = new ArrayList<>();
        for (MigrationReport.Refusal r : refusals) {
            events.add(new MigrationRefused(migrationId, r.toString(), r.graphBranch(), r.table(), r.ids()));
        }
        append(events);
        MigrationClaim.release(root);
        LOG.warn("PK migration {} of {} refused: {}", migrationId, root, refusals);
        return report(MigrationReport.Status.REFUSED, migrationId, claim.ownerToken(), resumed, refusals);
    }

    private MigrationReport report(MigrationReport.Status status, String migrationId, String owner, boolean resumed,
                                   List<MigrationReport.Refusal> refusals) {
        List<MigrationReport.Unit> units = new ArrayList<>();
        MigrationProgress m = state.migration(migrationId).orElseThrow();
        for (MigrationUnit u : m.units().values()) {
            TableHead p = u.publishedHead();
            String digest = p == null ? null : RowDigest.of(store.scanUnchecked(u.table(), new TableRef(p.tableBranch(), p.version())));
            units.add(new MigrationReport.Unit(u.unitId(), u.graphBranch(), u.table(), u.pinnedTableBranch(),
                    u.pinnedVersion(), u.lazyInherited(), MigrationChecks.tableBranch(state, u), u.installedVersion(),
                    alreadyPresent.getOrDefault(u.unitId(), false), digest));
        }
        return new MigrationReport(status, migrationId, owner, resumed, classifications, units, m.verifiedBranches(),
                refusals);
    }

    private List<MigrationUnit> units(String migrationId) {
        return new ArrayList<>(state.migration(migrationId).orElseThrow().units().values());
    }

    private MigrationUnit unit(String migrationId, String unitId) {
        return state.migration(migrationId).orElseThrow().units().get(unitId);
    }

    private boolean keyed(String table) {
        return catalog.table(table).map(t -> t.kind().keyed()).orElse(false);
    }

    private void append(List<JournalEvent> events) {
        long first = journal.appendBatch(events, options.durability());
        HeadsState s = state;
        long now = System.currentTimeMillis() * 1_000_000L;
        for (int i = 0; i < events.size(); i++) {
            s = s.apply(new JournalRecord(first + i, now, journal.epoch(), events.get(i)));
        }
        state = s;
    }
}
