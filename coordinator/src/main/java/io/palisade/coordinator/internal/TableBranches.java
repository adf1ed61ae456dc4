package io.palisade.coordinator.internal;

import io.palisade.fencing.GraphRefusedException;
import io.palisade.heads.HeadsState;
import io.palisade.substrate.TableRef;
import io.palisade.substrate.TableStore;

/**
 * Which Lance table branch a graph branch writes, and the fork that gives a lazily inherited table its own branch on
 * the branch's first write (DESIGN §1 "lazy-inherited"). A graph branch {@code b} other than main writes the table
 * branch {@code g-b}; main writes Lance's main.
 */
public final class TableBranches {
    private final TableStore store;

    TableBranches(TableStore store) {
        this.store = store;
    }

    /** The Lance table branch a graph branch writes to once it owns a table. */
    public static String tableBranchFor(String graphBranch) {
        return HeadsState.MAIN.equals(graphBranch) ? TableRef.MAIN : "g-" + graphBranch;
    }

    /** Forks {@code tableBranch} from {@code from}, or reuses it if an interrupted earlier attempt left it there. */
    TableRef forkForBranch(String table, TableRef from, String tableBranch) {
        if (store.listBranches(table).contains(tableBranch)) {
            TableRef existing = store.latest(table, tableBranch);
            // the fork of an earlier write that then failed: at the pin, or one CreateIndex version above it when the
            // fork went through a branch (TableStore.forkWriteBase)
            if (existing.version() != store.forkWriteBase(table, tableBranch, from.version())) {
                throw new GraphRefusedException("table '" + table + "' already has a branch " + tableBranch + " at version "
                        + existing.version() + ", not at the pinned version " + from.version());
            }
            return existing;
        }
        return store.forkBranch(table, from, tableBranch);
    }
}
