package io.palisade.coordinator.internal;

import io.palisade.fencing.PalisadeException;

import java.util.Objects;

/**
 * A fenced op that lost after its intent was journaled, and why: returned by the stage that decided it
 * ({@link SubstrateCommit.Result#losers()}, the journal-ack fence of {@link JournalAck}) for the stage that answers
 * the writer. Invariants: both non-null; {@code failure} is what the op's future is completed with, once the records
 * that explain it (its completion) are durable.
 */
record Lost(Fence.Admitted op, PalisadeException failure) {
    Lost {
        Objects.requireNonNull(op, "op");
        Objects.requireNonNull(failure, "failure");
    }
}
