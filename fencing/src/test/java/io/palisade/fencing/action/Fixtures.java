package io.palisade.fencing.action;

import io.palisade.fencing.KeyFilter;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

/** Shared schemas, templates and small manifests for the action-catalog tests. */
final class Fixtures {

    static final int ID = 0;
    static final int NAME = 1;
    static final int AGE = 2;

    /** A keyed table: field 0 {@code id} is the non-null unenforced primary key. */
    static final Schema KEYED = new Schema(List.of(
            new Field(ID, "id", false, -1, Map.of(Field.PRIMARY_KEY_METADATA, "true")),
            Field.of(NAME, "name", true),
            Field.of(AGE, "age", true)), Map.of());

    /** A keyless (append-only) table with the same fields; {@code id} is non-null but not a key. */
    static final Schema KEYLESS = new Schema(List.of(
            Field.of(ID, "id", false),
            Field.of(NAME, "name", true),
            Field.of(AGE, "age", true)), Map.of());

    private static final AtomicInteger FILES = new AtomicInteger();

    private Fixtures() {
    }

    static KeyFilter keys(long... keys) {
        return KeyFilter.ofLongs(ID, keys);
    }

    static DataFile file(int... fields) {
        Set<Integer> ids = new java.util.HashSet<>();
        for (int f : fields) {
            ids.add(f);
        }
        return new DataFile("data/" + FILES.incrementAndGet() + ".lance", ids);
    }

    /** A fragment template of {@code rows} rows with one data file holding every field. */
    static FragmentTemplate template(long rows) {
        return new FragmentTemplate(rows, List.of(file(ID, NAME, AGE)));
    }

    /** A fenced insert of one fragment holding {@code keys}. */
    static AddFragments insert(long... keys) {
        return new AddFragments(List.of(template(keys.length)), KeyScope.exact(keys(keys)));
    }

    /** A keyless append of one fragment of {@code rows} rows. */
    static AddFragments append(long rows) {
        return new AddFragments(List.of(template(rows)), KeyScope.KEYLESS);
    }

    /** A keyed table with one fragment per entry of {@code rowsPerFragment} (ids 0, 1, ...; keys distinct). */
    static Manifest keyedWith(long... rowsPerFragment) {
        List<Action> actions = new ArrayList<>();
        long key = 0;
        for (long rows : rowsPerFragment) {
            long[] k = new long[(int) rows];
            for (int i = 0; i < rows; i++) {
                k[i] = key++;
            }
            actions.add(insert(k));
        }
        return Manifest.empty(KEYED).apply(actions);
    }

    static Manifest keylessWith(long... rowsPerFragment) {
        List<Action> actions = new ArrayList<>();
        for (long rows : rowsPerFragment) {
            actions.add(append(rows));
        }
        return Manifest.empty(KEYLESS).apply(actions);
    }

    static UpdateDeletionVector delete(long fragment, RowOffsets deleted) {
        return new UpdateDeletionVector(new FragmentRef.Id(fragment), deleted, Optional.of(deleted), Optional.empty());
    }

    static AddIndex index(UUID uuid, String name, Set<Integer> fields, Set<FragmentRef> coverage) {
        return new AddIndex(uuid, name, fields, coverage, 1, Optional.empty());
    }

    static Set<FragmentRef> ids(long... ids) {
        Set<FragmentRef> out = new java.util.HashSet<>();
        for (long id : ids) {
            out.add(new FragmentRef.Id(id));
        }
        return out;
    }

    static UUID uuid(int n) {
        return new UUID(0, n);
    }

    static Manifest apply(Manifest m, Action... actions) {
        return m.apply(List.of(actions));
    }
}
