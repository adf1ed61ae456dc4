package io.palisade.fencing.action;

import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * A13: a pure criterion (spike §3.1): every index over any of {@code fieldIds} stops covering
 * {@code fragmentIds}. Applies to whatever indices exist at apply time, including ones added
 * concurrently, so it commutes with itself.
 */
public record InvalidateIndexCoverage(Set<Long> fragmentIds, Set<Integer> fieldIds) implements Action {

    public InvalidateIndexCoverage {
        fragmentIds = Set.copyOf(fragmentIds);
        fieldIds = Set.copyOf(fieldIds);
    }

    @Override
    public ActionKind kind() {
        return ActionKind.INVALIDATE_INDEX_COVERAGE;
    }

    @Override
    public ResourceMask reads() {
        return ResourceMask.NONE;
    }

    @Override
    public ResourceMask writes() {
        ResourceMask.Builder b = ResourceMask.builder();
        for (long frag : fragmentIds) {
            for (int f : fieldIds) {
                b.id(ResourceKind.INDEX_INVALIDATION, frag + ":" + f);
            }
        }
        return b.build();
    }

    @Override
    public void validate(Manifest base, TxnContext ctx) {
        // a criterion: matching nothing is valid
    }

    @Override
    public Manifest apply(Manifest base, TxnContext ctx) {
        Map<UUID, IndexMetadata> idx = new LinkedHashMap<>();
        for (IndexMetadata i : base.indices().values()) {
            if (i.fieldIds().stream().anyMatch(fieldIds::contains)) {
                Set<Long> bitmap = new HashSet<>(i.fragmentBitmap());
                bitmap.removeAll(fragmentIds);
                idx.put(i.uuid(), i.withBitmap(bitmap));
            } else {
                idx.put(i.uuid(), i);
            }
        }
        return base.withIndices(idx);
    }
}
