package io.palisade.coordinator;

import java.util.List;

/**
 * What a branch merge did: per table, the keys inserted (new on the source, WhenMatched Fail), updated
 * (upserted) and deleted on the target, and the receipts of the writes it made.
 */
public record MergeResult(String source, String target, long inserted, long updated, long deleted, List<Receipt> receipts) {
    public MergeResult {
        receipts = List.copyOf(receipts);
    }
}
