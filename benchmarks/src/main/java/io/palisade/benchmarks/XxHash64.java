package io.palisade.benchmarks;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * xxHash64 (seed 0 in every use here), the hash Lance's split-block Bloom filter applies to a key's
 * bytes ({@code twox_hash::XxHash64::oneshot(0, bytes)}). A plain Java transcription of the public
 * algorithm, checked against the reference test vectors in {@code XxHash64Test}.
 */
public final class XxHash64 {

    private static final long P1 = 0x9E3779B185EBCA87L;
    private static final long P2 = 0xC2B2AE3D27D4EB4FL;
    private static final long P3 = 0x165667B19E3779F9L;
    private static final long P4 = 0x85EBCA77C2B2AE63L;
    private static final long P5 = 0x27D4EB2F165667C5L;

    private static final VarHandle LONG_LE = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle INT_LE = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);

    private XxHash64() {
    }

    public static long hash(byte[] b) {
        return hash(b, 0, b.length, 0);
    }

    public static long hash(byte[] b, int off, int len, long seed) {
        final int end = off + len;
        int p = off;
        long h;
        if (len >= 32) {
            long v1 = seed + P1 + P2;
            long v2 = seed + P2;
            long v3 = seed;
            long v4 = seed - P1;
            final int limit = end - 32;
            do {
                v1 = round(v1, (long) LONG_LE.get(b, p));
                v2 = round(v2, (long) LONG_LE.get(b, p + 8));
                v3 = round(v3, (long) LONG_LE.get(b, p + 16));
                v4 = round(v4, (long) LONG_LE.get(b, p + 24));
                p += 32;
            } while (p <= limit);
            h = Long.rotateLeft(v1, 1) + Long.rotateLeft(v2, 7) + Long.rotateLeft(v3, 12) + Long.rotateLeft(v4, 18);
            h = merge(h, v1);
            h = merge(h, v2);
            h = merge(h, v3);
            h = merge(h, v4);
        } else {
            h = seed + P5;
        }
        h += len;
        while (p + 8 <= end) {
            h ^= round(0, (long) LONG_LE.get(b, p));
            h = Long.rotateLeft(h, 27) * P1 + P4;
            p += 8;
        }
        if (p + 4 <= end) {
            h ^= ((int) INT_LE.get(b, p) & 0xFFFFFFFFL) * P1;
            h = Long.rotateLeft(h, 23) * P2 + P3;
            p += 4;
        }
        while (p < end) {
            h ^= (b[p] & 0xFFL) * P5;
            h = Long.rotateLeft(h, 11) * P1;
            p++;
        }
        return avalanche(h);
    }

    /** The hash of the 8 little-endian bytes of {@code v} (Lance hashes an Int64 key as {@code i64::to_le_bytes}). */
    public static long hashLong(long v) {
        long h = P5 + 8;
        h ^= round(0, v);
        h = Long.rotateLeft(h, 27) * P1 + P4;
        return avalanche(h);
    }

    private static long round(long acc, long input) {
        acc += input * P2;
        acc = Long.rotateLeft(acc, 31);
        return acc * P1;
    }

    private static long merge(long acc, long v) {
        acc ^= round(0, v);
        return acc * P1 + P4;
    }

    private static long avalanche(long h) {
        h ^= h >>> 33;
        h *= P2;
        h ^= h >>> 29;
        h *= P3;
        h ^= h >>> 32;
        return h;
    }
}
