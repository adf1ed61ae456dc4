package io.palisade.fencing.conflict;

/**
 * One cell of the conflict matrix: C (always compatible), X (always conflicting, with a resolution)
 * or R(n) (rule n decides from the payloads).
 */
public sealed interface Cell {

    /** C: the two actions touch disjoint kinds of state and always commute. */
    record Compatible(String why) implements Cell {
    }

    /** X: the two actions can never both commit; the later one is resolved by {@code resolution}. */
    record Conflicting(Resolution resolution, String why) implements Cell {
    }

    /** R(n): {@code rule} decides from the payloads. */
    record Ruled(Rule rule) implements Cell {
    }

    /** The symbol used in the matrix: C, X or R(n). */
    default String symbol() {
        return switch (this) {
            case Compatible c -> "C";
            case Conflicting x -> "X";
            case Ruled r -> "R" + r.rule().number();
        };
    }
}
