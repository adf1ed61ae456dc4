package io.palisade.heads;

/**
 * Binary layout of a heads checkpoint file {@code heads-<seq>.ckpt} (all integers little-endian):
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+
 *  |                     magic "PHCK" (0x4B434850)                 |  0
 *  +---------------------------------------------------------------+
 *  |                      format version (1)                       |  4
 *  +---------------------------------------------------------------+
 *  |                  covered sequence (int64)                     |  8
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |                     body length (int32)                       |  16
 *  +---------------------------------------------------------------+
 *  |                      reserved (0)                             |  20
 *  +---------------------------------------------------------------+
 *  |                     body (body length bytes) ...              |  24
 *  +---------------------------------------------------------------+
 *  |       CRC32C over bytes [0, 24 + body length), written last   |
 *  +---------------------------------------------------------------+
 * </pre>
 * A file is valid only if it is exactly {@code HEADER_LENGTH + bodyLength + TRAILER_LENGTH} bytes, the
 * magic and version match, the CRC verifies, the covered sequence equals the one in the file name and
 * the body decodes exactly (no bytes left over). The body layout is {@code CheckpointCodec}'s. A format-3, -4, -5 or -6 body
 * that is a delta names its parent checkpoint's covered sequence; it is valid only if that parent (and its own
 * chain) is too.
 */
final class CheckpointDescriptor {
    static final int MAGIC = 0x4B434850; // "PHCK" read little-endian
    /**
     * Format 6: format 5 with the catalog the journal last recorded at the end of the body (a presence flag, then its
     * sequence, digest, canonical catalog, reason and nullable previous digest).
     */
    static final int FORMAT_VERSION = 6;
    /** Format 5: format 4 with each receipt's request digest (nullable) after its row count; still read (no catalog). */
    static final int FORMAT_VERSION_5 = 5;
    /**
     * Format 4: format 3 with the receipts' expiry bound after the last checkpoint sequence (a delta's decoder forgets
     * what the state forgot; {@code CheckpointCodec}); still read (its receipts have no request digest).
     */
    static final int FORMAT_VERSION_4 = 4;
    /** Format 3: the body starts with its kind, full or a delta over a parent checkpoint; still read. */
    static final int FORMAT_VERSION_3 = 3;
    /** The format before delta checkpoints; still read (always a full state, no kind byte). */
    static final int FORMAT_VERSION_2 = 2;
    /** The format before journal-ack fold marks; still read (it has no fold section). */
    static final int FORMAT_VERSION_1 = 1;

    static final int MAGIC_OFFSET = 0;
    static final int VERSION_OFFSET = 4;
    static final int SEQUENCE_OFFSET = 8;
    static final int BODY_LENGTH_OFFSET = 16;
    static final int RESERVED_OFFSET = 20;
    static final int HEADER_LENGTH = 24;
    static final int TRAILER_LENGTH = 4;

    static final String PREFIX = "heads-";
    static final String SUFFIX = ".ckpt";
    static final String TEMP_SUFFIX = ".tmp";

    private CheckpointDescriptor() {
    }

    static String fileName(long sequence) {
        return PREFIX + sequence + SUFFIX;
    }

    /** The covered sequence named by a checkpoint file name, or -1 when the name is not one. */
    static long sequenceOf(String fileName) {
        if (!fileName.startsWith(PREFIX) || !fileName.endsWith(SUFFIX)) {
            return -1;
        }
        String digits = fileName.substring(PREFIX.length(), fileName.length() - SUFFIX.length());
        if (digits.isEmpty() || digits.length() > 19 || !digits.chars().allMatch(c -> c >= '0' && c <= '9')
                || (digits.length() > 1 && digits.charAt(0) == '0')) {
            return -1;
        }
        try {
            return Long.parseLong(digits);
        } catch (NumberFormatException e) {
            return -1;
        }
    }
}
