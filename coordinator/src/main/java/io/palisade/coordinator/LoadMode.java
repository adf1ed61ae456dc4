package io.palisade.coordinator;

/**
 * How {@link Graph#load} treats keys (RFC-023 §5 routing table): both modes are fenced merge-inserts
 * ON {@code id}, never a keyed Append.
 */
public enum LoadMode {
    /** Strict load: WhenMatched Fail; a key already present, or loaded twice, fails the whole load. */
    APPEND,
    /** Upsert load: WhenMatched UpdateAll; a later batch replaces an earlier one's row with the same key. */
    MERGE
}
