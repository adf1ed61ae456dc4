package io.palisade.coordinator.internal;

import io.palisade.fencing.ValidationException;
import io.palisade.heads.HeadsState;
import io.palisade.journal.JournalEvent.GraphBranchCreated;
import io.palisade.journal.JournalEvent.GraphBranchDeleted;

import java.util.List;

/**
 * Creating and deleting graph branches: a new branch pins its parent's table states lazily (it forks a table on its
 * first write to it, {@link TableBranches}); a deleted branch's pins are released. The journal records are applied on
 * the committer thread ({@code create}, {@code delete}); the name checks run on the caller's.
 */
final class GraphBranches {
    private GraphBranches() {
    }

    static void checkName(String name) {
        if (name == null || !name.matches("[A-Za-z0-9][A-Za-z0-9_-]{0,63}")) {
            throw new ValidationException("graph branch name '" + name + "' must match [A-Za-z0-9][A-Za-z0-9_-]*");
        }
    }

    static void checkDeletable(String name) {
        if (HeadsState.MAIN.equals(name)) {
            throw new ValidationException("the main branch cannot be deleted");
        }
    }

    /** Journals the creation of {@code name} from {@code from} (committer thread). */
    static void create(Context ctx, String name, String from) {
        HeadsState s = ctx.view().state();
        if (s.branchLive(name)) {
            throw new ValidationException("graph branch '" + name + "' already exists");
        }
        if (!s.branchLive(from)) {
            throw new ValidationException("unknown graph branch '" + from + "'");
        }
        ctx.view().journal(List.of(new GraphBranchCreated(name, from, s.lastSequence())));
    }

    /** Journals the deletion of {@code name} (committer thread). */
    static void delete(Context ctx, String name) {
        if (!ctx.view().state().branchLive(name)) {
            throw new ValidationException("unknown graph branch '" + name + "'");
        }
        ctx.view().journal(List.of(new GraphBranchDeleted(name)));
    }
}
