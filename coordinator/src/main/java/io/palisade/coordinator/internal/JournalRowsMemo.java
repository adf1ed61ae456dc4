package io.palisade.coordinator.internal;

import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * The journal's bytes of one write's rows ({@link JournaledRows#encode}), encoded once by whichever thread asks first.
 * A write to a journal-ack table has them encoded on the writer's own thread as it is submitted
 * ({@link Engine#submit}), so the committer, which every writer waits on, only copies them into the journal.
 *
 * <p>Invariants: the bytes are those of {@code rows} as submitted (a write's rows are not changed after submission;
 * validation reads them only); the writer's encoding happens before the op is queued, so the committer sees it
 * through the queue's hand-over, and a write no thread encoded first is encoded by the committer.
 */
final class JournalRowsMemo {
    private final VectorSchemaRoot rows;
    private volatile byte[] bytes;

    JournalRowsMemo(VectorSchemaRoot rows) {
        this.rows = rows;
    }

    /** The rows' journal bytes, encoding them now if no thread has yet. */
    byte[] bytes() {
        byte[] b = bytes;
        if (b == null) {
            b = JournaledRows.encode(rows);
            bytes = b;
        }
        return b;
    }
}
