package io.palisade.substrate.lance;

import io.palisade.fencing.KeyConflictException;
import io.palisade.fencing.KeyFilter;
import io.palisade.fencing.PalisadeException;
import io.palisade.fencing.ValidationException;
import io.palisade.fencing.WriteConflictException;
import io.palisade.substrate.CommitResult;
import io.palisade.substrate.KeyedSchemas;
import io.palisade.substrate.KeyedTable;
import io.palisade.substrate.MaintenancePlan;
import io.palisade.substrate.MergePath;
import io.palisade.substrate.MergePlan;
import io.palisade.substrate.TableKind;
import io.palisade.substrate.TableRef;
import org.apache.arrow.c.ArrowArrayStream;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.lance.Dataset;
import org.lance.FragmentMetadata;
import org.lance.index.IndexOptions;
import org.lance.index.IndexParams;
import org.lance.index.IndexType;
import org.lance.index.OptimizeOptions;
import org.lance.index.scalar.ScalarIndexParams;
import org.lance.merge.MergeInsertParams;
import org.lance.merge.MergeInsertResult;
import org.lance.operation.Overwrite;
import org.lance.schema.ColumnAlteration;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Keyed Lance table handle. Row-adding writes are {@code mergeInsert} ON exactly {@code ["id"]} with
 * {@code conflictRetries = 0}; no Lance Append is ever issued for a keyed table.
 *
 * <p>Key-conflict normalisation (RFC-023 §6): a strict insert fails with {@link KeyConflictException}
 * both when Lance's WhenMatched Fail finds a key at the base (Lance names only the first key, so the
 * keys are found by a post-check at the base) and when a retryable commit conflict is explained by
 * keys that a concurrent commit inserted (post-check at the branch head). A conflict not explained by
 * keys is a {@link WriteConflictException}.
 */
final class LanceKeyedTable extends LanceSnapshot implements KeyedTable {

    private static final int KEY_SAMPLE = 20;

    private final int idFieldId;

    LanceKeyedTable(LanceTableStore store, String name, TableRef ref, TableKind kind, Dataset dataset) {
        super(store, name, ref, kind, dataset);
        this.idFieldId = fieldId(KeyedSchemas.ID);
    }

    @Override
    public int idFieldId() {
        return idFieldId;
    }

    @Override
    public CommitResult insert(VectorSchemaRoot rows, MergePath path) {
        return merge(rows, path, true);
    }

    @Override
    public CommitResult upsert(VectorSchemaRoot rows, MergePath path) {
        return merge(rows, path, false);
    }

    private CommitResult merge(VectorSchemaRoot rows, MergePath path, boolean strict) {
        KeyedSchemas.checkBatch(schema, rows);
        KeyFilter keys = KeyedSchemas.keysOf(rows, idFieldId);
        checkPath(path);
        // a large merge is cheaper on the scan plan, which is also fenced by Lance's key filter (MergeCost)
        MergePlan plan = io.palisade.substrate.MergeCost.plan(path, false, rows.getRowCount(), dataset::countRows);
        boolean scan = path == MergePath.INDEXED_UNFENCED && plan == MergePlan.SCAN;
        if (strict && path == MergePath.INDEXED_UNFENCED && !scan) {
            // Lance 7.0.0's indexed path ignores WhenMatched Fail and updates the match (surface guard
            // indexedPathTurnsWhenMatchedFailIntoAnUpdate); the strict check is therefore ours, at the
            // base. It is exact only because the coordinator's fence and the writer lease exclude every
            // concurrent same-key commit (DESIGN §3).
            Map<String, Long> present = keyCounts(keys);
            if (!present.isEmpty()) {
                throw keyConflict(present, Optional.empty(), null);
            }
        }
        MergeInsertParams params = new MergeInsertParams(List.of(KeyedSchemas.ID)).withConflictRetries(0);
        params = strict ? params.withMatchedFail() : params.withMatchedUpdateAll();
        if (scan) {
            params = params.withNotMatchedBySourceDeleteIf("false"); // deletes nothing; switches Lance to the scan plan
        }
        try {
            return mergeInsert(params, rows).withPlan(plan);
        } catch (PalisadeException e) {
            throw e;
        } catch (Exception e) {
            if (strict && LanceErrors.isMatchedFail(e)) {
                throw keyConflict(keyCounts(keys), LanceErrors.matchedKey(e), e);
            }
            if (strict && LanceErrors.isRetryableConflict(e)) {
                Map<String, Long> present;
                try (Dataset head = store.openLatest(name, ref.branch())) {
                    present = keyCounts(head, keys, name, new TableRef(ref.branch(), head.version()));
                }
                if (!present.isEmpty()) {
                    throw keyConflict(present, Optional.empty(), e);
                }
            }
            throw LanceErrors.commitFailure(name, strict ? "strict insert" : "upsert", e);
        }
    }

    @Override
    public CommitResult fold(VectorSchemaRoot upserts, KeyFilter deletes, io.palisade.substrate.FoldWatermark watermark) {
        boolean hasDeletes = deletes != null && !deletes.isEmpty();
        if (upserts.getRowCount() == 0 && !hasDeletes) {
            throw new ValidationException("a fold of table '" + name + "' needs rows to upsert or keys to delete");
        }
        KeyedSchemas.checkBatch(schema, upserts);
        KeyFilter keys = upserts.getRowCount() == 0 ? null : KeyedSchemas.keysOf(upserts, idFieldId);
        if (hasDeletes && keys != null && keys.intersects(deletes)) {
            throw new ValidationException("a fold of table '" + name + "' upserts and deletes the same key");
        }
        MergeInsertParams params = new MergeInsertParams(List.of(KeyedSchemas.ID)).withConflictRetries(0)
                .withMatchedUpdateAll()
                .markGenerationsAsMerged(List.of(new org.lance.memwal.MergedGeneration(watermark.shard().toString(),
                        watermark.generation())));
        long[] tableRows = {-1}; // the base's rows, counted at most once, and only when the cost decides
        java.util.function.LongSupplier countRows = () -> tableRows[0] >= 0 ? tableRows[0]
                : (tableRows[0] = dataset.countRows());
        if (hasDeletes) {
            params = params.withNotMatchedBySourceDeleteIf(inPredicate(deletes, 0, deletes.size()));
        } else if (upserts.getRowCount() >= io.palisade.substrate.MergeCost.MIN_ROWS && hasIdIndex()
                && io.palisade.substrate.MergeCost.scanCheaper(upserts.getRowCount(), countRows.getAsLong())) {
            // deletes nothing; a by-source clause makes Lance 7.0.0 take the scan plan with the index present
            params = params.withNotMatchedBySourceDeleteIf("false");
        }
        try {
            MergePlan plan = io.palisade.substrate.MergeCost.plan(mergePath(), hasDeletes, upserts.getRowCount(), countRows);
            return mergeInsert(params, upserts).withPlan(plan);
        } catch (PalisadeException e) {
            throw e;
        } catch (Exception e) {
            throw LanceErrors.commitFailure(name, "fold", e);
        }
    }

    /** One merge-insert of {@code rows} at this handle's base, its files made durable before it returns. */
    private CommitResult mergeInsert(MergeInsertParams params, VectorSchemaRoot rows) throws Exception {
        try (Dataset w = store.openDataset(name, ref);
             ArrowArrayStream stream = ArrowStreams.export(store.allocator(), schema, rows)) {
            MergeInsertResult r = w.mergeInsert(params, stream);
            Dataset after = r.dataset();
            try {
                return durable(after, r.stats().numInsertedRows(), r.stats().numUpdatedRows(), r.stats().numDeletedRows());
            } finally {
                if (after != w) {
                    after.close();
                }
            }
        }
    }

    private KeyConflictException keyConflict(Map<String, Long> present, Optional<String> named, Exception cause) {
        List<String> found = new ArrayList<>(present.keySet());
        if (found.isEmpty() && named.isPresent()) {
            found.add(named.get());
        }
        KeyConflictException k = new KeyConflictException(name, found.subList(0, Math.min(KEY_SAMPLE, found.size())),
                found.size(), null);
        if (cause != null) {
            k.initCause(cause);
        }
        return k;
    }

    private void checkPath(MergePath path) {
        MergePath actual = mergePath();
        if (path != actual) {
            throw new ValidationException("table '" + name + "' at " + ref + " takes the " + actual
                    + " merge path (index on 'id': " + hasIdIndex() + "); " + path + " was requested and Lance 7.0.0's "
                    + "Java API cannot switch paths (no use_index(false))");
        }
    }

    @Override
    public CommitResult delete(KeyFilter keys) {
        if (keys.isEmpty()) {
            throw new ValidationException("no keys to delete");
        }
        if (keys.fieldIds().length != 1 || keys.fieldIds()[0] != idFieldId) {
            throw new ValidationException("delete keys must be over the primary key field " + idFieldId);
        }
        boolean intKey = schema.findField(KeyedSchemas.ID).getType() instanceof org.apache.arrow.vector.types.pojo.ArrowType.Int;
        if (intKey != (keys.keyType() == KeyFilter.KeyType.INT64)) {
            throw new ValidationException("delete keys of type " + keys.keyType() + " do not match 'id'");
        }
        try {
            TableRef after = onWriteDataset(w -> {
                w.delete(inPredicate(keys, 0, keys.size()));
                return advanced(w).ref();
            });
            // the delete may have rebased or been re-run at the head: count what this commit removed
            long deleted;
            try (Dataset parent = store.openDataset(name, new TableRef(ref.branch(), after.version() - 1));
                 Dataset now = store.openDataset(name, after)) {
                deleted = parent.countRows() - now.countRows();
            }
            return new CommitResult(after, 0, 0, deleted);
        } catch (Exception e) {
            throw LanceErrors.commitFailure(name, "delete", e);
        }
    }

    @Override
    public CommitResult overwrite(VectorSchemaRoot rows) {
        Schema target = KeyedSchemas.overwriteSchema(schema(), rows.getSchema());
        KeyedSchemas.keysOf(rows, idFieldId);
        try {
            return onWriteDataset(w -> {
                List<FragmentMetadata> fragments = writeFragments(w, target, rows);
                return commit(w, Overwrite.builder().fragments(fragments).schema(target).build(), rows.getRowCount());
            });
        } catch (Exception e) {
            throw LanceErrors.commitFailure(name, "overwrite", e);
        }
    }

    @Override
    public CommitResult addColumns(List<Field> columns) {
        return addColumnsCommit(columns);
    }

    @Override
    public CommitResult dropColumns(List<String> columns) {
        return dropColumnsCommit(columns, true);
    }

    @Override
    public CommitResult makeNullable(String column) {
        KeyedSchemas.checkMakeNullable(schema, column, true);
        try {
            return onWriteDataset(w -> {
                w.alterColumns(List.of(new ColumnAlteration.Builder(column).nullable(true).build()));
                return advancedUnreadable(w);
            });
        } catch (Exception e) {
            throw LanceErrors.commitFailure(name, "make nullable", e);
        }
    }

    @Override
    public CommitResult createIdIndex() {
        if (hasIdIndex()) {
            throw new ValidationException("table '" + name + "' already has an index on 'id'");
        }
        try {
            return onWriteDataset(w -> {
                createIdIndex(w, false);
                return advanced(w);
            });
        } catch (Exception e) {
            throw LanceErrors.commitFailure(name, "create id index", e);
        }
    }

    /** Builds the BTREE on {@code id} in {@code w} (one CreateIndex commit); {@code replace} rebuilds an existing one. */
    static void createIdIndex(Dataset w, boolean replace) {
        w.createIndex(IndexOptions.builder(List.of(KeyedSchemas.ID), IndexType.BTREE,
                        IndexParams.builder().setScalarIndexParams(ScalarIndexParams.create("btree", "{}")).build())
                .withIndexName(ID_INDEX_NAME).replace(replace).build());
    }

    /** Whether {@code ds} has a scalar index over exactly the field {@code id}. */
    static boolean hasIdIndex(Dataset ds) {
        return !idIndexes(ds).isEmpty();
    }

    /** The merge path Lance takes from {@code ds}: indexed iff an id index covers a fragment of {@code ds}. */
    static MergePath mergePath(Dataset ds) {
        java.util.Set<Integer> live = new java.util.HashSet<>();
        ds.getFragments().forEach(f -> live.add(f.getId()));
        for (org.lance.index.Index i : idIndexes(ds)) {
            if (i.fragments().map(fs -> fs.stream().anyMatch(live::contains)).orElse(false)) {
                return MergePath.INDEXED_UNFENCED;
            }
        }
        return MergePath.V2_FENCED;
    }

    private static List<org.lance.index.Index> idIndexes(Dataset ds) {
        int id = ds.getLanceSchema().fields().stream().filter(f -> f.getName().equals(KeyedSchemas.ID))
                .mapToInt(org.lance.schema.LanceField::getId).findFirst().orElse(-1);
        return id < 0 ? List.of() : ds.getIndexes().stream().filter(i -> i.fields().equals(List.of(id))).toList();
    }

    @Override
    public MaintenancePlan planIndexOptimize() {
        java.util.Set<Long> live = new java.util.TreeSet<>();
        dataset.getFragments().forEach(f -> live.add((long) f.getId()));
        List<org.lance.index.Index> indexes = idIndexes(dataset);
        if (indexes.isEmpty()) {
            return MaintenancePlan.index(ref, false, ID_INDEX_NAME, live, java.util.Set.of(idFieldId));
        }
        if (dataset.listIndexes().contains(MaintenancePlan.FRAG_REUSE_INDEX)) {
            // a compaction that deferred its remap was interrupted before it rebuilt the index
            return MaintenancePlan.indexRebuildDroppingFragReuse(ref, ID_INDEX_NAME, live, java.util.Set.of(idFieldId));
        }
        java.util.Set<Long> covered = new java.util.HashSet<>();
        for (org.lance.index.Index i : indexes) {
            i.fragments().ifPresent(fs -> fs.forEach(f -> covered.add((long) f)));
        }
        return covered.containsAll(live)
                ? MaintenancePlan.indexUpToDate(ref, ID_INDEX_NAME, covered, java.util.Set.of(idFieldId))
                : MaintenancePlan.index(ref, true, ID_INDEX_NAME, live, java.util.Set.of(idFieldId));
    }

    @Override
    CommitResult commitIndex(MaintenancePlan plan) {
        if (!ID_INDEX_NAME.equals(plan.indexName())) {
            throw new ValidationException("table '" + name + "': only the index '" + ID_INDEX_NAME + "' is maintained, not '"
                    + plan.indexName() + "'");
        }
        try {
            return onWriteDataset(w -> {
                if (plan.kind() == MaintenancePlan.Kind.INDEX_BUILD) {
                    createIdIndex(w, false);
                } else if (plan.dropsFragReuse()) {
                    createIdIndex(w, true); // a full rebuild reads every row's current address
                    dropFragReuse(w);
                } else {
                    w.optimizeIndices(OptimizeOptions.builder().indexNames(List.of(ID_INDEX_NAME)).build());
                }
                return advanced(w);
            });
        } catch (Exception e) {
            throw LanceErrors.commitFailure(name, "maintain id index", e);
        }
    }

    @Override
    public CommitResult optimizeIdIndex() {
        if (!hasIdIndex()) {
            throw new ValidationException("table '" + name + "' has no index on 'id' to optimise");
        }
        try {
            return onWriteDataset(w -> {
                w.optimizeIndices(OptimizeOptions.builder().build());
                return advanced(w);
            });
        } catch (Exception e) {
            throw LanceErrors.commitFailure(name, "optimise id index", e);
        }
    }
}
