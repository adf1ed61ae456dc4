package io.palisade.coordinator;

import io.palisade.fencing.CatalogCorruptedException;
import io.palisade.heads.HeadsReplayer;
import io.palisade.heads.HeadsState;
import io.palisade.heads.PhaseCrashPoints;
import io.palisade.journal.JournalEvent;
import io.palisade.substrate.lance.LanceTableStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The stored catalog is covered by the journal: create and every catalog change record it ({@code CatalogRecorded})
 * before {@code catalog.json} is written, and an open refuses a file that is not the journal's catalog, naming the
 * difference; a file one record behind (a write cut short) is rewritten; a journal that never recorded a catalog takes
 * the file once.
 */
class CatalogJournalTest extends GraphTestSupport {
    @AfterEach
    void clearListener() {
        PhaseCrashPoints.listener(null);
    }

    private static Path catalogFile(Path root) {
        return root.resolve("_palisade").resolve("catalog.json");
    }

    private static List<JournalEvent.CatalogRecorded> recorded(Path root) {
        return BulkLoadTest.events(root).stream().filter(e -> e instanceof JournalEvent.CatalogRecorded)
                .map(e -> (JournalEvent.CatalogRecorded) e).toList();
    }

    private Path created() {
        Path root = dir.resolve("g");
        Palisade.create(root, Rows.catalog(), Options.defaults()).close();
        return root;
    }

    private static void edit(Path root, String from, String to) throws IOException {
        String text = Files.readString(catalogFile(root));
        assertThat(text).contains(from);
        Files.writeString(catalogFile(root), text.replaceFirst(java.util.regex.Pattern.quote(from), to));
    }

    @Test
    void createRecordsTheCatalogBeforeItsTablesAndAReopenAcceptsIt() {
        Path root = created();
        List<JournalEvent> events = BulkLoadTest.events(root);
        JournalEvent.CatalogRecorded r = (JournalEvent.CatalogRecorded) events.get(1); // after WriterStarted
        assertThat(r.reason()).isEqualTo("graph created");
        assertThat(r.digest()).isEqualTo(Rows.catalog().digest());
        assertThat(Catalog.fromJson(r.catalog())).isEqualTo(Rows.catalog());
        try (Graph g = Palisade.open(root, Options.defaults())) {
            assertThat(g.catalog()).isEqualTo(Rows.catalog());
            assertThat(g.state().catalog().orElseThrow().digest()).isEqualTo(r.digest());
        }
        assertThat(recorded(root)).hasSize(1); // a matching file is not recorded again
    }

    @Test
    void anEdgeTableEditedIntoANodeTableIsRefusedNamingTheDifference() throws IOException {
        Path root = created();
        edit(root, "\"kind\" : \"edge\"", "\"kind\" : \"node\"");
        assertThatThrownBy(() -> Palisade.open(root, Options.defaults())).isInstanceOf(CatalogCorruptedException.class)
                .hasMessageContaining("table 'knows': kind is node, the journal recorded edge")
                .hasMessageContaining("at sequence 1");
        // read-only checks refuse it too
        HeadsState state = HeadsReplayer.of(root.resolve("_palisade")).replay().state();
        assertThatThrownBy(() -> StoredCatalog.read(catalogFile(root), state))
                .isInstanceOfSatisfying(CatalogCorruptedException.class, e -> assertThat(e.differences())
                        .containsExactly("table 'knows': kind is node, the journal recorded edge"));
    }

    @Test
    void aColumnTypeChangedByHandIsRefusedNamingTheColumn() throws IOException {
        Path root = created();
        edit(root, "\"type\" : \"int64\"", "\"type\" : \"int32\"");
        assertThatThrownBy(() -> Palisade.open(root, Options.defaults())).isInstanceOf(CatalogCorruptedException.class)
                .hasMessageContaining("table 'person': column 'age' is int32, the journal recorded int64");
    }

    @Test
    void aFileRewrittenWithTheSameMeaningIsAccepted() throws IOException {
        Path root = created();
        // other spacing, other key order, implied defaults spelled out and left out
        Files.writeString(catalogFile(root), """
                {"tables": [
                  {"kind": "node", "name": "person", "ack": "table", "columns": [{"type": "string", "name": "id"},
                    {"name": "age", "type": "int64"}]},
                  {"name": "knows", "kind": "edge", "columns": [{"name": "id", "type": "string", "nullable": false},
                    {"name": "src", "type": "string"}, {"name": "dst", "type": "string"}]},
                  {"name": "log", "kind": "append-only", "columns": [{"name": "msg", "type": "string"}]}]}
                """);
        try (Graph g = Palisade.open(root, Options.defaults())) {
            assertThat(g.catalog()).isEqualTo(Rows.catalog());
        }
        assertThat(recorded(root)).hasSize(1);
    }

    @Test
    void addColumnsRecordsTheNewCatalogAndTheReopenAcceptsIt() {
        Path root = created();
        List<Catalog.ColumnDef> cols = List.of(new Catalog.ColumnDef("email", Catalog.ColumnType.Scalar.STRING, true));
        try (Graph g = Palisade.open(root, Options.defaults())) {
            g.addColumns("person", cols);
        }
        List<JournalEvent.CatalogRecorded> r = recorded(root);
        assertThat(r).hasSize(2);
        assertThat(r.get(1).reason()).isEqualTo("columns added to table 'person': email");
        Catalog next = Catalog.fromJson(r.get(1).catalog());
        assertThat(next.require("person").column("email")).isPresent();
        assertThat(Catalog.read(catalogFile(root))).isEqualTo(next);
        try (Graph g = Palisade.open(root, Options.defaults())) {
            assertThat(g.catalog()).isEqualTo(next);
            assertThat(g.state().catalog().orElseThrow().previousDigest()).isEqualTo(Rows.catalog().digest());
        }
        assertThat(recorded(root)).hasSize(2);
    }

    /** A graph whose committer runs on the calling thread, dying at {@code point} during an add-columns write. */
    private Path addColumnsKilledAt(String point) {
        List<LanceTableStore> stores = new ArrayList<>();
        Palisade.Wiring dying = new Palisade.Wiring(tables -> {
            LanceTableStore s = new LanceTableStore(tables.toString());
            stores.add(s);
            return s;
        }, true);
        Path root = dir.resolve("g");
        Graph g = Palisade.create(root, Rows.catalog(), Options.defaults(), dying);
        PhaseCrashPoints.listener(p -> {
            if (p.equals(point)) {
                throw new Simulation.SimulatedCrash(p);
            }
        });
        assertThatThrownBy(() -> g.addColumns("person",
                List.of(new Catalog.ColumnDef("email", Catalog.ColumnType.Scalar.STRING, true))))
                .isInstanceOf(Simulation.SimulatedCrash.class);
        PhaseCrashPoints.listener(null);
        g.engine().abandon();
        stores.forEach(LanceTableStore::close);
        return root;
    }

    @Test
    void killedBetweenRecordingTheCatalogAndWritingTheFileTheFileIsBehindAndTheOpenRewritesIt() {
        Path root = addColumnsKilledAt("add-columns-after-catalog-journaled");
        // the journal has the new catalog, the file the old one: read-only checks use the journal's
        assertThat(Catalog.read(catalogFile(root))).isEqualTo(Rows.catalog());
        HeadsState state = HeadsReplayer.of(root.resolve("_palisade")).replay().state();
        StoredCatalog.Verdict v = StoredCatalog.read(catalogFile(root), state);
        assertThat(v.standing()).isEqualTo(StoredCatalog.Standing.BEHIND);
        assertThat(v.catalog().require("person").column("email")).isPresent();
        try (Graph g = Palisade.open(root, Options.defaults())) {
            assertThat(g.catalog().require("person").column("email")).isPresent();
            assertThat(g.scan("main", "person")).isEmpty();
        }
        assertThat(Catalog.read(catalogFile(root)).require("person").column("email")).isPresent();
        assertThat(recorded(root)).hasSize(2); // rewritten from the journal, not recorded again
    }

    @Test
    void killedAfterTheTableCommitBeforeTheRecordTheOpenReconcilesRecordsAndWritesTheCatalog() {
        Path root = addColumnsKilledAt("after-substrate-commit");
        assertThat(recorded(root)).hasSize(1);
        assertThat(Catalog.read(catalogFile(root))).isEqualTo(Rows.catalog());
        try (Graph g = Palisade.open(root, Options.defaults())) {
            assertThat(g.catalog().require("person").column("email")).isPresent();
        }
        List<JournalEvent.CatalogRecorded> r = recorded(root);
        assertThat(r).hasSize(2);
        assertThat(r.get(1).reason()).contains("a crash cut short").contains("table 'person': email");
        assertThat(Catalog.read(catalogFile(root))).isEqualTo(Catalog.fromJson(r.get(1).catalog()));
        try (Graph g = Palisade.open(root, Options.defaults())) {
            assertThat(g.catalog().require("person").column("email")).isPresent();
        }
    }

    @Test
    void killedAfterTheOpenRecordedAReconciledCatalogTheNextOpenRewritesTheFile() {
        Path root = addColumnsKilledAt("after-substrate-commit");
        PhaseCrashPoints.listener(p -> {
            if (p.equals("open-after-catalog-journaled")) {
                throw new Simulation.SimulatedCrash(p);
            }
        });
        // the open's lease and queue are released on an Error too
        assertThatThrownBy(() -> Palisade.open(root, Options.defaults())).isInstanceOf(Simulation.SimulatedCrash.class);
        PhaseCrashPoints.listener(null);
        assertThat(recorded(root)).hasSize(2);
        assertThat(Catalog.read(catalogFile(root))).isEqualTo(Rows.catalog()); // behind
        try (Graph g = Palisade.open(root, Options.defaults())) {
            assertThat(g.catalog().require("person").column("email")).isPresent();
        }
        assertThat(Catalog.read(catalogFile(root)).require("person").column("email")).isPresent();
        assertThat(recorded(root)).hasSize(2);
    }

    @Test
    void aJournalThatNeverRecordedTheCatalogTakesTheFileOnceThenGuardsIt() throws IOException {
        Path root = dir.resolve("legacy");
        try (LegacyGraphFixture f = LegacyGraphFixture.create(root, Rows.catalog())) {
            f.insertPeople("main", "a1", 1);
        }
        assertThat(PkMigration.run(root, MigrationOptions.defaults()).status())
                .isEqualTo(MigrationReport.Status.COMPLETED);
        assertThat(recorded(root)).isEmpty();
        HeadsState before = HeadsReplayer.of(root.resolve("_palisade")).replay().state();
        assertThat(StoredCatalog.read(catalogFile(root), before).standing()).isEqualTo(StoredCatalog.Standing.UNRECORDED);
        try (Graph g = Palisade.open(root, Options.defaults())) {
            assertThat(g.catalog()).isEqualTo(Rows.catalog());
        }
        List<JournalEvent.CatalogRecorded> r = recorded(root);
        assertThat(r).singleElement().satisfies(x -> {
            assertThat(x.reason()).contains("taken as found");
            assertThat(x.digest()).isEqualTo(Rows.catalog().digest());
        });
        edit(root, "\"kind\" : \"edge\"", "\"kind\" : \"node\"");
        assertThatThrownBy(() -> Palisade.open(root, Options.defaults())).isInstanceOf(CatalogCorruptedException.class)
                .hasMessageContaining("table 'knows': kind is node, the journal recorded edge");
    }
}
