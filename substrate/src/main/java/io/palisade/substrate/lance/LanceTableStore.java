package io.palisade.substrate.lance;

import io.palisade.fencing.GraphRefusedException;
import io.palisade.fencing.PalisadeException;
import io.palisade.fencing.ValidationException;
import io.palisade.substrate.CommitDescription;
import io.palisade.substrate.FragmentDiff;
import io.palisade.substrate.KeyedSchemas;
import io.palisade.substrate.KeyedTable;
import io.palisade.substrate.KeylessTable;
import io.palisade.substrate.OperationKind;
import io.palisade.substrate.PrimaryKeyInstall;
import io.palisade.substrate.TableKind;
import io.palisade.substrate.TableRef;
import io.palisade.substrate.TableStore;
import io.palisade.substrate.VersionExpiry;
import io.palisade.substrate.VersionInfo;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.types.pojo.Schema;
import org.lance.Branch;
import org.lance.Dataset;
import org.lance.Fragment;
import org.lance.FragmentMetadata;
import org.lance.ReadOptions;
import org.lance.Ref;
import org.lance.SourcedTransaction;
import org.lance.Transaction;
import org.lance.Version;
import org.lance.WriteParams;
import org.lance.index.Index;
import org.lance.operation.CreateIndex;
import org.lance.operation.Update;
import org.lance.operation.UpdateConfig;
import org.lance.operation.UpdateMap;
import org.lance.schema.LanceField;
import org.lance.schema.LanceSchema;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * {@link TableStore} over Lance ({@code org.lance:lance-core} 7.0.0). Each table is the Lance dataset
 * {@code <root>/<table>.lance}; table branches are Lance branches. Works on a local directory or,
 * through {@code storageOptions}, on an object store Lance supports (e.g. {@code s3://} with endpoint
 * and credentials options).
 *
 * <p>Invariants: this store owns one Arrow root allocator, closed by {@link #close()} after every
 * handle it issued has been closed; every write opens a private dataset at the handle's exact ref,
 * so handles never move; merge-inserts run with {@code conflictRetries = 0}, so Lance never retries
 * behind the caller (a retry re-runs validation in the coordinator, RFC-023 §6).
 *
 * <p>Thread safety: the store may be used from many threads; give each thread its own handles
 * (concurrent writers on separate handles race exactly like separate Lance processes).
 *
 * <p>Merge-insert commits carry no transaction properties: Lance 7.0.0's Java merge-insert accepts
 * none. The coordinator attributes such versions through the single open intent per table (DESIGN §3).
 */
public final class LanceTableStore implements TableStore {

    private static final Logger LOG = LoggerFactory.getLogger(LanceTableStore.class);
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_][A-Za-z0-9_.-]*");

    private final String root;
    private final Map<String, String> storageOptions;
    private final BufferAllocator allocator = new RootAllocator();
    /** Present when commits are synced: a local root built to sync (an object store is durable per PUT). */
    private final Optional<LanceFileSync> sync;

    /** A store over a local directory or object-store prefix, without storage options; commits are synced. */
    public LanceTableStore(String root) {
        this(root, Map.of());
    }

    /** A store whose commits are synced before they return (see {@link #LanceTableStore(String, Map, boolean)}). */
    public LanceTableStore(String root, Map<String, String> storageOptions) {
        this(root, storageOptions, true);
    }

    /**
     * @param syncCommits on a local file system, fsync every file a commit wrote (and the directories
     *                    naming them) before the commit returns; Lance 7.0.0 never syncs, so without this
     *                    a committed version survives a killed process but not a power cut. A graph at
     *                    {@code PROCESS_CRASH} durability passes {@code false}; read-only tools may too.
     */
    public LanceTableStore(String root, Map<String, String> storageOptions, boolean syncCommits) {
        this(root, storageOptions, syncCommits ? LanceFileSync.FSYNC : null);
    }

    /** A store that syncs through {@code syncer} (tests record what each commit syncs), or not at all when null. */
    LanceTableStore(String root, Map<String, String> storageOptions, LanceFileSync.Syncer syncer) {
        this.root = Objects.requireNonNull(root).replaceAll("/+$", "");
        this.storageOptions = Map.copyOf(storageOptions);
        this.sync = syncer == null ? Optional.empty() : LanceFileSync.forRoot(this.root, syncer);
    }

    BufferAllocator allocator() {
        return allocator;
    }

    Map<String, String> storageOptions() {
        return storageOptions;
    }

    String uri(String table) {
        if (table == null || !NAME.matcher(table).matches()) {
            throw new ValidationException("invalid table name '" + table + "'");
        }
        return root + "/" + table + ".lance";
    }

    // ------------------------------------------------------------------ creation

    @Override
    public KeyedTable createKeyed(String table, TableKind kind, Schema schema) {
        Schema physical = KeyedSchemas.keyedSchema(schema, kind);
        create(table, physical);
        return openKeyed(table, TableRef.main(1));
    }

    @Override
    public KeylessTable createKeyless(String table, Schema schema) {
        Schema physical = KeyedSchemas.keylessSchema(schema);
        create(table, physical);
        return openKeyless(table, TableRef.main(1));
    }

    @Override
    public void createLegacyKeyed(String table, TableKind kind, Schema schema) {
        create(table, KeyedSchemas.legacyKeyedSchema(schema, kind));
    }

    private void create(String table, Schema physical) {
        String uri = uri(table);
        if (exists(table)) {
            throw new ValidationException("table '" + table + "' already exists");
        }
        try (Dataset ds = Dataset.write().allocator(allocator).uri(uri).schema(physical)
                .mode(WriteParams.WriteMode.CREATE).storageOptions(storageOptions).execute()) {
            LOG.debug("created table {} at version {}", table, ds.version());
        } catch (Exception e) {
            throw LanceErrors.commitFailure(table, "create", e);
        }
        sync.ifPresent(s -> s.created(table));
    }

    @Override
    public boolean exists(String table) {
        try (Dataset ds = openLatest(table, TableRef.MAIN)) {
            return ds.version() >= 1;
        } catch (PalisadeException e) {
            return false;
        }
    }

    // ------------------------------------------------------------------ opening

    @Override
    public KeyedTable openKeyed(String table, TableRef ref) {
        Dataset ds = openDataset(table, ref);
        try {
            LanceSchema ls = ds.getLanceSchema();
            List<String> pk = pk(ls);
            Optional<TableKind> kind = KeyedSchemas.recordedKind(ds.getSchema());
            if (!pk.equals(List.of(KeyedSchemas.ID))) {
                throw new GraphRefusedException("table '" + table + "' at " + ref + " has primary key " + pk
                        + "; a keyed table needs exactly [id]" + (pk.isEmpty() ? " (install it with migrate pk)" : ""));
            }
            if (kind.isPresent() && !kind.get().keyed()) {
                throw new GraphRefusedException("table '" + table + "' was created keyless but carries a primary key");
            }
            return new LanceKeyedTable(this, table, ref, kind.orElse(TableKind.NODE), ds);
        } catch (RuntimeException e) {
            ds.close();
            throw e;
        }
    }

    @Override
    public KeylessTable openKeyless(String table, TableRef ref) {
        Dataset ds = openDataset(table, ref);
        try {
            List<String> pk = pk(ds.getLanceSchema());
            Optional<TableKind> kind = KeyedSchemas.recordedKind(ds.getSchema());
            if (!pk.isEmpty() || kind.map(TableKind::keyed).orElse(false)) {
                throw new GraphRefusedException("table '" + table + "' is keyed (primary key " + pk
                        + ", kind " + kind.map(Enum::name).orElse("unrecorded") + "); it cannot be opened as keyless");
            }
            return new LanceKeylessTable(this, table, ref, ds);
        } catch (RuntimeException e) {
            ds.close();
            throw e;
        }
    }

    /** A private dataset at exactly {@code ref}; the caller closes it. */
    Dataset openDataset(String table, TableRef ref) {
        String uri = uri(table);
        String damage = torn.guard(table, ref); // Lance aborts the JVM on some torn manifests: never hand it one
        if (damage != null) {
            throw LanceErrors.damaged(table, ref, damage);
        }
        try {
            if (ref.onMain()) {
                ReadOptions ro = new ReadOptions.Builder().setVersion(ref.version()).setStorageOptions(storageOptions).build();
                return open(uri, ro);
            }
            try (Dataset rootDs = open(uri, latestOptions())) {
                return rootDs.checkout(Ref.ofBranch(ref.branch(), ref.version()));
            }
        } catch (Exception e) { // Lance's natives also throw undeclared IOExceptions
            Optional<Long> kept = keptAfterRemoved(table, ref);
            if (kept.isPresent()) {
                throw new io.palisade.fencing.VersionExpiredException("table '" + table + "' no longer has version "
                        + ref.version() + " of its branch " + ref.branch() + ": version retention removed it, and the "
                        + "oldest version kept after it is " + kept.get(), kept.get());
            }
            throw LanceErrors.readFailure(table, ref, "open at " + ref, e);
        }
    }

    /**
     * When {@code ref} is missing while a newer version of its branch is kept (version retention removed it), the
     * oldest version kept after it; empty otherwise (the version never existed, or the table cannot be listed).
     */
    private Optional<Long> keptAfterRemoved(String table, TableRef ref) {
        try {
            List<VersionInfo> kept = listVersions(table, ref.branch());
            if (kept.stream().anyMatch(v -> v.ref().version() == ref.version())) {
                return Optional.empty();
            }
            return kept.stream().map(v -> v.ref().version()).filter(v -> v > ref.version()).findFirst();
        } catch (RuntimeException e) {
            return Optional.empty();
        }
    }

    /** A private dataset at the newest version of {@code branch}; the caller closes it. */
    Dataset openLatest(String table, String branch) {
        String uri = uri(table);
        try {
            Dataset rootDs = open(uri, latestOptions());
            if (TableRef.MAIN.equals(branch)) {
                return rootDs;
            }
            try (rootDs) {
                return rootDs.checkout(Ref.ofBranch(branch));
            }
        } catch (Exception e) { // Lance's natives also throw undeclared IOExceptions
            throw LanceErrors.readFailure(table, "open latest of branch " + branch, e);
        }
    }

    private Dataset open(String uri, ReadOptions options) {
        return Dataset.open().allocator(allocator).uri(uri).readOptions(options).build();
    }

    private ReadOptions latestOptions() {
        return new ReadOptions.Builder().setStorageOptions(storageOptions).build();
    }

    // ------------------------------------------------------------------ versions and branches

    @Override
    public TableRef restore(String table, TableRef to) {
        // RFC-023 §9: a restore may select an older image only if that image already has the exact PK
        List<String> now = primaryKey(table, latest(table, to.branch()));
        List<String> then = primaryKey(table, to);
        if (!now.isEmpty() && !now.equals(then)) {
            throw new io.palisade.fencing.GraphRefusedException("cannot restore table '" + table + "' to " + to
                    + ": that version's primary key " + then + " differs from the installed " + now
                    + " (a restore never removes or changes an installed primary key)");
        }
        long before = latest(table, to.branch()).version();
        try (Dataset ds = openDataset(table, to)) {
            ds.restore();
        } catch (RuntimeException e) {
            throw LanceErrors.commitFailure(table, "restore to " + to, e);
        }
        TableRef restored = latest(table, to.branch());
        if (sync.isPresent()) {
            // the restored version names the files of `to`, durable since `to` was committed: only the new
            // manifest, its transaction file and the hint are written
            try (Dataset image = openDataset(table, to); Dataset last = openDataset(table, restored)) {
                synced(table, to.branch(), image, last, before, false);
            }
        }
        return restored;
    }

    @Override
    public TableRef latest(String table, String branch) {
        try (Dataset ds = openLatest(table, branch)) {
            return new TableRef(branch, ds.version());
        }
    }

    @Override
    public List<VersionInfo> listVersions(String table, String branch) {
        try (Dataset ds = openLatest(table, branch)) {
            List<VersionInfo> out = new ArrayList<>();
            for (Version v : ds.listVersions()) {
                String rows = v.getMetadata().get("total_rows");
                out.add(new VersionInfo(new TableRef(branch, v.getId()), rows == null ? -1 : Long.parseLong(rows),
                        v.getDataTime().toInstant().toEpochMilli()));
            }
            out.sort((a, b) -> Long.compare(a.ref().version(), b.ref().version()));
            return out;
        } catch (Exception e) {
            throw LanceErrors.readFailure(table, "list versions", e);
        }
    }

    /**
     * Lance's cleanup of {@code branch} below {@code beforeVersion}. Files no manifest names are "unverified" to
     * Lance and kept (a commit in flight writes them before its manifest), and no tag is consulted: Palisade pins
     * versions by computing {@code beforeVersion}, as Lance 7.0.0 leaks the data files of tagged versions.
     */
    @Override
    public VersionExpiry expireVersions(String table, String branch, long beforeVersion) {
        try (Dataset ds = openLatest(table, branch)) {
            if (beforeVersion <= 1) {
                return VersionExpiry.NONE;
            }
            org.lance.cleanup.RemovalStats s = ds.cleanupWithPolicy(org.lance.cleanup.CleanupPolicy.builder()
                    .withBeforeVersion(Math.min(beforeVersion, ds.version()))
                    .withDeleteUnverified(false)
                    .withErrorIfTaggedOldVersions(false)
                    .build());
            return new VersionExpiry(s.getOldVersions(), s.getDataFilesRemoved() + s.getDeletionFilesRemoved()
                    + s.getIndexFilesRemoved() + s.getTransactionFilesRemoved(), s.getBytesRemoved());
        } catch (PalisadeException e) {
            throw e;
        } catch (Exception e) {
            throw LanceErrors.commitFailure(table, "remove the versions of branch " + branch + " before " + beforeVersion, e);
        }
    }

    @Override
    public List<String> listBranches(String table) {
        try (Dataset ds = openLatest(table, TableRef.MAIN)) {
            TreeSet<String> names = new TreeSet<>();
            for (Branch b : ds.branches().list()) {
                names.add(b.getName());
            }
            List<String> out = new ArrayList<>();
            out.add(TableRef.MAIN);
            out.addAll(names);
            return out;
        } catch (Exception e) {
            throw LanceErrors.readFailure(table, "list branches", e);
        }
    }

    private Optional<Branch> branch(String table, String name) {
        try (Dataset ds = openLatest(table, TableRef.MAIN)) {
            return ds.branches().list().stream().filter(b -> b.getName().equals(name)).findFirst();
        }
    }

    @Override
    public TableRef forkBranch(String table, TableRef from, String newBranch) {
        if (newBranch == null || !NAME.matcher(newBranch).matches() || newBranch.equals(TableRef.MAIN)) {
            throw new ValidationException("invalid branch name '" + newBranch + "'");
        }
        if (listBranches(table).contains(newBranch)) {
            throw new ValidationException("table '" + table + "' already has branch '" + newBranch + "'");
        }
        BranchEnvironment.check(root, table, storageOptions, System.getenv()); // before Lance writes anything
        // createBranch must be called on a dataset checked out on the source branch: called on another
        // branch's dataset, Lance 7.0.0 records the right parent but copies that dataset's manifest
        // at the same version number (surface guard createBranchCopiesTheCallingDatasetsBranch).
        // A state a branch still shares with its parent (version <= fork point) is forked from the
        // parent instead: forked through the branch, Lance resolves inherited index files under the
        // branch's directory and cannot find them (surface guard forkingASharedStateThroughABranchLosesIndexFiles).
        from = origin(table, from);
        try (Dataset source = openDataset(table, from)) {
            if (source.version() != from.version()) {
                throw new ValidationException("table '" + table + "' has no version " + from);
            }
            Ref ref = from.onMain() ? Ref.ofMain(from.version()) : Ref.ofBranch(from.branch(), from.version());
            boolean rebuild;
            try (Dataset forked = source.createBranch(newBranch, ref)) {
                rebuild = !from.onMain() && LanceKeyedTable.hasIdIndex(forked);
                if (!rebuild) {
                    sync.ifPresent(s -> s.forked(table, newBranch, forked, forked));
                }
            }
            TableRef forked = new TableRef(newBranch, from.version());
            if (rebuild) {
                // a branch of a branch cannot find index files it inherited through the middle branch
                // (surface guard indexFilesInheritedThroughABranchAreLostOnTheNextFork): rebuild the
                // id index on the new branch, one CreateIndex commit
                try (Dataset atFork = openDataset(table, forked); Dataset w = openDataset(table, forked)) {
                    LanceKeyedTable.createIdIndex(w, true);
                    sync.ifPresent(s -> s.forked(table, newBranch, atFork, w)); // the fork and its rebuild, one batch
                }
                forked = latest(table, newBranch);
            }
            return forked;
        } catch (Exception e) {
            throw LanceErrors.commitFailure(table, "fork " + newBranch + " from " + from, e);
        }
    }

    /**
     * Lance 7.0.0's cleanup of a branch keeps the version another table branch was forked from, with every file of
     * the branch's own that the fork names, only when the fork names such a file: a data, deletion or index file under
     * the branch's own directory. A version a table branch shares with its parent (the one it was forked at) is forked
     * from the parent, which then keeps its own copy instead ({@link #forkBranch}); a version naming no file of its own
     * branch (an empty table that has no index) is not kept at all.
     */
    @Override
    public boolean forkKeeps(String table, TableRef ref) {
        if (!origin(table, ref).equals(ref)) {
            return false;
        }
        try (Dataset ds = openDataset(table, ref)) {
            for (org.lance.Fragment f : ds.getFragments()) {
                org.lance.FragmentMetadata m = f.metadata();
                if (m.getFiles().stream().anyMatch(d -> d.getBaseId().isEmpty())
                        || (m.getDeletionFile() != null && m.getDeletionFile().getBaseId().isEmpty())) {
                    return true;
                }
            }
            return ds.getIndexes().stream().anyMatch(i -> i.baseId().isEmpty());
        }
    }

    /** The ref on the branch that owns the state {@code ref} names (a fork shares its fork version with its parent). */
    private TableRef origin(String table, TableRef ref) {
        TableRef at = ref;
        while (!at.onMain()) {
            String name = at.branch();
            Branch b = branch(table, name).orElseThrow(() ->
                    new ValidationException("table '" + table + "' has no branch '" + name + "'"));
            if (at.version() > b.getParentVersion()) {
                break;
            }
            at = new TableRef(b.getParentBranch().orElse(TableRef.MAIN), at.version());
        }
        return at;
    }

    // ------------------------------------------------------------------ primary key

    static List<String> pk(LanceSchema ls) {
        return ls.getUnenforcedPrimaryKey().stream().map(LanceField::getName).toList();
    }

    @Override
    public List<String> primaryKey(String table, TableRef ref) {
        try (Dataset ds = openDataset(table, ref)) {
            return pk(ds.getLanceSchema());
        }
    }

    @Override
    public PrimaryKeyInstall installPrimaryKey(String table, TableRef base, String intentId) {
        if (intentId == null || intentId.isBlank()) {
            throw new ValidationException("a PK install needs the intent id of its migration unit");
        }
        try (Dataset ds = openDataset(table, base)) {
            LanceSchema ls = ds.getLanceSchema();
            List<String> pk = pk(ls);
            if (pk.equals(List.of(KeyedSchemas.ID))) {
                return new PrimaryKeyInstall(PrimaryKeyInstall.Outcome.ALREADY_PRESENT, base);
            }
            if (!pk.isEmpty()) {
                throw new GraphRefusedException("table '" + table + "' at " + base + " already has primary key " + pk
                        + "; a primary key is never changed");
            }
            if (KeyedSchemas.recordedKind(ds.getSchema()).map(k -> !k.keyed()).orElse(false)) {
                throw new ValidationException("table '" + table + "' is keyless; it takes no primary key");
            }
            LanceField id = ls.fields().stream().filter(f -> f.getName().equals(KeyedSchemas.ID)).findFirst()
                    .orElseThrow(() -> new ValidationException("table '" + table + "' has no 'id' field"));
            if (id.isNullable() || !KeyedSchemas.isKeyType(id.getType())) {
                throw new ValidationException("table '" + table + "': 'id' must be non-null Utf8/LargeUtf8/Int64 to become the primary key");
            }
            UpdateConfig op = UpdateConfig.builder()
                    .fieldMetadataUpdates(Map.of(id.getId(), UpdateMap.builder()
                            .updates(Map.of(KeyedSchemas.PK_METADATA, "true")).replace(false).build()))
                    .build();
            try (SourcedTransaction tx = ds.newTransactionBuilder().operation(op)
                    .transactionProperties(Map.of(INTENT_ID_PROPERTY, intentId)).build();
                 Dataset after = tx.commit()) {
                synced(table, base.branch(), ds, after, base.version(), true);
                return new PrimaryKeyInstall(PrimaryKeyInstall.Outcome.INSTALLED, new TableRef(base.branch(), after.version()));
            }
        } catch (Exception e) {
            throw LanceErrors.commitFailure(table, "PK install at " + base, e);
        }
    }

    @Override
    public List<Map<String, Object>> scanUnchecked(String table, TableRef ref) {
        try (Dataset ds = openDataset(table, ref)) {
            return LanceSnapshot.read(ds, null, null, table, ref);
        }
    }

    /**
     * Reads only the {@code id} column of {@code ref}, batch by batch, into an exact counter (memory: one
     * entry per distinct id). A state without an {@code id} column is counted without reading rows.
     */
    @Override
    public io.palisade.substrate.IdCensus idCensus(String table, TableRef ref, int sampleSize) {
        try (Dataset ds = openDataset(table, ref)) {
            LanceSchema ls = ds.getLanceSchema();
            List<String> pk = pk(ls);
            Optional<LanceField> id = ls.fields().stream().filter(f -> f.getName().equals(KeyedSchemas.ID)).findFirst();
            io.palisade.substrate.IdCensus.Counter counter = new io.palisade.substrate.IdCensus.Counter();
            if (id.isEmpty()) {
                return new io.palisade.substrate.IdCensus(ref, ds.countRows(), pk, null, false, 0, 0, 0, Map.of());
            }
            org.lance.ipc.LanceScanner scanner = ds.newScan(new org.lance.ipc.ScanOptions.Builder()
                    .columns(List.of(KeyedSchemas.ID)).build());
            try (org.apache.arrow.vector.ipc.ArrowReader reader = scanner.scanBatches()) {
                while (reader.loadNextBatch()) {
                    org.apache.arrow.vector.FieldVector v = reader.getVectorSchemaRoot().getVector(KeyedSchemas.ID);
                    int n = reader.getVectorSchemaRoot().getRowCount();
                    for (int r = 0; r < n; r++) {
                        counter.add(v.isNull(r) ? null : v instanceof org.apache.arrow.vector.BigIntVector b
                                ? (Object) b.get(r) : String.valueOf(v.getObject(r)));
                    }
                }
            } finally {
                try {
                    scanner.close();
                } catch (Exception ignored) {
                    // the count is complete; releasing the native scanner is not the caller's concern
                }
            }
            return counter.census(ref, pk, id.get().getType().toString(), id.get().isNullable(), sampleSize);
        } catch (PalisadeException e) {
            throw e;
        } catch (Exception e) { // Lance's natives also throw undeclared IOExceptions
            throw LanceErrors.readFailure(table, ref, "count ids at " + ref, e);
        }
    }

    @Override
    public int fieldId(String table, TableRef ref, String column) {
        try (Dataset ds = openDataset(table, ref)) {
            return ds.getLanceSchema().fields().stream().filter(f -> f.getName().equals(column)).mapToInt(LanceField::getId)
                    .findFirst().orElseThrow(() -> new ValidationException("table '" + table + "' has no column '" + column
                            + "' at " + ref));
        }
    }

    @Override
    public List<Map<String, Object>> duplicatedRows(String table, TableRef ref) {
        return LanceRepair.duplicatedRows(this, table, ref);
    }

    @Override
    public TableRef rewriteWithout(String table, TableRef base, java.util.Set<Long> remove, boolean installPk) {
        return LanceRepair.rewriteWithout(this, table, base, remove, installPk);
    }

    // ------------------------------------------------------------------ decomposition

    /** The constructor signature Lance 7.0.0's JNI wrongly asks for when reading a Rewrite that remapped indices. */
    private static final String REWRITTEN_INDEX_JNI_SIGNATURE = "(Ljava/util/UUID;Ljava/util/UUID;Ljava/lang/String;[BII)V";

    @Override
    public CommitDescription decompose(String table, TableRef ref) {
        if (!ref.onMain()) {
            Branch b = branch(table, ref.branch()).orElseThrow(() ->
                    new ValidationException("table '" + table + "' has no branch '" + ref.branch() + "'"));
            if (ref.version() <= b.getParentVersion()) {
                // the fork version is the parent's state: describe the parent's commit
                return decompose(table, new TableRef(b.getParentBranch().orElse(TableRef.MAIN), ref.version())).at(ref);
            }
        }
        try (Dataset ds = openDataset(table, ref);
             Dataset prev = ref.version() > 1 ? openDataset(table, new TableRef(ref.branch(), ref.version() - 1)) : null) {
            Map<Long, FragmentMetadata> now = fragments(ds);
            Map<Long, FragmentMetadata> before = prev == null ? Map.of() : fragments(prev);
            LanceSchema beforeSchema = prev == null ? null : prev.getLanceSchema();
            TreeSet<Integer> fields = schemaDiff(beforeSchema, ds.getLanceSchema());
            // the kind from the transaction's bytes first: readTransaction() aborts the JVM on some kinds
            Optional<OperationKind> peeked = torn.branchDir(table, ref.branch())
                    .flatMap(d -> Optional.ofNullable(LanceTornVersions.manifests(d).get(ref.version()))
                            .flatMap(m -> LanceCommitPayloads.peekKind(d, m)));
            List<String> notVisible = new ArrayList<>();
            CommitDescription.Payload payload = null;
            OperationKind kind = OperationKind.UNKNOWN;
            long readVersion = 0;
            Map<String, String> props = Map.of();
            List<String> indicesAdded = List.of();
            List<String> indicesRemoved = List.of();
            List<CommitDescription.RewriteGroup> rewriteGroups = new ArrayList<>();
            TreeSet<Integer> remappedIndexFields = new TreeSet<>();
            Optional<Transaction> txn;
            try {
                if (peeked.isPresent() && !LanceCommitPayloads.JNI_READABLE.contains(peeked.get())) {
                    kind = peeked.get();
                    notVisible.add("the " + kind.lanceName() + " transaction: lance-core 7.0.0's readTransaction() "
                            + "aborts the JVM on it, so it is never read; only the manifests are compared");
                    txn = Optional.empty();
                } else {
                    txn = ds.readTransaction();
                }
            } catch (RuntimeException e) {
                if (!String.valueOf(e.getMessage()).contains(REWRITTEN_INDEX_JNI_SIGNATURE)) {
                    throw e;
                }
                // Lance 7.0.0's JNI cannot build the RewrittenIndex of a Rewrite that remapped indices
                // (it calls a 6-argument constructor; the class has 5), so such a transaction cannot be
                // read. Only a Rewrite carries RewrittenIndex: the kind is certain, its groups and read
                // version are not visible, and the remapped indices are those present at this version.
                txn = Optional.empty();
                kind = OperationKind.REWRITE;
                notVisible.add("the Rewrite transaction (lance-core 7.0.0's JNI cannot build its RewrittenIndex): "
                        + "groups and read version unknown, every index present taken as remapped");
                for (Index i : ds.getIndexes()) {
                    remappedIndexFields.addAll(i.fields());
                }
            }
            if (txn.isPresent()) {
                try (Transaction t = txn.get()) {
                    kind = OperationKind.ofLanceName(t.operation().name());
                    readVersion = t.readVersion();
                    props = t.transactionProperties().orElse(Map.of());
                    if (t.operation() instanceof CreateIndex ci) {
                        indicesAdded = ci.getNewIndices().stream().map(Index::name).toList();
                        indicesRemoved = ci.getRemovedIndices().stream().map(Index::name).toList();
                    }
                    if (t.operation() instanceof org.lance.operation.Rewrite rw) {
                        for (org.lance.operation.RewriteGroup g : rw.groups()) {
                            rewriteGroups.add(new CommitDescription.RewriteGroup(g.oldFragments().stream()
                                    .map(f -> (long) f.getId()).sorted().toList(), g.newFragments().size()));
                        }
                        java.util.Set<java.util.UUID> remapped = new java.util.HashSet<>();
                        rw.rewrittenIndices().forEach(ri -> remapped.add(ri.getNewId()));
                        for (Index i : ds.getIndexes()) {
                            if (remapped.contains(i.uuid())) {
                                remappedIndexFields.addAll(i.fields());
                            }
                        }
                    }
                    if (t.operation() instanceof Update u && u.fieldsModified() != null) {
                        for (long f : u.fieldsModified()) {
                            fields.add((int) f);
                        }
                    }
                    payload = LanceCommitPayloads.payload(kind, t.operation(), ds, prev, notVisible);
                    t.operation().release();
                }
            }
            if (payload == null) {
                payload = LanceCommitPayloads.payload(kind, null, ds, prev, notVisible);
            }
            FragmentDiff diff = FragmentDiff.of(kind, before, now);
            return new CommitDescription(ref, kind, readVersion, props, diff.removed(), diff.added(), diff.updated(),
                    List.copyOf(fields), Optional.empty(), indicesAdded, indicesRemoved, rewriteGroups,
                    List.copyOf(remappedIndexFields), payload);
        } catch (Exception e) {
            throw LanceErrors.readFailure(table, ref, "decompose " + ref, e);
        }
    }

    private static Map<Long, FragmentMetadata> fragments(Dataset ds) {
        Map<Long, FragmentMetadata> out = new HashMap<>();
        for (Fragment f : ds.getFragments()) {
            out.put((long) f.getId(), f.metadata());
        }
        return out;
    }

    private static TreeSet<Integer> schemaDiff(LanceSchema before, LanceSchema after) {
        TreeSet<Integer> changed = new TreeSet<>();
        Map<Integer, LanceField> a = new TreeMap<>();
        Map<Integer, LanceField> b = new TreeMap<>();
        if (before != null) {
            before.fields().forEach(f -> a.put(f.getId(), f));
        }
        after.fields().forEach(f -> b.put(f.getId(), f));
        TreeSet<Integer> ids = new TreeSet<>(a.keySet());
        ids.addAll(b.keySet());
        for (Integer id : ids) {
            LanceField x = a.get(id);
            LanceField y = b.get(id);
            if (x == null || y == null || !x.getName().equals(y.getName()) || x.isNullable() != y.isNullable()
                    || !x.getType().equals(y.getType()) || !x.getMetadata().equals(y.getMetadata())) {
                changed.add(id);
            }
        }
        return before == null ? new TreeSet<>() : changed;
    }

    // ------------------------------------------------------------------ durability

    /**
     * Makes the files of a commit from {@code base} (open at version {@code after}) to {@code last} (open
     * at the new version) durable when this store syncs; a no-op otherwise. Every commit path calls it
     * before it returns; {@code readable}: see {@link LanceFileSync#versions}.
     */
    void synced(String table, String branch, Dataset base, Dataset last, long after, boolean readable) {
        if (sync.isEmpty() || last.version() <= after) {
            return;
        }
        try {
            sync.get().versions(table, branch, base, last, after, readable);
        } catch (java.io.UncheckedIOException e) {
            throw new io.palisade.fencing.CommitStateUnknownException("table '" + table + "': the files of versions ("
                    + after + ", " + last.version() + "] of branch " + branch + " could not be made durable: "
                    + e.getMessage(), e);
        }
    }

    @Override
    public void makeDurable(String table, String branch, long afterVersion, long upToVersion) {
        if (sync.isEmpty() || upToVersion <= afterVersion) {
            return;
        }
        try (Dataset last = openDataset(table, new TableRef(branch, upToVersion))) {
            if (afterVersion < 1) {
                synced(table, branch, null, last, afterVersion, false);
                return;
            }
            try (Dataset base = openDataset(table, new TableRef(branch, afterVersion))) {
                synced(table, branch, base, last, afterVersion, false);
            }
        }
    }

    @Override
    public void close() {
        allocator.close();
    }

    // ------------------------------------------------------------------ torn versions (LanceTornVersions)

    private final LanceTornVersions torn = new LanceTornVersions(this);

    @Override
    public List<io.palisade.substrate.DamagedVersion> tornVersions(String table, String branch, long afterVersion) {
        return torn.tornVersions(table, branch, afterVersion);
    }

    @Override
    public Optional<io.palisade.substrate.DamagedVersion> damage(String table, TableRef ref) {
        return torn.damage(table, ref);
    }

    @Override
    public List<String> setAside(String table, io.palisade.substrate.DamagedVersion version, java.nio.file.Path destination) {
        return torn.setAside(table, version, destination);
    }
}
