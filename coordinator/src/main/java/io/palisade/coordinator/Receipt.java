package io.palisade.coordinator;

/**
 * What a durable write returns: its intent id, the journal sequence of its completion, the table and
 * graph branch written, the table version it produced and the rows it carried. Repeating the
 * idempotency key of a write returns this same receipt.
 *
 * <p>{@code folded} tells where the write is: {@code true} when it is in the table (every write to a table-ack
 * table); {@code false} for a write to a journal-ack table, acknowledged once its intent and rows were durable in
 * the journal and not yet folded into the table. Reads through Palisade see it either way; {@code version} is then
 * the table's published version at the acknowledgement, and a later fold commits it (docs/journal-ack.md).
 */
public record Receipt(String intent, long seq, String table, String branch, long version, long rows, boolean folded) {
    /** The receipt of a write that is in the table. */
    public Receipt(String intent, long seq, String table, String branch, long version, long rows) {
        this(intent, seq, table, branch, version, rows, true);
    }
}
