package io.palisade.substrate;

/**
 * The outcome of one successful substrate commit: the new table state and row counts as reported by
 * the store. Invariant: {@code ref.version()} is greater than the writer's base version, except for
 * an index optimisation that had nothing to do ({@link KeyedTable#optimizeIdIndex()}).
 */
public record CommitResult(TableRef ref, long inserted, long updated, long deleted) {

    public static CommitResult of(TableRef ref) {
        return new CommitResult(ref, 0, 0, 0);
    }
}
