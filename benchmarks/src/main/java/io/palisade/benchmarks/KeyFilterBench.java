package io.palisade.benchmarks;

import io.palisade.fencing.KeyFilter;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;

/**
 * Build + intersect of Palisade's exact {@link KeyFilter} side by side with a Lance-style
 * split-block Bloom filter ({@link SplitBlockBloomFilter}, fixed 32 KiB, conflict = any shared bit).
 *
 * <p>Both sides start from the same Java keys: a {@code List<String>} of {@code node-<n>} (Utf8) or a
 * {@code long[]} (Int64), in a shuffled / pseudo-random order so that the exact filter's sort does
 * real work. The intersected pair is disjoint (A = keys 0..size-1, B = keys size..2*size-1), which
 * is the exact filter's worst case (a full merge walk). The Bloom pair shares set bits at every
 * size here, so {@link #bloomIntersect} exits at the first shared word, as upstream's loop does;
 * {@link #bloomIntersectNoSharedBit} is the other extreme: a full scan of the 32 KiB against an
 * empty filter (independent of size).
 *
 * <p>Run: {@code bin/bench KeyFilterBench -f 1 -wi 2 -i 3 -w 1s -r 2s}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class KeyFilterBench {

    public enum KeyType { UTF8, INT64 }

    @Param({"1000", "100000", "1000000"})
    public int size;

    @Param({"UTF8", "INT64"})
    public KeyType keyType;

    private List<String> stringsA;
    private List<String> stringsB;
    private long[] longsA;
    private long[] longsB;

    private KeyFilter exactA;
    private KeyFilter exactB;
    private SplitBlockBloomFilter bloomA;
    private SplitBlockBloomFilter bloomB;
    private SplitBlockBloomFilter bloomEmpty;

    @Setup
    public void setup() {
        if (keyType == KeyType.UTF8) {
            stringsA = nodeKeys(0, size, 1);
            stringsB = nodeKeys(size, 2 * size, 2);
            exactA = KeyFilter.ofStrings(FalseConflictRate.FIELD_ID, stringsA);
            exactB = KeyFilter.ofStrings(FalseConflictRate.FIELD_ID, stringsB);
            bloomA = SplitBlockBloomFilter.ofStrings(stringsA);
            bloomB = SplitBlockBloomFilter.ofStrings(stringsB);
        } else {
            longsA = mixedLongs(0, size);
            longsB = mixedLongs(size, 2 * size);
            exactA = KeyFilter.ofLongs(FalseConflictRate.FIELD_ID, longsA);
            exactB = KeyFilter.ofLongs(FalseConflictRate.FIELD_ID, longsB);
            bloomA = SplitBlockBloomFilter.ofLongs(longsA);
            bloomB = SplitBlockBloomFilter.ofLongs(longsB);
        }
        bloomEmpty = SplitBlockBloomFilter.lanceDefault();
        if (exactA.intersects(exactB)) {
            throw new IllegalStateException("BUG: exact filters over disjoint key sets conflict: " + exactA.overlap(exactB));
        }
    }

    /** {@code node-<from>} .. {@code node-<to - 1>}, shuffled with a fixed seed. */
    static List<String> nodeKeys(int from, int to, long seed) {
        List<String> keys = new ArrayList<>(to - from);
        for (int i = from; i < to; i++) {
            keys.add("node-" + i);
        }
        Collections.shuffle(keys, new Random(seed));
        return keys;
    }

    /** mix(from) .. mix(to - 1), where mix (the SplitMix64 finalizer) is a bijection: distinct, pseudo-random order. */
    static long[] mixedLongs(int from, int to) {
        long[] keys = new long[to - from];
        for (int i = from; i < to; i++) {
            long z = i * 0x9E3779B97F4A7C15L;
            z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
            z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
            keys[i - from] = z ^ (z >>> 31);
        }
        return keys;
    }

    @Benchmark
    public KeyFilter exactBuild() {
        return keyType == KeyType.UTF8
                ? KeyFilter.ofStrings(FalseConflictRate.FIELD_ID, stringsA)
                : KeyFilter.ofLongs(FalseConflictRate.FIELD_ID, longsA);
    }

    @Benchmark
    public boolean exactIntersect() {
        return exactA.intersects(exactB);
    }

    @Benchmark
    public SplitBlockBloomFilter bloomBuild() {
        return keyType == KeyType.UTF8
                ? SplitBlockBloomFilter.ofStrings(stringsA)
                : SplitBlockBloomFilter.ofLongs(longsA);
    }

    @Benchmark
    public boolean bloomIntersect() {
        return bloomA.mightIntersect(bloomB);
    }

    @Benchmark
    public boolean bloomIntersectNoSharedBit() {
        return bloomA.mightIntersect(bloomEmpty);
    }
}
