package io.palisade.journal;

import java.util.Objects;

/**
 * The state an intent was planned against: the table branch, version and schema id it read, and the
 * journal sequence of the graph state it observed (the conflict check covers every commit published
 * after that sequence).
 */
public record ExpectedBase(String tableBranch, long version, long schemaId, long graphSequence) {
    public ExpectedBase {
        Objects.requireNonNull(tableBranch, "tableBranch");
    }
}
