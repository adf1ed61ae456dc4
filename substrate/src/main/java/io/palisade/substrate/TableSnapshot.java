package io.palisade.substrate;

import io.palisade.fencing.KeyFilter;
import org.apache.arrow.vector.types.pojo.Schema;

import java.util.List;
import java.util.Map;

/**
 * A handle on one exact table state ({@link #ref()}), from which reads are served and against which
 * writes are staged.
 *
 * <p>Invariants: a handle never moves. Every write made through it uses {@link #ref()} as its read
 * version and returns the new state in a {@link CommitResult}; to write again from the new state,
 * open a new handle there. Two handles on the same ref therefore race exactly like two stale Lance
 * writers. Handles hold native resources: close them.
 */
public interface TableSnapshot extends AutoCloseable {

    String name();

    /** The exact state this handle reads and writes from. */
    TableRef ref();

    TableKind kind();

    /** The physical schema, with field and schema metadata. */
    Schema schema();

    /** The stable field id of {@code column}; a {@link io.palisade.fencing.ValidationException} if absent. */
    int fieldId(String column);

    /** Names of the fields marked as the unenforced primary key ({@code [id]} on keyed tables). */
    List<String> primaryKey();

    long countRows();

    /**
     * Every row, in storage order (see {@link ArrowRows} for value types), held in memory at once: for tests and small
     * tables; a read of a table of any size streams ({@link #scan(ScanSpec, RowSink)}).
     */
    List<Map<String, Object>> scan();

    /**
     * Streams the rows {@code spec} selects to {@code sink}, in storage order, reading {@code spec.batchRows()} rows at
     * a time and holding no more than one batch, so that a read of any table runs in bounded memory; the read ends when
     * {@code spec.limit()} rows were delivered or the sink returns false. A filter the store cannot evaluate is an
     * {@link InvalidFilterException}, thrown before any row is delivered. This default reads {@link #scan()} (or
     * {@link #rowsWithKeys}) whole and evaluates no filter; a store that can stream and filter (Lance) overrides it.
     */
    default void scan(ScanSpec spec, RowSink sink) {
        if (spec.filter() != null) {
            throw new InvalidFilterException(name(), spec.filter(), "this store cannot evaluate filter expressions");
        }
        deliver(spec.keys() == null ? scan() : rowsWithKeys(spec.keys()), spec, sink);
    }

    /**
     * Streams the rows of {@code rows}, a batch shaped like this table's rows but not stored in it, that {@code spec}
     * selects to {@code sink}, in the batch's order, evaluating {@code spec.filter()} exactly as
     * {@link #scan(ScanSpec, RowSink)} does on the table (the same engine, so a filter means the same on both). The
     * caller keeps ownership of {@code rows}. This default evaluates no filter; a store that can overrides it.
     */
    default void scanRows(org.apache.arrow.vector.VectorSchemaRoot rows, ScanSpec spec, RowSink sink) {
        if (spec.filter() != null) {
            throw new InvalidFilterException(name(), spec.filter(), "this store cannot evaluate filter expressions");
        }
        deliver(ArrowRows.rows(rows), spec, sink);
    }

    /** Delivers those of {@code rows} whose key {@code spec} selects (every row without keys), up to its limit. */
    static void deliver(List<Map<String, Object>> rows, ScanSpec spec, RowSink sink) {
        java.util.Set<String> wanted = spec.keys() == null ? null : new java.util.HashSet<>(spec.keys().keys());
        long n = 0;
        for (Map<String, Object> r : rows) {
            if (n >= spec.limit()) {
                return;
            }
            if (wanted != null && !wanted.contains(String.valueOf(r.get(KeyedSchemas.ID)))) {
                continue;
            }
            n++;
            if (!sink.accept(r)) {
                return;
            }
        }
    }

    /**
     * Calls {@code action} with the {@code id} of every row (a keyed table), as a string, in storage order, reading
     * only that column. This default scans every column; a store overrides it with a projected scan.
     */
    default void forEachKey(java.util.function.Consumer<String> action) {
        for (Map<String, Object> r : scan()) {
            action.accept(String.valueOf(r.get(KeyedSchemas.ID)));
        }
    }

    /**
     * Calls {@code action} with every row's values of {@code columns} only (a map of those columns), in storage order.
     * This default scans every column; a store overrides it with a projected scan.
     */
    default void forEachRow(List<String> columns, java.util.function.Consumer<Map<String, Object>> action) {
        for (Map<String, Object> r : scan()) {
            Map<String, Object> only = new java.util.HashMap<>();
            for (String c : columns) {
                only.put(c, r.get(c));
            }
            action.accept(only);
        }
    }

    /** Whether a scalar index on {@code id} exists. */
    boolean hasIdIndex();

    /**
     * The merge path Lance takes for a keyed merge-insert from this state: {@link MergePath#INDEXED_UNFENCED}
     * exactly when an index on {@code id} exists <em>and covers at least one fragment of this state</em>;
     * an index covering no fragment (built on an empty table, or whose fragments were all removed)
     * leaves merges on {@link MergePath#V2_FENCED} (surface guard
     * {@code indexedPathIsTakenOnlyWhenTheIndexCoversAFragment}).
     */
    MergePath mergePath();

    /**
     * Plans a compaction of this state towards {@code target}: which small fragments are rewritten together, decided now (not
     * at commit time), so the caller can journal and judge the plan before committing it with
     * {@link #commit(MaintenancePlan)}. A plan with no group means nothing to compact. A store that
     * cannot compact refuses with a {@link io.palisade.fencing.ValidationException}.
     */
    default MaintenancePlan planCompaction(CompactionTarget target) {
        throw new io.palisade.fencing.ValidationException("table '" + name() + "': this store does not compact");
    }

    /** {@link #planCompaction(CompactionTarget)} to Lance's default target. */
    default MaintenancePlan planCompaction() {
        return planCompaction(CompactionTarget.LANCE_DEFAULTS);
    }

    /**
     * The shape of this state for automatic compaction: fragments, those below {@code target}'s row count, and
     * stored and deleted rows, from the manifest alone. A store that cannot say refuses with a
     * {@link io.palisade.fencing.ValidationException}.
     */
    default FragmentStats fragmentStats(CompactionTarget target) {
        throw new io.palisade.fencing.ValidationException("table '" + name() + "': this store keeps no fragments");
    }

    /**
     * Commits {@code plan} exactly as planned, staged against this handle's state (the plan's base, or
     * a fork of it at the same content). An {@link MaintenancePlan#isEmpty() empty} plan commits nothing
     * and returns {@link CommitResult#of}{@code (ref())}. The caller verifies the committed version
     * against the plan ({@link MaintenancePlan#mismatch}); failures are typed as for every write.
     */
    default CommitResult commit(MaintenancePlan plan) {
        throw new io.palisade.fencing.ValidationException("table '" + name() + "': this store cannot commit a "
                + plan.kind() + " plan");
    }

    /**
     * {@link #commit(MaintenancePlan)}, naming each step between two of the plan's versions to {@code step} as it is
     * reached ({@code compaction-after-rewrite} and {@code compaction-after-index-rebuild} for a compaction that
     * {@link MaintenancePlan#defersIndexRemap() defers its index remap}): the caller's crash points. This default
     * names none.
     */
    default CommitResult commit(MaintenancePlan plan, java.util.function.Consumer<String> step) {
        return commit(plan);
    }

    /** How many rows have each key of {@code keys} here, as text, ascending; keys with no row are absent. */
    Map<String, Long> keyCounts(KeyFilter keys);

    /**
     * Every row whose {@code id} is one of {@code keys} (a keyed table), in storage order. This default scans the
     * table; a store that can filter (Lance: {@code id IN (...)} predicates) overrides it.
     */
    default List<Map<String, Object>> rowsWithKeys(KeyFilter keys) {
        java.util.Set<String> wanted = new java.util.HashSet<>(keys.keys());
        return scan().stream().filter(r -> wanted.contains(String.valueOf(r.get(KeyedSchemas.ID)))).toList();
    }

    @Override
    void close();
}
