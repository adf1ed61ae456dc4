package io.palisade.fencing.action;

import io.palisade.fencing.ValidationException;

import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

/**
 * A10: adds an index (optionally replacing one) over {@code fieldIds}, covering the fragments of
 * {@code coverage} (the spike's criterion, §3.1; a fragment produced earlier in the same transaction
 * is named by a {@link FragmentRef.ProducedBy}). Rebasing over a winner's
 * {@link InvalidateIndexCoverage} shrinks the coverage (the invalidation is absorbed).
 */
public record AddIndex(UUID uuid, String name, Set<Integer> fieldIds, Set<FragmentRef> coverage, int indexVersion,
                       Optional<UUID> replaces) implements Action {

    public AddIndex {
        fieldIds = Set.copyOf(fieldIds);
        coverage = Set.copyOf(coverage);
    }

    @Override
    public ActionKind kind() {
        return ActionKind.ADD_INDEX;
    }

    private Set<Long> existingCoverage() {
        Set<Long> out = new HashSet<>();
        coverage.forEach(r -> r.existingId().ifPresent(out::add));
        return out;
    }

    @Override
    public ResourceMask reads() {
        ResourceMask.Builder b = ResourceMask.builder().ids(ResourceKind.FRAGMENTS, existingCoverage());
        for (int f : fieldIds) {
            b.id(ResourceKind.SCHEMA, "field:" + f);
            for (long frag : existingCoverage()) {
                b.id(ResourceKind.FRAGMENT_COLUMNS, frag + ":" + f);
                b.id(ResourceKind.INDEX_INVALIDATION, frag + ":" + f);
            }
        }
        return b.build();
    }

    @Override
    public ResourceMask writes() {
        ResourceMask.Builder b = ResourceMask.builder().id(ResourceKind.INDICES, "uuid:" + uuid)
                .id(ResourceKind.INDICES, "name:" + name);
        replaces.ifPresent(r -> b.id(ResourceKind.INDICES, "uuid:" + r));
        for (int f : fieldIds) {
            for (long frag : existingCoverage()) {
                b.id(ResourceKind.INDEX_COVERAGE, frag + ":" + f);
            }
        }
        return b.build();
    }

    @Override
    public void validate(Manifest base, TxnContext ctx) {
        for (int f : fieldIds) {
            if (base.schema().field(f).isEmpty()) {
                throw new ValidationException("index '" + name + "' is over unknown field " + f);
            }
        }
        for (FragmentRef r : coverage) {
            long id = ctx.resolve(r);
            if (base.fragment(id).isEmpty()) {
                throw new ValidationException("index '" + name + "' covers fragment " + id + ", which does not exist");
            }
        }
        if (replaces.isPresent() && !base.indices().containsKey(replaces.get())) {
            throw new ValidationException("index '" + name + "' replaces index " + replaces.get() + ", which does not exist");
        }
        for (IndexMetadata i : base.indices().values()) {
            boolean replaced = replaces.isPresent() && replaces.get().equals(i.uuid());
            if (!replaced && (i.uuid().equals(uuid) || i.name().equals(name))) {
                throw new ValidationException("index '" + name + "' (" + uuid + ") already exists");
            }
        }
    }

    /**
     * Absorbs a winner's coverage invalidation (fragments it invalidated for these fields leave the coverage)
     * or removal of fragments by id (they leave the coverage: their rows are gone).
     */
    @Override
    public Action rebase(Action winner) {
        if (winner instanceof InvalidateIndexCoverage inv && inv.fieldIds().stream().anyMatch(fieldIds::contains)) {
            Set<FragmentRef> kept = new HashSet<>();
            for (FragmentRef r : coverage) {
                if (r.existingId().isEmpty() || !inv.fragmentIds().contains(r.existingId().getAsLong())) {
                    kept.add(r);
                }
            }
            return new AddIndex(uuid, name, fieldIds, kept, indexVersion, replaces);
        }
        if (winner instanceof RemoveFragments rm && rm.selector() instanceof RemoveFragments.Selector.Ids ids) {
            Set<FragmentRef> kept = new HashSet<>();
            for (FragmentRef r : coverage) {
                if (r.existingId().isEmpty() || !ids.ids().contains(r.existingId().getAsLong())) {
                    kept.add(r);
                }
            }
            return new AddIndex(uuid, name, fieldIds, kept, indexVersion, replaces);
        }
        return this;
    }

    @Override
    public Manifest apply(Manifest base, TxnContext ctx) {
        Set<Long> bitmap = new HashSet<>();
        coverage.forEach(r -> bitmap.add(ctx.resolve(r)));
        Map<UUID, IndexMetadata> idx = new LinkedHashMap<>(base.indices());
        replaces.ifPresent(idx::remove);
        idx.put(uuid, new IndexMetadata(uuid, name, fieldIds, bitmap, indexVersion));
        return base.withIndices(idx);
    }
}
