package io.palisade.coordinator.internal;


import java.nio.charset.StandardCharsets;

/**
 * A Bloom filter over key strings: the negative key filter of a journal-ack table (docs/journal-ack.md). A key it has
 * never been given may still test positive (a false positive costs the caller one lookup in the table); a key it has
 * been given always tests positive (no false negative). Keys are never removed: a deleted key stays a possible hit.
 *
 * <p>Blocked (Putze, Sanders and Singler, "Cache-, hash- and space-efficient Bloom filters"): one 64-bit hash of the
 * key's UTF-8 bytes picks a block of 512 bits, one cache line, and a second 64-bit hash gives the key's bits in it, 9
 * bits each. A probe reads one line of memory instead of one per hash. A block holds a Poisson-distributed number of
 * keys, so the filter needs a few more bits a key than a classic one for the same rate: {@link #forCapacity} takes the
 * fewest bits a key, in quarter bits, and the number of bits a key sets, for which the expected rate
 * ({@link #expectedRate}) is at most the one asked for (for 0.01 %: about 22 bits and 13 bits a key).
 *
 * <p>Past its capacity the rate degrades, so the owner rebuilds it larger ({@link #overfull}). The rate depends on
 * the bits set, not on how often a key was given, so only a key that sets at least one new bit counts towards the
 * capacity: a table whose existing keys are upserted again and again does not outgrow its filter. Not thread-safe:
 * committer thread only.
 */
public final class KeyBloom {
    /** Bits in a block: one 64-byte cache line. */
    private static final int BLOCK_BITS = 512;
    private static final int WORDS_PER_BLOCK = BLOCK_BITS / 64;
    /** 9-bit positions one 64-bit hash yields. */
    private static final int POSITIONS_PER_HASH = 7;

    private final long[] words;
    private final int blocks;
    private final int hashes;
    private final long capacity;
    private long added;

    private KeyBloom(int blocks, int hashes, long capacity) {
        this.words = new long[blocks * WORDS_PER_BLOCK];
        this.blocks = blocks;
        this.hashes = hashes;
        this.capacity = capacity;
    }

    /** A filter for {@code capacity} keys at false-positive rate {@code fpp}. */
    public static KeyBloom forCapacity(long capacity, double fpp) {
        if (capacity < 1 || !(fpp > 0 && fpp < 1)) {
            throw new IllegalArgumentException("capacity " + capacity + ", fpp " + fpp);
        }
        // a blocked filter needs at least the bits of a classic one, -ln p / (ln 2)^2 a key, and its best k is near
        // bitsPerKey ln 2, a little below
        double classic = -Math.log(fpp) / (Math.log(2) * Math.log(2));
        for (double bitsPerKey = Math.max(1, Math.floor(classic)); bitsPerKey <= 64; bitsPerKey += 0.25) {
            int near = (int) Math.round(bitsPerKey * Math.log(2));
            for (int k = Math.max(1, near - 5); k <= near + 1; k++) {
                if (expectedRate(bitsPerKey, k) <= fpp) {
                    double blocksNeeded = Math.ceil(capacity * bitsPerKey / BLOCK_BITS);
                    if (blocksNeeded > Integer.MAX_VALUE / WORDS_PER_BLOCK) {
                        throw new IllegalArgumentException("a filter for " + capacity + " keys needs "
                                + (long) (capacity * bitsPerKey) + " bits");
                    }
                    return new KeyBloom((int) Math.max(1, blocksNeeded), k, capacity);
                }
            }
        }
        throw new IllegalArgumentException("no blocked filter of at most 64 bits a key reaches rate " + fpp);
    }

    /**
     * The expected false-positive rate at capacity of a blocked filter with {@code bitsPerKey} bits a key that sets
     * {@code k} bits a key: the keys in a block are Poisson with mean 512 / bitsPerKey, and a block with i keys answers
     * a probe positive with probability (1 - (1 - 1/512)^(k i))^k.
     */
    static double expectedRate(double bitsPerKey, int k) {
        double mean = BLOCK_BITS / bitsPerKey;
        double p = Math.exp(-mean); // P(i = 0)
        double rate = 0;
        int last = (int) Math.ceil(mean + 12 * Math.sqrt(mean) + 20);
        for (int i = 0; i <= last; i++) {
            if (i > 0) {
                p *= mean / i;
            }
            rate += p * Math.pow(1 - Math.pow(1 - 1.0 / BLOCK_BITS, (double) k * i), k);
        }
        return rate;
    }

    void add(String key) {
        long h = hash(key);
        int base = block(h) * WORDS_PER_BLOCK;
        long setNew = 0;
        long bits = positions(h, 0);
        for (int i = 0; i < hashes; i++) {
            if (i > 0 && i % POSITIONS_PER_HASH == 0) {
                bits = positions(h, i / POSITIONS_PER_HASH);
            }
            int bit = (int) (bits & (BLOCK_BITS - 1));
            bits >>>= 9;
            int w = base + (bit >>> 6);
            long mask = 1L << bit;
            setNew |= ~words[w] & mask;
            words[w] |= mask;
        }
        if (setNew != 0) {
            added++;
        }
    }

    boolean mightContain(String key) {
        long h = hash(key);
        int base = block(h) * WORDS_PER_BLOCK;
        long bits = positions(h, 0);
        for (int i = 0; i < hashes; i++) {
            if (i > 0 && i % POSITIONS_PER_HASH == 0) {
                bits = positions(h, i / POSITIONS_PER_HASH);
            }
            int bit = (int) (bits & (BLOCK_BITS - 1));
            bits >>>= 9;
            if ((words[base + (bit >>> 6)] & (1L << bit)) == 0) {
                return false;
            }
        }
        return true;
    }

    /** The block of a key's hash: its high 32 bits scaled to the block count (no division). */
    private int block(long h) {
        return (int) (((h >>> 32) * blocks) >>> 32);
    }

    /** The {@code round}th 64 bits of a key's positions in its block, independent of the block's choice. */
    private static long positions(long h, int round) {
        return mix(h ^ (0x9E3779B97F4A7C15L * (round + 1)));
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

    /** Bits a key sets (tests). */
    int hashes() {
        return hashes;
    }

    /**
     * FNV-1a over the UTF-8 bytes, finished with a 64-bit mixer. An ASCII key's chars are its UTF-8 bytes: hashed
     * without encoding it (the committer hashes every strict-insert key).
     */
    static long hash(String key) {
        long h = 0xcbf29ce484222325L;
        for (int i = 0, n = key.length(); i < n; i++) {
            char c = key.charAt(i);
            if (c >= 0x80) {
                return hashUtf8(key);
            }
            h ^= c;
            h *= 0x100000001b3L;
        }
        return mix(h);
    }

    private static long hashUtf8(String key) {
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
