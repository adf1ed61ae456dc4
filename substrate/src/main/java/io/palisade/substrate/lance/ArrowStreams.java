package io.palisade.substrate.lance;

import io.palisade.fencing.ValidationException;
import io.palisade.substrate.BatchSource;
import org.apache.arrow.c.ArrowArrayStream;
import org.apache.arrow.c.Data;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;


/**
 * Hands a caller's batch to Lance as a C-data stream whose schema is exactly {@code target} (the
 * table's physical schema, so PK metadata and non-null {@code id} are Lance's, not the caller's).
 * The batch is copied; the caller keeps ownership of its root. Invariant: every buffer allocated here
 * is released when the returned stream is closed (Lance consumes the stream; close it anyway).
 */
final class ArrowStreams {

    private ArrowStreams() {
    }

    static ArrowArrayStream export(BufferAllocator allocator, Schema target, VectorSchemaRoot batch) {
        OneBatch reader = new OneBatch(allocator, target, batch);
        ArrowArrayStream stream = ArrowArrayStream.allocateNew(allocator);
        try {
            Data.exportArrayStream(allocator, reader, stream);
        } catch (RuntimeException e) {
            stream.close();
            closeQuietly(reader);
            throw e;
        }
        return stream;
    }

    /**
     * A reader of exactly one batch: a copy of the caller's rows in off-heap vectors of the
     * {@code target} schema, made when the stream's consumer asks for it. Nothing passes through the
     * Java heap (no IPC bytes), so the write path's heap footprint does not grow with the batch's width.
     */
    private static final class OneBatch extends BatchSource {
        private final Schema target;
        private final VectorSchemaRoot batch;
        private boolean loaded;

        OneBatch(BufferAllocator allocator, Schema target, VectorSchemaRoot batch) {
            super(allocator, target);
            this.target = target;
            this.batch = batch;
            for (Field f : target.getFields()) {
                if (batch.getVector(f.getName()) == null) {
                    throw new ValidationException("batch has no column '" + f.getName() + "'");
                }
            }
        }

        @Override
        protected boolean fillNext(VectorSchemaRoot copy) {
            if (loaded) {
                return false;
            }
            loaded = true;
            copy.allocateNew();
            int n = batch.getRowCount();
            for (int c = 0; c < target.getFields().size(); c++) {
                FieldVector to = copy.getVector(c);
                FieldVector from = batch.getVector(target.getFields().get(c).getName());
                for (int r = 0; r < n; r++) {
                    to.copyFromSafe(r, r, from);
                }
                to.setValueCount(n);
            }
            copy.setRowCount(n);
            return true;
        }
    }

    private static void closeQuietly(AutoCloseable c) {
        try {
            c.close();
        } catch (Exception ignored) {
            // already failing
        }
    }
}
