package io.palisade.journal.codec;

/**
 * Binary layout of one journal record (one Chronicle Queue excerpt holds exactly one record).
 * All fixed-width integers are little-endian.
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+  0
 *  |                   Magic 'P' 'J' 'R' 'N'                        |
 *  +-------------------------------+-------------------------------+  4
 *  |        Format version         |          Type code            |
 *  +-------------------------------+-------------------------------+  8
 *  |                      Payload length (n)                       |
 *  +---------------------------------------------------------------+ 12
 *  |                      Reserved (zero)                          |
 *  +---------------------------------------------------------------+ 16
 *  |                      Sequence (dense, 0..)                    |
 *  |                                                               |
 *  +---------------------------------------------------------------+ 24
 *  |                      Timestamp (epoch nanoseconds)            |
 *  |                                                               |
 *  +---------------------------------------------------------------+ 32
 *  |                      Writer epoch                             |
 *  |                                                               |
 *  +---------------------------------------------------------------+ 40
 *  |                                                               |
 *  |          SHA-256 of the previous record (32 bytes,            |
 *  |          all zero for sequence 0)                             |
 *  |                                                               |
 *  +---------------------------------------------------------------+ 72
 *  |                      Payload (n bytes)                       ...
 *  +---------------------------------------------------------------+ 72 + n
 *  |                      CRC32C of bytes [0, 72 + n)              |
 *  +---------------------------------------------------------------+ 76 + n
 * </pre>
 *
 * <p>Invariants:
 * <ul>
 *   <li>The CRC covers header and payload and is written last into the record; Chronicle's excerpt
 *       header (written after the whole record, by Chronicle) is the commit word that makes the record
 *       visible to readers.</li>
 *   <li>The record hash used by the chain is SHA-256 of all {@code 76 + n} bytes, CRC included.</li>
 *   <li>A record is <em>good</em> when its length is at least {@link #MIN_RECORD_LENGTH}, its magic
 *       matches, {@code 76 + n} equals the excerpt length and the CRC matches. A good record of a newer
 *       format version or unknown type code is refused loudly, never skipped.</li>
 * </ul>
 */
public final class RecordDescriptor {
    /** 'P','J','R','N' as little-endian bytes. */
    public static final int MAGIC = 0x4E524A50;
    /** The record format this build writes and the newest it reads. */
    public static final short FORMAT_VERSION = 1;

    public static final int MAGIC_OFFSET = 0;
    public static final int VERSION_OFFSET = 4;
    public static final int TYPE_OFFSET = 6;
    public static final int PAYLOAD_LENGTH_OFFSET = 8;
    public static final int RESERVED_OFFSET = 12;
    public static final int SEQUENCE_OFFSET = 16;
    public static final int TIMESTAMP_OFFSET = 24;
    public static final int EPOCH_OFFSET = 32;
    public static final int PREVIOUS_HASH_OFFSET = 40;
    public static final int HASH_LENGTH = 32;
    public static final int HEADER_LENGTH = 72;
    public static final int CRC_LENGTH = 4;
    public static final int MIN_RECORD_LENGTH = HEADER_LENGTH + CRC_LENGTH;
    /** Upper bound on a payload (a larger length field is corruption). */
    public static final int MAX_PAYLOAD_LENGTH = 64 * 1024 * 1024;

    private RecordDescriptor() {
    }

    /** Total record length for a payload of {@code payloadLength} bytes. */
    public static int recordLength(int payloadLength) {
        return HEADER_LENGTH + payloadLength + CRC_LENGTH;
    }

    /** Offset of the CRC for a payload of {@code payloadLength} bytes. */
    public static int crcOffset(int payloadLength) {
        return HEADER_LENGTH + payloadLength;
    }
}
