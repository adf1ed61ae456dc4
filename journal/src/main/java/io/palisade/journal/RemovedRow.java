package io.palisade.journal;

import java.util.Objects;

/**
 * One row a repair removed ({@link JournalEvent.DuplicatesRepaired}): its key, where it was and where the row
 * kept for that key is, and every value it held.
 *
 * @param key            the duplicated id, as text
 * @param rowAddress     Lance's row address of the removed row (fragment id &lt;&lt; 32 | offset) in the repaired image
 * @param keptRowAddress the row address of the row kept for {@code key}
 * @param values         the removed row's values as one JSON object (column → value)
 */
public record RemovedRow(String key, long rowAddress, long keptRowAddress, String values) {
    public RemovedRow {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(values, "values");
    }
}
