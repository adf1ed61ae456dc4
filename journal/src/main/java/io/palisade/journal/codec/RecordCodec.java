package io.palisade.journal.codec;

import io.palisade.journal.JournalEvent;
import org.agrona.ExpandableArrayBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteOrder;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.zip.CRC32C;

import static io.palisade.journal.codec.RecordDescriptor.CRC_LENGTH;
import static io.palisade.journal.codec.RecordDescriptor.EPOCH_OFFSET;
import static io.palisade.journal.codec.RecordDescriptor.FORMAT_VERSION;
import static io.palisade.journal.codec.RecordDescriptor.HASH_LENGTH;
import static io.palisade.journal.codec.RecordDescriptor.HEADER_LENGTH;
import static io.palisade.journal.codec.RecordDescriptor.MAGIC;
import static io.palisade.journal.codec.RecordDescriptor.MAGIC_OFFSET;
import static io.palisade.journal.codec.RecordDescriptor.MAX_PAYLOAD_LENGTH;
import static io.palisade.journal.codec.RecordDescriptor.MIN_RECORD_LENGTH;
import static io.palisade.journal.codec.RecordDescriptor.PAYLOAD_LENGTH_OFFSET;
import static io.palisade.journal.codec.RecordDescriptor.PREVIOUS_HASH_OFFSET;
import static io.palisade.journal.codec.RecordDescriptor.RESERVED_OFFSET;
import static io.palisade.journal.codec.RecordDescriptor.SEQUENCE_OFFSET;
import static io.palisade.journal.codec.RecordDescriptor.TIMESTAMP_OFFSET;
import static io.palisade.journal.codec.RecordDescriptor.TYPE_OFFSET;
import static io.palisade.journal.codec.RecordDescriptor.VERSION_OFFSET;

/**
 * Frames events into records of {@link RecordDescriptor}'s layout and checks records read back.
 * Not thread-safe: one instance per writer or reader (it reuses a CRC32C and a SHA-256 digest).
 */
public final class RecordCodec {
    private static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;

    private final CRC32C crc = new CRC32C();
    private final MessageDigest sha256;
    private final UnsafeBuffer view = new UnsafeBuffer(new byte[0]);

    public RecordCodec() {
        try {
            sha256 = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required by the Java platform", e);
        }
    }

    /**
     * Writes a complete record for {@code event} at offset 0 of {@code buffer}: header, payload, then the
     * CRC last. Returns the record length.
     */
    public int encode(JournalEvent event, long sequence, long timestampNanos, long epoch, byte[] previousHash,
                      ExpandableArrayBuffer buffer) {
        return encode(event, sequence, timestampNanos, epoch, previousHash, buffer, 0);
    }

    /** As {@link #encode(JournalEvent, long, long, long, byte[], ExpandableArrayBuffer)}, at {@code offset}. */
    public int encode(JournalEvent event, long sequence, long timestampNanos, long epoch, byte[] previousHash,
                      ExpandableArrayBuffer buffer, int offset) {
        int payloadLength = EventCodec.encode(event, buffer, offset + HEADER_LENGTH);
        if (payloadLength > MAX_PAYLOAD_LENGTH) {
            throw new IllegalArgumentException("event payload of " + payloadLength + " bytes exceeds "
                    + MAX_PAYLOAD_LENGTH);
        }
        buffer.putInt(offset + MAGIC_OFFSET, MAGIC, LE);
        buffer.putShort(offset + VERSION_OFFSET, FORMAT_VERSION, LE);
        buffer.putShort(offset + TYPE_OFFSET, EventCodec.typeCode(event), LE);
        buffer.putInt(offset + PAYLOAD_LENGTH_OFFSET, payloadLength, LE);
        buffer.putInt(offset + RESERVED_OFFSET, 0, LE);
        buffer.putLong(offset + SEQUENCE_OFFSET, sequence, LE);
        buffer.putLong(offset + TIMESTAMP_OFFSET, timestampNanos, LE);
        buffer.putLong(offset + EPOCH_OFFSET, epoch, LE);
        buffer.putBytes(offset + PREVIOUS_HASH_OFFSET, previousHash, 0, HASH_LENGTH);
        int crcOffset = offset + HEADER_LENGTH + payloadLength;
        buffer.checkLimit(crcOffset + CRC_LENGTH);
        crc.reset();
        crc.update(buffer.byteArray(), offset, crcOffset - offset);
        buffer.putInt(crcOffset, (int) crc.getValue(), LE);
        return crcOffset + CRC_LENGTH - offset;
    }

    /** SHA-256 of {@code [offset, offset + length)} of {@code bytes} into {@code out} (32 bytes). */
    public void hash(byte[] bytes, int offset, int length, byte[] out) {
        sha256.update(bytes, offset, length);
        try {
            sha256.digest(out, 0, HASH_LENGTH);
        } catch (java.security.DigestException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Checks the framing of a record of {@code length} bytes at {@code offset}: length, magic, payload
     * length and CRC. Returns {@code null} for a good record, else the reason it is bad. The format
     * version and type code are not judged here (see {@link #decode}).
     */
    public String check(byte[] bytes, int offset, int length) {
        if (length < MIN_RECORD_LENGTH) {
            return "record of " + length + " bytes is shorter than the " + MIN_RECORD_LENGTH + "-byte minimum";
        }
        view.wrap(bytes, offset, length);
        int magic = view.getInt(MAGIC_OFFSET, LE);
        if (magic != MAGIC) {
            return "bad magic 0x" + Integer.toHexString(magic);
        }
        int payloadLength = view.getInt(PAYLOAD_LENGTH_OFFSET, LE);
        if (payloadLength < 0 || payloadLength > MAX_PAYLOAD_LENGTH
                || RecordDescriptor.recordLength(payloadLength) != length) {
            return "payload length " + payloadLength + " does not match the " + length + "-byte excerpt";
        }
        crc.reset();
        crc.update(bytes, offset, length - CRC_LENGTH);
        int expected = view.getInt(length - CRC_LENGTH, LE);
        if ((int) crc.getValue() != expected) {
            return "CRC32C mismatch (stored 0x" + Integer.toHexString(expected) + ", computed 0x"
                    + Integer.toHexString((int) crc.getValue()) + ")";
        }
        return null;
    }

    /**
     * Decodes the event of a record that passed {@link #check}. A newer format version or an unknown type
     * code throws {@link MalformedPayloadException}: refused, never skipped.
     */
    public JournalEvent decode(byte[] bytes, int offset, int length) {
        view.wrap(bytes, offset, length);
        short version = view.getShort(VERSION_OFFSET, LE);
        if (version != FORMAT_VERSION) {
            throw new MalformedPayloadException("record format version " + version + " is not readable by this build"
                    + " (it reads version " + FORMAT_VERSION + "); refusing instead of skipping");
        }
        short type = view.getShort(TYPE_OFFSET, LE);
        int payloadLength = view.getInt(PAYLOAD_LENGTH_OFFSET, LE);
        return EventCodec.decode(type, view, HEADER_LENGTH, payloadLength);
    }

    /** The type code in the header of the record at {@code off} (unchecked: call {@link #check} first to trust it). */
    public static short type(byte[] b, int off) {
        return (short) ((b[off + TYPE_OFFSET] & 0xFF) | (b[off + TYPE_OFFSET + 1] & 0xFF) << 8);
    }

    public static long sequence(byte[] b, int off) {
        return getLong(b, off + SEQUENCE_OFFSET);
    }

    public static long timestamp(byte[] b, int off) {
        return getLong(b, off + TIMESTAMP_OFFSET);
    }

    public static long epoch(byte[] b, int off) {
        return getLong(b, off + EPOCH_OFFSET);
    }

    /** Whether the previous-hash field of the record at {@code off} equals {@code hash}. */
    public static boolean previousHashEquals(byte[] b, int off, byte[] hash) {
        int p = off + PREVIOUS_HASH_OFFSET;
        return Arrays.equals(b, p, p + HASH_LENGTH, hash, 0, HASH_LENGTH);
    }

    private static long getLong(byte[] b, int i) {
        return (b[i] & 0xFFL) | (b[i + 1] & 0xFFL) << 8 | (b[i + 2] & 0xFFL) << 16 | (b[i + 3] & 0xFFL) << 24
                | (b[i + 4] & 0xFFL) << 32 | (b[i + 5] & 0xFFL) << 40 | (b[i + 6] & 0xFFL) << 48
                | (b[i + 7] & 0xFFL) << 56;
    }
}
