package io.palisade.substrate;

import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.UUID;

/**
 * The watermark a fold writes into the table version it commits, as Lance's MemWAL merged generation: the shard is a
 * name-based UUID of the graph branch and table (Lance requires a UUID), the generation the journal sequence of the
 * newest write folded. It lets a reader of the Lance table alone see how far the journal has been folded into it.
 *
 * @param shard      the shard UUID
 * @param generation the journal sequence folded through
 */
public record FoldWatermark(UUID shard, long generation) {
    public FoldWatermark {
        Objects.requireNonNull(shard, "shard");
        if (generation < 0) {
            throw new IllegalArgumentException("generation " + generation);
        }
    }

    /** The watermark of (graph branch, table) folded through journal sequence {@code through}. */
    public static FoldWatermark of(String graphBranch, String table, long through) {
        return new FoldWatermark(UUID.nameUUIDFromBytes(("palisade-fold:" + graphBranch + "/" + table)
                .getBytes(StandardCharsets.UTF_8)), through);
    }
}
