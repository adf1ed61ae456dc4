package io.palisade.fencing.conflict;

import java.util.List;

/**
 * The resolver's answer for a transaction against the commits that won since its read version.
 *
 * @param outcome      compatible, rebased, retryable conflict or incompatible
 * @param transaction  the transaction to commit: unchanged, or rebased over the winners
 * @param conflicts    every conflict found (empty unless the outcome is a conflict)
 * @param rebases      what each rebase absorbed (for the journal and explain)
 */
public record Verdict(Outcome outcome, Transaction transaction, List<Conflict> conflicts, List<String> rebases) {

    public enum Outcome {
        /** No winner touches anything the transaction depends on. */
        COMPATIBLE,
        /** Some actions were rewritten to follow the winners; commit the rebased transaction. */
        REBASED,
        /** Restart the logical operation from the new base (re-validate, restage). */
        RETRYABLE_CONFLICT,
        /** The operation cannot succeed as requested. */
        INCOMPATIBLE
    }

    public Verdict {
        conflicts = List.copyOf(conflicts);
        rebases = List.copyOf(rebases);
    }

    /** Whether the transaction may commit (as returned in {@link #transaction()}). */
    public boolean mayCommit() {
        return outcome == Outcome.COMPATIBLE || outcome == Outcome.REBASED;
    }

    /** Whether any conflict is a collision of keys (a strict insert turns this into a KeyConflict). */
    public boolean keyCollision() {
        return conflicts.stream().anyMatch(Conflict::keyCollision);
    }

    /** One line naming every conflict, for errors and the journal. */
    public String reason() {
        if (conflicts.isEmpty()) {
            return outcome == Outcome.REBASED ? "rebased: " + String.join("; ", rebases) : "compatible";
        }
        return conflicts.stream().map(Conflict::toString).reduce((x, y) -> x + "; " + y).orElseThrow();
    }
}
