package io.palisade.heads;

import io.palisade.journal.IntentOutcome;

import java.util.Objects;

/**
 * The heads state's record of the first receipt issued for an idempotency key (the writer's own receipt is the
 * coordinator's {@code Receipt}, made from this): what a repeated request with the same key gets back
 * instead of a second write. Only applied intents ({@code COMMITTED}, {@code ROLLED_FORWARD}) and writes acknowledged
 * from the journal ({@code JOURNALED}: {@code version} is then the table's published head at the acknowledgement) issue one.
 *
 * @param intentId           the intent that applied the write
 * @param completionSequence sequence of its {@code IntentCompleted}
 * @param graphBranch        the branch written
 * @param table              the table written
 * @param tableBranch        the Lance table branch of the published head
 * @param version            the table version of the published head
 * @param outcome            {@code COMMITTED}, {@code ROLLED_FORWARD} or {@code JOURNALED}
 * @param rows               rows the write carried (its key filter's size; -1 for keyless writes)
 * @param requestDigest      nullable: the digest of the request the key was given for (its intent's), which a repeat
 *                           must match; null for an intent journaled without one
 */
public record IntentReceipt(String intentId, long completionSequence, String graphBranch, String table,
                            String tableBranch, long version, IntentOutcome outcome, long rows, String requestDigest) {
    public IntentReceipt {
        Objects.requireNonNull(intentId, "intentId");
        Objects.requireNonNull(graphBranch, "graphBranch");
        Objects.requireNonNull(table, "table");
        Objects.requireNonNull(tableBranch, "tableBranch");
        Objects.requireNonNull(outcome, "outcome");
    }
}
