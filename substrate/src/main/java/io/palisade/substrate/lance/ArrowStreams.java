package io.palisade.substrate.lance;

import io.palisade.fencing.ValidationException;
import org.apache.arrow.c.ArrowArrayStream;
import org.apache.arrow.c.Data;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;
import org.apache.arrow.vector.types.pojo.Schema;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;

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
        byte[] ipc = ipc(allocator, target, batch);
        ArrowStreamReader reader = new ArrowStreamReader(new ByteArrayInputStream(ipc), allocator);
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

    private static byte[] ipc(BufferAllocator allocator, Schema target, VectorSchemaRoot batch) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (VectorSchemaRoot copy = VectorSchemaRoot.create(target, allocator)) {
            copy.allocateNew();
            int n = batch.getRowCount();
            for (int c = 0; c < target.getFields().size(); c++) {
                FieldVector to = copy.getVector(c);
                FieldVector from = batch.getVector(target.getFields().get(c).getName());
                if (from == null) {
                    throw new ValidationException("batch has no column '" + to.getName() + "'");
                }
                for (int r = 0; r < n; r++) {
                    to.copyFromSafe(r, r, from);
                }
                to.setValueCount(n);
            }
            copy.setRowCount(n);
            try (ArrowStreamWriter w = new ArrowStreamWriter(copy, null, out)) {
                w.start();
                w.writeBatch();
                w.end();
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }

    private static void closeQuietly(AutoCloseable c) {
        try {
            c.close();
        } catch (Exception ignored) {
            // already failing
        }
    }
}
