package io.palisade.coordinator;

import io.palisade.coordinator.internal.UnfoldedTail;
import io.palisade.substrate.RowSink;
import io.palisade.substrate.ScanSpec;
import io.palisade.substrate.TableSnapshot;
import io.palisade.heads.HeadsState;

import java.nio.file.Path;
import java.util.Map;

/**
 * Reads of journal-ack tables for tools that do not open the graph (the read-only CLI commands): the unfolded writes
 * of a table as of a journal position, rebuilt from the journal ({@link #tail}), which override the rows of the folded
 * head as they do for {@link Graph#scan} and {@link Graph#scanAt} (docs/journal-ack.md "Reads"): a streaming read
 * delivers the folded rows whose keys the tail does not touch, then the tail's live rows.
 */
public final class UnfoldedReads {
    private UnfoldedReads() {
    }

    /**
     * The unfolded writes of (branch, table) as of journal sequence {@code through} ({@code at}: the heads there), for
     * a streaming read: a folded row whose key {@link Tail#touches} is overridden by them, and {@link Tail#scan} streams
     * the rows live after them. Empty for a table-ack table or one with nothing unfolded. Close it.
     */
    public static Tail tail(Path palisadeDir, Catalog catalog, HeadsState at, long through, String branch, String table) {
        return new Tail(UnfoldedTail.of(palisadeDir, catalog, at, through, branch, table));
    }

    /**
     * Per graph branch and journal-ack table with unfolded writes in {@code at}, the rows those writes recorded
     * (inserted or upserted rows and deleted keys, once per write), read from the journal as of its last sequence.
     */
    public static Map<String, Map<String, Long>> unfoldedRows(Path palisadeDir, Catalog catalog, HeadsState at) {
        return UnfoldedTail.rowCounts(palisadeDir, catalog, at);
    }

    /**
     * The unfolded writes of one (graph branch, table) as of a journal position, held in memory (the fold bounds bound
     * them; docs/journal-ack.md).
     */
    public static final class Tail implements AutoCloseable {
        private final UnfoldedTail tail;

        private Tail(UnfoldedTail tail) {
            this.tail = tail;
        }

        /** Whether no unfolded write touches the table. */
        public boolean isEmpty() {
            return tail.isEmpty();
        }

        /** How many keys the unfolded writes touch. */
        public int keyCount() {
            return tail.keyCount();
        }

        /** Whether an unfolded write touches {@code key}: the folded row of it, if any, is not the current one. */
        public boolean touches(String key) {
            return tail.touches(key);
        }

        /**
         * Streams the rows live after the unfolded writes that {@code spec} selects (its filter evaluated by {@code t}'s
         * store on the rows staged outside the table, exactly as on the table), in the order their newest write was
         * acknowledged, to {@code sink}.
         */
        public void scan(TableSnapshot t, ScanSpec spec, RowSink sink) {
            tail.scan(t, spec, sink);
        }

        @Override
        public void close() {
            tail.close();
        }
    }
}
