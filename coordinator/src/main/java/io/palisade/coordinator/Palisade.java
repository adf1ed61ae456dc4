package io.palisade.coordinator;

import io.palisade.coordinator.internal.BinaryVersion;
import io.palisade.coordinator.internal.CatalogRecords;
import io.palisade.coordinator.internal.CrashPoints;
import io.palisade.coordinator.internal.Engine;
import io.palisade.coordinator.internal.GraphBuilder;
import io.palisade.coordinator.internal.GraphFormat;
import io.palisade.coordinator.internal.GraphLayout;
import io.palisade.coordinator.internal.OpenChecks;
import io.palisade.coordinator.internal.StagedCreate;

import io.palisade.fencing.FormatStamp;
import io.palisade.fencing.GraphRefusedException;
import io.palisade.fencing.ValidationException;
import io.palisade.heads.HeadsReplayer;
import io.palisade.heads.HeadsState;
import io.palisade.journal.Journal;
import io.palisade.recovery.Recovery;
import io.palisade.recovery.RecoveryReport;
import io.palisade.substrate.TableStore;
import io.palisade.substrate.lance.LanceTableStore;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;

import java.nio.file.Path;
import java.util.Optional;

/**
 * Entry point: create or open a graph. Opening takes the writer lease (one writer process per graph),
 * checks the format stamp, replays the journal into table heads, runs recovery (DESIGN §5), checks the stored
 * catalog against the catalog the journal recorded ({@link StoredCatalog}) and every keyed table's physical schema
 * against the PK contract before any write is accepted.
 */
public final class Palisade {
    static {
        System.setProperty("chronicle.analytics.disable", "true");
    }

    /** The binary's version, stamped on every writer session. */
    public static final String VERSION = BinaryVersion.VERSION;

    private Palisade() {
    }

    /**
     * How {@link #create}/{@link #open} wire an opened graph: the {@link TableStore} it writes (given the
     * graph's {@code tables/} directory) and whether its committer runs on its own thread.
     *
     * <p>A test and simulation SPI, package-private on purpose: production always gets {@link #standard}
     * (a {@link LanceTableStore}, the committer on its own Agrona thread). The deterministic simulation
     * (docs/recovery.md) passes the same in-memory store to every open of one graph, so the store holds
     * the "durable" table state across a simulated crash, and steps the committer on the calling thread
     * ({@code Engine.stepCommitter()}) so that a seed alone decides every interleaving.
     *
     * @param stores          the table store of one opened graph; {@link Graph#close()} closes it
     * @param manualCommitter no committer thread: the caller steps it; blocking writes step it until done
     */
    record Wiring(java.util.function.Function<Path, TableStore> stores, boolean manualCommitter,
                  java.util.Map<String, String> storageOptions,
                  java.util.Optional<io.palisade.journal.KafkaJournalConfig> kafkaJournal,
                  java.time.Clock journalClock) {
        Wiring(java.util.function.Function<Path, TableStore> stores, boolean manualCommitter) {
            this(stores, manualCommitter, java.util.Map.of(), java.util.Optional.empty(), java.time.Clock.systemUTC());
        }

        Wiring(java.util.function.Function<Path, TableStore> stores, boolean manualCommitter,
               java.util.Map<String, String> storageOptions) {
            this(stores, manualCommitter, storageOptions, java.util.Optional.empty(), java.time.Clock.systemUTC());
        }

        /** At create: the new graph's journal goes to this Kafka topic instead of Chronicle. */
        Wiring withKafkaJournal(io.palisade.journal.KafkaJournalConfig journal) {
            return new Wiring(stores, manualCommitter, storageOptions, java.util.Optional.of(journal), journalClock);
        }

        /**
         * The clock of the journal writer's record times, which also roll its files every five minutes: tests move it to
         * make the row release's closed files without waiting (docs/journal.md "Row release").
         */
        Wiring withJournalClock(java.time.Clock clock) {
            return new Wiring(stores, manualCommitter, storageOptions, kafkaJournal, clock);
        }

        /**
         * Production wiring: a Lance store on the graph's {@link TableLocation} (its {@code tables/} directory or the
         * object-store URI it records, with {@code storageOptions} over those of the file and environment) that, on
         * local disk, fsyncs every commit's files before it returns when the graph is at {@code POWER_LOSS}
         * durability (Lance 7.0.0 never syncs them itself), so no write is acknowledged while a table file it depends
         * on is only in the page cache; at {@code PROCESS_CRASH} the page cache is enough and nothing is synced. An
         * object store is durable per PUT.
         */
        static Wiring standard(Options options, java.util.Map<String, String> storageOptions) {
            boolean sync = options.durability() == io.palisade.journal.Durability.POWER_LOSS;
            return new Wiring(tables -> TableLocation.of(tables.getParent(), storageOptions).open(sync), false,
                    storageOptions, java.util.Optional.empty(), java.time.Clock.systemUTC());
        }

        static Wiring standard(Options options) {
            return standard(options, java.util.Map.of());
        }
    }

    /**
     * Creates a new graph at the fencing format, every keyed table with its PK from creation. A catalog with no table
     * is a {@link ValidationException}, and nothing is written (as for every create below).
     */
    public static Graph create(Path root, Catalog catalog, Options options) {
        return create(root, catalog, options, Wiring.standard(options));
    }

    /**
     * Creates a new graph whose tables live on an object store at {@code tablesUri} ({@code s3://bucket/prefix}, which
     * must hold none of the catalog's tables yet); the journal, lease and catalog stay under {@code root}, which
     * records the URI and never the storage options (docs/scale-out.md). The store is first probed for conditional
     * put ({@link TableLocation}); a store that does not refuse a second create-if-absent is refused with
     * {@link io.palisade.fencing.ObjectStoreRefusedException} and nothing is written.
     *
     * @param storageOptions Lance storage options over those of {@code PALISADE_STORAGE_FILE} and
     *                       {@code PALISADE_STORAGE_*}; pass them again to {@link #open(Path, Options, java.util.Map)}
     */
    public static Graph create(Path root, Catalog catalog, Options options, String tablesUri,
                               java.util.Map<String, String> storageOptions) {
        TableLocation location = TableLocation.objectStore(tablesUri, storageOptions);
        return create(root, catalog, options, Wiring.standard(options, storageOptions), location);
    }

    /**
     * Creates a new graph whose journal is on Kafka: {@code journal} is written to {@code _palisade/journal.properties}
     * (docs/journal.md "Kafka"), and every later {@link #open} of the graph, in this process or another, writes that
     * topic. There is no local writer lease then: a writer's open fences the previous one (docs/scale-out.md).
     */
    public static Graph create(Path root, Catalog catalog, Options options, io.palisade.journal.KafkaJournalConfig journal) {
        return create(root, catalog, options, Wiring.standard(options).withKafkaJournal(journal));
    }

    /**
     * Creates a new graph whose tables live on an object store at {@code tablesUri} and whose journal is on Kafka:
     * both of the creates above at once (docs/scale-out.md).
     */
    public static Graph create(Path root, Catalog catalog, Options options, String tablesUri,
                               java.util.Map<String, String> storageOptions, io.palisade.journal.KafkaJournalConfig journal) {
        TableLocation location = TableLocation.objectStore(tablesUri, storageOptions);
        return create(root, catalog, options, Wiring.standard(options, storageOptions).withKafkaJournal(journal), location);
    }

    /**
     * Builds the whole graph in a staging directory beside {@code root} ({@code .<name>.creating-<pid>-<uuid>}) and
     * renames it into place (one {@code rename(2)}, then an fsync of the parent directory): a create that fails or
     * is killed at any step leaves no graph at {@code root}, only a staging directory, which the next create of the
     * same path removes once its creator process is gone. {@code root} must not exist or be an empty directory.
     */
    static Graph create(Path root, Catalog catalog, Options options, Wiring wiring) {
        return create(root, catalog, options, wiring, null);
    }

    /** {@code location} null: the tables in the graph's own {@code tables/} directory. */
    static Graph create(Path root, Catalog catalog, Options options, Wiring wiring, TableLocation location) {
        if (catalog.tables().isEmpty()) {
            throw new ValidationException("the catalog declares no tables; a graph needs at least one");
        }
        JvmOptions.check();
        Path target = root.toAbsolutePath().normalize();
        if (new GraphLayout(target).exists()) {
            throw new ValidationException("a graph already exists at " + root);
        }
        // a Kafka journal's topic must be absent or empty: never another graph's journal (checked before any write)
        wiring.kafkaJournal().ifPresent(Journal::checkNewKafkaTopic);
        if (location != null) {
            location.probe();
            try (TableStore existing = location.open(false)) {
                for (Catalog.TableDef t : catalog.tables()) {
                    if (existing.exists(t.name())) {
                        throw new ValidationException("the tables location " + location.uri() + " already holds table '"
                                + t.name() + "' (of another graph, or of a create that did not finish): give the graph "
                                + "a fresh prefix, or delete that prefix's objects first");
                    }
                }
            }
        }
        StagedCreate staged = StagedCreate.begin(target);
        try {
            if (location != null) {
                location.record(staged.staging());
            }
            GraphBuilder.build(staged.staging(), catalog, options, wiring.kafkaJournal(), wiring.stores());
            CrashPoints.hit("create-before-rename");
            staged.commit();
        } catch (RuntimeException e) {
            staged.abandon(e);
            throw e;
        }
        CrashPoints.hit("create-after-rename");
        return open(root, options, false, wiring);
    }

    /** Opens an existing graph for writing. */
    public static Graph open(Path root, Options options) {
        return open(root, options, false);
    }

    /**
     * Opens an existing graph for writing; with {@code adoptForeign} recovery publishes table versions no
     * intent explains instead of refusing the graph (the operator's decision, see docs/recovery.md).
     */
    public static Graph open(Path root, Options options, boolean adoptForeign) {
        return open(root, options, adoptForeign, Wiring.standard(options));
    }

    /**
     * Opens an existing graph for writing with Lance storage options for its object-store tables, over those of
     * {@code PALISADE_STORAGE_FILE} and {@code PALISADE_STORAGE_*} (docs/scale-out.md).
     */
    public static Graph open(Path root, Options options, java.util.Map<String, String> storageOptions) {
        return open(root, options, false, storageOptions);
    }

    /**
     * {@link #open(Path, Options, boolean)} with Lance storage options for its object-store tables (as
     * {@link #open(Path, Options, java.util.Map)}): a foreign commit to an {@code s3://} table is adopted or refused
     * there as on local disk.
     */
    public static Graph open(Path root, Options options, boolean adoptForeign, java.util.Map<String, String> storageOptions) {
        return open(root, options, adoptForeign, Wiring.standard(options, storageOptions));
    }

    static Graph open(Path root, Options options, boolean adoptForeign, Wiring wiring) {
        JvmOptions.check();
        GraphLayout layout = new GraphLayout(root);
        if (!layout.exists()) {
            throw new ValidationException("no graph at " + root + " (missing " + layout.catalogFile() + ")");
        }
        GraphFormat.checkForNormalOpen(root); // RFC-023 §7.1: the graph-wide stamp, before anything else is opened
        Catalog stored = Catalog.read(layout.catalogFile());
        TableLocation.of(root, wiring.storageOptions()).probe(); // an object store must honour conditional put
        Journal journal = Journal.open(layout.palisade(), GraphBuilder.journalOptions(options)
                .withClock(wiring.journalClock()));
        TableStore store = null;
        BufferAllocator allocator = null;
        try {
            store = wiring.stores().apply(layout.tables());
            HeadsReplayer.Replay replay = HeadsReplayer.of(layout.palisade()).replay();
            HeadsState state = replay.state();
            if (GraphFormat.read(root).isEmpty()) { // a graph older than the stamp file: its journal's stamp decides
                int n = state.formatStamp() <= 0 ? FormatStamp.FENCING.number() : state.formatStamp();
                if (GraphFormat.check(root, n) != FormatStamp.FENCING) {
                    throw new GraphRefusedException("graph " + root + " is at format stamp " + n
                            + "; normal writes are refused until `palisade migrate pk` completes (docs/migration.md)");
                }
            }
            RecoveryReport report = Recovery.run(journal, replay, store, adoptForeign);
            state = report.state();
            // the stored catalog is the journal's (or one record behind it, or the journal has none yet)
            StoredCatalog.Verdict verdict = StoredCatalog.check(layout.catalogFile(), stored, state);
            Catalog catalog = OpenChecks.reconcile(verdict.catalog(), store, state);
            OpenChecks.everyTableHasItsHeadAndKey(root, catalog, store, state);
            state = CatalogRecords.settle(layout, journal, options.durability(), state, verdict, catalog);
            allocator = new RootAllocator();
            return new Graph(new Engine(layout, catalog, options, journal, store, allocator, state, wiring.manualCommitter()),
                    report);
        } catch (RuntimeException | Error e) { // an Error too: the lease and the queue are released either way
            if (allocator != null) {
                allocator.close();
            }
            if (store != null) {
                store.close();
            }
            journal.close();
            throw e;
        }
    }
}
