package io.palisade.fencing.conflict;

import io.palisade.fencing.action.Action;

import java.util.List;

/** A winning transaction: the table version its commit produced and its action list. */
public record CommittedTransaction(String id, long version, List<Action> actions) {
    public CommittedTransaction {
        actions = List.copyOf(actions);
    }
}
