package io.palisade.fencing.action;

import io.palisade.fencing.ValidationException;

import java.util.List;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * A5: compaction. Splices old fragments out and new ones in, asserting data equivalence (the live rows
 * of the old fragments equal the rows of the new), which is what lets index coverage be salvaged by
 * {@link RebindIndexCoverage} instead of rebuilt.
 */
public record RewriteFragments(Set<Long> oldFragmentIds, List<FragmentTemplate> newFragments, boolean preservesRowIds)
        implements Action {

    public RewriteFragments {
        oldFragmentIds = Set.copyOf(oldFragmentIds);
        newFragments = List.copyOf(newFragments);
    }

    @Override
    public ActionKind kind() {
        return ActionKind.REWRITE_FRAGMENTS;
    }

    @Override
    public ResourceMask reads() {
        return ResourceMask.builder().ids(ResourceKind.FRAGMENTS, oldFragmentIds)
                .ids(ResourceKind.DELETIONS, oldFragmentIds).build();
    }

    @Override
    public ResourceMask writes() {
        return ResourceMask.builder().ids(ResourceKind.FRAGMENTS, oldFragmentIds)
                .id(ResourceKind.FRAGMENT_LIST, "append").id(ResourceKind.COUNTERS, "fragment").build();
    }

    @Override
    public void validate(Manifest base, TxnContext ctx) {
        long live = 0;
        for (long id : oldFragmentIds) {
            live += base.fragment(id).orElseThrow(
                    () -> new ValidationException("cannot rewrite fragment " + id + ": it does not exist")).liveRows();
        }
        long rewritten = newFragments.stream().mapToLong(FragmentTemplate::physicalRows).sum();
        if (live != rewritten) {
            throw new ValidationException("rewrite is not data-equivalent: " + live + " live rows in " + oldFragmentIds
                    + " but " + rewritten + " rows in the new fragments");
        }
    }

    @Override
    public Manifest apply(Manifest base, TxnContext ctx) {
        SortedMap<Long, Fragment> frags = new TreeMap<>(base.fragments());
        long rowBase = oldFragmentIds.stream().mapToLong(id -> frags.get(id).rowIdBase()).min().orElse(base.nextRowId());
        oldFragmentIds.forEach(frags::remove);
        long nextId = base.nextFragmentId();
        long nextRow = base.nextRowId();
        for (FragmentTemplate t : newFragments) {
            long rows = preservesRowIds ? rowBase : nextRow;
            frags.put(nextId, new Fragment(nextId, t.physicalRows(), t.files(), RowOffsets.NONE, rows));
            ctx.produced(nextId);
            nextId++;
            if (preservesRowIds) {
                rowBase += t.physicalRows();
            } else {
                nextRow += t.physicalRows();
            }
        }
        return base.withFragments(frags, nextId, nextRow);
    }
}
