package io.palisade.coordinator;

import io.palisade.coordinator.internal.Reads;
import io.palisade.heads.HeadsState;
import org.apache.arrow.memory.RootAllocator;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * Reads of journal-ack tables for tools that do not open the graph (the read-only CLI commands): the unfolded writes
 * of a table as of a journal position, rebuilt from the journal and laid over rows of the folded head, exactly as
 * {@link Graph#scan} and {@link Graph#scanAt} do (docs/journal-ack.md "Reads").
 */
public final class UnfoldedReads {
    private UnfoldedReads() {
    }

    /**
     * {@code folded} (every row of (branch, table) at {@code at}'s head) with the table's unfolded writes as of journal
     * sequence {@code through} laid over it; {@code folded} itself when the table has none.
     *
     * @param palisadeDir the graph's {@code _palisade} directory
     * @param at          the heads at {@code through}
     */
    public static List<Map<String, Object>> overlay(Path palisadeDir, Catalog catalog, HeadsState at, long through,
                                                    String branch, String table, List<Map<String, Object>> folded) {
        if (at.foldMark(branch, table).unfolded() == 0) {
            return folded;
        }
        try (RootAllocator allocator = new RootAllocator()) {
            return Reads.overlay(palisadeDir, catalog, at, through, branch, table, folded, allocator);
        }
    }
}
