package io.palisade.coordinator.internal;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.lists;
import static org.quicktheories.generators.SourceDSL.strings;

/**
 * The journal-ack tables' negative key filter: no false negatives, the false-positive rate it is sized for, and a
 * capacity counted in keys that set new bits, so repeated keys do not make it overfull.
 */
class KeyBloomTest {

    @Test
    void everyKeyGivenTestsPositive() {
        qt().withExamples(200)
                .forAll(lists().of(strings().allPossible().ofLengthBetween(0, 40)).ofSizeBetween(1, 300))
                .checkAssert(keys -> {
                    KeyBloom f = KeyBloom.forCapacity(keys.size(), KeyPresence.FPP);
                    keys.forEach(f::add);
                    assertThat(keys).allMatch(f::mightContain);
                });
    }

    @Test
    void falsePositiveRateAtCapacityIsTheRateItWasSizedFor() {
        double rate = rateOfNewKeys(filled(200_000, 1, 200_000), 2, 2_000_000);
        // Binomial spread at 2M probes and p = 1e-4 is about 7 % of p; a wrong size or hash count moves it by far more.
        assertThat(rate).isBetween(KeyPresence.FPP * 0.5, KeyPresence.FPP * 1.5);
    }

    @Test
    void overfilledTwiceTheRateIsWhatTheBlockedModelExpects() {
        int n = 100_000;
        KeyBloom f = filled(n, 4, 2 * n);
        double expected = KeyBloom.expectedRate(f.bytes() * 8.0 / (2 * n), f.hashes());
        // about 0.87 % at 11 bits a key: 8,700 positives expected, a binomial spread of about 1 %
        assertThat(rateOfNewKeys(f, 5, 1_000_000)).isBetween(expected * 0.8, expected * 1.2);
    }

    /** A filter for {@code capacity} keys given {@code count} keys of stream {@code seed}. */
    private static KeyBloom filled(int capacity, int seed, int count) {
        KeyBloom f = KeyBloom.forCapacity(capacity, KeyPresence.FPP);
        for (String k : keys(seed, count)) {
            f.add(k);
        }
        return f;
    }

    /** The share of {@code probes} keys of stream {@code seed} (never given to {@code f}) that test positive. */
    private static double rateOfNewKeys(KeyBloom f, int seed, int probes) {
        int positives = 0;
        for (String k : keys(seed, probes)) {
            if (f.mightContain(k)) {
                positives++;
            }
        }
        return (double) positives / probes;
    }

    @Test
    void aFilterForOneHundredthOfAPercentTakesAboutTwentyTwoBitsAKey() {
        KeyBloom f = KeyBloom.forCapacity(1_000_000, KeyPresence.FPP);
        assertThat(f.bytes() * 8.0 / 1_000_000).isBetween(21.0, 23.0);
        assertThat(KeyBloom.expectedRate(f.bytes() * 8.0 / 1_000_000, f.hashes())).isLessThanOrEqualTo(KeyPresence.FPP);
        assertThat(KeyBloom.forCapacity(1, 0.5).bytes()).isEqualTo(64); // one block
    }

    @Test
    void aKeyHashesAsItsUtf8BytesWhetherOrNotItIsAscii() {
        qt().withExamples(300).forAll(strings().allPossible().ofLengthBetween(0, 30), strings().ascii()
                .ofLengthBetween(0, 30)).checkAssert((any, ascii) -> List.of(any, ascii).forEach(key -> {
            long h = 0xcbf29ce484222325L;
            for (byte b : key.getBytes(java.nio.charset.StandardCharsets.UTF_8)) {
                h ^= b & 0xff;
                h *= 0x100000001b3L;
            }
            long z = h;
            z = (z ^ (z >>> 33)) * 0xff51afd7ed558ccdL;
            z = (z ^ (z >>> 33)) * 0xc4ceb9fe1a85ec53L;
            assertThat(KeyBloom.hash(key)).isEqualTo(z ^ (z >>> 33));
        }));
        assertThat(KeyBloom.hash("k-42")).isNotEqualTo(KeyBloom.hash("k-43"));
    }

    @Test
    void repeatedKeysDoNotCountTowardsTheCapacity() {
        List<String> keys = keys(3, 1_000);
        KeyBloom f = KeyBloom.forCapacity(1_000, KeyPresence.FPP);
        keys.forEach(f::add);
        long once = f.added();
        assertThat(once).isBetween(990L, 1_000L); // a new key that already tests positive sets no bit
        assertThat(f.overfull()).isFalse();
        for (int round = 0; round < 5; round++) {
            keys.forEach(f::add);
        }
        assertThat(f.added()).isEqualTo(once);
        assertThat(f.overfull()).isFalse();
        keys(4, 100).forEach(f::add);
        assertThat(f.overfull()).isTrue();
    }

    @Test
    void refusesAnImpossibleSize() {
        assertThatThrownBy(() -> KeyBloom.forCapacity(0, KeyPresence.FPP)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> KeyBloom.forCapacity(10, 1.0)).isInstanceOf(IllegalArgumentException.class);
    }

    private static List<String> keys(long seed, int n) {
        SplittableRandom r = new SplittableRandom(seed);
        List<String> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            out.add("k" + seed + "-" + r.nextLong());
        }
        return out;
    }
}
