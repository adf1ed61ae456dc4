package io.palisade.heads;

import io.palisade.fencing.JournalCorruptedException;

/**
 * A journal record that cannot follow the state folded so far: a head transition whose {@code from}
 * is not the current head, a version going backwards, an event for an unknown intent, branch or
 * migration unit, a sequence gap. Either the journal is corrupt or a coordinator bug journaled it;
 * never a state to continue from silently.
 */
public final class IllegalTransitionException extends JournalCorruptedException {
    private static final long serialVersionUID = 1L;

    private final String graphBranch;
    private final String table;

    IllegalTransitionException(long sequence, String graphBranch, String table, String message) {
        super(sequence, message + where(graphBranch, table));
        this.graphBranch = graphBranch;
        this.table = table;
    }

    private static String where(String branch, String table) {
        if (branch == null && table == null) {
            return "";
        }
        return " (branch '" + branch + "', table '" + table + "')";
    }

    /** Nullable: the graph branch concerned. */
    public String graphBranch() {
        return graphBranch;
    }

    /** Nullable: the table concerned. */
    public String table() {
        return table;
    }
}
