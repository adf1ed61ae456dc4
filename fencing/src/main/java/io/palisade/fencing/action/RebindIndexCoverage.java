package io.palisade.fencing.action;

import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * A14: after a data-equivalent rewrite, indices over {@code preservedFields} only swap old fragment
 * ids for the new ones in their coverage (index salvage). An index whose coverage holds only part of a
 * remap group cannot be rebound and loses the group.
 */
public record RebindIndexCoverage(List<Remap> remap, Set<Integer> preservedFields) implements Action {

    public RebindIndexCoverage {
        remap = List.copyOf(remap);
        preservedFields = Set.copyOf(preservedFields);
    }

    @Override
    public ActionKind kind() {
        return ActionKind.REBIND_INDEX_COVERAGE;
    }

    @Override
    public ResourceMask reads() {
        ResourceMask.Builder b = ResourceMask.builder();
        for (Remap r : remap) {
            for (int f : preservedFields) {
                b.id(ResourceKind.INDEX_INVALIDATION, r.oldFragment() + ":" + f);
            }
        }
        return b.build();
    }

    @Override
    public ResourceMask writes() {
        ResourceMask.Builder b = ResourceMask.builder();
        for (Remap r : remap) {
            for (int f : preservedFields) {
                b.id(ResourceKind.INDEX_COVERAGE, r.oldFragment() + ":" + f);
                r.newFragment().existingId().ifPresent(n -> b.id(ResourceKind.INDEX_COVERAGE, n + ":" + f));
            }
        }
        return b.build();
    }

    @Override
    public void validate(Manifest base, TxnContext ctx) {
        for (Remap r : remap) {
            ctx.resolve(r.newFragment());
        }
    }

    @Override
    public Manifest apply(Manifest base, TxnContext ctx) {
        List<Group> groups = groups(ctx);
        Map<UUID, IndexMetadata> idx = new LinkedHashMap<>();
        for (IndexMetadata i : base.indices().values()) {
            if (!i.fieldIds().isEmpty() && preservedFields.containsAll(i.fieldIds())) {
                Set<Long> bitmap = new HashSet<>(i.fragmentBitmap());
                for (Group g : groups) {
                    boolean whole = bitmap.containsAll(g.oldIds());
                    if (bitmap.removeAll(g.oldIds()) && whole) {
                        bitmap.addAll(g.newIds());
                    }
                }
                idx.put(i.uuid(), i.withBitmap(bitmap));
            } else {
                idx.put(i.uuid(), i);
            }
        }
        return base.withIndices(idx);
    }

    /** A remap group: old fragments rewritten together into new ones (connected by remap pairs). */
    private record Group(Set<Long> oldIds, Set<Long> newIds) {
    }

    /** The remap pairs joined into groups: pairs sharing an old or a new fragment belong to one group. */
    private List<Group> groups(TxnContext ctx) {
        List<Group> out = new java.util.ArrayList<>();
        for (Remap r : remap) {
            Set<Long> olds = new HashSet<>(Set.of(r.oldFragment()));
            Set<Long> news = new HashSet<>(Set.of(ctx.resolve(r.newFragment())));
            for (java.util.Iterator<Group> it = out.iterator(); it.hasNext(); ) {
                Group g = it.next();
                if (!java.util.Collections.disjoint(g.oldIds(), olds) || !java.util.Collections.disjoint(g.newIds(), news)) {
                    olds.addAll(g.oldIds());
                    news.addAll(g.newIds());
                    it.remove();
                }
            }
            out.add(new Group(olds, news));
        }
        return out;
    }
}
