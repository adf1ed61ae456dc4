package io.palisade.coordinator;

import java.util.Optional;

/** Per-write options: an optional client idempotency key (a repeat returns the first receipt). */
public record WriteOptions(Optional<String> idempotencyKey) {
    public static final WriteOptions NONE = new WriteOptions(Optional.empty());

    public static WriteOptions idempotencyKey(String key) {
        return new WriteOptions(Optional.of(key));
    }
}
