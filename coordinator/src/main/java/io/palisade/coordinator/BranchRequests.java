package io.palisade.coordinator;

import io.palisade.coordinator.internal.GraphBranches;
import io.palisade.fencing.ValidationException;
import io.palisade.heads.HeadsState;

/**
 * The checks a branch request must pass, against a heads state read from the files: a tool refuses a request with
 * them before it takes the writer lease (whose session is journaled). The writer makes the same checks against its
 * own state when it runs the request.
 */
public final class BranchRequests {
    private BranchRequests() {
    }

    /** @throws ValidationException when {@code name} cannot be created from {@code from} in {@code s} */
    public static void checkCreate(HeadsState s, String name, String from) {
        GraphBranches.checkCreate(s, name, from);
    }

    /** @throws ValidationException when {@code name} cannot be deleted in {@code s} */
    public static void checkDelete(HeadsState s, String name) {
        GraphBranches.checkDelete(s, name);
    }

    /** @throws ValidationException when {@code source} cannot be merged into {@code target} in {@code s} */
    public static void checkMerge(HeadsState s, String source, String target) {
        GraphBranches.checkMerge(s, source, target);
    }
}
