package io.palisade.fencing;

/**
 * Binary layout of an encoded {@link KeyFilter}. All fixed-width integers are little-endian.
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-------------------------------+---------------+---------------+
 *  |         Magic 'K''F'          |    Version    |   Key type    |
 *  +-------------------------------+---------------+---------------+
 *  |                        Field id count (n)                     |
 *  +---------------------------------------------------------------+
 *  |                           Key count (k)                       |
 *  +---------------------------------------------------------------+
 *  |                  Field ids: n x int32, ascending              |
 *  +---------------------------------------------------------------+
 *  |                       Keys (k entries) ...                   ...
 *  +---------------------------------------------------------------+
 * </pre>
 *
 * Keys are stored in ascending order, each exactly once:
 * <ul>
 *   <li>{@code INT64}: the first key as a zig-zag varint, every later key as the unsigned varint of
 *       its (always positive) difference from the key before it.</li>
 *   <li>{@code UTF8}: front coding: varint length of the prefix shared with the key before it,
 *       varint length of the rest, then the rest's bytes.</li>
 * </ul>
 * A decoder rejects a wrong magic, an unknown version or type, keys out of order or repeated, and
 * bytes left over or missing.
 */
final class KeyFilterDescriptor {
    static final short MAGIC = 0x464B; // 'K','F' as little-endian bytes
    static final byte VERSION = 1;

    static final int MAGIC_OFFSET = 0;
    static final int VERSION_OFFSET = 2;
    static final int KEY_TYPE_OFFSET = 3;
    static final int FIELD_COUNT_OFFSET = 4;
    static final int KEY_COUNT_OFFSET = 8;
    static final int HEADER_LENGTH = 12;

    private KeyFilterDescriptor() {
    }
}
