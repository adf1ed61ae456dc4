package io.palisade.fencing.action;

import io.palisade.fencing.KeyFilter;
import io.palisade.fencing.ValidationException;

import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * A3: sets a fragment's deletion vector. Deletion vectors only grow: {@code deleted} must contain
 * every row already deleted at apply time, so a stale vector is rejected unless it was rebased.
 * {@code affectedRows} names the rows this action newly deletes (enables same-fragment merges) and
 * {@code affectedKeys} the primary keys of those rows (the delete's key filter; spike open question 9).
 */
public record UpdateDeletionVector(FragmentRef fragment, RowOffsets deleted, Optional<RowOffsets> affectedRows,
                                   Optional<KeyFilter> affectedKeys) implements Action {

    @Override
    public ActionKind kind() {
        return ActionKind.UPDATE_DELETION_VECTOR;
    }

    @Override
    public ResourceMask reads() {
        ResourceMask.Builder b = ResourceMask.builder();
        fragment.existingId().ifPresent(id -> b.id(ResourceKind.FRAGMENTS, id).id(ResourceKind.DELETIONS, id));
        return b.build();
    }

    @Override
    public ResourceMask writes() {
        ResourceMask.Builder b = ResourceMask.builder();
        fragment.existingId().ifPresent(id -> b.id(ResourceKind.DELETIONS, id));
        affectedKeys.ifPresent(b::keys);
        return b.build();
    }

    @Override
    public void validate(Manifest base, TxnContext ctx) {
        long id = ctx.resolve(fragment);
        Fragment f = base.fragment(id).orElseThrow(
                () -> new ValidationException("deletion vector for fragment " + id + ", which does not exist"));
        if (deleted.bound() > f.physicalRows()) {
            throw new ValidationException("deletion vector of fragment " + id + " names row " + (deleted.bound() - 1)
                    + " but the fragment has " + f.physicalRows() + " rows");
        }
        if (!deleted.union(f.deleted()).equals(deleted)) {
            throw new ValidationException("deletion vector of fragment " + id + " would resurrect deleted rows");
        }
    }

    /** Absorbs a winner's deletions on the same fragment (union of both vectors). */
    @Override
    public Action rebase(Action winner) {
        if (winner instanceof UpdateDeletionVector w && w.fragment.equals(fragment)) {
            return new UpdateDeletionVector(fragment, deleted.union(w.deleted), affectedRows, affectedKeys);
        }
        return this;
    }

    @Override
    public Manifest apply(Manifest base, TxnContext ctx) {
        long id = ctx.resolve(fragment);
        SortedMap<Long, Fragment> frags = new TreeMap<>(base.fragments());
        frags.put(id, frags.get(id).withDeleted(deleted));
        return base.withFragments(frags, base.nextFragmentId(), base.nextRowId());
    }
}
