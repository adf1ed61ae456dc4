package io.palisade.coordinator;

import io.palisade.coordinator.internal.GraphLayout;
import io.palisade.fencing.GraphRefusedException;
import io.palisade.fencing.KeyConflictException;
import io.palisade.fencing.MergeConflictException;
import io.palisade.fencing.ObjectStoreRefusedException;
import io.palisade.fencing.ValidationException;
import io.palisade.heads.HeadsReplayer;
import io.palisade.heads.HeadsState;
import io.palisade.heads.PhaseCrashPoints;
import io.palisade.journal.Durability;
import io.palisade.substrate.TableStore;
import io.palisade.substrate.s3.S3ProxyFixture;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A graph whose tables live on an object store (S3Proxy in this JVM) while its journal and lease stay on local disk:
 * the main flows of the product run there as on local disk (docs/scale-out.md), and a store that ignores
 * conditional put is refused before anything is written.
 */
class ObjectStoreGraphTest extends GraphTestSupport {
    private final S3ProxyFixture s3 = S3ProxyFixture.shared();
    private final List<TableStore> opened = new ArrayList<>();

    @AfterEach
    void closeStores() {
        PhaseCrashPoints.listener(null);
        opened.forEach(TableStore::close);
    }

    private static Map<String, Long> people(Graph g, String branch) {
        Map<String, Long> rows = new TreeMap<>();
        g.scan(branch, "person").forEach(r -> rows.put((String) r.get("id"), (Long) r.get("age")));
        return rows;
    }

    @Test
    void writesBranchesLoadsMaintenanceAndReplayRunOnTheObjectStore() throws Exception {
        Path root = dir.resolve("g");
        String uri = s3.freshUri();
        try (Graph g = Palisade.create(root, Rows.catalog(), Options.defaults(), uri, s3.storageOptions())) {
            assertThat(Files.readString(root.resolve("_palisade").resolve(TableLocation.URI_FILE)).strip()).isEqualTo(uri);
            assertThat(root.resolve("tables")).doesNotExist();
            try (VectorSchemaRoot a = Rows.people(allocator, "alice", 30, "bob", 40)) {
                g.insert("main", "person", a);
            }
            try (VectorSchemaRoot again = Rows.people(allocator, "alice", 31)) {
                assertThatThrownBy(() -> g.insert("main", "person", again)).isInstanceOf(KeyConflictException.class);
            }
            try (VectorSchemaRoot up = Rows.people(allocator, "bob", 41, "carol", 7)) {
                g.upsert("main", "person", up);
            }
            g.delete("main", "person", List.of("carol"));
            assertThat(people(g, "main")).isEqualTo(Map.of("alice", 30L, "bob", 41L));
            long seqBeforeBranch = g.state().lastSequence();

            g.createBranch("feature", "main");
            try (VectorSchemaRoot f = Rows.people(allocator, "dave", 5)) {
                g.upsert("feature", "person", f);
            }
            MergeResult merged = g.merge("feature", "main");
            assertThat(merged.inserted()).isEqualTo(1);
            g.createBranch("left", "main");
            try (VectorSchemaRoot l = Rows.people(allocator, "alice", 1); VectorSchemaRoot m = Rows.people(allocator, "alice", 2)) {
                g.upsert("left", "person", l);
                g.upsert("main", "person", m);
            }
            assertThatThrownBy(() -> g.merge("left", "main")).isInstanceOf(MergeConflictException.class);

            try (PeopleReader in = new PeopleReader(allocator, PeopleReader.ids("k", 6), 7, 3, b -> { })) {
                assertThat(g.load("main", "person", in, LoadMode.APPEND, 3).rows()).isEqualTo(6);
            }
            g.compact("main", "person");
            g.appendRows("main", "log", List.of(Row.of("msg", "hello")));
            assertThat(people(g, "main")).containsEntry("alice", 2L).containsEntry("dave", 5L).containsKey("k5").hasSize(9);
            assertThat(g.scanAt("main", "person", seqBeforeBranch)).hasSize(2); // the journal's time travel
        }
        HeadsState full = HeadsReplayer.of(root.resolve(GraphLayout.PALISADE)).fullReplay();
        try (Graph g = Palisade.open(root, Options.defaults(), s3.storageOptions())) {
            assertThat(g.state().digest()).isEqualTo(full.digest());
            assertThat(people(g, "main")).hasSize(9);
            assertThat(g.rows("main", "log")).hasSize(1);
        }
    }

    /**
     * PK migration runs where the tables are: a pre-fencing graph whose tables are on the store (as one moved there
     * would be, its URI in {@code _palisade/tables.uri}) migrates through the storage options given, every pinned image
     * keeps its rows and gains the key annotation in the {@code s3://} tables, and the graph then opens fenced.
     */
    @Test
    void aPreFencingGraphWhoseTablesAreOnTheStoreMigratesThere() {
        Path root = dir.resolve("legacy");
        LegacyGraphFixture.standard(root, TableLocation.objectStore(s3.freshUri(), s3.storageOptions()));
        assertThat(root.resolve("tables")).doesNotExist();
        Map<String, String> before = LegacyGraphFixture.digests(root, s3.storageOptions());
        assertThat(before).hasSize(8);
        assertThatThrownBy(() -> Palisade.open(root, Options.defaults(), s3.storageOptions()))
                .isInstanceOf(GraphRefusedException.class).hasMessageContaining("migrate pk");

        MigrationReport r = PkMigration.run(root, MigrationOptions.defaults().withStorageOptions(s3.storageOptions()));

        assertThat(r.status()).isEqualTo(MigrationReport.Status.COMPLETED);
        assertThat(r.refusals()).isEmpty();
        assertThat(r.units()).hasSize(8);
        assertThat(root.resolve("tables")).doesNotExist();
        PkMigrationTest.assertEveryPinAnnotatedAndOwned(root, s3.storageOptions());
        try (Graph g = Palisade.open(root, Options.defaults(), s3.storageOptions())) {
            assertThat(PkMigrationTest.scannedDigests(g)).isEqualTo(before);
            try (VectorSchemaRoot again = Rows.people(allocator, "a1", 99)) {
                assertThatThrownBy(() -> g.insert("main", "person", again)).isInstanceOf(KeyConflictException.class);
            }
        }
        assertThat(PkMigration.run(root, MigrationOptions.defaults().withStorageOptions(s3.storageOptions())).status())
                .isEqualTo(MigrationReport.Status.ALREADY_FENCING);
    }

    @Test
    void aCrashAfterTheSubstrateCommitIsRolledForwardAtTheNextOpen() {
        Path root = dir.resolve("g");
        Options options = Options.defaults().withDurability(Durability.PROCESS_CRASH);
        Map<String, String> so = s3.storageOptions();
        Palisade.Wiring wiring = new Palisade.Wiring(tables -> {
            TableStore st = TableLocation.of(tables.getParent(), so).open(false);
            opened.add(st);
            return st;
        }, true, so);
        Graph g = Palisade.create(root, Rows.catalog(), options, wiring, TableLocation.objectStore(s3.freshUri(), so));
        try (VectorSchemaRoot a = Rows.people(allocator, "a", 1)) {
            CompletableFuture<Receipt> first = g.upsertAsync("main", "person", a, WriteOptions.idempotencyKey("w1"));
            g.engine().stepCommitter();
            assertThat(first).isCompleted();
        }
        PhaseCrashPoints.listener(point -> {
            if (point.equals("after-substrate-commit")) {
                throw new Simulation.SimulatedCrash(point);
            }
        });
        try (VectorSchemaRoot b = Rows.people(allocator, "b", 2)) {
            CompletableFuture<Receipt> second = g.upsertAsync("main", "person", b, WriteOptions.idempotencyKey("w2"));
            assertThatThrownBy(g.engine()::stepCommitter).isInstanceOf(Simulation.SimulatedCrash.class);
            assertThat(second).isNotDone();
        }
        PhaseCrashPoints.listener(null);
        g.engine().abandon();
        try (Graph reopened = Palisade.open(root, options, false, wiring)) {
            assertThat(reopened.recoveryReport().classifications()).hasSize(1);
            assertThat(reopened.state().receipt("w2")).isPresent();
            assertThat(reopened.state().openIntents()).isEmpty();
            assertThat(people(reopened, "main")).isEqualTo(Map.of("a", 1L, "b", 2L));
        }
    }

    @Test
    void aStoreThatIgnoresConditionalPutIsRefusedAndNothingIsWritten() {
        Path root = dir.resolve("g");
        try (S3ProxyFixture ignoring = S3ProxyFixture.ignoringConditionalPuts()) {
            assertThatThrownBy(() -> Palisade.create(root, Rows.catalog(), Options.defaults(), ignoring.freshUri(),
                    ignoring.storageOptions()))
                    .isInstanceOf(ObjectStoreRefusedException.class)
                    .hasMessageContaining("does not honour conditional put");
        }
        assertThat(root).doesNotExist();
    }

    @Test
    void openingAGraphWhoseStoreNoLongerHonoursConditionalPutIsRefused() {
        Path root = dir.resolve("g");
        String prefix = "moved-" + java.util.UUID.randomUUID();
        Palisade.create(root, Rows.catalog(), Options.defaults(), s3.uri(prefix), s3.storageOptions()).close();
        try (S3ProxyFixture ignoring = S3ProxyFixture.ignoringConditionalPuts()) {
            Map<String, String> there = ignoring.storageOptions();
            assertThatThrownBy(() -> Palisade.open(root, Options.defaults(), there))
                    .isInstanceOf(ObjectStoreRefusedException.class);
        }
    }

    @Test
    void aPrefixThatAlreadyHoldsTheTablesIsRefused() {
        String uri = s3.freshUri();
        Palisade.create(dir.resolve("g1"), Rows.catalog(), Options.defaults(), uri, s3.storageOptions()).close();
        assertThatThrownBy(() -> Palisade.create(dir.resolve("g2"), Rows.catalog(), Options.defaults(), uri,
                s3.storageOptions()))
                .isInstanceOf(ValidationException.class).hasMessageContaining("already holds table 'person'");
        assertThat(dir.resolve("g2")).doesNotExist();
        assertThatThrownBy(() -> Palisade.create(dir.resolve("g3"), Rows.catalog(), Options.defaults(), "gs://b/x",
                Map.of())).isInstanceOf(ValidationException.class).hasMessageContaining("only s3://");
    }
}
