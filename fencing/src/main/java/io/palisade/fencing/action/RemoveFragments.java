package io.palisade.fencing.action;

import io.palisade.fencing.ValidationException;

import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * A2: removes fragments, named by id or by the criterion "all current" (an overwrite; the spike's open
 * question 3).
 */
public record RemoveFragments(Selector selector) implements Action {

    /** Which fragments to remove. */
    public sealed interface Selector {
        record Ids(Set<Long> ids) implements Selector {
            public Ids {
                ids = Set.copyOf(ids);
            }
        }

        /** Every fragment present when the action applies; reads the whole fragment list. */
        record AllCurrent() implements Selector {
        }
    }

    public static RemoveFragments ids(Long... ids) {
        return new RemoveFragments(new Selector.Ids(Set.of(ids)));
    }

    public static RemoveFragments allCurrent() {
        return new RemoveFragments(new Selector.AllCurrent());
    }

    @Override
    public ActionKind kind() {
        return ActionKind.REMOVE_FRAGMENTS;
    }

    @Override
    public ResourceMask reads() {
        return switch (selector) {
            case Selector.Ids ids -> ResourceMask.builder().ids(ResourceKind.FRAGMENTS, ids.ids()).build();
            // the whole list: meets every producer's FRAGMENT_LIST "append" write
            case Selector.AllCurrent a -> ResourceMask.builder().all(ResourceKind.FRAGMENT_LIST)
                    .all(ResourceKind.FRAGMENTS).build();
        };
    }

    @Override
    public ResourceMask writes() {
        return switch (selector) {
            case Selector.Ids ids -> ResourceMask.builder().ids(ResourceKind.FRAGMENTS, ids.ids()).build();
            case Selector.AllCurrent a -> ResourceMask.builder().all(ResourceKind.FRAGMENTS).build();
        };
    }

    @Override
    public void validate(Manifest base, TxnContext ctx) {
        if (selector instanceof Selector.Ids ids) {
            for (long id : ids.ids()) {
                if (base.fragment(id).isEmpty()) {
                    throw new ValidationException("cannot remove fragment " + id + ": it does not exist");
                }
            }
        }
    }

    @Override
    public Manifest apply(Manifest base, TxnContext ctx) {
        SortedMap<Long, Fragment> frags = new TreeMap<>(base.fragments());
        Set<Long> removed = new java.util.HashSet<>(switch (selector) {
            case Selector.Ids ids -> ids.ids();
            case Selector.AllCurrent a -> frags.keySet();
        });
        removed.forEach(frags::remove);
        // an index keeps no coverage of a fragment that is gone (its rows are gone, like deleted rows)
        java.util.Map<java.util.UUID, IndexMetadata> idx = new java.util.LinkedHashMap<>();
        base.indices().forEach((id, i) -> {
            Set<Long> bitmap = new java.util.HashSet<>(i.fragmentBitmap());
            bitmap.removeAll(removed);
            idx.put(id, i.withBitmap(bitmap));
        });
        return base.withFragments(frags, base.nextFragmentId(), base.nextRowId()).withIndices(idx);
    }
}
