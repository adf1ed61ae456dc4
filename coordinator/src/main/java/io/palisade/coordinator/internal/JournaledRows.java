package io.palisade.coordinator.internal;


import io.palisade.fencing.CommitStateUnknownException;
import io.palisade.substrate.ArrowRows;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The row payload of a journal-ack write ({@link io.palisade.journal.JournalEvent.RowsRecorded}): one Arrow IPC
 * stream (schema message, then the batch) in the table's catalog schema. Written on the committer thread, read back
 * by replay, reads through Palisade and the fold.
 */
final class JournaledRows {
    private JournaledRows() {
    }

    /** The rows of {@code root} as an IPC stream. */
    static byte[] encode(VectorSchemaRoot root) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(256 + root.getRowCount() * 64);
        try (ArrowStreamWriter w = new ArrowStreamWriter(root, null, out)) {
            w.start();
            w.writeBatch();
            w.end();
        } catch (IOException e) {
            throw new CommitStateUnknownException("rows could not be encoded for the journal: " + e.getMessage(), e);
        }
        return out.toByteArray();
    }

    /** The rows of a payload, in order, with values as {@link ArrowRows#rows} gives them. */
    static List<Map<String, Object>> decode(byte[] payload, BufferAllocator allocator) {
        if (payload.length == 0) {
            return List.of();
        }
        List<Map<String, Object>> out = new ArrayList<>();
        try (ArrowStreamReader r = new ArrowStreamReader(new ByteArrayInputStream(payload), allocator)) {
            while (r.loadNextBatch()) {
                out.addAll(ArrowRows.rows(r.getVectorSchemaRoot()));
            }
        } catch (IOException e) {
            throw new IllegalStateException("journaled rows do not decode as an Arrow IPC stream: " + e.getMessage(), e);
        }
        return out;
    }
}
