package io.palisade.fencing.action;

import io.palisade.fencing.ValidationException;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * A12: replaces an index entry by a rewritten one (compaction without stable row ids). Carries the
 * coverage the rewritten index claims, so that conflicts with remaps and invalidations are decidable
 * from the payload alone.
 */
public record RewriteIndex(UUID oldId, UUID newId, int newVersion, Set<Long> coverage, Set<Integer> fieldIds)
        implements Action {

    public RewriteIndex {
        coverage = Set.copyOf(coverage);
        fieldIds = Set.copyOf(fieldIds);
    }

    @Override
    public ActionKind kind() {
        return ActionKind.REWRITE_INDEX;
    }

    @Override
    public ResourceMask reads() {
        ResourceMask.Builder b = ResourceMask.builder().id(ResourceKind.INDICES, "uuid:" + oldId)
                .ids(ResourceKind.FRAGMENTS, coverage);
        for (long frag : coverage) {
            for (int f : fieldIds) {
                b.id(ResourceKind.INDEX_INVALIDATION, frag + ":" + f);
            }
        }
        return b.build();
    }

    @Override
    public ResourceMask writes() {
        ResourceMask.Builder b = ResourceMask.builder().id(ResourceKind.INDICES, "uuid:" + oldId)
                .id(ResourceKind.INDICES, "uuid:" + newId);
        for (long frag : coverage) {
            for (int f : fieldIds) {
                b.id(ResourceKind.INDEX_COVERAGE, frag + ":" + f);
            }
        }
        return b.build();
    }

    @Override
    public void validate(Manifest base, TxnContext ctx) {
        IndexMetadata old = base.indices().get(oldId);
        if (old == null) {
            throw new ValidationException("cannot rewrite index " + oldId + ": it does not exist");
        }
        if (!old.fieldIds().equals(fieldIds)) {
            throw new ValidationException("rewritten index " + newId + " is over fields " + fieldIds
                    + " but index " + oldId + " is over " + old.fieldIds());
        }
        for (long f : coverage) {
            if (base.fragment(f).isEmpty()) {
                throw new ValidationException("rewritten index covers fragment " + f + ", which does not exist");
            }
        }
        if (!newId.equals(oldId) && base.indices().containsKey(newId)) {
            throw new ValidationException("rewritten index id " + newId + " already exists");
        }
    }

    /** Absorbs a winner's coverage invalidation over this index's fields, or its removal of fragments by id. */
    @Override
    public Action rebase(Action winner) {
        if (winner instanceof InvalidateIndexCoverage inv && inv.fieldIds().stream().anyMatch(fieldIds::contains)) {
            Set<Long> kept = new java.util.HashSet<>(coverage);
            kept.removeAll(inv.fragmentIds());
            return new RewriteIndex(oldId, newId, newVersion, kept, fieldIds);
        }
        if (winner instanceof RemoveFragments rm && rm.selector() instanceof RemoveFragments.Selector.Ids ids) {
            Set<Long> kept = new java.util.HashSet<>(coverage);
            kept.removeAll(ids.ids());
            return new RewriteIndex(oldId, newId, newVersion, kept, fieldIds);
        }
        return this;
    }

    @Override
    public Manifest apply(Manifest base, TxnContext ctx) {
        IndexMetadata old = base.indices().get(oldId);
        Map<UUID, IndexMetadata> idx = new LinkedHashMap<>(base.indices());
        idx.remove(oldId);
        idx.put(newId, new IndexMetadata(newId, old.name(), fieldIds, coverage, newVersion));
        return base.withIndices(idx);
    }
}
