package io.palisade.journal.codec;

import org.agrona.ExpandableArrayBuffer;

import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * Appends little-endian fields to an expandable buffer. Strings and byte arrays are an int32 length
 * ({@code -1} for null) followed by the bytes (strings as UTF-8).
 */
public final class PayloadWriter {
    private static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;

    private final ExpandableArrayBuffer buffer;
    private int position;

    public PayloadWriter(ExpandableArrayBuffer buffer, int start) {
        this.buffer = buffer;
        this.position = start;
    }

    public int position() {
        return position;
    }

    public PayloadWriter putByte(int v) {
        buffer.putByte(position, (byte) v);
        position += 1;
        return this;
    }

    public PayloadWriter putBoolean(boolean v) {
        return putByte(v ? 1 : 0);
    }

    public PayloadWriter putShort(int v) {
        buffer.putShort(position, (short) v, LE);
        position += 2;
        return this;
    }

    public PayloadWriter putInt(int v) {
        buffer.putInt(position, v, LE);
        position += 4;
        return this;
    }

    public PayloadWriter putLong(long v) {
        buffer.putLong(position, v, LE);
        position += 8;
        return this;
    }

    public PayloadWriter putString(String s) {
        if (s == null) {
            return putInt(-1);
        }
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        return putBytes(b);
    }

    public PayloadWriter putBytes(byte[] b) {
        if (b == null) {
            return putInt(-1);
        }
        putInt(b.length);
        buffer.putBytes(position, b);
        position += b.length;
        return this;
    }
}
