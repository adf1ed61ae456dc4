package io.palisade.benchmarks;

import java.nio.charset.StandardCharsets;
import java.util.Collection;

/**
 * The peer of {@link io.palisade.fencing.KeyFilter} in the issue-2 benchmark: a split-block Bloom
 * filter (SBBF) with Lance's upstream parameters, as used by Lance's {@code KeyExistenceFilter} for
 * merge-insert conflict detection.
 *
 * <ul>
 *   <li>Parquet SBBF layout: blocks of 256 bits = eight 32-bit words; a key sets exactly one bit in
 *       each of the eight words of one block (8 bits per key), the bit chosen by the low 32 bits of
 *       the hash times one of 8 salt constants, the block by the high 32 bits.</li>
 *   <li>Hash: xxHash64, seed 0, of the key's bytes (UTF-8 for strings, 8 little-endian bytes for
 *       Int64 keys), as upstream's {@code KeyValue::to_bytes} + {@code XxHash64::oneshot}.</li>
 *   <li>Size: upstream always builds the filter for 8192 items at false-positive probability
 *       0.00057; the Parquet/Putze sizing ({@link #minLog2Bytes}) rounds that to 2^15 bytes = 32 KiB,
 *       whatever the number of keys actually inserted. {@link #lanceDefault()} mirrors that.</li>
 *   <li>Conflict: two filters conflict when their bitsets share any set bit (upstream
 *       {@code Sbbf::bytes_might_intersect}). That has no false negatives, but false conflicts.</li>
 * </ul>
 * Not thread-safe while being built.
 */
public final class SplitBlockBloomFilter {

    /** Upstream {@code BLOOM_FILTER_DEFAULT_NUMBER_OF_ITEMS}. */
    public static final long LANCE_DEFAULT_ITEMS = 8192;
    /** Upstream {@code BLOOM_FILTER_DEFAULT_PROBABILITY}. */
    public static final double LANCE_DEFAULT_FPP = 0.00057;
    /** The size upstream's sizing gives for its defaults: 2^15 bytes = 32 KiB (262,144 bits). */
    public static final int LANCE_DEFAULT_BYTES =
            1 << Math.max(5, Math.min(27, minLog2Bytes(LANCE_DEFAULT_ITEMS, LANCE_DEFAULT_FPP)));

    /** The Parquet spec's salt constants. */
    private static final int[] SALT = {
        0x47b6137b, 0x44974d91, 0x8824ad5b, 0xa2b7289d, 0x705495c7, 0x2df1424b, 0x9efc4947, 0x5c6bfb31
    };

    private final int[] words;   // block i is words[8i .. 8i+8)
    private final int blocks;

    /** An empty filter of {@code bytes} bytes (a positive multiple of 32). */
    public SplitBlockBloomFilter(int bytes) {
        if (bytes <= 0 || bytes % 32 != 0) {
            throw new IllegalArgumentException("SBBF size must be a positive multiple of 32 bytes: " + bytes);
        }
        this.words = new int[bytes / 4];
        this.blocks = bytes / 32;
    }

    /** An empty filter of Lance's default size (32 KiB), the same at every key count, as upstream. */
    public static SplitBlockBloomFilter lanceDefault() {
        return new SplitBlockBloomFilter(LANCE_DEFAULT_BYTES);
    }

    public static SplitBlockBloomFilter ofStrings(Collection<String> keys) {
        SplitBlockBloomFilter f = lanceDefault();
        for (String k : keys) {
            f.insert(k);
        }
        return f;
    }

    public static SplitBlockBloomFilter ofLongs(long[] keys) {
        SplitBlockBloomFilter f = lanceDefault();
        for (long k : keys) {
            f.insert(k);
        }
        return f;
    }

    public void insert(String key) {
        insertHash(XxHash64.hash(key.getBytes(StandardCharsets.UTF_8)));
    }

    public void insert(long key) {
        insertHash(XxHash64.hashLong(key));
    }

    public boolean mightContain(String key) {
        return checkHash(XxHash64.hash(key.getBytes(StandardCharsets.UTF_8)));
    }

    public boolean mightContain(long key) {
        return checkHash(XxHash64.hashLong(key));
    }

    public void insertHash(long hash) {
        int base = blockIndex(hash) * 8;
        int x = (int) hash;
        for (int i = 0; i < 8; i++) {
            words[base + i] |= 1 << ((x * SALT[i]) >>> 27);
        }
    }

    public boolean checkHash(long hash) {
        int base = blockIndex(hash) * 8;
        int x = (int) hash;
        for (int i = 0; i < 8; i++) {
            if ((words[base + i] & (1 << ((x * SALT[i]) >>> 27))) == 0) {
                return false;
            }
        }
        return true;
    }

    private int blockIndex(long hash) {
        // ((hash >> 32) * num_blocks) >> 32, as upstream (the product of two values < 2^32 fits in 64 bits)
        return (int) (((hash >>> 32) * blocks) >>> 32);
    }

    /** Upstream's conflict test: whether the two bitsets share any set bit. Both must have the same size. */
    public boolean mightIntersect(SplitBlockBloomFilter other) {
        if (other.words.length != words.length) {
            throw new IllegalArgumentException("cannot compare Bloom filters of " + words.length * 4 + " and "
                    + other.words.length * 4 + " bytes");
        }
        int[] a = words;
        int[] b = other.words;
        for (int i = 0; i < a.length; i++) {
            if ((a[i] & b[i]) != 0) {
                return true;
            }
        }
        return false;
    }

    public int sizeBytes() {
        return words.length * 4;
    }

    /** Number of set bits (for reporting the fill of the filter). */
    public int bitCount() {
        int c = 0;
        for (int w : words) {
            c += Integer.bitCount(w);
        }
        return c;
    }

    // ------------------------------------------------------------------ upstream sizing

    /**
     * The smallest power-of-two byte size whose SBBF false-positive probability for {@code ndv} items is
     * at most {@code fpp}: Putze et al., "Cache-, hash- and space-efficient Bloom filters", eq. 3, as
     * in the Parquet SBBF and Lance's {@code min_log2_bytes} (unclamped; upstream clamps the result to
     * [2^5, 2^27] bytes when it allocates).
     */
    public static int minLog2Bytes(long ndv, double fpp) {
        int low = 0;
        int high = 64;
        while (high > low + 1) {
            int mid = (high + low) / 2;
            if (falsePositiveProbability(ndv, mid) <= fpp) {
                high = mid;
            } else {
                low = mid;
            }
        }
        return high;
    }

    /** Putze eq. 3: the false-positive probability of a {@code 2^log2Bytes}-byte SBBF holding {@code ndv} items. */
    public static double falsePositiveProbability(long ndv, int log2Bytes) {
        final double wordBits = 32;
        final double bucketWords = 8;
        double bits = Math.pow(2, log2Bytes) * 8;
        if (ndv == 0) {
            return 0;
        }
        if (ndv / bits > 2) {
            return 1;
        }
        double lam = bucketWords * wordBits / (bits / ndv);
        double logLam = Math.log(lam);
        final int iters = 750;
        double[] logFact = new double[iters + 1];
        for (int i = 1; i <= iters; i++) {
            logFact[i] = logFact[i - 1] + Math.log(i);
        }
        double result = 0;
        for (int i = iters - 1; i >= 0; i--) {
            double logp = i * logLam - lam - logFact[i];
            double logInner = bucketWords * Math.log(1 - Math.pow(1 - 1 / wordBits, i));
            result += Math.exp(logp + logInner);
        }
        return Math.min(1, result);
    }
}
