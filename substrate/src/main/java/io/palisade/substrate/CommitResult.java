package io.palisade.substrate;

import java.util.Objects;

/**
 * The outcome of one successful substrate commit: the new table state and row counts as reported by
 * the store, and the plan a merge-insert ran with. Invariant: {@code ref.version()} is greater than the writer's
 * base version, except for an index optimisation that had nothing to do ({@link KeyedTable#optimizeIdIndex()});
 * {@code plan} is non-null ({@link MergePlan#NONE} for a commit that was no merge-insert).
 */
public record CommitResult(TableRef ref, long inserted, long updated, long deleted, MergePlan plan) {

    public CommitResult {
        Objects.requireNonNull(plan, "plan");
    }

    /** A commit that was no merge-insert, or whose plan the store does not report. */
    public CommitResult(TableRef ref, long inserted, long updated, long deleted) {
        this(ref, inserted, updated, deleted, MergePlan.NONE);
    }

    public static CommitResult of(TableRef ref) {
        return new CommitResult(ref, 0, 0, 0);
    }

    /** This result, as a merge-insert that ran with {@code p}. */
    public CommitResult withPlan(MergePlan p) {
        return new CommitResult(ref, inserted, updated, deleted, p);
    }
}
