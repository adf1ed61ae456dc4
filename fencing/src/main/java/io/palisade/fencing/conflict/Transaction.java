package io.palisade.fencing.conflict;

import io.palisade.fencing.action.Action;

import java.util.List;

/**
 * A transaction as the resolver sees it: an id (the intent id, or a foreign commit's description),
 * the table version it read, and its ordered action list.
 */
public record Transaction(String id, long readVersion, List<Action> actions) {
    public Transaction {
        actions = List.copyOf(actions);
        if (readVersion < 0) {
            throw new IllegalArgumentException("read version must be non-negative: " + readVersion);
        }
    }
}
