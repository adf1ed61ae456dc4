package io.palisade.fencing.conflict;

import io.palisade.fencing.action.ActionKind;

import java.util.List;

/**
 * One reason a transaction cannot commit as staged: its action {@code actionIndex} (of kind
 * {@code action}) against the winner {@code winnerId}'s action of kind {@code winnerAction}, the
 * matrix cell that decided ({@code C}, {@code X} or {@code R(n)}), the resolution, a reason that names
 * the fragments, fields or keys involved, and, for key collisions, the first few keys.
 */
public record Conflict(int actionIndex, ActionKind action, String winnerId, long winnerVersion, ActionKind winnerAction,
                       String cell, Resolution resolution, String reason, List<String> keys, boolean keyCollision) {
    public Conflict {
        keys = List.copyOf(keys);
    }

    @Override
    public String toString() {
        return action.code() + " " + action.label() + " (action " + actionIndex + ") vs " + winnerAction.code() + " "
                + winnerAction.label() + " of " + winnerId + "@v" + winnerVersion + " [" + cell + " → " + resolution + "]: "
                + reason;
    }
}
