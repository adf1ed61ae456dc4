package io.palisade.benchmarks;

import io.palisade.fencing.KeyFilter;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * The false-conflict harness: for random pairs of disjoint key sets of a given size, how often
 * does each filter claim a conflict? Palisade's exact {@link KeyFilter} must say 0; the Lance-style
 * {@link SplitBlockBloomFilter} (32 KiB, "conflict" = any shared bit) says what it says.
 *
 * <p>Every pair is also checked in an overlapping variant (the second set plus one key of the first):
 * both filters must report that conflict (a miss is a correctness bug, counted in the table).
 *
 * <p>Deterministic: the key sets come from {@link SplittableRandom} with a fixed seed. Usage:
 * {@code FalseConflictRate [seed]}; prints a markdown table on stdout.
 */
public final class FalseConflictRate {

    public static final long DEFAULT_SEED = 0x5A11_5ADEL;
    static final int FIELD_ID = 1;

    /** Key kinds: strings {@code node-<n>} (Utf8 keys), or random 64-bit integers (Int64 keys). */
    public enum KeyKind {
        STRING,
        LONG
    }

    /** The outcome for one (key kind, set size). */
    public record Result(KeyKind kind, int keys, int pairs, int bloomFalseConflicts, int exactFalseConflicts,
                         int bloomMissedConflicts, int exactMissedConflicts, double meanBloomFill) {
        public double bloomRate() {
            return (double) bloomFalseConflicts / pairs;
        }

        public double exactRate() {
            return (double) exactFalseConflicts / pairs;
        }
    }

    private FalseConflictRate() {
    }

    /** Runs {@code pairs} random disjoint pairs of {@code keys}-key sets (and their overlapping variants). */
    public static Result run(KeyKind kind, int keys, int pairs, long seed) {
        SplittableRandom rnd = new SplittableRandom(seed ^ ((long) keys << 20) ^ kind.ordinal());
        int bloomFalse = 0;
        int exactFalse = 0;
        int bloomMissed = 0;
        int exactMissed = 0;
        double fill = 0;
        for (int p = 0; p < pairs; p++) {
            boolean bloomConflict;
            boolean exactConflict;
            boolean bloomOverlap;
            boolean exactOverlap;
            SplitBlockBloomFilter bloomA;
            if (kind == KeyKind.STRING) {
                List<String> all = distinctStrings(rnd, 2 * keys);
                List<String> a = all.subList(0, keys);
                List<String> b = new ArrayList<>(all.subList(keys, 2 * keys));
                bloomA = SplitBlockBloomFilter.ofStrings(a);
                KeyFilter exactA = KeyFilter.ofStrings(FIELD_ID, a);
                bloomConflict = bloomA.mightIntersect(SplitBlockBloomFilter.ofStrings(b));
                exactConflict = exactA.intersects(KeyFilter.ofStrings(FIELD_ID, b));
                b.set(rnd.nextInt(keys), a.get(rnd.nextInt(keys)));   // overlapping variant: share one key
                bloomOverlap = bloomA.mightIntersect(SplitBlockBloomFilter.ofStrings(b));
                exactOverlap = exactA.intersects(KeyFilter.ofStrings(FIELD_ID, b));
            } else {
                long[] all = distinctLongs(rnd, 2 * keys);
                long[] a = Arrays.copyOfRange(all, 0, keys);
                long[] b = Arrays.copyOfRange(all, keys, 2 * keys);
                bloomA = SplitBlockBloomFilter.ofLongs(a);
                KeyFilter exactA = KeyFilter.ofLongs(FIELD_ID, a);
                bloomConflict = bloomA.mightIntersect(SplitBlockBloomFilter.ofLongs(b));
                exactConflict = exactA.intersects(KeyFilter.ofLongs(FIELD_ID, b));
                b[rnd.nextInt(keys)] = a[rnd.nextInt(keys)];
                bloomOverlap = bloomA.mightIntersect(SplitBlockBloomFilter.ofLongs(b));
                exactOverlap = exactA.intersects(KeyFilter.ofLongs(FIELD_ID, b));
            }
            fill += (double) bloomA.bitCount() / (bloomA.sizeBytes() * 8.0);
            bloomFalse += bloomConflict ? 1 : 0;
            exactFalse += exactConflict ? 1 : 0;
            bloomMissed += bloomOverlap ? 0 : 1;
            exactMissed += exactOverlap ? 0 : 1;
        }
        return new Result(kind, keys, pairs, bloomFalse, exactFalse, bloomMissed, exactMissed, fill / pairs);
    }

    /** {@code n} distinct keys {@code node-<r>}, r uniform in [0, 10^12), in random order. */
    static List<String> distinctStrings(SplittableRandom rnd, int n) {
        Set<String> seen = new HashSet<>(n * 2);
        List<String> out = new ArrayList<>(n);
        while (out.size() < n) {
            String k = "node-" + rnd.nextLong(1_000_000_000_000L);
            if (seen.add(k)) {
                out.add(k);
            }
        }
        return out;
    }

    /** {@code n} distinct uniformly random 64-bit keys, in random order. */
    static long[] distinctLongs(SplittableRandom rnd, int n) {
        Set<Long> seen = new HashSet<>(n * 2);
        long[] out = new long[n];
        int i = 0;
        while (i < n) {
            long k = rnd.nextLong();
            if (seen.add(k)) {
                out[i++] = k;
            }
        }
        return out;
    }

    /**
     * A pairwise model of the any-shared-bit test for two disjoint sets of {@code n} keys each in an
     * {@code mBits}-bit SBBF: keys a and b share a bit only if they land in the same block (probability
     * {@code 1/blocks}) and then collide in at least one of the block's 8 words (probability
     * {@code 1 - (31/32)^8}); treating the {@code n^2} pairs as independent,
     * P(conflict) = 1 - (1 - (1 - (31/32)^8) / blocks)^(n^2).
     */
    public static double modelRate(int n, int mBits) {
        double blocks = mBits / 256.0;
        double pairShares = -Math.expm1(8 * Math.log1p(-1.0 / 32)) / blocks;
        return -Math.expm1((double) n * n * Math.log1p(-pairShares));
    }

    public static void main(String[] args) {
        long seed = args.length > 0 ? Long.decode(args[0]) : DEFAULT_SEED;
        int[][] plan = {{20, 2000}, {100, 2000}, {1000, 200}, {100_000, 20}};
        int mBits = SplitBlockBloomFilter.LANCE_DEFAULT_BYTES * 8;
        System.out.printf(Locale.ROOT, "Bloom: SBBF %d bytes (%d bits), 8 bits set per key, xxHash64 seed 0; "
                + "conflict = any shared set bit. Seed %s. Java %s.%n%n",
                SplitBlockBloomFilter.LANCE_DEFAULT_BYTES, mBits, Long.toHexString(seed), Runtime.version());
        System.out.println("| keys per set | key type | disjoint pairs | Bloom false-conflict rate | Bloom model (pairwise) | "
                + "exact false-conflict rate | Bloom bits set (mean fill) | missed overlaps Bloom / exact |");
        System.out.println("|---:|---|---:|---:|---:|---:|---:|---:|");
        boolean exactBug = false;
        for (int[] row : plan) {
            for (KeyKind kind : KeyKind.values()) {
                Result r = run(kind, row[0], row[1], seed);
                System.out.printf(Locale.ROOT, "| %,d | %s | %,d | %.4f (%d/%d) | %.4f | %.4f (%d/%d) | %.2f%% | %d / %d |%n",
                        r.keys(), kind == KeyKind.STRING ? "Utf8" : "Int64", r.pairs(),
                        r.bloomRate(), r.bloomFalseConflicts(), r.pairs(), modelRate(r.keys(), mBits),
                        r.exactRate(), r.exactFalseConflicts(), r.pairs(), 100 * r.meanBloomFill(),
                        r.bloomMissedConflicts(), r.exactMissedConflicts());
                exactBug |= r.exactFalseConflicts() != 0 || r.exactMissedConflicts() != 0 || r.bloomMissedConflicts() != 0;
            }
        }
        if (exactBug) {
            System.out.println();
            System.out.println("BUG: a non-zero exact false-conflict count or a missed overlap (see the table).");
            System.exit(1);
        }
    }
}
