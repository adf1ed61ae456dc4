package io.palisade.fencing.action;

import io.palisade.fencing.ValidationException;

import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * A1: adds new fragments; ids and row ids are bound at apply time from the counters (late binding).
 * Carries the transaction's key filter ({@link KeyScope}) and, for rows moved by an update, the
 * source fragments whose row ids it preserves.
 */
public record AddFragments(List<FragmentTemplate> fragments, KeyScope keys, Set<Long> preservedRowSources)
        implements Action {

    public AddFragments {
        fragments = List.copyOf(fragments);
        preservedRowSources = Set.copyOf(preservedRowSources);
    }

    public AddFragments(List<FragmentTemplate> fragments, KeyScope keys) {
        this(fragments, keys, Set.of());
    }

    @Override
    public ActionKind kind() {
        return ActionKind.ADD_FRAGMENTS;
    }

    @Override
    public ResourceMask reads() {
        ResourceMask.Builder b = ResourceMask.builder().ids(ResourceKind.FRAGMENTS, preservedRowSources);
        for (FragmentTemplate t : fragments) {
            for (int f : t.fieldIds()) {
                b.id(ResourceKind.SCHEMA, "field:" + f);
            }
        }
        // every producer depends on the key contract: a PK installed concurrently changes its routing
        return b.id(ResourceKind.PRIMARY_KEY, "pk").build();
    }

    @Override
    public ResourceMask writes() {
        ResourceMask.Builder b = ResourceMask.builder().id(ResourceKind.FRAGMENT_LIST, "append")
                .id(ResourceKind.COUNTERS, "fragment").id(ResourceKind.COUNTERS, "row");
        switch (keys) {
            case KeyScope.Keyless k -> { }
            case KeyScope.Exact e -> b.keys(e.filter());
            case KeyScope.Unknown u -> b.all(ResourceKind.KEYS);
        }
        return b.build();
    }

    @Override
    public void validate(Manifest base, TxnContext ctx) {
        int[] pk = base.schema().primaryKeyFieldIds();
        switch (keys) {
            case KeyScope.Keyless k -> {
                if (pk.length > 0) {
                    throw new ValidationException("AddFragments without keys on a keyed table: a keyed Append cannot be expressed");
                }
            }
            case KeyScope.Exact e -> {
                if (!Arrays.equals(pk, e.filter().fieldIds())) {
                    throw new ValidationException("key filter is over fields " + Arrays.toString(e.filter().fieldIds())
                            + " but the table's primary key is " + Arrays.toString(pk));
                }
            }
            case KeyScope.Unknown u -> {
                if (pk.length == 0) {
                    throw new ValidationException("unknown keys on a keyless table");
                }
            }
        }
        for (FragmentTemplate t : fragments) {
            for (int f : t.fieldIds()) {
                if (base.schema().field(f).isEmpty()) {
                    throw new ValidationException("fragment template writes unknown field " + f);
                }
            }
        }
        for (long src : preservedRowSources) {
            if (base.fragment(src).isEmpty()) {
                throw new ValidationException("preserved-row source fragment " + src + " does not exist");
            }
        }
    }

    @Override
    public Manifest apply(Manifest base, TxnContext ctx) {
        SortedMap<Long, Fragment> frags = new TreeMap<>(base.fragments());
        long nextId = base.nextFragmentId();
        long nextRow = base.nextRowId();
        for (FragmentTemplate t : fragments) {
            frags.put(nextId, new Fragment(nextId, t.physicalRows(), t.files(), RowOffsets.NONE, nextRow));
            ctx.produced(nextId);
            nextId++;
            nextRow += t.physicalRows();
        }
        return base.withFragments(frags, nextId, nextRow);
    }
}
