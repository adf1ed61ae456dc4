package io.palisade.benchmarks;

import io.palisade.benchmarks.FalseConflictRate.KeyKind;
import io.palisade.benchmarks.FalseConflictRate.Result;
import io.palisade.fencing.KeyFilter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

/** The issue-2 harness at tiny sizes: behaviour only, never timings. */
class FalseConflictRateTest {

    @ParameterizedTest
    @EnumSource(KeyKind.class)
    void exactFiltersNeverConflictOnDisjointSetsAndNoFilterMissesAnOverlap(KeyKind kind) {
        Result r = FalseConflictRate.run(kind, 20, 50, FalseConflictRate.DEFAULT_SEED);

        assertThat(r.pairs()).isEqualTo(50);
        assertThat(r.exactFalseConflicts()).as("exact false conflicts").isZero();
        assertThat(r.exactMissedConflicts()).as("exact missed conflicts").isZero();
        assertThat(r.bloomMissedConflicts()).as("Bloom missed conflicts (false negatives)").isZero();
    }

    @Test
    void bloomReportsAConflictForEveryOverlappingPair() {
        SplittableRandom rnd = new SplittableRandom(7);
        for (int pair = 0; pair < 200; pair++) {
            List<String> all = FalseConflictRate.distinctStrings(rnd, 40);
            List<String> a = all.subList(0, 20);
            List<String> b = new ArrayList<>(all.subList(20, 40));
            b.set(rnd.nextInt(20), a.get(rnd.nextInt(20)));

            assertThat(SplitBlockBloomFilter.ofStrings(a).mightIntersect(SplitBlockBloomFilter.ofStrings(b))).isTrue();
            assertThat(KeyFilter.ofStrings(FalseConflictRate.FIELD_ID, a)
                    .intersects(KeyFilter.ofStrings(FalseConflictRate.FIELD_ID, b))).isTrue();

            long[] la = FalseConflictRate.distinctLongs(rnd, 20);
            long[] lb = FalseConflictRate.distinctLongs(rnd, 20);
            lb[rnd.nextInt(20)] = la[rnd.nextInt(20)];
            assertThat(SplitBlockBloomFilter.ofLongs(la).mightIntersect(SplitBlockBloomFilter.ofLongs(lb))).isTrue();
        }
    }

    @Test
    void bloomHasNoFalseNegativesOnMembership() {
        List<String> keys = FalseConflictRate.distinctStrings(new SplittableRandom(3), 10_000);
        SplitBlockBloomFilter f = SplitBlockBloomFilter.ofStrings(keys);
        assertThat(keys).allMatch(f::mightContain);
    }

    @Test
    void bloomFiltersOverDisjointSetsDoFalselyConflictAtLargeSizes() {
        // 1,000 keys set ~8,000 of 262,144 bits each: sharing none is astronomically unlikely.
        Result r = FalseConflictRate.run(KeyKind.STRING, 1000, 5, FalseConflictRate.DEFAULT_SEED);
        assertThat(r.bloomFalseConflicts()).isEqualTo(5);
        assertThat(r.exactFalseConflicts()).isZero();
    }

    @Test
    void emptyFiltersDoNotConflict() {
        assertThat(SplitBlockBloomFilter.lanceDefault().mightIntersect(SplitBlockBloomFilter.lanceDefault())).isFalse();
    }

    @Test
    void lanceDefaultSizingIs32KiB() {
        // 8192 items at fpp 0.00057: 16 KiB gives ~0.0013 > 0.00057, so the next power of two, 32 KiB.
        assertThat(SplitBlockBloomFilter.minLog2Bytes(8192, 0.00057)).isEqualTo(15);
        assertThat(SplitBlockBloomFilter.LANCE_DEFAULT_BYTES).isEqualTo(32 * 1024);
        assertThat(SplitBlockBloomFilter.falsePositiveProbability(8192, 14)).isGreaterThan(0.00057);
        assertThat(SplitBlockBloomFilter.falsePositiveProbability(8192, 15)).isLessThanOrEqualTo(0.00057);
    }

    @Test
    void sizingMatchesUpstreamTestVectors() {
        // (fpp, ndv, log2 bytes) from upstream's test_num_of_bits_from_ndv_fpp
        double[][] vectors = {
            {0.1, 10, 3}, {0.01, 10, 4}, {0.001, 10, 5}, {0.1, 100, 7}, {0.01, 100, 8}, {0.001, 100, 8},
            {0.1, 1000, 10}, {0.01, 1000, 11}, {0.001, 1000, 12},
        };
        for (double[] v : vectors) {
            assertThat(SplitBlockBloomFilter.minLog2Bytes((long) v[1], v[0])).as("ndv %s fpp %s", v[1], v[0])
                    .isEqualTo((int) v[2]);
        }
    }

    @Test
    void modelMatchesTheObviousLimits() {
        int m = SplitBlockBloomFilter.LANCE_DEFAULT_BYTES * 8;
        assertThat(FalseConflictRate.modelRate(0, m)).isZero();
        assertThat(FalseConflictRate.modelRate(100_000, m)).isGreaterThan(0.999999);
    }
}
