package io.palisade.coordinator.internal;

import io.palisade.fencing.ForeignCommitException;
import io.palisade.fencing.GraphRefusedException;
import io.palisade.fencing.PalisadeException;

import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The tables of one open graph that refuse writes for the rest of the session: a table <em>poisoned</em> after a
 * commit of unknown outcome (recovery decides at the next open), and a table <em>refused</em> after a write or a bulk
 * load raced a foreign commit. Both last until the graph is reopened; neither is ever lifted in a session.
 *
 * <p>Thread-safe: the committer writes and reads it, and a fold's commit on the fold thread may poison a table.
 */
public final class TableRefusals {
    private final Set<String> poisoned = ConcurrentHashMap.newKeySet();
    private final Map<String, ForeignCommitException> refused = new ConcurrentHashMap<>();

    /** Refuses further writes to a graph branch's table until reopen (a commit of unknown outcome). */
    public void poison(String branch, String table) {
        poison(WriteOp.where(branch, table));
    }

    void poison(String where) {
        poisoned.add(where);
    }

    public boolean poisoned(String branch, String table) {
        return poisoned.contains(WriteOp.where(branch, table));
    }

    /** Nullable: why the table is refused after a write raced a foreign commit this session. */
    public ForeignCommitException foreignRefusal(String branch, String table) {
        return refused.get(WriteOp.where(branch, table));
    }

    /** Refuses the table for the rest of the session after a write or a bulk load raced a foreign commit. */
    public void refuse(String branch, String table, ForeignCommitException refusal) {
        refuse(WriteOp.where(branch, table), refusal);
    }

    void refuse(String where, ForeignCommitException refusal) {
        refused.put(where, refusal);
    }

    /** Why writes to the table are refused this session (a foreign race first, then an unknown outcome), if they are. */
    public Optional<PalisadeException> refusal(String branch, String table) {
        String where = WriteOp.where(branch, table);
        ForeignCommitException foreign = refused.get(where);
        if (foreign != null) {
            return Optional.of(foreign);
        }
        if (poisoned.contains(where)) {
            return Optional.of(new GraphRefusedException("table '" + table + "' on branch '" + branch
                    + "' had a commit of unknown outcome; reopen the graph to recover it"));
        }
        return Optional.empty();
    }
}
