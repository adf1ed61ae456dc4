package io.palisade.coordinator;

import io.palisade.coordinator.internal.RowDigest;
import io.palisade.coordinator.internal.GraphFormat;
import io.palisade.coordinator.internal.GraphLayout;
import io.palisade.fencing.FormatStamp;
import io.palisade.heads.HeadsState;
import io.palisade.heads.Pin;
import io.palisade.journal.Durability;
import io.palisade.journal.HeadTransition;
import io.palisade.journal.Journal;
import io.palisade.journal.JournalEvent;
import io.palisade.journal.JournalEvent.GraphBranchCreated;
import io.palisade.journal.JournalEvent.HeadPublished;
import io.palisade.journal.JournalOptions;
import io.palisade.journal.JournalRecord;
import io.palisade.journal.TableHead;
import io.palisade.substrate.TableStore;
import io.palisade.substrate.ArrowRows;
import io.palisade.substrate.TableKind;
import io.palisade.substrate.TableRef;
import io.palisade.substrate.lance.LanceTableStore;
import io.palisade.substrate.lance.LegacyWrites;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Builds a pre-fencing graph as an older binary left it: stamp {@value #PRE} in {@code _palisade/format},
 * writer sessions at stamp 4, keyed tables created without PK metadata ({@code createLegacyKeyed}),
 * rows written by merge-insert (or, for duplicates, bare Append), graph branches lazily inheriting
 * until their first write forks a table branch {@code g-<branch>}.
 */
final class LegacyGraphFixture implements AutoCloseable {
    static final int PRE = 4;

    private final Path root;
    private final Catalog catalog;
    private final Journal journal;
    private final LanceTableStore store; // legacy writes go around the SPI on purpose
    private final BufferAllocator allocator = new RootAllocator();
    private HeadsState state = HeadsState.empty();

    private LegacyGraphFixture(Path root, Catalog catalog, TableLocation tables) {
        this.root = root;
        this.catalog = catalog;
        GraphLayout layout = new GraphLayout(root);
        GraphFormat.write(root, FormatStamp.PRE_FENCING.number());
        tables.record(root); // tables on an object store: _palisade/tables.uri, as a graph moved there would have
        layout.writeCatalog(catalog);
        this.journal = Journal.open(layout.palisade(), JournalOptions.defaults().withBinaryVersion("0.0.9-legacy")
                .withFormatStamp(FormatStamp.PRE_FENCING.number()));
        this.store = (LanceTableStore) tables.open(true);
        state = io.palisade.heads.HeadsReplayer.of(layout.palisade()).replay().state();
        List<JournalEvent> events = new ArrayList<>();
        for (Catalog.TableDef t : catalog.tables()) {
            if (t.kind().keyed()) {
                store.createLegacyKeyed(t.name(), t.kind() == Catalog.Kind.NODE ? TableKind.NODE : TableKind.EDGE,
                        t.arrowSchema());
            } else {
                store.createKeyless(t.name(), t.arrowSchema()).close();
            }
            events.add(new HeadPublished(List.of(new HeadTransition(HeadsState.MAIN, t.name(), null,
                    new TableHead(TableRef.MAIN, 1, 0, 0)))));
        }
        append(events);
    }

    static LegacyGraphFixture create(Path root, Catalog catalog) {
        return new LegacyGraphFixture(root, catalog, TableLocation.of(root));
    }

    /** {@link #standard(Path)} with the tables on {@code tables} (an object store: recorded in the graph). */
    static Path standard(Path root, TableLocation tables) {
        try (LegacyGraphFixture f = new LegacyGraphFixture(root, Rows.catalog(), tables)) {
            f.standardContent();
        }
        return root;
    }

    /**
     * The standard fixture: main owns person and knows with rows; {@code dev} (from main) owns person
     * and inherits knows; {@code feature} (from dev) inherits both (person from g-dev, knows from main);
     * {@code stale} (from main, before main's last write) inherits both; main then moves on.
     */
    static Path standard(Path root) {
        try (LegacyGraphFixture f = create(root, Rows.catalog())) {
            f.standardContent();
        }
        return root;
    }

    /** The standard fixture's branches and rows ({@link #standard(Path)}). */
    private void standardContent() {
        insertPeople("main", "a1", 30, "a2", 31, "a3", null, "a4", 40);
        insertKnows("main", "k1", "a1", "a2", "k2", "a2", "a3");
        createBranch("dev", "main");
        insertPeople("dev", "d1", 20, "d2", 21);
        createBranch("feature", "dev");
        createBranch("stale", "main");
        insertPeople("main", "a5", 50);
        insertKnows("main", "k3", "a4", "a5");
    }

    void insertPeople(String branch, Object... idAgePairs) {
        List<Map<String, Object>> rows = new ArrayList<>();
        for (int i = 0; i < idAgePairs.length; i += 2) {
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("id", idAgePairs[i]);
            row.put("age", idAgePairs[i + 1] == null ? null : ((Number) idAgePairs[i + 1]).longValue());
            rows.add(row);
        }
        insert(branch, "person", rows);
    }

    void insertKnows(String branch, String... idSrcDst) {
        List<Map<String, Object>> rows = new ArrayList<>();
        for (int i = 0; i < idSrcDst.length; i += 3) {
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("id", idSrcDst[i]);
            row.put("src", idSrcDst[i + 1]);
            row.put("dst", idSrcDst[i + 2]);
            rows.add(row);
        }
        insert(branch, "knows", rows);
    }

    /** A legacy write on a graph branch: forks {@code g-<branch>} first when the pin is inherited. */
    void insert(String branch, String table, List<Map<String, Object>> rows) {
        Pin pin = state.pins(branch).get(table);
        TableRef base = new TableRef(pin.head().tableBranch(), pin.head().version());
        if (!pin.owned()) {
            base = store.forkBranch(table, base, "g-" + branch);
        }
        long v;
        try (VectorSchemaRoot batch = VectorSchemaRoot.create(catalog.require(table).arrowSchema(), allocator)) {
            ArrowRows.fill(batch, rows);
            v = LegacyWrites.insert(store, table, base, batch);
        }
        publish(branch, table, pin.head(), new TableHead(base.branch(), v, 0, 0));
    }

    /** A bare Append of rows on main (how duplicate ids got in), published. */
    void appendOnMain(String table, List<Map<String, Object>> rows) {
        Pin pin = state.pins(HeadsState.MAIN).get(table);
        long v;
        try (VectorSchemaRoot batch = VectorSchemaRoot.create(catalog.require(table).arrowSchema(), allocator)) {
            ArrowRows.fill(batch, rows);
            v = LegacyWrites.appendOnMain(store, table, batch);
        }
        publish(HeadsState.MAIN, table, pin.head(), new TableHead(TableRef.MAIN, v, 0, 0));
    }

    /** Installs PK {@code field} (or {@code id} via the SPI) on main's head and publishes it. */
    void installPkOnMain(String table, String field) {
        Pin pin = state.pins(HeadsState.MAIN).get(table);
        TableRef base = new TableRef(pin.head().tableBranch(), pin.head().version());
        long v = field.equals("id") ? store.installPrimaryKey(table, base, "legacy-tool").ref().version()
                : LegacyWrites.installPkOn(store, table, base, field);
        publish(HeadsState.MAIN, table, pin.head(), new TableHead(TableRef.MAIN, v, 0, 0));
    }

    void deleteBranch(String name) {
        append(List.of(new JournalEvent.GraphBranchDeleted(name)));
    }

    void createBranch(String name, String from) {
        append(List.of(new GraphBranchCreated(name, from, state.lastSequence())));
    }

    private void publish(String branch, String table, TableHead from, TableHead to) {
        append(List.of(new HeadPublished(List.of(new HeadTransition(branch, table, from, to)))));
    }

    private void append(List<JournalEvent> events) {
        long first = journal.appendBatch(events, Durability.POWER_LOSS);
        for (int i = 0; i < events.size(); i++) {
            state = state.apply(new JournalRecord(first + i, 0, journal.epoch(), events.get(i)));
        }
    }

    /** Digest of every keyed (branch, table) image the graph pins, read without the PK check. */
    static Map<String, String> digests(Path root) {
        return digests(root, Map.of());
    }

    /** {@link #digests(Path)} of a graph whose tables may be on an object store ({@code storageOptions} reach it). */
    static Map<String, String> digests(Path root, Map<String, String> storageOptions) {
        GraphLayout layout = new GraphLayout(root);
        HeadsState s = io.palisade.heads.HeadsReplayer.of(layout.palisade()).replay().state();
        Catalog catalog = Catalog.read(layout.catalogFile());
        Map<String, String> out = new TreeMap<>();
        try (TableStore store = TableLocation.of(root, storageOptions).open(false)) {
            for (String b : s.branches().keySet()) {
                for (Map.Entry<String, Pin> e : s.pins(b).entrySet()) {
                    if (!catalog.require(e.getKey()).kind().keyed()) {
                        continue;
                    }
                    TableHead h = e.getValue().head();
                    out.put(b + "/" + e.getKey(), RowDigest.of(store.scanUnchecked(e.getKey(),
                            new TableRef(h.tableBranch(), h.version()))));
                }
            }
        }
        return out;
    }

    HeadsState state() {
        return state;
    }

    Path root() {
        return root;
    }

    @Override
    public void close() {
        try {
            journal.close();
        } finally {
            store.close();
            allocator.close();
        }
    }
}
