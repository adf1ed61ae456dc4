package io.palisade.coordinator.internal;

import io.palisade.coordinator.Receipt;
import io.palisade.heads.HeadsState;
import io.palisade.journal.IntentOutcome;

/** The writer's receipt of a completed intent, as the heads state records it. */
final class Receipts {
    private Receipts() {
    }

    /**
     * The receipt of {@code r} in {@code s}: a journal-ack write is folded once its table's fold mark has passed the
     * write's completion; every other write is in its table when it completes.
     */
    static Receipt of(io.palisade.heads.IntentReceipt r, HeadsState s) {
        return new Receipt(r.intentId(), r.completionSequence(), r.table(), r.graphBranch(), r.version(), r.rows(),
                r.outcome() != IntentOutcome.JOURNALED
                        || s.foldMark(r.graphBranch(), r.table()).foldedThrough() >= r.completionSequence());
    }
}
