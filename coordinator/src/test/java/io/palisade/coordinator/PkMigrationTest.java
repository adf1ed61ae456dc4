package io.palisade.coordinator;

import io.palisade.coordinator.internal.GraphFormat;
import io.palisade.coordinator.internal.MigrationClaim;
import io.palisade.coordinator.internal.RowDigest;
import io.palisade.fencing.FormatStamp;
import io.palisade.fencing.GraphRefusedException;
import io.palisade.heads.HeadsReplayer;
import io.palisade.heads.HeadsState;
import io.palisade.heads.MigrationProgress;
import io.palisade.heads.Pin;
import io.palisade.journal.TableHead;
import io.palisade.substrate.TableStore;
import io.palisade.substrate.TableRef;
import io.palisade.substrate.lance.LanceTableStore;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class PkMigrationTest {

    @TempDir
    Path dir;

    static Map<String, String> scannedDigests(Graph g) {
        Map<String, String> out = new TreeMap<>();
        for (String b : g.branches()) {
            for (String t : g.heads(b).keySet()) {
                if (g.catalog().require(t).kind().keyed()) {
                    out.put(b + "/" + t, RowDigest.of(g.scan(b, t)));
                }
            }
        }
        return out;
    }

    static void assertEveryPinAnnotatedAndOwned(Path root) {
        assertEveryPinAnnotatedAndOwned(root, Map.of());
    }

    /** {@link #assertEveryPinAnnotatedAndOwned(Path)} with the tables where the graph records them. */
    static void assertEveryPinAnnotatedAndOwned(Path root, Map<String, String> storageOptions) {
        HeadsState s = HeadsReplayer.of(root.resolve("_palisade")).replay().state();
        Catalog catalog = Catalog.read(root.resolve("_palisade").resolve("catalog.json"));
        try (TableStore store = TableLocation.of(root, storageOptions).open(false)) {
            for (String b : s.branches().keySet()) {
                for (Map.Entry<String, Pin> e : s.pins(b).entrySet()) {
                    if (!catalog.require(e.getKey()).kind().keyed()) {
                        continue;
                    }
                    TableHead h = e.getValue().head();
                    assertThat(e.getValue().owned()).as(b + "/" + e.getKey() + " owned").isTrue();
                    assertThat(store.primaryKey(e.getKey(), new TableRef(h.tableBranch(), h.version())))
                            .as(b + "/" + e.getKey()).containsExactly("id");
                }
            }
        }
    }

    @Test
    void preFencingGraphWithOwnedAndLazyBranchesEmergesAnnotatedWithIdenticalRows() {
        Path root = LegacyGraphFixture.standard(dir.resolve("g"));
        Map<String, String> before = LegacyGraphFixture.digests(root);
        assertThat(before).hasSize(8);

        assertThatThrownBy(() -> Palisade.open(root, Options.defaults())).isInstanceOf(GraphRefusedException.class)
                .hasMessageContaining("format stamp 4").hasMessageContaining("migrate pk");

        MigrationReport r = PkMigration.run(root, MigrationOptions.defaults());

        assertThat(r.status()).isEqualTo(MigrationReport.Status.COMPLETED);
        assertThat(r.refusals()).isEmpty();
        assertThat(r.units()).hasSize(8);
        assertThat(r.units()).filteredOn(MigrationReport.Unit::lazyInherited)
                .extracting(u -> u.graphBranch() + "/" + u.table())
                .containsExactlyInAnyOrder("dev/knows", "feature/person", "feature/knows", "stale/person", "stale/knows");
        assertThat(r.units()).filteredOn(MigrationReport.Unit::lazyInherited)
                .allSatisfy(u -> assertThat(u.tableBranch()).startsWith("g-" + u.graphBranch() + "-i"))
                .allSatisfy(u -> assertThat(u.installedVersion()).isEqualTo(u.pinnedVersion() + 1));
        // the lazy pin of stale still pointed at main's old version: forked from exactly that one
        MigrationReport.Unit stalePerson = r.units().stream()
                .filter(u -> u.graphBranch().equals("stale") && u.table().equals("person")).findFirst().orElseThrow();
        assertThat(stalePerson.pinnedTableBranch()).isEqualTo("main");
        assertThat(r.verifiedBranches()).containsOnlyKeys("main", "dev", "feature", "stale");
        assertThat(GraphFormat.read(root)).contains(FormatStamp.FENCING.number());
        assertThat(Files.exists(MigrationClaim.file(root))).isFalse();
        assertEveryPinAnnotatedAndOwned(root);
        assertThat(LegacyGraphFixture.digests(root)).isEqualTo(before);

        HeadsState s = HeadsReplayer.of(root.resolve("_palisade")).replay().state();
        MigrationProgress m = s.migration(r.migrationId()).orElseThrow();
        assertThat(m.stampWritten()).isEqualTo(5);
        assertThat(m.units().values()).allSatisfy(u -> assertThat(u.phase().name()).isEqualTo("PUBLISHED"));

        try (Graph g = Palisade.open(root, Options.defaults().withIndexedMerge(false));
             BufferAllocator a = new RootAllocator();
             VectorSchemaRoot rows = Rows.people(a, "f1", 1)) {
            assertThat(scannedDigests(g)).isEqualTo(before);
            g.insert("stale", "person", rows);
            assertThat(g.scan("stale", "person")).extracting(row -> row.get("id")).contains("f1");
            assertThat(g.scan("main", "person")).extracting(row -> row.get("id")).doesNotContain("f1");
        }
        assertThat(PkMigration.run(root, MigrationOptions.defaults()).status())
                .isEqualTo(MigrationReport.Status.ALREADY_FENCING);
    }

    @Test
    void duplicateHistoricalIdsAbortBeforeTheStampWithAReport() {
        Path root = dir.resolve("dup");
        long dupVersion;
        try (LegacyGraphFixture f = LegacyGraphFixture.create(root, Rows.catalog())) {
            f.insertPeople("main", "a1", 1, "a2", 2);
            f.createBranch("dev", "main");
            f.appendOnMain("person", List.of(Map.of("id", "a1", "age", 9L), Map.of("id", "a2", "age", 8L)));
            dupVersion = f.state().head("main", "person").orElseThrow().version();
        }
        MigrationReport r = PkMigration.run(root, MigrationOptions.defaults());

        assertThat(r.status()).isEqualTo(MigrationReport.Status.REFUSED);
        assertThat(r.refusals()).singleElement().satisfies(x -> {
            assertThat(x.table()).isEqualTo("person");
            assertThat(x.graphBranch()).isEqualTo("main");
            assertThat(x.tableBranch()).isEqualTo("main");
            assertThat(x.version()).isEqualTo(dupVersion);
            assertThat(x.ids()).containsExactly("a1", "a2");
        });
        assertThat(r.describe()).contains("REFUSED: table 'person' on graph branch 'main' (main@" + dupVersion
                + "): 2 duplicate id(s) [a1, a2]");
        assertThat(r.units()).isEmpty();
        assertThat(GraphFormat.read(root)).contains(4);
        assertThat(Files.exists(MigrationClaim.file(root))).isFalse();
        try (LanceTableStore store = new LanceTableStore(root.resolve("tables").toString())) {
            assertThat(store.primaryKey("person", store.latest("person", "main"))).isEmpty();
            assertThat(store.primaryKey("knows", store.latest("knows", "main"))).isEmpty();
            assertThat(store.listBranches("person")).containsExactly("main");
        }
        HeadsState s = HeadsReplayer.of(root.resolve("_palisade")).replay().state();
        assertThat(s.migration(r.migrationId()).orElseThrow().refusedReason()).contains("duplicate").contains("a1");
        assertThatThrownBy(() -> Palisade.open(root, Options.defaults())).isInstanceOf(GraphRefusedException.class);
    }

    @Test
    void alreadyCorrectPkIsAnIdempotentSuccessAndNotRewritten() {
        Path root = dir.resolve("pk");
        long annotated;
        try (LegacyGraphFixture f = LegacyGraphFixture.create(root, Rows.catalog())) {
            f.insertPeople("main", "a1", 1);
            f.installPkOnMain("person", "id");
            annotated = f.state().head("main", "person").orElseThrow().version();
        }
        MigrationReport r = PkMigration.run(root, MigrationOptions.defaults());
        assertThat(r.status()).isEqualTo(MigrationReport.Status.COMPLETED);
        MigrationReport.Unit u = r.units().stream().filter(x -> x.table().equals("person")).findFirst().orElseThrow();
        assertThat(u.alreadyPresent()).isTrue();
        assertThat(u.installedVersion()).isEqualTo(annotated);
        try (LanceTableStore store = new LanceTableStore(root.resolve("tables").toString())) {
            assertThat(store.latest("person", "main").version()).isEqualTo(annotated);
        }
    }

    @Test
    void aDifferentPkIsALoudRefusalAndNothingIsInstalled() {
        Path root = dir.resolve("other-pk");
        try (LegacyGraphFixture f = LegacyGraphFixture.create(root, Rows.catalog())) {
            f.insertKnows("main", "k1", "a", "b");
            f.installPkOnMain("knows", "src");
        }
        MigrationReport r = PkMigration.run(root, MigrationOptions.defaults());
        assertThat(r.status()).isEqualTo(MigrationReport.Status.REFUSED);
        assertThat(r.refusals()).singleElement().satisfies(x -> {
            assertThat(x.table()).isEqualTo("knows");
            assertThat(x.reason()).contains("[src]").contains("never changed");
        });
        assertThat(GraphFormat.read(root)).contains(4);
        try (LanceTableStore store = new LanceTableStore(root.resolve("tables").toString())) {
            assertThat(store.primaryKey("person", store.latest("person", "main"))).isEmpty();
        }
    }

    @Test
    void anOlderBinaryRefusesAFencingGraphAndTheMigration() {
        Path root = dir.resolve("new");
        Palisade.create(root, Rows.catalog(), Options.defaults()).close();
        assertThat(GraphFormat.read(root)).contains(5);
        Path legacy = LegacyGraphFixture.standard(dir.resolve("old"));
        System.setProperty(GraphFormat.SUPPORTED_PROPERTY, "4");
        try {
            assertThatThrownBy(() -> Palisade.open(root, Options.defaults())).isInstanceOf(GraphRefusedException.class)
                    .hasMessageContaining("format stamp 5").hasMessageContaining("does not support");
            assertThatThrownBy(() -> PkMigration.run(root, MigrationOptions.defaults()))
                    .isInstanceOf(GraphRefusedException.class).hasMessageContaining("format stamp 5");
        } finally {
            System.clearProperty(GraphFormat.SUPPORTED_PROPERTY);
        }
        System.setProperty(GraphFormat.SUPPORTED_PROPERTY, "5");
        try {
            assertThatThrownBy(() -> Palisade.open(legacy, Options.defaults())).isInstanceOf(GraphRefusedException.class)
                    .hasMessageContaining("format stamp 4");
        } finally {
            System.clearProperty(GraphFormat.SUPPORTED_PROPERTY);
        }
        try (Graph g = Palisade.open(root, Options.defaults())) {
            assertThat(g.branches()).contains("main");
        }
    }

    @Test
    void anUnknownStampIsRefusedBeforeAnyBranchIsOpened() throws Exception {
        Path root = dir.resolve("future");
        Palisade.create(root, Rows.catalog(), Options.defaults()).close();
        GraphFormat.write(root, 6);
        assertThatThrownBy(() -> Palisade.open(root, Options.defaults())).isInstanceOf(GraphRefusedException.class)
                .hasMessageContaining("format stamp 6");
        // nothing was opened: no new writer session was journaled
        long before = HeadsReplayer.of(root.resolve("_palisade")).replay().state().lastSequence();
        assertThatThrownBy(() -> Palisade.open(root, Options.defaults())).isInstanceOf(GraphRefusedException.class);
        assertThat(HeadsReplayer.of(root.resolve("_palisade")).replay().state().lastSequence()).isEqualTo(before);
    }

    @Test
    void aStampedGraphWhoseTableLacksThePkIsRefusedOnOpenForWrite() {
        Path root = LegacyGraphFixture.standard(dir.resolve("rogue"));
        GraphFormat.write(root, 5); // someone stamped it without migrating
        assertThatThrownBy(() -> Palisade.open(root, Options.defaults())).isInstanceOf(GraphRefusedException.class)
                .hasMessageContaining("primary key []");
    }

    @Test
    void aStaleClaimWithNoJournaledMigrationIsReplacedAfterClassification() {
        Path root = LegacyGraphFixture.standard(dir.resolve("stale-claim"));
        MigrationClaim stale = MigrationClaim.create(root, "m-crashed-before-journaling"); // crash between create and journal
        MigrationReport r = PkMigration.run(root, MigrationOptions.defaults());
        assertThat(r.status()).isEqualTo(MigrationReport.Status.COMPLETED);
        assertThat(r.resumed()).isTrue();
        assertThat(r.classifications()).anyMatch(c -> c.contains("m-crashed-before-journaling"));
        assertThat(r.ownerToken()).isNotEqualTo(stale.ownerToken());
        assertThat(r.migrationId()).isNotEqualTo("m-crashed-before-journaling");
    }

    @Test
    void aClaimIsNotTakenOverWhileItsOwnerHoldsTheWriterLease() {
        Path root = LegacyGraphFixture.standard(dir.resolve("live-claim"));
        MigrationClaim live = MigrationClaim.create(root, "m-live");
        try (io.palisade.journal.Journal held = io.palisade.journal.Journal.open(root.resolve("_palisade"),
                io.palisade.journal.JournalOptions.defaults().withFormatStamp(4))) {
            assertThatThrownBy(() -> PkMigration.run(root, MigrationOptions.defaults()))
                    .isInstanceOf(GraphRefusedException.class).hasMessageContaining("held by another writer");
            assertThat(MigrationClaim.read(root)).contains(live);
        }
        assertThat(GraphFormat.read(root)).contains(4);
    }

    @Test
    void aSecondClaimIsRefusedAtomically() {
        Path root = LegacyGraphFixture.standard(dir.resolve("two-claims"));
        MigrationClaim first = MigrationClaim.create(root, "m-1");
        assertThatThrownBy(() -> MigrationClaim.create(root, "m-2")).isInstanceOf(GraphRefusedException.class)
                .hasMessageContaining("already has a migration claim");
        assertThat(MigrationClaim.read(root)).contains(first);
    }

    @Test
    void branchEnumerationIsIncarnationSafeForADeletedAndRecreatedBranch() {
        Path root = dir.resolve("reincarnated");
        try (LegacyGraphFixture f = LegacyGraphFixture.create(root, Rows.catalog())) {
            f.insertPeople("main", "a1", 1);
            f.createBranch("x", "main");
            f.insertPeople("x", "x1", 2); // the first incarnation of x owns table branch g-x
            f.deleteBranch("x");
            f.createBranch("x", "main"); // the second incarnation inherits main lazily
        }
        Map<String, String> before = LegacyGraphFixture.digests(root);
        MigrationReport r = PkMigration.run(root, MigrationOptions.defaults());
        assertThat(r.status()).isEqualTo(MigrationReport.Status.COMPLETED);
        assertThat(r.units()).filteredOn(u -> u.graphBranch().equals("x"))
                .allSatisfy(u -> assertThat(u.lazyInherited()).isTrue())
                .allSatisfy(u -> assertThat(u.tableBranch()).isNotEqualTo("g-x"));
        assertThat(LegacyGraphFixture.digests(root)).isEqualTo(before);
        try (Graph g = Palisade.open(root, Options.defaults())) {
            assertThat(g.scan("x", "person")).extracting(row -> row.get("id")).containsExactly("a1");
        }
    }

    @Test
    void aStampedGraphWithAnAnnotatedMainButAnUnannotatedLazyPinIsRefusedOnOpenForWrite() {
        Path root = dir.resolve("lazy-hole");
        try (LegacyGraphFixture f = LegacyGraphFixture.create(root, Rows.catalog())) {
            f.insertPeople("main", "a1", 1);
            f.insertKnows("main", "k1", "a1", "a1");
            f.createBranch("old", "main"); // pins main's unannotated versions
            f.installPkOnMain("person", "id");
            f.installPkOnMain("knows", "id");
        }
        GraphFormat.write(root, 5); // main alone annotated and stamped: the RFC's lazy-branch hole
        assertThatThrownBy(() -> Palisade.open(root, Options.defaults())).isInstanceOf(GraphRefusedException.class)
                .hasMessageContaining("graph branch 'old'").hasMessageContaining("primary key []");
    }

    @Test
    void theJournalRecordsTheWholePlanBeforeAnyEffectAndTheStampLast() {
        Path root = LegacyGraphFixture.standard(dir.resolve("order"));
        MigrationReport r = PkMigration.run(root, MigrationOptions.defaults());
        assertThat(r.status()).isEqualTo(MigrationReport.Status.COMPLETED);
        List<io.palisade.journal.JournalEvent> events = new java.util.ArrayList<>();
        try (io.palisade.journal.JournalReader reader = io.palisade.journal.JournalReader.open(root.resolve("_palisade"));
             io.palisade.journal.JournalCursor c = reader.read(0)) {
            for (io.palisade.journal.JournalRecord rec : c.drain()) {
                if (rec.event().getClass().getSimpleName().startsWith("Migration")) {
                    events.add(rec.event());
                }
            }
        }
        List<String> kinds = events.stream().map(e -> e.getClass().getSimpleName()).toList();
        assertThat(kinds.get(0)).isEqualTo("MigrationClaimed");
        assertThat(kinds.get(kinds.size() - 1)).isEqualTo("MigrationStampWritten");
        int lastPlan = kinds.lastIndexOf("MigrationUnitPlanned");
        assertThat(kinds.subList(1, lastPlan + 1)).containsOnly("MigrationUnitPlanned").hasSize(8);
        assertThat(kinds.subList(lastPlan + 1, kinds.size())).doesNotContain("MigrationUnitPlanned");
        assertThat(kinds).filteredOn("MigrationUnitForked"::equals).hasSize(5);
        assertThat(kinds).filteredOn("MigrationPkInstalled"::equals).hasSize(8);
        assertThat(kinds).filteredOn("MigrationUnitPublished"::equals).hasSize(8);
        assertThat(kinds).filteredOn("MigrationBranchVerified"::equals).hasSize(4);
        assertThat(kinds.indexOf("MigrationBranchVerified")).isGreaterThan(kinds.lastIndexOf("MigrationUnitPublished"));
        events.stream().filter(e -> e instanceof io.palisade.journal.JournalEvent.MigrationUnitForked)
                .map(e -> (io.palisade.journal.JournalEvent.MigrationUnitForked) e)
                .forEach(f -> assertThat(f.achievedVersion()).isEqualTo(f.forkedFromVersion()));
    }
}
