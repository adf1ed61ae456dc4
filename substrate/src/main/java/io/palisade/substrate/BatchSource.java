package io.palisade.substrate;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.Schema;

import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * An {@link ArrowReader} whose batches are made in memory rather than read: a subclass fills the
 * reader's own root, one batch per {@link #fillNext} call. There is no byte source ({@link #bytesRead()}
 * is 0, nothing to close besides the root), and {@link #close()} throws no checked exception. Used to
 * stream a caller's batch to Lance through the C data interface and by bulk-load inputs.
 */
public abstract class BatchSource extends ArrowReader {
    private final Schema schema;

    protected BatchSource(BufferAllocator allocator, Schema schema) {
        super(allocator);
        this.schema = schema;
    }

    /** Fills {@code root} (this reader's root, with {@link #readSchema()}) with the next batch; false at the end. */
    protected abstract boolean fillNext(VectorSchemaRoot root);

    @Override
    public final boolean loadNextBatch() {
        try {
            return fillNext(getVectorSchemaRoot());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public final long bytesRead() {
        return 0;
    }

    @Override
    protected final void closeReadSource() {
        // nothing was read
    }

    @Override
    protected final Schema readSchema() {
        return schema;
    }

    @Override
    public void close() {
        try {
            super.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
