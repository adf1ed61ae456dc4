package io.palisade.coordinator.internal;

import io.palisade.fencing.CommitStateUnknownException;
import io.palisade.substrate.ArrowRows;
import org.apache.arrow.flatbuf.MessageHeader;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorLoader;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.VectorUnloader;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;
import org.apache.arrow.vector.ipc.ReadChannel;
import org.apache.arrow.vector.ipc.WriteChannel;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import org.apache.arrow.vector.ipc.message.IpcOption;
import org.apache.arrow.vector.ipc.message.MessageChannelReader;
import org.apache.arrow.vector.ipc.message.MessageResult;
import org.apache.arrow.vector.ipc.message.MessageSerializer;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.channels.Channels;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * The row payload of a journal-ack write ({@link io.palisade.journal.JournalEvent.RowsRecorded}): one Arrow IPC
 * stream (schema message, then the batch) in the table's catalog schema. Encoded on the writer's thread, read back
 * by replay, reads through Palisade and the fold.
 *
 * <p>A write is usually one row, so the schema message is most of the work of encoding and of decoding a payload.
 * {@link #encode} writes a schema's message from a cache (the same bytes Arrow's stream writer writes), and a fold's
 * {@link Reader} reads a payload's schema message only when its bytes differ from the payload's before.
 */
final class JournaledRows {
    /** Schemas whose messages are kept ({@link #schemaMessage}); past it the cache starts over. */
    private static final int SCHEMAS_KEPT = 64;
    /** The IPC schema message of each schema encoded lately: the bytes a stream of that schema starts with. */
    private static final ConcurrentHashMap<Schema, byte[]> SCHEMA_MESSAGES = new ConcurrentHashMap<>();

    private JournaledRows() {
    }

    /**
     * The rows of {@code root} as an IPC stream: byte for byte what Arrow's {@link ArrowStreamWriter} writes (schema
     * message, one record batch, end of stream), with the schema message taken from a cache.
     */
    static byte[] encode(VectorSchemaRoot root) {
        Schema schema = root.getSchema();
        if (dictionaryEncoded(schema.getFields())) {
            return encodeByStreamWriter(root);
        }
        byte[] head = schemaMessage(schema);
        ByteArrayOutputStream out = new ByteArrayOutputStream(head.length + 256 + root.getRowCount() * 64);
        WriteChannel channel = new WriteChannel(Channels.newChannel(out));
        try {
            channel.write(head);
            try (ArrowRecordBatch batch = new VectorUnloader(root).getRecordBatch()) {
                MessageSerializer.serialize(channel, batch, IpcOption.DEFAULT);
            }
            ArrowStreamWriter.writeEndOfStream(channel, IpcOption.DEFAULT);
        } catch (IOException e) {
            throw new CommitStateUnknownException("rows could not be encoded for the journal: " + e.getMessage(), e);
        }
        return out.toByteArray();
    }

    /** The rows of {@code root} as Arrow's stream writer writes them (the reference {@link #encode} agrees with). */
    static byte[] encodeByStreamWriter(VectorSchemaRoot root) {
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

    private static byte[] schemaMessage(Schema schema) {
        byte[] cached = SCHEMA_MESSAGES.get(schema);
        if (cached != null) {
            return cached;
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream(512);
        try {
            MessageSerializer.serialize(new WriteChannel(Channels.newChannel(out)), schema, IpcOption.DEFAULT);
        } catch (IOException e) {
            throw new CommitStateUnknownException("rows could not be encoded for the journal: " + e.getMessage(), e);
        }
        byte[] message = out.toByteArray();
        if (SCHEMA_MESSAGES.size() >= SCHEMAS_KEPT) {
            SCHEMA_MESSAGES.clear();
        }
        SCHEMA_MESSAGES.put(schema, message);
        return message;
    }

    private static boolean dictionaryEncoded(List<Field> fields) {
        for (Field f : fields) {
            if (f.getDictionary() != null || dictionaryEncoded(f.getChildren())) {
                return true;
            }
        }
        return false;
    }

    /**
     * The length of a stream's leading schema message (continuation marker, length, metadata), or -1 when the stream
     * does not start with the continuation marker (the format before Arrow 0.15, read without the cache).
     */
    static int schemaMessageLength(byte[] stream) {
        if (stream.length < 8 || stream[0] != -1 || stream[1] != -1 || stream[2] != -1 || stream[3] != -1) {
            return -1;
        }
        int metadata = (stream[4] & 0xff) | (stream[5] & 0xff) << 8 | (stream[6] & 0xff) << 16 | (stream[7] & 0xff) << 24;
        return metadata <= 0 || metadata > stream.length - 8 ? -1 : 8 + metadata;
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

    /**
     * Reads many payloads one after another into one root (a fold's thousands of one-row payloads of one schema): a
     * payload's schema message is read only when its bytes differ from the last one read. Not thread-safe; the root
     * passed to the callback is valid until the next payload is read or the reader is closed.
     */
    static final class Reader implements AutoCloseable {
        private final BufferAllocator allocator;
        private byte[] schemaMessage;
        private VectorSchemaRoot root;
        private VectorLoader loader;
        /** Payloads whose schema message was read (tests). */
        private int schemasRead;

        Reader(BufferAllocator allocator) {
            this.allocator = allocator;
        }

        /** Loads each record batch of {@code payload} in turn and hands the root holding it to {@code each}. */
        void forEachBatch(byte[] payload, Consumer<VectorSchemaRoot> each) throws IOException {
            int head = schemaMessageLength(payload);
            ReadChannel in;
            if (head > 0 && schemaMessage != null
                    && Arrays.equals(payload, 0, head, schemaMessage, 0, schemaMessage.length)) {
                in = new ReadChannel(Channels.newChannel(new ByteArrayInputStream(payload, head, payload.length - head)));
            } else {
                in = new ReadChannel(Channels.newChannel(new ByteArrayInputStream(payload)));
                Schema schema = MessageSerializer.deserializeSchema(in);
                if (root != null) {
                    root.close();
                    root = null;
                }
                schemaMessage = null; // not matched again should the root below fail to be made
                root = VectorSchemaRoot.create(schema, allocator);
                loader = new VectorLoader(root);
                schemaMessage = head > 0 ? Arrays.copyOf(payload, head) : null;
                schemasRead++;
            }
            MessageChannelReader messages = new MessageChannelReader(in, allocator);
            MessageResult m;
            while ((m = messages.readNext()) != null) {
                if (m.getMessage().headerType() != MessageHeader.RecordBatch) {
                    ArrowBuf body = m.getBodyBuffer();
                    if (body != null) {
                        body.close();
                    }
                    throw new IOException("a journaled rows stream holds a message of type "
                            + MessageHeader.name(m.getMessage().headerType()) + " where record batches were expected");
                }
                ArrowBuf body = m.getBodyBuffer() != null ? m.getBodyBuffer() : allocator.getEmpty();
                try (ArrowRecordBatch batch = MessageSerializer.deserializeRecordBatch(m.getMessage(), body)) {
                    loader.load(batch);
                }
                each.accept(root);
            }
        }

        int schemasRead() {
            return schemasRead;
        }

        @Override
        public void close() {
            if (root != null) {
                root.close();
                root = null;
            }
        }
    }
}
