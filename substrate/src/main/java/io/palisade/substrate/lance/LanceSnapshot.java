package io.palisade.substrate.lance;

import io.palisade.fencing.KeyFilter;
import io.palisade.fencing.PalisadeException;
import io.palisade.fencing.ValidationException;
import io.palisade.substrate.ArrowRows;
import io.palisade.substrate.CommitResult;
import io.palisade.substrate.KeyedSchemas;
import io.palisade.substrate.CompactionTarget;
import io.palisade.substrate.FragmentStats;
import io.palisade.substrate.KeyedTable;
import io.palisade.substrate.MaintenancePlan;
import io.palisade.substrate.MergePath;
import io.palisade.substrate.RowSink;
import io.palisade.substrate.ScanSpec;
import io.palisade.substrate.TableKind;
import io.palisade.substrate.TableRef;
import io.palisade.substrate.TableSnapshot;
import org.apache.arrow.c.ArrowArrayStream;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.Schema;
import org.lance.Dataset;
import org.lance.Fragment;
import org.lance.FragmentMetadata;
import org.lance.SourcedTransaction;
import org.lance.compaction.Compaction;
import org.lance.compaction.CompactionOptions;
import org.lance.compaction.CompactionPlan;
import org.lance.compaction.CompactionTask;
import org.lance.compaction.RewriteResult;
import org.lance.ipc.LanceScanner;
import org.lance.ipc.ScanOptions;
import org.lance.operation.Operation;
import org.lance.schema.LanceField;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Function;

/** Shared read side and write plumbing of Lance handles. Package-private: the SPI is the API. */
abstract class LanceSnapshot implements TableSnapshot {

    private static final int KEYS_PER_PREDICATE = 512;

    final LanceTableStore store;
    final String name;
    final TableRef ref;
    final TableKind kind;
    final Dataset dataset;
    final Schema schema;
    private volatile MergePath mergePath;

    LanceSnapshot(LanceTableStore store, String name, TableRef ref, TableKind kind, Dataset dataset) {
        this.store = store;
        this.name = name;
        this.ref = ref;
        this.kind = kind;
        this.dataset = dataset;
        this.schema = dataset.getLanceSchema().asArrowSchema();
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public TableRef ref() {
        return ref;
    }

    @Override
    public TableKind kind() {
        return kind;
    }

    @Override
    public Schema schema() {
        return new Schema(schema.getFields(), dataset.getSchema().getCustomMetadata());
    }

    @Override
    public int fieldId(String column) {
        return dataset.getLanceSchema().fields().stream().filter(f -> f.getName().equals(column))
                .mapToInt(LanceField::getId).findFirst()
                .orElseThrow(() -> new ValidationException("table '" + name + "' has no column '" + column + "'"));
    }

    @Override
    public List<String> primaryKey() {
        return LanceTableStore.pk(dataset.getLanceSchema());
    }

    @Override
    public long countRows() {
        return dataset.countRows();
    }

    @Override
    public List<Map<String, Object>> scan() {
        return read(dataset, null, null, name, ref);
    }

    @Override
    public boolean hasIdIndex() {
        return LanceKeyedTable.hasIdIndex(dataset);
    }

    @Override
    public MergePath mergePath() {
        MergePath p = mergePath;
        if (p == null) {
            p = LanceKeyedTable.mergePath(dataset); // the handle never moves: computed once
            mergePath = p;
        }
        return p;
    }

    @Override
    public Map<String, Long> keyCounts(KeyFilter keys) {
        return keyCounts(dataset, keys, name, ref);
    }

    @Override
    public List<Map<String, Object>> rowsWithKeys(KeyFilter keys) {
        List<Map<String, Object>> out = new ArrayList<>();
        for (int from = 0; from < keys.size(); from += KEYS_PER_PREDICATE) {
            out.addAll(read(dataset, inPredicate(keys, from, Math.min(keys.size(), from + KEYS_PER_PREDICATE)), null, name, ref));
        }
        return out;
    }

    /** Row count per key of {@code keys} present in {@code ds}. */
    static Map<String, Long> keyCounts(Dataset ds, KeyFilter keys, String name, TableRef at) {
        Map<String, Long> counts = new TreeMap<>();
        for (int from = 0; from < keys.size(); from += KEYS_PER_PREDICATE) {
            int to = Math.min(keys.size(), from + KEYS_PER_PREDICATE);
            for (Map<String, Object> row : read(ds, inPredicate(keys, from, to), List.of(KeyedSchemas.ID), name, at)) {
                counts.merge(String.valueOf(row.get(KeyedSchemas.ID)), 1L, Long::sum);
            }
        }
        return counts;
    }

    /** {@code id IN (...)} over keys {@code [from, to)} of the filter. */
    static String inPredicate(KeyFilter keys, int from, int to) {
        StringBuilder sb = new StringBuilder(KeyedSchemas.ID).append(" IN (");
        for (int i = from; i < to; i++) {
            if (i > from) {
                sb.append(", ");
            }
            if (keys.keyType() == KeyFilter.KeyType.INT64) {
                sb.append(keys.longAt(i));
            } else {
                sb.append('\'').append(keys.keyAt(i).replace("'", "''")).append('\'');
            }
        }
        return sb.append(')').toString();
    }

    static List<Map<String, Object>> read(Dataset dataset, String filter, List<String> columns, String name, TableRef ref) {
        ScanOptions.Builder b = new ScanOptions.Builder();
        if (filter != null) {
            b.filter(filter);
        }
        if (columns != null) {
            b.columns(columns);
        }
        List<Map<String, Object>> rows = new ArrayList<>();
        LanceScanner scanner = dataset.newScan(b.build());
        try (ArrowReader reader = scanner.scanBatches()) {
            while (reader.loadNextBatch()) {
                rows.addAll(ArrowRows.rows(reader.getVectorSchemaRoot()));
            }
        } catch (Exception e) { // Lance's natives also throw undeclared IOExceptions
            throw LanceErrors.readFailure(name, ref, "scan at " + ref, e);
        } finally {
            closeScanner(scanner);
        }
        return rows;
    }

    /**
     * Lance streams: one scanner per {@code id IN (...)} predicate of at most {@value #KEYS_PER_PREDICATE} keys (every
     * row without keys), the filter and the remaining limit handed to Lance, whose reader hands over one batch of
     * {@code batchRows} rows at a time.
     */
    @Override
    public void scan(ScanSpec spec, RowSink sink) {
        scan(dataset, spec, sink, name, ref, columns());
    }

    /**
     * Writes {@code rows} to a temporary dataset in a new directory of the local temporary directory and scans it with
     * the same engine and filter as the table (without a filter, the rows are delivered as they are); the directory is
     * removed before this returns.
     */
    @Override
    public void scanRows(VectorSchemaRoot rows, ScanSpec spec, RowSink sink) {
        if (spec.filter() == null || rows.getRowCount() == 0) {
            TableSnapshot.deliver(spec.filter() == null ? ArrowRows.rows(rows) : List.of(), spec, sink);
            return;
        }
        java.nio.file.Path dir;
        try {
            dir = java.nio.file.Files.createTempDirectory("palisade-rows-");
        } catch (java.io.IOException e) {
            throw new ValidationException("the rows of table '" + name + "' to filter could not be staged in the "
                    + "temporary directory: " + e.getMessage(), e);
        }
        try {
            String uri = dir.resolve(name + ".lance").toUri().toString();
            Dataset staged;
            try (ArrowArrayStream s = ArrowStreams.export(store.allocator(), rows.getSchema(), rows)) {
                staged = Dataset.write().allocator(store.allocator()).uri(uri).stream(s)
                        .mode(org.lance.WriteParams.WriteMode.CREATE).execute();
            } catch (Exception e) {
                throw LanceErrors.readFailure(name, "stage rows to filter", e);
            }
            try (staged) {
                scan(staged, spec, sink, name, ref, columns());
            }
        } finally {
            deleteTree(dir);
        }
    }

    private List<String> columns() {
        return schema.getFields().stream().map(org.apache.arrow.vector.types.pojo.Field::getName).toList();
    }

    private static void deleteTree(java.nio.file.Path dir) {
        try (java.util.stream.Stream<java.nio.file.Path> files = java.nio.file.Files.walk(dir)) {
            files.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        } catch (java.io.IOException | java.io.UncheckedIOException e) {
            // a temporary directory left behind is the system's to clean
        }
    }

    /** {@link #scan(ScanSpec, RowSink)} of {@code ds}; {@code columns}: the table's, for a filter's error. */
    static void scan(Dataset ds, ScanSpec spec, RowSink sink, String name, TableRef ref, List<String> columns) {
        if (spec.limit() == 0) {
            return;
        }
        long[] left = {spec.limit()};
        RowSink counted = row -> {
            left[0]--;
            return sink.accept(row) && left[0] > 0;
        };
        if (spec.keys() == null) {
            stream(ds, spec.filter(), spec, left[0], counted, name, ref, columns);
            return;
        }
        for (int from = 0; from < spec.keys().size(); from += KEYS_PER_PREDICATE) {
            String keys = inPredicate(spec.keys(), from, Math.min(spec.keys().size(), from + KEYS_PER_PREDICATE));
            String filter = spec.filter() == null ? keys : keys + " AND (" + spec.filter() + ")";
            if (!stream(ds, filter, spec, left[0], counted, name, ref, columns)) {
                return;
            }
        }
    }

    /** One Lance scan of {@code ds} with {@code filter}; whether {@code sink} took every row (the read may go on). */
    private static boolean stream(Dataset ds, String filter, ScanSpec spec, long limit, RowSink sink, String name,
                                  TableRef ref, List<String> columns) {
        ScanOptions.Builder b = new ScanOptions.Builder().batchSize(spec.batchRows());
        if (filter != null) {
            b.filter(filter);
        }
        if (limit != ScanSpec.NO_LIMIT) {
            b.limit(limit);
        }
        LanceScanner scanner = null;
        ArrowReader reader = null;
        try {
            try {
                scanner = ds.newScan(b.build());
                reader = scanner.scanBatches();
            } catch (Exception e) { // Lance's natives also throw undeclared IOExceptions
                throw scanFailure(spec, name, ref, columns, e);
            }
            while (true) {
                List<Map<String, Object>> batch;
                try {
                    if (!reader.loadNextBatch()) {
                        return true;
                    }
                    batch = ArrowRows.rows(reader.getVectorSchemaRoot());
                } catch (Exception e) {
                    throw scanFailure(spec, name, ref, columns, e);
                }
                for (Map<String, Object> row : batch) { // the sink's own failures pass through unchanged
                    if (!sink.accept(row)) {
                        return false;
                    }
                }
            }
        } finally {
            if (reader != null) {
                try {
                    reader.close();
                } catch (Exception e) {
                    // the rows read are complete; a failure to release the native reader is not the caller's
                }
            }
            if (scanner != null) {
                closeScanner(scanner);
            }
        }
    }

    private static PalisadeException scanFailure(ScanSpec spec, String name, TableRef ref, List<String> columns,
                                                 Exception e) {
        if (spec.filter() != null && !(e instanceof PalisadeException) && !LanceErrors.isFileDamage(e)
                && LanceErrors.isFilterError(e)) {
            return LanceErrors.invalidFilter(name, spec.filter(), columns, e);
        }
        return LanceErrors.readFailure(name, ref, "scan at " + ref, e);
    }

    @Override
    public void forEachKey(java.util.function.Consumer<String> action) {
        LanceScanner scanner = dataset.newScan(new ScanOptions.Builder().columns(List.of(KeyedSchemas.ID)).build());
        try (ArrowReader reader = scanner.scanBatches()) {
            while (reader.loadNextBatch()) {
                org.apache.arrow.vector.FieldVector v = reader.getVectorSchemaRoot().getVector(KeyedSchemas.ID);
                for (int i = 0; i < v.getValueCount(); i++) {
                    action.accept(String.valueOf(ArrowRows.value(v, i)));
                }
            }
        } catch (Exception e) { // Lance's natives also throw undeclared IOExceptions
            throw LanceErrors.readFailure(name, ref, "scan of ids at " + ref, e);
        } finally {
            closeScanner(scanner);
        }
    }

    @Override
    public void forEachRow(List<String> columns, java.util.function.Consumer<Map<String, Object>> action) {
        LanceScanner scanner = dataset.newScan(new ScanOptions.Builder().columns(columns).build());
        try (ArrowReader reader = scanner.scanBatches()) {
            while (reader.loadNextBatch()) {
                ArrowRows.rows(reader.getVectorSchemaRoot()).forEach(action);
            }
        } catch (Exception e) { // Lance's natives also throw undeclared IOExceptions
            throw LanceErrors.readFailure(name, ref, "scan of " + columns + " at " + ref, e);
        } finally {
            closeScanner(scanner);
        }
    }

    @SuppressWarnings("try")
    private static void closeScanner(LanceScanner scanner) {
        try {
            scanner.close();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            // the scan's result is complete; a failure to release the native scanner is not the caller's
        }
    }

    /** Runs {@code action} on a private dataset at exactly {@link #ref} and closes it. */
    <T> T onWriteDataset(Function<Dataset, T> action) {
        try (Dataset w = store.openDataset(name, ref)) {
            return action.apply(w);
        }
    }

    /** A commit result at the version {@code w} reached after an in-place Lance operation, once durable. */
    CommitResult advanced(Dataset w) {
        return durable(w, 0, 0, 0);
    }

    /** As {@link #advanced}, for an operation whose transaction Lance's JNI cannot read back (see {@link LanceFileSync#versions}). */
    CommitResult advancedUnreadable(Dataset w) {
        store.synced(name, ref.branch(), dataset, w, ref.version(), false);
        return CommitResult.of(new TableRef(ref.branch(), w.version()));
    }

    /**
     * The result of a commit from this handle's ref to {@code after} (an open dataset at the new version),
     * returned only once every file the commit wrote is durable ({@link LanceTableStore#synced}): every
     * write of a handle passes here, so no commit is acknowledged from the page cache.
     */
    CommitResult durable(Dataset after, long inserted, long updated, long deleted) {
        store.synced(name, ref.branch(), dataset, after, ref.version(), true);
        return new CommitResult(new TableRef(ref.branch(), after.version()), inserted, updated, deleted);
    }

    /** Writes the batch as new fragment files of {@code w} (with schema {@code target}) and returns them. */
    List<FragmentMetadata> writeFragments(Dataset w, Schema target, VectorSchemaRoot rows) {
        try (ArrowArrayStream s = ArrowStreams.export(store.allocator(), target, rows)) {
            return Fragment.write().datasetUri(w.uri()).allocator(store.allocator()).data(s)
                    .storageOptions(store.storageOptions()).execute();
        }
    }

    /** Commits {@code op} staged against {@link #ref} as one transaction. */
    CommitResult commit(Dataset w, Operation op, long inserted) {
        try (SourcedTransaction tx = w.newTransactionBuilder().operation(op).build(); Dataset after = tx.commit()) {
            return durable(after, inserted, 0, 0);
        }
    }

    void checkNotEmpty(VectorSchemaRoot rows) {
        if (rows.getRowCount() == 0) {
            throw new ValidationException("empty batch: nothing to write");
        }
    }

    @Override
    public void close() {
        dataset.close();
    }

    /** Adds nullable columns on a private dataset at this handle's ref (shared by keyed and keyless tables). */
    CommitResult addColumnsCommit(List<org.apache.arrow.vector.types.pojo.Field> columns) {
        KeyedSchemas.checkAddColumns(schema, columns);
        try {
            return onWriteDataset(w -> {
                w.addColumns(columns);
                return advanced(w);
            });
        } catch (Exception e) {
            throw LanceErrors.commitFailure(name, "add columns", e);
        }
    }

    /** Drops columns; {@code keyed} refuses dropping the primary key. */
    CommitResult dropColumnsCommit(List<String> columns, boolean keyed) {
        KeyedSchemas.checkDropColumns(schema, columns, keyed);
        try {
            return onWriteDataset(w -> {
                w.dropColumns(columns);
                return advancedUnreadable(w);
            });
        } catch (Exception e) {
            throw LanceErrors.commitFailure(name, "drop columns", e);
        }
    }

    /**
     * Lance's compaction planner at this handle's state: one group per compaction task, with the
     * fields of every index covering a planned fragment (Lance remaps them at commit). When such an
     * index is the id index a table branch inherited from the version it was forked from, the plan
     * rebuilds it on the branch first ({@link MaintenancePlan#compactionRebuildingIndex}).
     */
    @Override
    public MaintenancePlan planCompaction(CompactionTarget target) {
        boolean defer = false;
        for (org.lance.index.Index i : dataset.getIndexes()) {
            if (i.fields().isEmpty()) {
                // Lance 7.0.0 remaps every index at a compaction commit and panics, aborting the JVM, on one without
                // fields (fixed upstream after 7.0.0: system indices are no longer remapped). A compaction that defers
                // the remap remaps nothing; known system indices are compacted that way, any other is refused
                if (!LanceTornVersions.MEM_WAL_INDEX.equals(i.name()) && !MaintenancePlan.FRAG_REUSE_INDEX.equals(i.name())) {
                    throw new ValidationException("table '" + name + "' cannot be compacted with Lance 7.0.0: it carries "
                            + "the index '" + i.name() + "', which has no fields, and compacting over it would abort the "
                            + "process");
                }
                defer = true;
            }
        }
        try {
            CompactionPlan plan = Compaction.planCompaction(dataset, CompactionOptions.builder()
                    .withTargetRowsPerFragment(target.rowsPerFragment())
                    .withMaterializeDeletions(true)
                    .withMaterializeDeletionsThreshold((float) target.materializeDeletions())
                    .withDeferIndexRemap(defer)
                    .build());
            List<Set<Long>> groups = new ArrayList<>();
            Set<Long> planned = new HashSet<>();
            for (CompactionTask t : plan.getCompactionTasks()) {
                Set<Long> g = new TreeSet<>();
                t.getTaskData().getFragments().forEach(f -> g.add((long) f.getId()));
                groups.add(g);
                planned.addAll(g);
            }
            if (defer) {
                return deferringPlan(groups, planned, plan);
            }
            Set<Integer> remapped = new TreeSet<>();
            org.lance.index.Index inherited = null;
            for (org.lance.index.Index i : dataset.getIndexes()) {
                boolean covers = i.fragments().map(fs -> fs.stream().anyMatch(f -> planned.contains((long) f))).orElse(true);
                if (covers) {
                    remapped.addAll(i.fields());
                    if (i.baseId().isPresent()) {
                        inherited = i;
                    }
                }
            }
            if (inherited != null && !groups.isEmpty()) {
                // The index's files are in another base: those of the version this table branch was forked from.
                // Lance 7.0.0 writes the remapped copy of such an index into this branch's own directory but
                // records it under that other base, where no read finds it; rebuilt on the branch first, the index
                // is the branch's own and its remapped copy is found.
                if (!KeyedTable.ID_INDEX_NAME.equals(inherited.name())) {
                    throw new ValidationException("table '" + name + "' cannot be compacted at " + ref + ": its index '"
                            + inherited.name() + "' was inherited from the version the branch was forked from, and Lance "
                            + "7.0.0 would lose its remapped copy");
                }
                Set<Long> live = new TreeSet<>();
                dataset.getFragments().forEach(f -> live.add((long) f.getId()));
                return MaintenancePlan.compactionRebuildingIndex(ref, groups, remapped, KeyedTable.ID_INDEX_NAME, live,
                        Set.copyOf(inherited.fields()), plan);
            }
            return MaintenancePlan.compaction(ref, groups, remapped, plan);
        } catch (PalisadeException e) {
            throw e;
        } catch (Exception e) {
            throw LanceErrors.readFailure(name, "plan compaction at " + ref, e);
        }
    }

    /**
     * A compaction of {@code groups} that defers Lance's index remap, then rebuilds the id index (when the table has
     * one) and drops the fragment-reuse index ({@link MaintenancePlan#compactionDeferringRemap}).
     */
    private MaintenancePlan deferringPlan(List<Set<Long>> groups, Set<Long> planned, CompactionPlan plan) {
        org.lance.index.Index id = null;
        for (org.lance.index.Index i : dataset.getIndexes()) {
            if (KeyedTable.ID_INDEX_NAME.equals(i.name())) {
                id = i;
            }
        }
        Set<Long> kept = new TreeSet<>();
        dataset.getFragments().forEach(f -> {
            if (!planned.contains((long) f.getId())) {
                kept.add((long) f.getId());
            }
        });
        return id == null ? MaintenancePlan.compactionDeferringRemap(ref, groups, null, Set.of(), Set.of(), plan)
                : MaintenancePlan.compactionDeferringRemap(ref, groups, KeyedTable.ID_INDEX_NAME, kept,
                Set.copyOf(id.fields()), plan);
    }

    /** Drops Lance's fragment-reuse index from {@code w}, if it has one (a CreateIndex removing only it). */
    static void dropFragReuse(Dataset w) {
        if (w.listIndexes().contains(MaintenancePlan.FRAG_REUSE_INDEX)) {
            w.dropIndex(MaintenancePlan.FRAG_REUSE_INDEX);
        }
    }

    @Override
    public FragmentStats fragmentStats(CompactionTarget target) {
        try {
            int fragments = 0;
            int small = 0;
            long physical = 0;
            long deleted = 0;
            for (org.lance.Fragment f : dataset.getFragments()) {
                org.lance.FragmentMetadata m = f.metadata();
                fragments++;
                physical += m.getPhysicalRows();
                deleted += m.getNumDeletions();
                if (m.getPhysicalRows() < target.rowsPerFragment()) {
                    small++;
                }
            }
            return new FragmentStats(fragments, small, physical, deleted);
        } catch (Exception e) {
            throw LanceErrors.readFailure(name, "read the fragments at " + ref, e);
        }
    }

    @Override
    public CommitResult commit(MaintenancePlan plan) {
        return commit(plan, step -> { });
    }

    @Override
    public CommitResult commit(MaintenancePlan plan, java.util.function.Consumer<String> step) {
        if (plan.isEmpty()) {
            return CommitResult.of(ref);
        }
        return switch (plan.kind()) {
            case COMPACTION -> commitCompaction(plan, step);
            case INDEX_BUILD, INDEX_REWRITE -> commitIndex(plan);
        };
    }

    /** Index plans are for keyed tables ({@link LanceKeyedTable}). */
    CommitResult commitIndex(MaintenancePlan plan) {
        throw new ValidationException("table '" + name + "' is append-only and has no key index");
    }

    /**
     * Executes every planned compaction task on a private dataset at this handle's ref and commits them
     * as one Rewrite (Lance first commits one ReserveFragments version per task when indices are remapped).
     * A plan that {@link MaintenancePlan#rebuildsIndexFirst() rebuilds the id index first} commits that
     * rebuild, one CreateIndex at the ref's next version, before the tasks run.
     */
    private CommitResult commitCompaction(MaintenancePlan plan, java.util.function.Consumer<String> step) {
        if (!(plan.execution() instanceof CompactionPlan lance)) {
            throw new ValidationException("table '" + name + "': the compaction plan was not made by the Lance store");
        }
        try {
            return onWriteDataset(w -> {
                List<CompactionTask> tasks = lance.getCompactionTasks();
                if (plan.rebuildsIndexFirst()) {
                    LanceKeyedTable.createIdIndex(w, true);
                    long rebuilt = w.version();
                    if (rebuilt != ref.version() + 1) {
                        throw new IllegalStateException("the rebuild of the index before the compaction reached version "
                                + rebuilt + " of branch " + ref.branch() + ", not " + (ref.version() + 1));
                    }
                    // the tasks read their fragments at the plan's base; the rebuild, the one version since, changed
                    // no fragment, so they read the same at the rebuild (read at the base, the Rewrite would conflict
                    // with the rebuild)
                    tasks = tasks.stream().map(t -> new CompactionTask(t.getTaskData(), rebuilt, t.getCompactionOptions()))
                            .toList();
                }
                List<RewriteResult> results = new ArrayList<>();
                for (CompactionTask t : tasks) {
                    results.add(t.execute(w));
                }
                Compaction.commitCompaction(w, results, lance.getCompactionOptions());
                if (plan.defersIndexRemap()) {
                    step.accept("compaction-after-rewrite");
                    if (plan.indexName() != null) {
                        // a full rebuild reads every row's current address; an optimise would keep the old addresses
                        LanceKeyedTable.createIdIndex(w, true);
                        step.accept("compaction-after-index-rebuild");
                    }
                    dropFragReuse(w);
                }
                return advancedUnreadable(w);
            });
        } catch (Exception e) {
            throw LanceErrors.commitFailure(name, "compact", e);
        }
    }
}
