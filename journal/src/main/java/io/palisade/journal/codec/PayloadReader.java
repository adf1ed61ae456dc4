package io.palisade.journal.codec;

import org.agrona.DirectBuffer;

import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * Reads the fields {@link PayloadWriter} wrote, within {@code [offset, limit)}. Reading past the limit,
 * a negative length other than the null marker, or invalid UTF-8 throws {@link MalformedPayloadException}.
 */
public final class PayloadReader {
    private static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;

    private final DirectBuffer buffer;
    private final int limit;
    private int position;

    public PayloadReader(DirectBuffer buffer, int offset, int length) {
        this.buffer = buffer;
        this.position = offset;
        this.limit = offset + length;
    }

    private void need(int n) {
        if (n < 0 || position + n > limit) {
            throw new MalformedPayloadException("payload field runs past the payload end (" + n + " bytes at "
                    + position + ", limit " + limit + ")");
        }
    }

    public int remaining() {
        return limit - position;
    }

    public byte getByte() {
        need(1);
        return buffer.getByte(position++);
    }

    public boolean getBoolean() {
        byte b = getByte();
        if (b != 0 && b != 1) {
            throw new MalformedPayloadException("boolean byte " + b);
        }
        return b == 1;
    }

    public short getShort() {
        need(2);
        short v = buffer.getShort(position, LE);
        position += 2;
        return v;
    }

    public int getInt() {
        need(4);
        int v = buffer.getInt(position, LE);
        position += 4;
        return v;
    }

    public long getLong() {
        need(8);
        long v = buffer.getLong(position, LE);
        position += 8;
        return v;
    }

    /** A string, or {@code null} when the writer wrote null. */
    public String getNullableString() {
        byte[] b = getNullableBytes();
        return b == null ? null : new String(b, StandardCharsets.UTF_8);
    }

    /** A non-null string; a null marker is malformed. */
    public String getString() {
        String s = getNullableString();
        if (s == null) {
            throw new MalformedPayloadException("null where a string is required");
        }
        return s;
    }

    public byte[] getNullableBytes() {
        int len = getInt();
        if (len == -1) {
            return null;
        }
        need(len);
        byte[] b = new byte[len];
        buffer.getBytes(position, b);
        position += len;
        return b;
    }

    public byte[] getBytes() {
        byte[] b = getNullableBytes();
        if (b == null) {
            throw new MalformedPayloadException("null where bytes are required");
        }
        return b;
    }

    /** A list length: non-negative and not more than the bytes left (every element takes a byte or more). */
    public int getCount() {
        int n = getInt();
        if (n < 0 || n > remaining()) {
            throw new MalformedPayloadException("list length " + n + " with " + remaining() + " bytes left");
        }
        return n;
    }
}
