package io.palisade.fencing.conflict;

import io.palisade.fencing.KeyFilter;
import io.palisade.fencing.action.Action;
import io.palisade.fencing.action.AddFragments;
import io.palisade.fencing.action.DataFile;
import io.palisade.fencing.action.Field;
import io.palisade.fencing.action.FragmentRef;
import io.palisade.fencing.action.FragmentTemplate;
import io.palisade.fencing.action.KeyScope;
import io.palisade.fencing.action.Manifest;
import io.palisade.fencing.action.RowOffsets;
import io.palisade.fencing.action.Schema;
import io.palisade.fencing.action.UpdateDeletionVector;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/** Small builders for resolver tests: a keyed table (id PK, name, age) with three 10-row fragments. */
final class Txns {
    static final int ID = 0;
    static final int NAME = 1;
    static final int AGE = 2;

    private Txns() {
    }

    static Schema keyedSchema() {
        return new Schema(List.of(
                new Field(ID, "id", false, -1, Map.of(Field.PRIMARY_KEY_METADATA, "true")),
                Field.of(NAME, "name", true),
                Field.of(AGE, "age", true)), Map.of());
    }

    static Schema keylessSchema() {
        return new Schema(List.of(Field.of(0, "msg", true)), Map.of());
    }

    static FragmentTemplate rows(int n) {
        return new FragmentTemplate(n, List.of(new DataFile("data-" + n + ".lance", Set.of(ID, NAME, AGE))));
    }

    /** A keyed table at version 4 with fragments 0, 1, 2 of 10 rows each. */
    static Manifest keyedTable() {
        Manifest m = Manifest.empty(keyedSchema());
        for (int i = 0; i < 3; i++) {
            m = m.apply(List.of(new AddFragments(List.of(rows(10)), KeyScope.exact(keys("seed" + i)))));
        }
        return m;
    }

    static KeyFilter keys(String... keys) {
        return KeyFilter.ofStrings(ID, Arrays.asList(keys));
    }

    /** A fenced insert of {@code keys}: AddFragments carrying their exact filter. */
    static AddFragments insert(String... keys) {
        return new AddFragments(List.of(rows(keys.length)), KeyScope.exact(keys(keys)));
    }

    /** An unfiltered keyed insert (a bare Append or an unfiltered merge found on a keyed table). */
    static AddFragments unfilteredInsert(int rows) {
        return new AddFragments(List.of(rows(rows)), KeyScope.UNKNOWN);
    }

    static AddFragments keylessAppend(int rows) {
        return new AddFragments(List.of(new FragmentTemplate(rows, List.of(new DataFile("log.lance", Set.of(0))))),
                KeyScope.KEYLESS);
    }

    /** Deletes rows {@code offsets} of fragment {@code fragment} (which had no deletions). */
    static UpdateDeletionVector delete(long fragment, Optional<KeyFilter> keys, int... offsets) {
        RowOffsets rows = RowOffsets.of(offsets);
        return new UpdateDeletionVector(FragmentRef.id(fragment), rows, Optional.of(rows), keys);
    }

    /** The actions of a fenced upsert that rewrites rows of {@code fragment} and re-adds their keys. */
    static List<Action> filteredUpdate(long fragment, int offset, String key) {
        return List.of(delete(fragment, Optional.of(keys(key)), offset), insert(key));
    }

    /** The actions of an unfiltered update: the rewritten rows come back without any key filter. */
    static List<Action> unfilteredUpdate(long fragment, int offset) {
        return List.of(delete(fragment, Optional.empty(), offset), unfilteredInsert(1));
    }

    static Transaction txn(String id, long readVersion, List<Action> actions) {
        return new Transaction(id, readVersion, actions);
    }

    static Transaction txn(String id, long readVersion, Action... actions) {
        return new Transaction(id, readVersion, List.of(actions));
    }

    static CommittedTransaction won(String id, long version, List<Action> actions) {
        return new CommittedTransaction(id, version, actions);
    }

    static CommittedTransaction won(String id, long version, Action... actions) {
        return new CommittedTransaction(id, version, List.of(actions));
    }

    /** Whether {@code second} may commit after {@code first}, both having read {@code base}. */
    static boolean bothCommit(List<Action> first, List<Action> second, long base) {
        return ConflictResolver.check(txn("second", base, second), List.of(won("first", base + 1, first))).mayCommit();
    }
}
