package io.palisade.substrate.sim;

import io.palisade.fencing.CommitStateUnknownException;
import io.palisade.fencing.GraphRefusedException;
import io.palisade.fencing.KeyConflictException;
import io.palisade.fencing.KeyFilter;
import io.palisade.fencing.ValidationException;
import io.palisade.fencing.WriteConflictException;
import io.palisade.substrate.ArrowRows;
import io.palisade.substrate.CommitDescription;
import io.palisade.substrate.CommitResult;
import io.palisade.substrate.FragmentDiff;
import io.palisade.substrate.KeyedSchemas;
import io.palisade.substrate.KeyedTable;
import io.palisade.substrate.KeylessTable;
import io.palisade.substrate.MergeCost;
import io.palisade.substrate.MergePath;
import io.palisade.substrate.MergePlan;
import io.palisade.substrate.OperationKind;
import io.palisade.substrate.PrimaryKeyInstall;
import io.palisade.substrate.TableKind;
import io.palisade.substrate.TableRef;
import io.palisade.substrate.TableSnapshot;
import io.palisade.substrate.TableStore;
import io.palisade.substrate.VersionInfo;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.UnaryOperator;

/**
 * A deterministic in-memory {@link TableStore} that models the Lance 7.0.0 behaviour pinned by the
 * surface guards, for simulation testing of recovery and the coordinator. It passes the same
 * conformance suite as the Lance store.
 *
 * <p>Model: a table branch is a map of immutable {@link State}s by version; a state holds the schema
 * (with stable field ids), fragments of rows with deletion sets, an index flag and the transaction
 * that produced it. A write staged at base {@code b} is checked against every transaction committed
 * after {@code b} on its branch (Lance's direction: the committing transaction against the committed
 * ones), then applied to the newest state, or refused with {@link WriteConflictException}:
 * <ul>
 *   <li>filtered Update (v2 merge ON exactly the PK) vs committed filtered Update: conflict iff the
 *       exact key sets intersect (Lance compares Bloom bitmaps and may also false-conflict);</li>
 *   <li>filtered Update vs committed unfiltered Update: conflict (conservative arm);</li>
 *   <li>unfiltered Update (indexed path) vs committed filtered Update: rebases (no key check);</li>
 *   <li>any data write vs committed data write that deleted or rewrote one of the same rows: conflict
 *       (disjoint rows of one fragment rebase, as Lance merges deletion vectors);</li>
 *   <li>any write vs committed Overwrite/Merge/Project (schema or whole-table change): conflict;</li>
 *   <li>UpdateConfig and CreateIndex commits are compatible with data writes;</li>
 *   <li>a Delete rebases over a committed Merge (added all-null column); Overwrite and CreateIndex
 *       never conflict with data writes, two concurrent CreateIndex commits do.</li>
 * </ul>
 * Further modelled facts (each found by {@code DifferentialSimulationTest} and recorded in
 * docs/lance-surface.md): the merge path is indexed only while the id index covers a live fragment;
 * Update/Delete record the version they rebased onto as read version, CreateIndex/Overwrite/Merge
 * their staged one; a fragment left without live rows is removed; an Overwrite numbers its fragments
 * from 0 while the table's fragment counter continues; an all-null Merge leaves fragments unchanged;
 * an optimise with nothing to index commits nothing; forks of a state a branch shares with its parent
 * are taken from the parent, and forks from another branch rebuild the id index in one commit.
 *
 * <p>A delete by keys is evaluated at the handle's base; when a concurrent commit deleted or rewrote one
 * of the same rows it is re-run at the branch head, as Lance's delete re-runs its predicate on a
 * retryable conflict (so it never fails on concurrent data writes, and rows of those keys inserted
 * concurrently as new rows survive a stale delete). A conflict with a whole-table commit (Overwrite,
 * schema change) is not retried.
 *
 * <p>All methods are synchronized on the store: commits are totally ordered, results are deterministic.
 */
public final class SimulatedTableStore implements TableStore {

    /** One stored row set. {@code deleted} holds row offsets; {@code generation} would mark rewritten data files (no modelled operation rewrites them yet). */
    record Fragment(long id, List<Map<String, Object>> rows, Set<Integer> deleted, int generation) {
        Fragment {
            rows = List.copyOf(rows);
            deleted = Set.copyOf(deleted);
        }

        boolean fullyDeleted() {
            return deleted.size() == rows.size();
        }
    }

    /**
     * What produced a state. {@code insertedKeys} is the key filter (null when the commit attached
     * none); {@code touchedRows} maps fragment id → row offsets the commit deleted or rewrote.
     */
    record Txn(OperationKind kind, long readVersion, Map<String, String> properties, KeyFilter insertedKeys,
               Map<Long, Set<Integer>> touchedRows, boolean filtered) {
        Txn {
            touchedRows = Map.copyOf(touchedRows);
        }
    }

    /** {@code indexed}: fragment ids the id index covers (Lance's optimise is a no-op when it covers all). */
    record State(Schema schema, List<Integer> fieldIds, int nextFieldId, List<Fragment> fragments,
                 long nextFragmentId, boolean idIndex, Txn txn, Set<Long> indexed) {
        State {
            fieldIds = List.copyOf(fieldIds);
            fragments = List.copyOf(fragments);
            indexed = Set.copyOf(indexed);
        }

        Set<Long> fragmentIds() {
            Set<Long> ids = new TreeSet<>();
            fragments.forEach(f -> ids.add(f.id()));
            return ids;
        }

        int fieldId(String column) {
            for (int i = 0; i < schema.getFields().size(); i++) {
                if (schema.getFields().get(i).getName().equals(column)) {
                    return fieldIds.get(i);
                }
            }
            throw new ValidationException("no column '" + column + "'");
        }

        List<Map<String, Object>> liveRows() {
            List<Map<String, Object>> out = new ArrayList<>();
            for (Fragment f : fragments) {
                for (int i = 0; i < f.rows().size(); i++) {
                    if (!f.deleted().contains(i)) {
                        Map<String, Object> row = new LinkedHashMap<>();
                        for (Field field : schema.getFields()) {
                            row.put(field.getName(), f.rows().get(i).get(field.getName()));
                        }
                        out.add(row);
                    }
                }
            }
            return out;
        }

        State with(List<Fragment> frags, long nextFrag, Txn t) {
            return new State(schema, fieldIds, nextFieldId, frags, nextFrag, idIndex, t, indexed);
        }
    }

    static final class Branch {
        final String parent;
        final long parentVersion;
        final TreeMap<Long, State> versions = new TreeMap<>();

        Branch(String parent, long parentVersion) {
            this.parent = parent;
            this.parentVersion = parentVersion;
        }
    }

    /** A one-shot fault the next commit on a table meets, for recovery and coordinator simulations. */
    public enum Fault {
        /** The commit fails before any effect: {@link CommitStateUnknownException}, the table is unchanged. */
        FAIL_BEFORE_COMMIT,
        /**
         * The commit takes effect (a new version exists), then the caller sees
         * {@link CommitStateUnknownException}: a crash between Phase B and the acknowledgement.
         */
        FAIL_AFTER_COMMIT,
        /**
         * The commit is refused as a concurrent commit would refuse it: a retryable
         * {@link WriteConflictException}, the table is unchanged.
         */
        WRITE_CONFLICT
    }

    private final Map<String, Map<String, Branch>> tables = new TreeMap<>();
    private final Map<String, Fault> faults = new HashMap<>();

    /** Arms {@code fault} for the next commit on {@code table} (any branch); it fires once. */
    public synchronized void injectOnNextCommit(String table, Fault fault) {
        faults.put(table, fault);
    }

    /** The fault armed for the next commit on {@code table}, if it has not fired yet. */
    public synchronized Optional<Fault> armedFault(String table) {
        return Optional.ofNullable(faults.get(table));
    }

    // ------------------------------------------------------------------ creation

    @Override
    public synchronized KeyedTable createKeyed(String table, TableKind kind, Schema schema) {
        create(table, KeyedSchemas.keyedSchema(schema, kind));
        return openKeyed(table, TableRef.main(1));
    }

    @Override
    public synchronized KeylessTable createKeyless(String table, Schema schema) {
        create(table, KeyedSchemas.keylessSchema(schema));
        return openKeyless(table, TableRef.main(1));
    }

    @Override
    public synchronized void createLegacyKeyed(String table, TableKind kind, Schema schema) {
        create(table, KeyedSchemas.legacyKeyedSchema(schema, kind));
    }

    private void create(String table, Schema physical) {
        if (table == null || table.isBlank()) {
            throw new ValidationException("invalid table name '" + table + "'");
        }
        if (tables.containsKey(table)) {
            throw new ValidationException("table '" + table + "' already exists");
        }
        List<Integer> ids = new ArrayList<>();
        for (int i = 0; i < physical.getFields().size(); i++) {
            ids.add(i);
        }
        Branch main = new Branch(null, 0);
        main.versions.put(1L, new State(physical, ids, ids.size(), List.of(), 0, false,
                new Txn(OperationKind.OVERWRITE, 0, Map.of(), null, Map.of(), false), Set.of()));
        Map<String, Branch> branches = new TreeMap<>();
        branches.put(TableRef.MAIN, main);
        tables.put(table, branches);
    }

    @Override
    public synchronized boolean exists(String table) {
        return tables.containsKey(table);
    }

    // ------------------------------------------------------------------ lookup

    private Branch branch(String table, String branch) {
        Map<String, Branch> t = tables.get(table);
        if (t == null) {
            throw new ValidationException("no table '" + table + "'");
        }
        Branch b = t.get(branch);
        if (b == null) {
            throw new ValidationException("table '" + table + "' has no branch '" + branch + "'");
        }
        return b;
    }

    private State state(String table, TableRef ref) {
        State s = branch(table, ref.branch()).versions.get(ref.version());
        if (s == null) {
            throw new ValidationException("table '" + table + "' has no version " + ref);
        }
        return s;
    }

    private TableRef head(String table, String branch) {
        return new TableRef(branch, branch(table, branch).versions.lastKey());
    }

    // ------------------------------------------------------------------ opening

    @Override
    public synchronized KeyedTable openKeyed(String table, TableRef ref) {
        State s = state(table, ref);
        List<String> pk = KeyedSchemas.primaryKey(s.schema());
        Optional<TableKind> kind = KeyedSchemas.recordedKind(s.schema());
        if (!pk.equals(List.of(KeyedSchemas.ID))) {
            throw new GraphRefusedException("table '" + table + "' at " + ref + " has primary key " + pk
                    + "; a keyed table needs exactly [id]");
        }
        if (kind.isPresent() && !kind.get().keyed()) {
            throw new GraphRefusedException("table '" + table + "' was created keyless but carries a primary key");
        }
        return new SimKeyed(table, ref, kind.orElse(TableKind.NODE));
    }

    @Override
    public synchronized KeylessTable openKeyless(String table, TableRef ref) {
        State s = state(table, ref);
        List<String> pk = KeyedSchemas.primaryKey(s.schema());
        Optional<TableKind> kind = KeyedSchemas.recordedKind(s.schema());
        if (!pk.isEmpty() || kind.map(TableKind::keyed).orElse(false)) {
            throw new GraphRefusedException("table '" + table + "' is keyed; it cannot be opened as keyless");
        }
        return new SimKeyless(table, ref);
    }

    // ------------------------------------------------------------------ versions and branches

    @Override
    public synchronized TableRef latest(String table, String branch) {
        return head(table, branch);
    }

    @Override
    public synchronized List<VersionInfo> listVersions(String table, String branch) {
        List<VersionInfo> out = new ArrayList<>();
        for (Map.Entry<Long, State> e : branch(table, branch).versions.entrySet()) {
            out.add(new VersionInfo(new TableRef(branch, e.getKey()), e.getValue().liveRows().size()));
        }
        return out;
    }

    @Override
    public synchronized List<String> listBranches(String table) {
        if (!tables.containsKey(table)) {
            throw new ValidationException("no table '" + table + "'");
        }
        List<String> out = new ArrayList<>();
        out.add(TableRef.MAIN);
        tables.get(table).keySet().stream().filter(b -> !b.equals(TableRef.MAIN)).forEach(out::add);
        return out;
    }

    /** Like the Lance store's for a state of the branch's own; this store keeps every version anyway. */
    @Override
    public synchronized boolean forkKeeps(String table, TableRef ref) {
        return ref.onMain() || ref.version() > branch(table, ref.branch()).parentVersion;
    }

    @Override
    public synchronized TableRef forkBranch(String table, TableRef from, String newBranch) {
        state(table, from);
        // like the Lance store: a state a branch shares with its parent is forked from the parent
        while (!from.onMain() && from.version() <= branch(table, from.branch()).parentVersion) {
            from = new TableRef(branch(table, from.branch()).parent, from.version());
        }
        State s = state(table, from);
        if (newBranch == null || newBranch.isBlank() || newBranch.equals(TableRef.MAIN)
                || tables.get(table).containsKey(newBranch)) {
            throw new ValidationException("branch '" + newBranch + "' is invalid or exists on table '" + table + "'");
        }
        Branch b = new Branch(from.branch(), from.version());
        b.versions.put(from.version(), s);
        tables.get(table).put(newBranch, b);
        TableRef forked = new TableRef(newBranch, from.version());
        if (!from.onMain() && s.idIndex()) {
            // like the Lance store: the id index is rebuilt on a branch forked from another branch
            Txn txn = new Txn(OperationKind.CREATE_INDEX, from.version(), Map.of(), null, Map.of(), false);
            return commit(table, forked, txn, latest -> new State(latest.schema(), latest.fieldIds(),
                    latest.nextFieldId(), latest.fragments(), latest.nextFragmentId(), true, txn, latest.fragmentIds()));
        }
        return forked;
    }

    // ------------------------------------------------------------------ primary key

    @Override
    public synchronized List<String> primaryKey(String table, TableRef ref) {
        return KeyedSchemas.primaryKey(state(table, ref).schema());
    }

    @Override
    public synchronized List<Map<String, Object>> scanUnchecked(String table, TableRef ref) {
        return state(table, ref).liveRows();
    }

    @Override
    public synchronized io.palisade.substrate.IdCensus idCensus(String table, TableRef ref, int sampleSize) {
        State s = state(table, ref);
        Field id = s.schema().getFields().stream().filter(f -> f.getName().equals(KeyedSchemas.ID)).findFirst().orElse(null);
        io.palisade.substrate.IdCensus.Counter c = new io.palisade.substrate.IdCensus.Counter();
        for (Map<String, Object> row : s.liveRows()) {
            c.add(id == null ? "" : row.get(KeyedSchemas.ID));
        }
        io.palisade.substrate.IdCensus census = c.census(ref, KeyedSchemas.primaryKey(s.schema()),
                id == null ? null : id.getType().toString(), id != null && id.isNullable(), sampleSize);
        return id != null ? census : new io.palisade.substrate.IdCensus(ref, census.rows(), census.primaryKey(), null,
                false, 0, 0, 0, Map.of());
    }

    @Override
    public synchronized PrimaryKeyInstall installPrimaryKey(String table, TableRef base, String intentId) {
        if (intentId == null || intentId.isBlank()) {
            throw new ValidationException("a PK install needs the intent id of its migration unit");
        }
        State s = state(table, base);
        List<String> pk = KeyedSchemas.primaryKey(s.schema());
        if (pk.equals(List.of(KeyedSchemas.ID))) {
            return new PrimaryKeyInstall(PrimaryKeyInstall.Outcome.ALREADY_PRESENT, base);
        }
        if (!pk.isEmpty()) {
            throw new GraphRefusedException("table '" + table + "' already has primary key " + pk + "; a primary key is never changed");
        }
        if (KeyedSchemas.recordedKind(s.schema()).map(k -> !k.keyed()).orElse(false)) {
            throw new ValidationException("table '" + table + "' is keyless; it takes no primary key");
        }
        Field id = KeyedSchemas.find(s.schema(), KeyedSchemas.ID)
                .orElseThrow(() -> new ValidationException("table '" + table + "' has no 'id' field"));
        if (id.isNullable() || !KeyedSchemas.isKeyType(id.getType())) {
            throw new ValidationException("table '" + table + "': 'id' must be non-null Utf8/LargeUtf8/Int64 to become the primary key");
        }
        Txn txn = new Txn(OperationKind.UPDATE_CONFIG, base.version(), Map.of(INTENT_ID_PROPERTY, intentId), null, Map.of(), false);
        TableRef ref = commit(table, base, txn, latest -> {
            List<Field> fields = new ArrayList<>();
            for (Field f : latest.schema().getFields()) {
                if (f.getName().equals(KeyedSchemas.ID)) {
                    Map<String, String> md = new LinkedHashMap<>(f.getMetadata() == null ? Map.of() : f.getMetadata());
                    md.put(KeyedSchemas.PK_METADATA, "true");
                    fields.add(new Field(f.getName(), new FieldType(false, f.getType(), null, md), List.of()));
                } else {
                    fields.add(f);
                }
            }
            return new State(new Schema(fields, latest.schema().getCustomMetadata()), latest.fieldIds(),
                    latest.nextFieldId(), latest.fragments(), latest.nextFragmentId(), latest.idIndex(), txn, latest.indexed());
        });
        return new PrimaryKeyInstall(PrimaryKeyInstall.Outcome.INSTALLED, ref);
    }

    // ------------------------------------------------------------------ commit

    /**
     * Checks {@code txn} (staged at {@code base}) against every commit after it on the branch, then
     * applies it to the newest state. Caller holds the store lock.
     */
    private TableRef commit(String table, TableRef base, Txn txn, UnaryOperator<State> apply) {
        Branch b = branch(table, base.branch());
        Fault fault = faults.remove(table);
        if (fault == Fault.FAIL_BEFORE_COMMIT) {
            throw new CommitStateUnknownException("injected fault before the commit of " + txn.kind().lanceName()
                    + " on table '" + table + "'", null);
        }
        if (fault == Fault.WRITE_CONFLICT) {
            throw new WriteConflictException("injected write conflict on the commit of " + txn.kind().lanceName()
                    + " on table '" + table + "' staged at " + base);
        }
        for (State committed : b.versions.tailMap(base.version(), false).values()) {
            String why = conflict(txn, committed.txn());
            if (why != null) {
                String message = txn.kind().lanceName() + " on table '" + table + "' staged at " + base
                        + " conflicts with a concurrent " + committed.txn().kind().lanceName() + ": " + why;
                throw wholeTable(committed.txn().kind()) ? new IncompatibleConflict(message) : new WriteConflictException(message);
            }
        }
        long last = b.versions.lastKey();
        State applied = apply.apply(b.versions.lastEntry().getValue());
        // like Lance, the stored transaction records the version it finally committed on top of
        // (observed: CreateIndex, Overwrite and Merge keep the version they were staged against)
        Txn t = applied.txn();
        long readVersion = t.kind() == OperationKind.CREATE_INDEX || t.kind() == OperationKind.OVERWRITE
                || t.kind() == OperationKind.MERGE ? t.readVersion() : last;
        Txn recorded = new Txn(t.kind(), readVersion, t.properties(), t.insertedKeys(), t.touchedRows(), t.filtered());
        b.versions.put(last + 1, new State(applied.schema(), applied.fieldIds(), applied.nextFieldId(),
                applied.fragments(), applied.nextFragmentId(), applied.idIndex(), recorded, applied.indexed()));
        long next = last + 1;
        if (fault == Fault.FAIL_AFTER_COMMIT) {
            throw new CommitStateUnknownException("injected fault after the commit of " + txn.kind().lanceName()
                    + " on table '" + table + "' produced " + new TableRef(base.branch(), next), null);
        }
        return new TableRef(base.branch(), next);
    }

    /** A conflict with a whole-table commit (Overwrite, schema change): Lance does not retry it. */
    private static final class IncompatibleConflict extends WriteConflictException {
        private static final long serialVersionUID = 1L;

        IncompatibleConflict(String message) {
            super(message);
        }
    }

    private static boolean wholeTable(OperationKind k) {
        return k == OperationKind.OVERWRITE || k == OperationKind.MERGE || k == OperationKind.PROJECT
                || k == OperationKind.RESTORE;
    }

    /** Why {@code current} may not commit after {@code committed}, or null when compatible. */
    static String conflict(Txn current, Txn committed) {
        OperationKind c = committed.kind();
        if (current.kind() == OperationKind.OVERWRITE) {
            return null;
        }
        if (current.kind() == OperationKind.CREATE_INDEX) {
            return c == OperationKind.CREATE_INDEX ? "concurrent index change" : null;
        }
        if (current.kind() == OperationKind.DELETE && c == OperationKind.MERGE) {
            return null; // observed: a delete rebases over an added (all-null) column
        }
        if (c == OperationKind.OVERWRITE || c == OperationKind.MERGE || c == OperationKind.PROJECT
                || c == OperationKind.RESTORE) {
            return "the table was rewritten or its schema changed";
        }
        if (c == OperationKind.UPDATE_CONFIG || c == OperationKind.CREATE_INDEX) {
            return current.kind() == OperationKind.UPDATE_CONFIG && c == OperationKind.UPDATE_CONFIG
                    ? "concurrent configuration change" : null;
        }
        if (current.kind() == OperationKind.MERGE || current.kind() == OperationKind.PROJECT) {
            return "a schema change cannot rebase over a data write";
        }
        if (current.kind() == OperationKind.UPDATE && current.filtered() && c == OperationKind.UPDATE) {
            if (!committed.filtered()) {
                return "committed update carries no key filter";
            }
            if (current.insertedKeys().intersects(committed.insertedKeys())) {
                return "inserted keys overlap " + current.insertedKeys().overlap(committed.insertedKeys()).sample();
            }
        }
        // Lance resolves deletions row by row: disjoint rows of one fragment rebase, a shared row conflicts
        for (Map.Entry<Long, Set<Integer>> e : current.touchedRows().entrySet()) {
            Set<Integer> other = committed.touchedRows().get(e.getKey());
            if (other != null) {
                for (Integer row : e.getValue()) {
                    if (other.contains(row)) {
                        return "both modify row " + row + " of fragment " + e.getKey();
                    }
                }
            }
        }
        return null;
    }

    // ------------------------------------------------------------------ decomposition

    @Override
    public synchronized CommitDescription decompose(String table, TableRef ref) {
        Branch b = branch(table, ref.branch());
        if (b.parent != null && ref.version() <= b.parentVersion) {
            return decompose(table, new TableRef(b.parent, ref.version())).at(ref);
        }
        State now = state(table, ref);
        State before = b.versions.get(ref.version() - 1);
        Map<Long, Fragment> a = new HashMap<>();
        if (before != null) {
            before.fragments().forEach(f -> a.put(f.id(), f));
        }
        Map<Long, Fragment> z = new HashMap<>();
        now.fragments().forEach(f -> z.put(f.id(), f));
        FragmentDiff diff = FragmentDiff.of(now.txn().kind(), a, z);
        TreeSet<Integer> fields = new TreeSet<>();
        if (before != null) {
            Map<Integer, Field> x = new HashMap<>();
            Map<Integer, Field> y = new HashMap<>();
            for (int i = 0; i < before.fieldIds().size(); i++) {
                x.put(before.fieldIds().get(i), before.schema().getFields().get(i));
            }
            for (int i = 0; i < now.fieldIds().size(); i++) {
                y.put(now.fieldIds().get(i), now.schema().getFields().get(i));
            }
            TreeSet<Integer> ids = new TreeSet<>(x.keySet());
            ids.addAll(y.keySet());
            for (Integer id : ids) {
                if (!sameField(x.get(id), y.get(id))) {
                    fields.add(id);
                }
            }
        }
        Txn t = now.txn();
        return new CommitDescription(ref, t.kind(), t.readVersion(), t.properties(), diff.removed(), diff.added(), diff.updated(),
                List.copyOf(fields), t.kind() == OperationKind.UPDATE ? Optional.of(t.filtered()) : Optional.empty(),
                t.kind() == OperationKind.CREATE_INDEX ? List.of(KeyedTable.ID_INDEX_NAME) : List.of(),
                t.kind() == OperationKind.CREATE_INDEX && before != null && before.idIndex()
                        ? List.of(KeyedTable.ID_INDEX_NAME) : List.of());
    }

    private static boolean sameField(Field a, Field b) {
        if (a == null || b == null) {
            return false;
        }
        Map<String, String> ma = a.getMetadata() == null ? Map.of() : a.getMetadata();
        Map<String, String> mb = b.getMetadata() == null ? Map.of() : b.getMetadata();
        return a.getName().equals(b.getName()) && a.isNullable() == b.isNullable() && a.getType().equals(b.getType())
                && ma.equals(mb);
    }

    /** Commits here are atomic: no version is ever torn. */
    @Override
    public List<io.palisade.substrate.DamagedVersion> tornVersions(String table, String branch, long afterVersion) {
        return List.of();
    }

    /** Versions here are never damaged. */
    @Override
    public java.util.Optional<io.palisade.substrate.DamagedVersion> damage(String table, TableRef ref) {
        return java.util.Optional.empty();
    }

    /** Nothing to move: no version is ever torn. */
    @Override
    public List<String> setAside(String table, io.palisade.substrate.DamagedVersion version, java.nio.file.Path destination) {
        return List.of();
    }

    @Override
    public void close() {
        // nothing to release
    }

    // ------------------------------------------------------------------ handles

    private abstract class SimSnapshot implements TableSnapshot {
        final String name;
        final TableRef ref;
        final TableKind kind;
        final State state;

        SimSnapshot(String name, TableRef ref, TableKind kind) {
            this.name = name;
            this.ref = ref;
            this.kind = kind;
            this.state = state(name, ref);
        }

        /** The rows restricted to this version's columns (a batch may carry all-null columns it lacks). */
        List<Map<String, Object>> tableColumnsOnly(List<Map<String, Object>> rows) {
            Set<String> columns = new HashSet<>();
            state.schema().getFields().forEach(f -> columns.add(f.getName()));
            for (Map<String, Object> r : rows) {
                r.keySet().retainAll(columns);
            }
            return rows;
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
            return state.schema();
        }

        @Override
        public int fieldId(String column) {
            return state.fieldId(column);
        }

        @Override
        public List<String> primaryKey() {
            return KeyedSchemas.primaryKey(state.schema());
        }

        @Override
        public long countRows() {
            return state.liveRows().size();
        }

        @Override
        public List<Map<String, Object>> scan() {
            return state.liveRows();
        }

        @Override
        public boolean hasIdIndex() {
            return state.idIndex();
        }

        @Override
        public MergePath mergePath() {
            return SimulatedTableStore.mergePath(state);
        }

        @Override
        public Map<String, Long> keyCounts(KeyFilter keys) {
            return SimulatedTableStore.keyCounts(state, keys);
        }

        CommitResult schemaChange(OperationKind kind, Schema schema, List<Integer> ids, int nextFieldId) {
            synchronized (SimulatedTableStore.this) {
                Txn txn = new Txn(kind, ref.version(), Map.of(), null, Map.of(), false);
                TableRef r = SimulatedTableStore.this.commit(name, ref, txn, latest -> {
                    // like Lance, an added all-null column writes no data files: fragments are unchanged
                    return new State(schema, ids, nextFieldId, latest.fragments(), latest.nextFragmentId(),
                            latest.idIndex(), txn, latest.indexed());
                });
                return CommitResult.of(r);
            }
        }

        CommitResult addColumnsTo(List<Field> columns) {
            KeyedSchemas.checkAddColumns(state.schema(), columns);
            List<Field> fields = new ArrayList<>(state.schema().getFields());
            List<Integer> ids = new ArrayList<>(state.fieldIds());
            int next = state.nextFieldId();
            for (Field f : columns) {
                fields.add(f);
                ids.add(next++);
            }
            return schemaChange(OperationKind.MERGE, new Schema(fields, state.schema().getCustomMetadata()), ids, next);
        }

        CommitResult dropColumnsFrom(List<String> columns, boolean keyed) {
            KeyedSchemas.checkDropColumns(state.schema(), columns, keyed);
            List<Field> fields = new ArrayList<>();
            List<Integer> ids = new ArrayList<>();
            for (int i = 0; i < state.schema().getFields().size(); i++) {
                Field f = state.schema().getFields().get(i);
                if (!columns.contains(f.getName())) {
                    fields.add(f);
                    ids.add(state.fieldIds().get(i));
                }
            }
            return schemaChange(OperationKind.PROJECT, new Schema(fields, state.schema().getCustomMetadata()), ids,
                    state.nextFieldId());
        }

        CommitResult overwriteWith(Schema target, VectorSchemaRoot rows) {
            synchronized (SimulatedTableStore.this) {
                List<Map<String, Object>> data = ArrowRows.rows(rows);
                Txn txn = new Txn(OperationKind.OVERWRITE, ref.version(), Map.of(), null, Map.of(), false);
                TableRef r = SimulatedTableStore.this.commit(name, ref, txn, latest -> {
                    List<Integer> ids = new ArrayList<>();
                    for (int i = 0; i < target.getFields().size(); i++) {
                        ids.add(i);
                    }
                    // like Lance, an Overwrite numbers its own fragments from 0 again, while later
                    // writes continue the table's fragment counter
                    List<Fragment> frags = data.isEmpty() ? List.of() : List.of(new Fragment(0, data, Set.of(), 0));
                    return new State(target, ids, Math.max(ids.size(), latest.nextFieldId()), frags,
                            Math.max(latest.nextFragmentId(), frags.size()), false, txn, Set.of());
                });
                return new CommitResult(r, data.size(), 0, 0);
            }
        }

        @Override
        public void close() {
            // nothing to release
        }
    }

    /** Like Lance: the indexed path only when the id index covers at least one live fragment. */
    static MergePath mergePath(State state) {
        if (state.idIndex()) {
            for (Long f : state.fragmentIds()) {
                if (state.indexed().contains(f)) {
                    return MergePath.INDEXED_UNFENCED;
                }
            }
        }
        return MergePath.V2_FENCED;
    }

    static Map<String, Long> keyCounts(State state, KeyFilter keys) {
        Map<String, Long> counts = new TreeMap<>();
        for (Map<String, Object> row : state.liveRows()) {
            Object id = row.get(KeyedSchemas.ID);
            if (id != null && contains(keys, id)) {
                counts.merge(String.valueOf(id), 1L, Long::sum);
            }
        }
        return counts;
    }

    private static boolean contains(KeyFilter keys, Object id) {
        return keys.keyType() == KeyFilter.KeyType.INT64
                ? id instanceof Number n && keys.contains(n.longValue())
                : keys.contains(id.toString());
    }

    private final class SimKeyed extends SimSnapshot implements KeyedTable {

        SimKeyed(String name, TableRef ref, TableKind kind) {
            super(name, ref, kind);
        }

        @Override
        public int idFieldId() {
            return fieldId(KeyedSchemas.ID);
        }

        @Override
        public CommitResult insert(VectorSchemaRoot rows, MergePath path) {
            return merge(rows, path, true);
        }

        @Override
        public CommitResult upsert(VectorSchemaRoot rows, MergePath path) {
            return merge(rows, path, false);
        }

        private CommitResult merge(VectorSchemaRoot batch, MergePath path, boolean strict) {
            KeyedSchemas.checkBatch(state.schema(), batch);
            KeyFilter keys = KeyedSchemas.keysOf(batch, idFieldId());
            if (path != mergePath()) {
                throw new ValidationException("table '" + name + "' at " + ref + " takes the " + mergePath()
                        + " merge path; " + path + " was requested");
            }
            List<Map<String, Object>> data = tableColumnsOnly(ArrowRows.rows(batch));
            MergePlan plan = MergeCost.plan(path, false, batch.getRowCount(), this::countRows); // as LanceKeyedTable
            synchronized (SimulatedTableStore.this) {
                // classify against the base, as Lance's join does
                // key -> every {fragment id, row offset} holding it (several once the indexed path duplicated a key)
                Map<String, List<long[]>> matched = new HashMap<>();
                for (Fragment f : state.fragments()) {
                    for (int i = 0; i < f.rows().size(); i++) {
                        Object id = f.rows().get(i).get(KeyedSchemas.ID);
                        if (!f.deleted().contains(i) && id != null && contains(keys, id)) {
                            matched.computeIfAbsent(String.valueOf(id), x -> new ArrayList<>()).add(new long[] {f.id(), i});
                        }
                    }
                }
                if (strict && !matched.isEmpty()) {
                    List<String> found = new ArrayList<>(new TreeSet<>(matched.keySet()));
                    throw new KeyConflictException(name, found.subList(0, Math.min(20, found.size())), found.size(), null);
                }
                List<String> inserted = new ArrayList<>();
                for (Map<String, Object> row : data) {
                    String k = String.valueOf(row.get(KeyedSchemas.ID));
                    if (!matched.containsKey(k)) {
                        inserted.add(k);
                    }
                }
                Map<Long, Set<Integer>> touched = new HashMap<>();
                matched.values().forEach(ms -> ms.forEach(m -> touched.computeIfAbsent(m[0], x -> new TreeSet<>()).add((int) m[1])));
                boolean filtered = path == MergePath.V2_FENCED; // the path was checked against mergePath()
                KeyFilter insertedKeys = keys.keyType() == KeyFilter.KeyType.INT64
                        ? KeyFilter.ofLongs(keys.fieldIds(), inserted.stream().mapToLong(Long::parseLong).toArray())
                        : KeyFilter.ofStrings(keys.fieldIds(), inserted);
                Txn txn = new Txn(OperationKind.UPDATE, ref.version(), Map.of(), filtered ? insertedKeys : null, touched, filtered);
                TableRef r;
                try {
                    r = SimulatedTableStore.this.commit(name, ref, txn, latest -> {
                        List<Fragment> frags = new ArrayList<>();
                        for (Fragment f : latest.fragments()) {
                            Set<Integer> del = new TreeSet<>(f.deleted());
                            for (long[] m : matched.values().stream().flatMap(List::stream).toList()) {
                                if (m[0] == f.id()) {
                                    del.add((int) m[1]);
                                }
                            }
                            Fragment g = del.size() == f.deleted().size() ? f : new Fragment(f.id(), f.rows(), del, f.generation());
                            if (!g.fullyDeleted()) { // like Lance, a fragment left without live rows is removed
                                frags.add(g);
                            }
                        }
                        // a source row joins every target row of its key: a duplicated key stays duplicated
                        List<Map<String, Object>> written = new ArrayList<>();
                        for (Map<String, Object> row : data) {
                            List<long[]> ms = matched.get(String.valueOf(row.get(KeyedSchemas.ID)));
                            for (int c = 0; c < (ms == null ? 1 : ms.size()); c++) {
                                written.add(row);
                            }
                        }
                        frags.add(new Fragment(latest.nextFragmentId(), written, Set.of(), 0));
                        return latest.with(frags, latest.nextFragmentId() + 1, txn);
                    });
                } catch (WriteConflictException e) {
                    if (strict) {
                        Map<String, Long> present = SimulatedTableStore.keyCounts(state(name, head(name, ref.branch())), keys);
                        if (!present.isEmpty()) {
                            List<String> found = new ArrayList<>(present.keySet());
                            KeyConflictException k = new KeyConflictException(name,
                                    found.subList(0, Math.min(20, found.size())), found.size(), null);
                            k.initCause(e);
                            throw k;
                        }
                    }
                    throw e;
                }
                long updatedRows = matched.values().stream().mapToLong(List::size).sum();
                return new CommitResult(r, inserted.size(), updatedRows, 0, plan);
            }
        }

        @Override
        public CommitResult fold(VectorSchemaRoot upserts, KeyFilter deletes, io.palisade.substrate.FoldWatermark watermark) {
            boolean hasDeletes = deletes != null && !deletes.isEmpty();
            if (upserts.getRowCount() == 0 && !hasDeletes) {
                throw new ValidationException("a fold of table '" + name + "' needs rows to upsert or keys to delete");
            }
            KeyedSchemas.checkBatch(state.schema(), upserts);
            KeyFilter keys = upserts.getRowCount() == 0 ? null : KeyedSchemas.keysOf(upserts, idFieldId());
            List<Map<String, Object>> data = tableColumnsOnly(ArrowRows.rows(upserts));
            MergePlan foldPlan = MergeCost.plan(mergePath(), hasDeletes, upserts.getRowCount(), this::countRows);
            synchronized (SimulatedTableStore.this) {
                Map<Long, Set<Integer>> touched = new HashMap<>();
                long updated = 0, removed = 0;
                Set<String> upserted = new java.util.HashSet<>();
                for (Fragment f : state.fragments()) {
                    for (int i = 0; i < f.rows().size(); i++) {
                        Object id = f.rows().get(i).get(KeyedSchemas.ID);
                        if (f.deleted().contains(i) || id == null) {
                            continue;
                        }
                        boolean up = keys != null && contains(keys, id);
                        if (up || (hasDeletes && contains(deletes, id))) {
                            touched.computeIfAbsent(f.id(), x -> new TreeSet<>()).add(i);
                            if (up) {
                                updated++;
                                upserted.add(String.valueOf(id));
                            } else {
                                removed++;
                            }
                        }
                    }
                }
                Txn txn = new Txn(OperationKind.UPDATE, ref.version(), Map.of(), null, touched, false);
                TableRef r = SimulatedTableStore.this.commit(name, ref, txn, latest -> {
                    List<Fragment> frags = new ArrayList<>();
                    for (Fragment f : latest.fragments()) {
                        Set<Integer> del = new TreeSet<>(f.deleted());
                        del.addAll(touched.getOrDefault(f.id(), Set.of()));
                        Fragment g = del.size() == f.deleted().size() ? f : new Fragment(f.id(), f.rows(), del, f.generation());
                        if (!g.fullyDeleted()) {
                            frags.add(g);
                        }
                    }
                    if (!data.isEmpty()) {
                        frags.add(new Fragment(latest.nextFragmentId(), data, Set.of(), 0));
                    }
                    return latest.with(frags, latest.nextFragmentId() + (data.isEmpty() ? 0 : 1), txn);
                });
                return new CommitResult(r, data.size() - upserted.size(), updated, removed, foldPlan);
            }
        }

        @Override
        public CommitResult delete(KeyFilter keys) {
            if (keys.isEmpty()) {
                throw new ValidationException("no keys to delete");
            }
            if (keys.fieldIds().length != 1 || keys.fieldIds()[0] != idFieldId()) {
                throw new ValidationException("delete keys must be over the primary key field " + idFieldId());
            }
            boolean intKey = KeyedSchemas.find(state.schema(), KeyedSchemas.ID).orElseThrow().getType() instanceof ArrowType.Int;
            if (intKey != (keys.keyType() == KeyFilter.KeyType.INT64)) {
                throw new ValidationException("delete keys of type " + keys.keyType() + " do not match 'id'");
            }
            synchronized (SimulatedTableStore.this) {
                try {
                    return deleteAt(ref, state, keys);
                } catch (IncompatibleConflict e) {
                    throw e;
                } catch (WriteConflictException e) {
                    // like Lance's delete, which re-runs its predicate when it meets a conflict
                    TableRef head = head(name, ref.branch());
                    return deleteAt(head, state(name, head), keys);
                }
            }
        }

        private CommitResult deleteAt(TableRef base, State at, KeyFilter keys) {
            Map<Long, Set<Integer>> hits = new HashMap<>();
            long n = 0;
            for (Fragment f : at.fragments()) {
                for (int i = 0; i < f.rows().size(); i++) {
                    Object id = f.rows().get(i).get(KeyedSchemas.ID);
                    if (!f.deleted().contains(i) && id != null && contains(keys, id)) {
                        hits.computeIfAbsent(f.id(), x -> new TreeSet<>()).add(i);
                        n++;
                    }
                }
            }
            Txn txn = new Txn(OperationKind.DELETE, base.version(), Map.of(), null, hits, false);
            TableRef r = SimulatedTableStore.this.commit(name, base, txn, latest -> {
                List<Fragment> frags = new ArrayList<>();
                for (Fragment f : latest.fragments()) {
                    Set<Integer> add = hits.get(f.id());
                    if (add == null) {
                        frags.add(f);
                        continue;
                    }
                    Set<Integer> del = new TreeSet<>(f.deleted());
                    del.addAll(add);
                    Fragment g = new Fragment(f.id(), f.rows(), del, f.generation());
                    if (!g.fullyDeleted()) {
                        frags.add(g);
                    }
                }
                return latest.with(frags, latest.nextFragmentId(), txn);
            });
            return new CommitResult(r, 0, 0, n);
        }

        @Override
        public CommitResult overwrite(VectorSchemaRoot rows) {
            Schema target = KeyedSchemas.overwriteSchema(state.schema(), rows.getSchema());
            KeyedSchemas.keysOf(rows, idFieldId());
            return overwriteWith(target, rows);
        }

        @Override
        public CommitResult addColumns(List<Field> columns) {
            return addColumnsTo(columns);
        }

        @Override
        public CommitResult dropColumns(List<String> columns) {
            return dropColumnsFrom(columns, true);
        }

        @Override
        public CommitResult makeNullable(String column) {
            KeyedSchemas.checkMakeNullable(state.schema(), column, true);
            List<Field> fields = new ArrayList<>();
            for (Field f : state.schema().getFields()) {
                fields.add(f.getName().equals(column)
                        ? new Field(f.getName(), new FieldType(true, f.getType(), f.getDictionary(), f.getMetadata()), f.getChildren())
                        : f);
            }
            return schemaChange(OperationKind.PROJECT, new Schema(fields, state.schema().getCustomMetadata()),
                    state.fieldIds(), state.nextFieldId());
        }

        @Override
        public CommitResult createIdIndex() {
            if (state.idIndex()) {
                throw new ValidationException("table '" + name + "' already has an index on 'id'");
            }
            return indexCommit();
        }

        @Override
        public CommitResult optimizeIdIndex() {
            if (!state.idIndex()) {
                throw new ValidationException("table '" + name + "' has no index on 'id' to optimise");
            }
            return indexCommit();
        }

        @Override
        public io.palisade.substrate.MaintenancePlan planIndexOptimize() {
            Set<Long> live = new TreeSet<>(state.fragmentIds());
            Set<Integer> fields = Set.of(idFieldId());
            if (!state.idIndex()) {
                return io.palisade.substrate.MaintenancePlan.index(ref, false, ID_INDEX_NAME, live, fields);
            }
            return state.indexed().containsAll(live)
                    ? io.palisade.substrate.MaintenancePlan.indexUpToDate(ref, ID_INDEX_NAME, state.indexed(), fields)
                    : io.palisade.substrate.MaintenancePlan.index(ref, true, ID_INDEX_NAME, live, fields);
        }

        @Override
        public CommitResult commit(io.palisade.substrate.MaintenancePlan plan) {
            if (plan.isEmpty()) {
                return CommitResult.of(ref);
            }
            return switch (plan.kind()) {
                case INDEX_BUILD -> createIdIndex();
                case INDEX_REWRITE -> optimizeIdIndex();
                case COMPACTION -> throw new ValidationException("table '" + name + "': this store does not compact");
            };
        }

        private CommitResult indexCommit() {
            if (state.idIndex() && state.indexed().containsAll(state.fragmentIds())) {
                return CommitResult.of(ref); // like Lance: nothing to optimise, nothing committed
            }
            synchronized (SimulatedTableStore.this) {
                Set<Long> covered = state.fragmentIds();
                Txn txn = new Txn(OperationKind.CREATE_INDEX, ref.version(), Map.of(), null, Map.of(), false);
                return CommitResult.of(SimulatedTableStore.this.commit(name, ref, txn, latest -> {
                    Set<Long> now = new TreeSet<>(covered);
                    now.retainAll(latest.fragmentIds());
                    return new State(latest.schema(), latest.fieldIds(), latest.nextFieldId(), latest.fragments(),
                            latest.nextFragmentId(), true, txn, now);
                }));
            }
        }
    }

    private final class SimKeyless extends SimSnapshot implements KeylessTable {

        SimKeyless(String name, TableRef ref) {
            super(name, ref, TableKind.KEYLESS);
        }

        @Override
        public CommitResult append(VectorSchemaRoot rows) {
            KeyedSchemas.checkBatch(state.schema(), rows);
            if (rows.getRowCount() == 0) {
                throw new ValidationException("empty batch: nothing to write");
            }
            List<Map<String, Object>> data = tableColumnsOnly(ArrowRows.rows(rows));
            synchronized (SimulatedTableStore.this) {
                Txn txn = new Txn(OperationKind.APPEND, ref.version(), Map.of(), null, Map.of(), false);
                TableRef r = SimulatedTableStore.this.commit(name, ref, txn, latest -> {
                    List<Fragment> frags = new ArrayList<>(latest.fragments());
                    frags.add(new Fragment(latest.nextFragmentId(), data, Set.of(), 0));
                    return latest.with(frags, latest.nextFragmentId() + 1, txn);
                });
                return new CommitResult(r, data.size(), 0, 0);
            }
        }

        @Override
        public CommitResult overwrite(VectorSchemaRoot rows) {
            Schema target = KeyedSchemas.keylessSchema(rows.getSchema());
            if (rows.getRowCount() == 0) {
                throw new ValidationException("empty batch: nothing to write");
            }
            return overwriteWith(new Schema(target.getFields(), state.schema().getCustomMetadata()), rows);
        }

        @Override
        public CommitResult addColumns(List<Field> columns) {
            return addColumnsTo(columns);
        }

        @Override
        public CommitResult dropColumns(List<String> columns) {
            return dropColumnsFrom(columns, false);
        }
    }
}
