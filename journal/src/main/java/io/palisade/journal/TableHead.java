package io.palisade.journal;

import java.util.Objects;

/**
 * A published table head: the Lance table branch and version a graph branch pins for one table,
 * with the schema id and the table incarnation (a recreated table gets a new incarnation).
 *
 * <p>Invariants: {@code tableBranch} non-null; {@code version >= 0}; {@code incarnation >= 0}.
 */
public record TableHead(String tableBranch, long version, long schemaId, long incarnation) {
    public TableHead {
        Objects.requireNonNull(tableBranch, "tableBranch");
        if (version < 0 || incarnation < 0) {
            throw new IllegalArgumentException("negative version or incarnation: " + version + ", " + incarnation);
        }
    }
}
