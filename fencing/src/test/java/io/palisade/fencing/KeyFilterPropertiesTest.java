package io.palisade.fencing;

import io.palisade.fencing.conflict.ActionGens;
import org.junit.jupiter.api.Test;
import org.quicktheories.api.Pair;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;

import static io.palisade.fencing.KeyFilterTestSupport.intersection;
import static io.palisade.fencing.KeyFilterTestSupport.randomLongs;
import static io.palisade.fencing.KeyFilterTestSupport.randomStrings;
import static io.palisade.fencing.KeyFilterTestSupport.sortedLongKeys;
import static io.palisade.fencing.KeyFilterTestSupport.sortedStringKeys;
import static io.palisade.fencing.KeyFilterTestSupport.toArray;
import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.arbitrary;
import static org.quicktheories.generators.SourceDSL.booleans;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;
import static org.quicktheories.generators.SourceDSL.longs;
import static org.quicktheories.generators.SourceDSL.strings;

/**
 * Properties of the exact key filter: no false conflicts for disjoint key sets up to 100k
 * keys, every overlap detected and counted, encoding round trips, union and symmetry.
 */
class KeyFilterPropertiesTest {

    private static final int ID = 0;

    // ------------------------------------------------------------------ (a) no false conflicts

    @Test
    void disjointRandomLongSetsNeverConflict() {
        qt().withExamples(20).forAll(integers().between(0, 100_000), integers().between(0, 100_000), longs().all())
                .checkAssert(KeyFilterPropertiesTest::disjointRandomLongSetsNeverConflict);
    }

    private static void disjointRandomLongSetsNeverConflict(int sizeA, int sizeB, long seed) {
        Random rnd = new Random(seed);
        Set<Long> a = randomLongs(rnd, sizeA, Set.of());
        Set<Long> b = randomLongs(rnd, sizeB, a);
        assertDisjoint(KeyFilter.ofLongs(ID, toArray(a)), KeyFilter.ofLongs(ID, toArray(b)));
    }

    @Test
    void disjointInterleavedLongSetsNeverConflict() {
        qt().withExamples(20).forAll(integers().between(0, 100_000), longs().all(), longs().all())
                .checkAssert(KeyFilterPropertiesTest::disjointInterleavedLongSetsNeverConflict);
    }

    private static void disjointInterleavedLongSetsNeverConflict(int size, long base, long seed) {
        // every key of the range goes to exactly one side: neighbours (k, k+1) land on different sides
        Random rnd = new Random(seed);
        List<Long> a = new ArrayList<>();
        List<Long> b = new ArrayList<>();
        for (int i = 0; i < 2 * size; i++) {
            (rnd.nextBoolean() ? a : b).add(base + i);
        }
        assertDisjoint(KeyFilter.ofLongs(ID, toArray(a)), KeyFilter.ofLongs(ID, toArray(b)));
    }

    @Test
    void disjointRandomStringSetsNeverConflict() {
        qt().withExamples(20).forAll(integers().between(0, 100_000), integers().between(0, 100_000), longs().all())
                .checkAssert(KeyFilterPropertiesTest::disjointRandomStringSetsNeverConflict);
    }

    private static void disjointRandomStringSetsNeverConflict(int sizeA, int sizeB, long seed) {
        Random rnd = new Random(seed);
        Set<String> a = randomStrings(rnd, sizeA, Set.of());
        Set<String> b = randomStrings(rnd, sizeB, a);
        assertDisjoint(KeyFilter.ofStrings(ID, a), KeyFilter.ofStrings(ID, b));
    }

    @Test
    void smallFilterAgainstLargeDisjointFilterNeverConflicts() {
        qt().withExamples(20).forAll(integers().between(0, 20), integers().between(1_000, 100_000), longs().all())
                .checkAssert(KeyFilterPropertiesTest::smallFilterAgainstLargeDisjointFilterNeverConflicts);
    }

    private static void smallFilterAgainstLargeDisjointFilterNeverConflicts(int small, int large, long seed) {
        // the size skew selects the binary-search probe instead of the merge walk
        Random rnd = new Random(seed);
        Set<Long> bigLongs = randomLongs(rnd, large, Set.of());
        Set<Long> smallLongs = randomLongs(rnd, small, bigLongs);
        assertDisjoint(KeyFilter.ofLongs(ID, toArray(smallLongs)), KeyFilter.ofLongs(ID, toArray(bigLongs)));
        Set<String> bigStrings = randomStrings(rnd, large, Set.of());
        Set<String> smallStrings = randomStrings(rnd, small, bigStrings);
        assertDisjoint(KeyFilter.ofStrings(ID, smallStrings), KeyFilter.ofStrings(ID, bigStrings));
    }

    @Test
    void disjointGeneratedStringSetsNeverConflict() {
        qt().withExamples(200).forAll(stringKeys(), stringKeys())
                .checkAssert(KeyFilterPropertiesTest::disjointGeneratedStringSetsNeverConflict);
    }

    private static void disjointGeneratedStringSetsNeverConflict(List<String> a, List<String> b) {
        List<String> onlyB = new ArrayList<>(b);
        onlyB.removeAll(new HashSet<>(a));
        assertDisjoint(KeyFilter.ofStrings(ID, a), KeyFilter.ofStrings(ID, onlyB));
    }

    private static void assertDisjoint(KeyFilter a, KeyFilter b) {
        assertThat(a.intersects(b)).isFalse();
        assertThat(b.intersects(a)).isFalse();
        KeyFilter.Overlap ab = a.overlap(b);
        assertThat(ab.kind()).isEqualTo(KeyFilter.Overlap.Kind.DISJOINT);
        assertThat(ab.count()).isZero();
        assertThat(ab.sample()).isEmpty();
        assertThat(ab.conflict()).isFalse();
        assertThat(b.overlap(a).kind()).isEqualTo(KeyFilter.Overlap.Kind.DISJOINT);
    }

    // ------------------------------------------------------------------ (b) every overlap detected

    @Test
    void everyLongOverlapIsDetectedAndCounted() {
        qt().withExamples(300).forAll(denseLongs(), denseLongs(), denseLongs())
                .checkAssert(KeyFilterPropertiesTest::everyLongOverlapIsDetectedAndCounted);
    }

    private static void everyLongOverlapIsDetectedAndCounted(List<Long> a, List<Long> b, List<Long> shared) {
        List<Long> withA = new ArrayList<>(a);
        withA.addAll(shared);
        List<Long> withB = new ArrayList<>(b);
        withB.addAll(shared);
        Set<String> truth = new HashSet<>(intersection(withA, withB).stream().map(String::valueOf).toList());
        assertOverlapIsExact(KeyFilter.ofLongs(ID, toArray(withA)), KeyFilter.ofLongs(ID, toArray(withB)), truth);
    }

    @Test
    void everyStringOverlapIsDetectedAndCounted() {
        qt().withExamples(300).forAll(denseStrings(), denseStrings(), denseStrings())
                .checkAssert(KeyFilterPropertiesTest::everyStringOverlapIsDetectedAndCounted);
    }

    private static void everyStringOverlapIsDetectedAndCounted(List<String> a, List<String> b, List<String> shared) {
        List<String> withA = new ArrayList<>(a);
        withA.addAll(shared);
        List<String> withB = new ArrayList<>(b);
        withB.addAll(shared);
        assertOverlapIsExact(KeyFilter.ofStrings(ID, withA), KeyFilter.ofStrings(ID, withB), intersection(withA, withB));
    }

    @Test
    void injectedSharedKeysAreAllFoundInLargeFilters() {
        qt().withExamples(15)
                .forAll(integers().between(0, 100_000), integers().between(0, 100_000), integers().between(0, 2_000),
                        longs().all())
                .checkAssert(KeyFilterPropertiesTest::injectedSharedKeysAreAllFoundInLargeFilters);
    }

    private static void injectedSharedKeysAreAllFoundInLargeFilters(int sizeA, int sizeB, int sharedCount, long seed) {
        Random rnd = new Random(seed);
        Set<Long> shared = randomLongs(rnd, sharedCount, Set.of());
        Set<Long> a = randomLongs(rnd, sizeA, shared);
        Set<Long> b = randomLongs(rnd, sizeB, shared);
        a.addAll(shared);
        b.addAll(shared);
        Set<String> truth = new HashSet<>(intersection(a, b).stream().map(String::valueOf).toList());
        assertOverlapIsExact(KeyFilter.ofLongs(ID, toArray(a)), KeyFilter.ofLongs(ID, toArray(b)), truth);

        Set<String> sharedS = randomStrings(rnd, sharedCount, Set.of());
        Set<String> as = randomStrings(rnd, sizeA / 4, sharedS);
        Set<String> bs = randomStrings(rnd, sizeB / 4, sharedS);
        as.addAll(sharedS);
        bs.addAll(sharedS);
        assertOverlapIsExact(KeyFilter.ofStrings(ID, as), KeyFilter.ofStrings(ID, bs), intersection(as, bs));
    }

    @Test
    void sharedKeysBetweenSmallAndLargeFiltersAreAllFound() {
        qt().withExamples(20).forAll(integers().between(1, 20), integers().between(1_000, 100_000), longs().all())
                .checkAssert(KeyFilterPropertiesTest::sharedKeysBetweenSmallAndLargeFiltersAreAllFound);
    }

    private static void sharedKeysBetweenSmallAndLargeFiltersAreAllFound(int small, int large, long seed) {
        Random rnd = new Random(seed);
        List<Long> big = new ArrayList<>(randomLongs(rnd, large, Set.of()));
        Set<Long> few = randomLongs(rnd, small, new HashSet<>(big));
        int inject = rnd.nextInt(small + 1);
        for (int i = 0; i < inject; i++) {
            few.add(big.get(rnd.nextInt(big.size())));
        }
        Set<String> truth = new HashSet<>(intersection(few, big).stream().map(String::valueOf).toList());
        assertOverlapIsExact(KeyFilter.ofLongs(ID, toArray(few)), KeyFilter.ofLongs(ID, toArray(big)), truth);
    }

    private static void assertOverlapIsExact(KeyFilter a, KeyFilter b, Set<String> truth) {
        KeyFilter.Overlap ov = a.overlap(b);
        assertThat(ov.count()).isEqualTo(truth.size());
        assertThat(ov.kind()).isEqualTo(truth.isEmpty() ? KeyFilter.Overlap.Kind.DISJOINT : KeyFilter.Overlap.Kind.SHARED_KEYS);
        assertThat(ov.conflict()).isEqualTo(!truth.isEmpty());
        assertThat(a.intersects(b)).isEqualTo(!truth.isEmpty());
        assertThat(b.intersects(a)).isEqualTo(!truth.isEmpty());
        assertThat(ov.sample()).doesNotHaveDuplicates()
                .hasSize(Math.min(KeyFilter.DEFAULT_SAMPLE, truth.size()));
        assertThat(truth).containsAll(ov.sample());
        // (e) symmetry of the count
        assertThat(b.overlap(a).count()).isEqualTo(ov.count());
        // a larger sample names every shared key
        assertThat(a.overlap(b, Integer.MAX_VALUE).sample()).containsExactlyInAnyOrderElementsOf(truth);
        // sample 0 stops at the first shared key
        KeyFilter.Overlap first = a.overlap(b, 0);
        assertThat(first.conflict()).isEqualTo(!truth.isEmpty());
        assertThat(first.count()).isEqualTo(truth.isEmpty() ? 0 : 1);
    }

    // ------------------------------------------------------------------ (c) encoding round trips

    @Test
    void stringFiltersRoundTripThroughTheEncoding() {
        qt().withExamples(300).forAll(stringKeys())
                .checkAssert(KeyFilterPropertiesTest::stringFiltersRoundTripThroughTheEncoding);
    }

    private static void stringFiltersRoundTripThroughTheEncoding(List<String> keys) {
        KeyFilter f = KeyFilter.ofStrings(ID, keys);
        KeyFilter back = KeyFilter.decode(f.encode());
        assertThat(back).isEqualTo(f);
        assertThat(back.hashCode()).isEqualTo(f.hashCode());
        assertThat(back.keys()).isEqualTo(f.keys()).isEqualTo(sortedStringKeys(keys));
        assertThat(back.keyType()).isEqualTo(KeyFilter.KeyType.UTF8);
        assertThat(back.fieldIds()).containsExactly(ID);
        for (String k : keys) {
            assertThat(back.contains(k)).isTrue();
        }
    }

    @Test
    void longFiltersRoundTripThroughTheEncoding() {
        qt().withExamples(300).forAll(longKeys(), integers().between(0, 1_000))
                .checkAssert(KeyFilterPropertiesTest::longFiltersRoundTripThroughTheEncoding);
    }

    private static void longFiltersRoundTripThroughTheEncoding(List<Long> keys, int fieldId) {
        KeyFilter f = KeyFilter.ofLongs(new int[] {fieldId, fieldId + 7}, toArray(keys));
        KeyFilter back = KeyFilter.decode(f.encode());
        assertThat(back).isEqualTo(f);
        assertThat(back.keys()).isEqualTo(f.keys()).isEqualTo(sortedLongKeys(keys));
        assertThat(back.fieldIds()).containsExactly(fieldId, fieldId + 7);
        for (long k : keys) {
            assertThat(back.contains(k)).isTrue();
        }
    }

    @Test
    void largeFiltersRoundTripThroughTheEncoding() {
        qt().withExamples(10).forAll(integers().between(0, 100_000), longs().all())
                .checkAssert(KeyFilterPropertiesTest::largeFiltersRoundTripThroughTheEncoding);
    }

    private static void largeFiltersRoundTripThroughTheEncoding(int size, long seed) {
        Random rnd = new Random(seed);
        KeyFilter longs = KeyFilter.ofLongs(ID, toArray(randomLongs(rnd, size, Set.of())));
        assertThat(KeyFilter.decode(longs.encode())).isEqualTo(longs);
        KeyFilter strings = KeyFilter.ofStrings(ID, randomStrings(rnd, size, Set.of()));
        KeyFilter back = KeyFilter.decode(strings.encode());
        assertThat(back).isEqualTo(strings);
        assertThat(back.keys()).isEqualTo(strings.keys());
    }

    // ------------------------------------------------------------------ (d) union, (e) symmetry

    @Test
    void longUnionIsTheSetUnion() {
        qt().withExamples(300).forAll(longKeys(), longKeys())
                .checkAssert(KeyFilterPropertiesTest::longUnionIsTheSetUnion);
    }

    private static void longUnionIsTheSetUnion(List<Long> a, List<Long> b) {
        Set<Long> all = new HashSet<>(a);
        all.addAll(b);
        KeyFilter u = KeyFilter.ofLongs(ID, toArray(a)).union(KeyFilter.ofLongs(ID, toArray(b)));
        assertThat(u.keys()).isEqualTo(sortedLongKeys(all));
        assertThat(u).isEqualTo(KeyFilter.ofLongs(ID, toArray(all)));
        assertThat(KeyFilter.ofLongs(ID, toArray(b)).union(KeyFilter.ofLongs(ID, toArray(a)))).isEqualTo(u);
    }

    @Test
    void stringUnionIsTheSetUnion() {
        qt().withExamples(200).forAll(stringKeys(), denseStrings())
                .checkAssert(KeyFilterPropertiesTest::stringUnionIsTheSetUnion);
    }

    private static void stringUnionIsTheSetUnion(List<String> a, List<String> b) {
        Set<String> all = new HashSet<>(a);
        all.addAll(b);
        KeyFilter u = KeyFilter.ofStrings(ID, a).union(KeyFilter.ofStrings(ID, b));
        assertThat(u.keys()).isEqualTo(sortedStringKeys(all));
        assertThat(u).isEqualTo(KeyFilter.ofStrings(ID, all));
        assertThat(KeyFilter.ofStrings(ID, b).union(KeyFilter.ofStrings(ID, a))).isEqualTo(u);
        assertThat(KeyFilter.decode(u.encode())).isEqualTo(u);
    }

    @Test
    void overlapIsSymmetric() {
        qt().withExamples(300).forAll(denseLongs(), denseLongs(), denseStrings(), denseStrings())
                .checkAssert(KeyFilterPropertiesTest::overlapIsSymmetric);
    }

    private static void overlapIsSymmetric(List<Long> a, List<Long> b, List<String> c, List<String> d) {
        KeyFilter la = KeyFilter.ofLongs(ID, toArray(a));
        KeyFilter lb = KeyFilter.ofLongs(ID, toArray(b));
        assertThat(la.overlap(lb).count()).isEqualTo(lb.overlap(la).count());
        assertThat(la.overlap(lb).kind()).isEqualTo(lb.overlap(la).kind());
        assertThat(la.intersects(lb)).isEqualTo(lb.intersects(la));
        KeyFilter sc = KeyFilter.ofStrings(ID, c);
        KeyFilter sd = KeyFilter.ofStrings(ID, d);
        assertThat(sc.overlap(sd).count()).isEqualTo(sd.overlap(sc).count());
        assertThat(sc.intersects(sd)).isEqualTo(sd.intersects(sc));
    }

    // ------------------------------------------------------------------ decoding hostile bytes

    @Test
    void mutatedEncodingsAreRejectedOnlyWithValidationException() {
        qt().withExamples(500).forAll(denseStrings(), denseLongs(), booleans().all(), longs().all())
                .checkAssert(KeyFilterPropertiesTest::mutatedEncodingsAreRejectedOnlyWithValidationException);
    }

    private static void mutatedEncodingsAreRejectedOnlyWithValidationException(List<String> keys, List<Long> longs,
                                                                               boolean strings, long seed) {
        byte[] enc = strings ? KeyFilter.ofStrings(ID, keys).encode() : KeyFilter.ofLongs(ID, toArray(longs)).encode();
        Random rnd = new Random(seed);
        int flips = 1 + rnd.nextInt(3);
        for (int i = 0; i < flips; i++) {
            enc[rnd.nextInt(enc.length)] = (byte) rnd.nextInt(256);
        }
        try {
            KeyFilter decoded = KeyFilter.decode(enc);
            // a mutation that still decodes yields a well-formed filter (sorted, distinct keys): it round trips
            assertThat(KeyFilter.decode(decoded.encode())).isEqualTo(decoded);
        } catch (ValidationException expected) {
            // the only permitted failure
        }
    }

    // ------------------------------------------------------------------ generators

    private static final int SURROGATES = Character.MAX_SURROGATE - Character.MIN_SURROGATE + 1;

    /** Strings of up to {@code maxLength} characters drawn from {@code chars}. */
    private static Gen<String> stringsOf(String chars, int minLength, int maxLength) {
        List<Character> alphabet = chars.chars().mapToObj(c -> (char) c).toList();
        return lists().of(arbitrary().pick(alphabet)).ofSizeBetween(minLength, maxLength).map(cs -> {
            StringBuilder sb = new StringBuilder(cs.size());
            cs.forEach(sb::append);
            return sb.toString();
        });
    }

    private static Gen<List<String>> stringKeys() {
        // any code point but a surrogate: the generated index skips the surrogate block
        Gen<Integer> codePoint = integers().between(0, Character.MAX_CODE_POINT - SURROGATES)
                .map(cp -> cp < Character.MIN_SURROGATE ? cp : cp + SURROGATES);
        Gen<String> unicode = lists().of(codePoint).ofSizeBetween(0, 8)
                .map(cps -> cps.stream().collect(StringBuilder::new, StringBuilder::appendCodePoint, StringBuilder::append)
                        .toString());
        Gen<String> ascii = strings().betweenCodePoints(0, 127).ofLengthBetween(0, 12);
        Gen<String> prefixed = integers().between(0, 5_000).map(i -> "node/person/" + i);
        Gen<String> longStrings = stringsOf("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz", 200, 1_000);
        Gen<String> empty = Generate.constant("");
        Gen<String> key = Generate.frequency(List.of(Pair.of(3, unicode), Pair.of(3, ascii), Pair.of(3, prefixed),
                Pair.of(1, longStrings), Pair.of(1, empty)));
        return lists().of(key).ofSizeBetween(0, 100);
    }

    private static Gen<List<Long>> longKeys() {
        return lists().of(ActionGens.oneOf(List.of(longs().all(), longs().between(-1_000, 1_000),
                        arbitrary().pick(List.of(Long.MIN_VALUE, Long.MIN_VALUE + 1, -1L, 0L, 1L, Long.MAX_VALUE - 1,
                                Long.MAX_VALUE)))))
                .ofSizeBetween(0, 300);
    }

    /** Keys from a small domain, so that independent lists share keys by chance too. */
    private static Gen<List<Long>> denseLongs() {
        return lists().of(ActionGens.oneOf(List.of(longs().between(-300, 300),
                        arbitrary().pick(List.of(Long.MIN_VALUE, Long.MAX_VALUE)))))
                .ofSizeBetween(0, 200);
    }

    private static Gen<List<String>> denseStrings() {
        return lists().of(ActionGens.oneOf(List.of(
                        integers().between(0, 300).map(i -> "k" + i),
                        stringsOf("ab\u00e9\u4e2d", 0, 3))))
                .ofSizeBetween(0, 200);
    }
}
