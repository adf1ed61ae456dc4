package io.palisade.fencing.conflict;

import java.util.List;

/** A rule's answer for one (current action, winning action) pair. */
public sealed interface Judgement {

    /** The pair commutes. */
    record Compatible() implements Judgement {
    }

    /** The current action is rebased over the winner ({@link io.palisade.fencing.action.Action#rebase}). */
    record Rebase(String reason) implements Judgement {
    }

    /** The pair conflicts. {@code keys} names the first few shared keys when keys collided. */
    record Conflicting(Resolution resolution, String reason, List<String> keys, boolean keyCollision) implements Judgement {
        public Conflicting {
            keys = List.copyOf(keys);
        }
    }

    Judgement COMPATIBLE = new Compatible();
}
