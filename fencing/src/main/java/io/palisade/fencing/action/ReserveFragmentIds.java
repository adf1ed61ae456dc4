package io.palisade.fencing.action;

import io.palisade.fencing.ValidationException;

/** A17: advances the fragment-id counter (ids for data written outside a transaction). */
public record ReserveFragmentIds(int count) implements Action {

    @Override
    public ActionKind kind() {
        return ActionKind.RESERVE_FRAGMENT_IDS;
    }

    @Override
    public ResourceMask reads() {
        return ResourceMask.NONE;
    }

    @Override
    public ResourceMask writes() {
        return ResourceMask.builder().id(ResourceKind.COUNTERS, "fragment").build();
    }

    @Override
    public void validate(Manifest base, TxnContext ctx) {
        if (count <= 0) {
            throw new ValidationException("must reserve at least one fragment id, not " + count);
        }
    }

    @Override
    public Manifest apply(Manifest base, TxnContext ctx) {
        return base.withFragments(base.fragments(), base.nextFragmentId() + count, base.nextRowId());
    }
}
