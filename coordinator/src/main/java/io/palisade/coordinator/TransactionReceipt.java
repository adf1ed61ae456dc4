package io.palisade.coordinator;

import java.util.List;
import java.util.Objects;

/**
 * What a committed graph transaction returns (docs/transactions.md): its id, the journal sequence of its commit point
 * ({@code transaction_committed}), the graph branch it wrote and one {@link Receipt} per part, in the order the
 * transaction named them. Every part's receipt carries the commit point's sequence: the parts were published together.
 * A part of a table-ack table is {@code folded} (in its table) unless its fold failed; a part of a journal-ack table is
 * folded later, as any journal-ack write.
 */
public record TransactionReceipt(String transaction, long seq, String branch, List<Receipt> parts) {
    public TransactionReceipt {
        Objects.requireNonNull(transaction, "transaction");
        Objects.requireNonNull(branch, "branch");
        parts = List.copyOf(parts);
    }
}
