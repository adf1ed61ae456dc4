package io.palisade.heads;

import io.palisade.journal.IntentOutcome;
import io.palisade.journal.TableHead;

import java.util.Objects;

/**
 * The outcome of a completed intent.
 *
 * @param intentId       the intent
 * @param outcome        how it ended
 * @param graphBranch    the branch written
 * @param table          the table written
 * @param idempotencyKey nullable: the client's key
 * @param completedAt    sequence of the {@code IntentCompleted} record
 * @param publishedHead  nullable: the head its effect was published in (non-null exactly for
 *                       {@code COMMITTED} and {@code ROLLED_FORWARD})
 */
public record CompletedIntent(String intentId, IntentOutcome outcome, String graphBranch, String table,
                              String idempotencyKey, long completedAt, TableHead publishedHead) {
    public CompletedIntent {
        Objects.requireNonNull(intentId, "intentId");
        Objects.requireNonNull(outcome, "outcome");
        Objects.requireNonNull(graphBranch, "graphBranch");
        Objects.requireNonNull(table, "table");
    }

    /** Whether the intent's effect is in the published heads. */
    public boolean applied() {
        return outcome == IntentOutcome.COMMITTED || outcome == IntentOutcome.ROLLED_FORWARD;
    }
}
