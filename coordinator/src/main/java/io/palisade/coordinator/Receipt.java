package io.palisade.coordinator;

/**
 * What a durable write returns: its intent id, the journal sequence of its completion, the table and
 * graph branch written, the table version it produced and the rows it carried. Repeating the
 * idempotency key of a committed write returns this same receipt.
 */
public record Receipt(String intent, long seq, String table, String branch, long version, long rows) {
}
