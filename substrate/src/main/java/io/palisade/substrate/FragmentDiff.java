package io.palisade.substrate;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeSet;

/**
 * The fragment-level effect of one commit, computed identically by every store from the fragment
 * maps (id → metadata token compared with {@code equals}) before and after it.
 *
 * <p>Lance restarts fragment ids at 0 on Overwrite, so ids do not identify fragments across an
 * Overwrite: for {@link OperationKind#OVERWRITE} every fragment before is removed and every fragment
 * after is added (the two lists may share ids). For every other kind: removed = ids only before,
 * added = ids only after, updated = ids in both whose token changed; the three lists are disjoint.
 * All lists are ascending.
 */
public record FragmentDiff(List<Long> removed, List<Long> added, List<Long> updated) {

    public FragmentDiff {
        removed = List.copyOf(removed);
        added = List.copyOf(added);
        updated = List.copyOf(updated);
    }

    public static FragmentDiff of(OperationKind kind, Map<Long, ?> before, Map<Long, ?> after) {
        if (kind == OperationKind.OVERWRITE) {
            return new FragmentDiff(List.copyOf(new TreeSet<>(before.keySet())), List.copyOf(new TreeSet<>(after.keySet())), List.of());
        }
        List<Long> removed = new ArrayList<>();
        List<Long> added = new ArrayList<>();
        List<Long> updated = new ArrayList<>();
        for (Long id : new TreeSet<>(before.keySet())) {
            if (!after.containsKey(id)) {
                removed.add(id);
            } else if (!Objects.equals(after.get(id), before.get(id))) {
                updated.add(id);
            }
        }
        for (Long id : new TreeSet<>(after.keySet())) {
            if (!before.containsKey(id)) {
                added.add(id);
            }
        }
        return new FragmentDiff(removed, added, updated);
    }
}
