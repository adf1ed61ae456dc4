package io.palisade.coordinator.internal;


import java.nio.charset.StandardCharsets;

/**
 * A Bloom filter over key strings: the negative key filter of a journal-ack table (docs/journal-ack.md). A key it has
 * never been given may still test positive (a false positive costs the caller one lookup in the table); a key it has
 * been given always tests positive (no false negative). Keys are never removed: a deleted key stays a possible hit.
 *
 * <p>Sized for {@code capacity} keys at the false-positive rate {@code fpp}: m = -n ln p / (ln 2)^2 bits,
 * k = (m / n) ln 2 hashes, derived from one 64-bit hash of the key's UTF-8 bytes by double hashing. Past its capacity
 * the rate degrades, so the owner rebuilds it larger ({@link #overfull}). The rate depends on the bits set, not on how
 * often a key was given, so only a key that sets at least one new bit counts towards the capacity: a table whose
 * existing keys are upserted again and again does not outgrow its filter. Not thread-safe: committer thread only.
 */
public final class KeyBloom {
    private final long[] words;
    private final long bits;
    private final int hashes;
    private final long capacity;
    private long added;

    private KeyBloom(long bits, int hashes, long capacity) {
        this.words = new long[(int) Math.max(1, (bits + 63) / 64)];
        this.bits = words.length * 64L;
        this.hashes = hashes;
        this.capacity = capacity;
    }

    /** A filter for {@code capacity} keys at false-positive rate {@code fpp}. */
    public static KeyBloom forCapacity(long capacity, double fpp) {
        if (capacity < 1 || !(fpp > 0 && fpp < 1)) {
            throw new IllegalArgumentException("capacity " + capacity + ", fpp " + fpp);
        }
        long m = (long) Math.ceil(-capacity * Math.log(fpp) / (Math.log(2) * Math.log(2)));
        if (m > (long) Integer.MAX_VALUE * 64) {
            throw new IllegalArgumentException("a filter for " + capacity + " keys needs " + m + " bits");
        }
        int k = Math.max(1, (int) Math.round((double) m / capacity * Math.log(2)));
        return new KeyBloom(m, k, capacity);
    }

    void add(String key) {
        long h = hash(key);
        long h1 = h;
        long h2 = mix(h ^ 0x9E3779B97F4A7C15L) | 1;
        long setNew = 0;
        for (int i = 0; i < hashes; i++) {
            long bit = Long.remainderUnsigned(h1 + i * h2, bits);
            int w = (int) (bit >>> 6);
            long before = words[w];
            words[w] = before | (1L << bit);
            setNew |= ~before & (1L << bit);
        }
        if (setNew != 0) {
            added++;
        }
    }

    boolean mightContain(String key) {
        long h = hash(key);
        long h1 = h;
        long h2 = mix(h ^ 0x9E3779B97F4A7C15L) | 1;
        for (int i = 0; i < hashes; i++) {
            long bit = Long.remainderUnsigned(h1 + i * h2, bits);
            if ((words[(int) (bit >>> 6)] & (1L << bit)) == 0) {
                return false;
            }
        }
        return true;
    }

    /** Whether more keys set new bits than it was sized for. */
    boolean overfull() {
        return added > capacity;
    }

    /** Keys that set a new bit when added: a key given again, or one that tested positive, is not counted. */
    long added() {
        return added;
    }

    /** The bit array's size in bytes. */
    public long bytes() {
        return words.length * 8L;
    }

    /** FNV-1a over the UTF-8 bytes, finished with a 64-bit mixer. */
    private static long hash(String key) {
        long h = 0xcbf29ce484222325L;
        for (byte b : key.getBytes(StandardCharsets.UTF_8)) {
            h ^= b & 0xff;
            h *= 0x100000001b3L;
        }
        return mix(h);
    }

    /** The finaliser of MurmurHash3 (fmix64). */
    private static long mix(long z) {
        z = (z ^ (z >>> 33)) * 0xff51afd7ed558ccdL;
        z = (z ^ (z >>> 33)) * 0xc4ceb9fe1a85ec53L;
        return z ^ (z >>> 33);
    }
}
