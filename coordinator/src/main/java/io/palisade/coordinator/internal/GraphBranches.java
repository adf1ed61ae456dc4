package io.palisade.coordinator.internal;

import io.palisade.fencing.ValidationException;
import io.palisade.heads.HeadsState;
import io.palisade.journal.JournalEvent.GraphBranchCreated;
import io.palisade.journal.JournalEvent.GraphBranchDeleted;

import java.util.List;

/**
 * Creating and deleting graph branches: a new branch pins its parent's table states lazily (it forks a table on its
 * first write to it, {@link TableBranches}); a deleted branch's pins are released. The journal records are applied on
 * the committer thread ({@code create}, {@code delete}); the name checks run on the caller's. The checks of a state
 * ({@link #checkCreate}, {@link #checkDelete}, {@link #checkMerge}) are public so that a tool refuses a request from a
 * read-only state before it takes the writer lease, which journals a writer session.
 */
public final class GraphBranches {
    private GraphBranches() {
    }

    public static void checkName(String name) {
        if (name == null || !name.matches("[A-Za-z0-9][A-Za-z0-9_-]{0,63}")) {
            throw new ValidationException("graph branch name '" + name + "' must match [A-Za-z0-9][A-Za-z0-9_-]*");
        }
    }

    public static void checkDeletable(String name) {
        if (HeadsState.MAIN.equals(name)) {
            throw new ValidationException("the main branch cannot be deleted");
        }
    }

    /** Journals the creation of {@code name} from {@code from} (committer thread). */
    static void create(Context ctx, String name, String from) {
        HeadsState s = ctx.view().state();
        checkCreate(s, name, from);
        // a deleted graph branch's table branches keep its history (reads of a journal point while it was live): its
        // name is not given to a new branch, whose first write would meet them
        String tableBranch = TableBranches.tableBranchFor(name);
        List<String> used = new java.util.ArrayList<>();
        for (io.palisade.coordinator.Catalog.TableDef t : ctx.view().catalog().tables()) {
            if (ctx.store().listBranches(t.name()).contains(tableBranch)) {
                used.add(t.name());
            }
        }
        if (!used.isEmpty()) {
            throw new ValidationException("graph branch name '" + name + "' was used by a deleted branch, whose table "
                    + "branches (" + tableBranch + " of " + used + ") keep its history; choose another name");
        }
        ctx.view().journal(List.of(new GraphBranchCreated(name, from, s.lastSequence())));
    }

    /** Journals the deletion of {@code name} (committer thread). */
    static void delete(Context ctx, String name) {
        checkDelete(ctx.view().state(), name);
        ctx.view().journal(List.of(new GraphBranchDeleted(name)));
    }

    /** Refuses creating {@code name} from {@code from} in state {@code s}. */
    public static void checkCreate(HeadsState s, String name, String from) {
        checkName(name);
        if (s.branchLive(name)) {
            throw new ValidationException("graph branch '" + name + "' already exists");
        }
        if (!s.branchLive(from)) {
            throw new ValidationException("unknown graph branch '" + from + "'");
        }
    }

    /** Refuses deleting {@code name} in state {@code s}. */
    public static void checkDelete(HeadsState s, String name) {
        checkDeletable(name);
        if (!s.branchLive(name)) {
            throw new ValidationException("unknown graph branch '" + name + "'");
        }
    }

    /** Refuses merging {@code source} into {@code target} in state {@code s}: unknown branches, itself, no fork point. */
    public static void checkMerge(HeadsState s, String source, String target) {
        if (!s.branchLive(source) || !s.branchLive(target)) {
            throw new ValidationException("unknown graph branch '" + (s.branchLive(source) ? target : source) + "'");
        }
        if (source.equals(target)) {
            throw new ValidationException("cannot merge branch '" + source + "' into itself");
        }
        if (s.branch(source).orElseThrow().parent() == null) {
            throw new ValidationException("branch '" + source + "' has no fork point to merge from");
        }
    }
}
