package io.palisade.fencing;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

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

/**
 * Properties of the exact key filter (issue 2): no false conflicts for disjoint key sets up to 100k
 * keys, every overlap detected and counted, encoding round trips, union and symmetry.
 */
class KeyFilterPropertiesTest {

    private static final int ID = 0;

    // ------------------------------------------------------------------ (a) no false conflicts

    @Property(tries = 20)
    void disjointRandomLongSetsNeverConflict(@ForAll @IntRange(max = 100_000) int sizeA,
                                             @ForAll @IntRange(max = 100_000) int sizeB, @ForAll long seed) {
        Random rnd = new Random(seed);
        Set<Long> a = randomLongs(rnd, sizeA, Set.of());
        Set<Long> b = randomLongs(rnd, sizeB, a);
        assertDisjoint(KeyFilter.ofLongs(ID, toArray(a)), KeyFilter.ofLongs(ID, toArray(b)));
    }

    @Property(tries = 20)
    void disjointInterleavedLongSetsNeverConflict(@ForAll @IntRange(max = 100_000) int size, @ForAll long base,
                                                  @ForAll long seed) {
        // every key of the range goes to exactly one side: neighbours (k, k+1) land on different sides
        Random rnd = new Random(seed);
        List<Long> a = new ArrayList<>();
        List<Long> b = new ArrayList<>();
        for (int i = 0; i < 2 * size; i++) {
            (rnd.nextBoolean() ? a : b).add(base + i);
        }
        assertDisjoint(KeyFilter.ofLongs(ID, toArray(a)), KeyFilter.ofLongs(ID, toArray(b)));
    }

    @Property(tries = 20)
    void disjointRandomStringSetsNeverConflict(@ForAll @IntRange(max = 100_000) int sizeA,
                                               @ForAll @IntRange(max = 100_000) int sizeB, @ForAll long seed) {
        Random rnd = new Random(seed);
        Set<String> a = randomStrings(rnd, sizeA, Set.of());
        Set<String> b = randomStrings(rnd, sizeB, a);
        assertDisjoint(KeyFilter.ofStrings(ID, a), KeyFilter.ofStrings(ID, b));
    }

    @Property(tries = 20)
    void smallFilterAgainstLargeDisjointFilterNeverConflicts(@ForAll @IntRange(max = 20) int small,
                                                             @ForAll @IntRange(min = 1_000, max = 100_000) int large,
                                                             @ForAll long seed) {
        // the size skew selects the binary-search probe instead of the merge walk
        Random rnd = new Random(seed);
        Set<Long> bigLongs = randomLongs(rnd, large, Set.of());
        Set<Long> smallLongs = randomLongs(rnd, small, bigLongs);
        assertDisjoint(KeyFilter.ofLongs(ID, toArray(smallLongs)), KeyFilter.ofLongs(ID, toArray(bigLongs)));
        Set<String> bigStrings = randomStrings(rnd, large, Set.of());
        Set<String> smallStrings = randomStrings(rnd, small, bigStrings);
        assertDisjoint(KeyFilter.ofStrings(ID, smallStrings), KeyFilter.ofStrings(ID, bigStrings));
    }

    @Property(tries = 200)
    void disjointGeneratedStringSetsNeverConflict(@ForAll("stringKeys") List<String> a, @ForAll("stringKeys") List<String> b) {
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

    @Property(tries = 300)
    void everyLongOverlapIsDetectedAndCounted(@ForAll("denseLongs") List<Long> a, @ForAll("denseLongs") List<Long> b,
                                              @ForAll("denseLongs") List<Long> shared) {
        List<Long> withA = new ArrayList<>(a);
        withA.addAll(shared);
        List<Long> withB = new ArrayList<>(b);
        withB.addAll(shared);
        Set<String> truth = new HashSet<>(intersection(withA, withB).stream().map(String::valueOf).toList());
        assertOverlapIsExact(KeyFilter.ofLongs(ID, toArray(withA)), KeyFilter.ofLongs(ID, toArray(withB)), truth);
    }

    @Property(tries = 300)
    void everyStringOverlapIsDetectedAndCounted(@ForAll("denseStrings") List<String> a,
                                                @ForAll("denseStrings") List<String> b,
                                                @ForAll("denseStrings") List<String> shared) {
        List<String> withA = new ArrayList<>(a);
        withA.addAll(shared);
        List<String> withB = new ArrayList<>(b);
        withB.addAll(shared);
        assertOverlapIsExact(KeyFilter.ofStrings(ID, withA), KeyFilter.ofStrings(ID, withB), intersection(withA, withB));
    }

    @Property(tries = 15)
    void injectedSharedKeysAreAllFoundInLargeFilters(@ForAll @IntRange(max = 100_000) int sizeA,
                                                     @ForAll @IntRange(max = 100_000) int sizeB,
                                                     @ForAll @IntRange(max = 2_000) int sharedCount, @ForAll long seed) {
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

    @Property(tries = 20)
    void sharedKeysBetweenSmallAndLargeFiltersAreAllFound(@ForAll @IntRange(min = 1, max = 20) int small,
                                                         @ForAll @IntRange(min = 1_000, max = 100_000) int large,
                                                         @ForAll long seed) {
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

    @Property(tries = 300)
    void stringFiltersRoundTripThroughTheEncoding(@ForAll("stringKeys") List<String> keys) {
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

    @Property(tries = 300)
    void longFiltersRoundTripThroughTheEncoding(@ForAll("longKeys") List<Long> keys,
                                                @ForAll @IntRange(max = 1_000) int fieldId) {
        KeyFilter f = KeyFilter.ofLongs(new int[] {fieldId, fieldId + 7}, toArray(keys));
        KeyFilter back = KeyFilter.decode(f.encode());
        assertThat(back).isEqualTo(f);
        assertThat(back.keys()).isEqualTo(f.keys()).isEqualTo(sortedLongKeys(keys));
        assertThat(back.fieldIds()).containsExactly(fieldId, fieldId + 7);
        for (long k : keys) {
            assertThat(back.contains(k)).isTrue();
        }
    }

    @Property(tries = 10)
    void largeFiltersRoundTripThroughTheEncoding(@ForAll @IntRange(max = 100_000) int size, @ForAll long seed) {
        Random rnd = new Random(seed);
        KeyFilter longs = KeyFilter.ofLongs(ID, toArray(randomLongs(rnd, size, Set.of())));
        assertThat(KeyFilter.decode(longs.encode())).isEqualTo(longs);
        KeyFilter strings = KeyFilter.ofStrings(ID, randomStrings(rnd, size, Set.of()));
        KeyFilter back = KeyFilter.decode(strings.encode());
        assertThat(back).isEqualTo(strings);
        assertThat(back.keys()).isEqualTo(strings.keys());
    }

    // ------------------------------------------------------------------ (d) union, (e) symmetry

    @Property(tries = 300)
    void longUnionIsTheSetUnion(@ForAll("longKeys") List<Long> a, @ForAll("longKeys") List<Long> b) {
        Set<Long> all = new HashSet<>(a);
        all.addAll(b);
        KeyFilter u = KeyFilter.ofLongs(ID, toArray(a)).union(KeyFilter.ofLongs(ID, toArray(b)));
        assertThat(u.keys()).isEqualTo(sortedLongKeys(all));
        assertThat(u).isEqualTo(KeyFilter.ofLongs(ID, toArray(all)));
        assertThat(KeyFilter.ofLongs(ID, toArray(b)).union(KeyFilter.ofLongs(ID, toArray(a)))).isEqualTo(u);
    }

    @Property(tries = 200)
    void stringUnionIsTheSetUnion(@ForAll("stringKeys") List<String> a, @ForAll("denseStrings") List<String> b) {
        Set<String> all = new HashSet<>(a);
        all.addAll(b);
        KeyFilter u = KeyFilter.ofStrings(ID, a).union(KeyFilter.ofStrings(ID, b));
        assertThat(u.keys()).isEqualTo(sortedStringKeys(all));
        assertThat(u).isEqualTo(KeyFilter.ofStrings(ID, all));
        assertThat(KeyFilter.ofStrings(ID, b).union(KeyFilter.ofStrings(ID, a))).isEqualTo(u);
        assertThat(KeyFilter.decode(u.encode())).isEqualTo(u);
    }

    @Property(tries = 300)
    void overlapIsSymmetric(@ForAll("denseLongs") List<Long> a, @ForAll("denseLongs") List<Long> b,
                            @ForAll("denseStrings") List<String> c, @ForAll("denseStrings") List<String> d) {
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

    @Property(tries = 500)
    void mutatedEncodingsAreRejectedOnlyWithValidationException(@ForAll("denseStrings") List<String> keys,
                                                               @ForAll("denseLongs") List<Long> longs,
                                                               @ForAll boolean strings, @ForAll long seed) {
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

    @Provide
    Arbitrary<List<String>> stringKeys() {
        Arbitrary<String> unicode = Arbitraries.integers().between(0, Character.MAX_CODE_POINT)
                .filter(cp -> cp < Character.MIN_SURROGATE || cp > Character.MAX_SURROGATE)
                .list().ofMaxSize(8)
                .map(cps -> cps.stream().collect(StringBuilder::new, StringBuilder::appendCodePoint, StringBuilder::append)
                        .toString());
        Arbitrary<String> ascii = Arbitraries.strings().ascii().ofMaxLength(12);
        Arbitrary<String> prefixed = Arbitraries.integers().between(0, 5_000).map(i -> "node/person/" + i);
        Arbitrary<String> longStrings = Arbitraries.strings().alpha().ofMinLength(200).ofMaxLength(1_000);
        Arbitrary<String> empty = Arbitraries.just("");
        return Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(3, unicode), net.jqwik.api.Tuple.of(3, ascii), net.jqwik.api.Tuple.of(3, prefixed),
                net.jqwik.api.Tuple.of(1, longStrings), net.jqwik.api.Tuple.of(1, empty)).list().ofMaxSize(100);
    }

    @Provide
    Arbitrary<List<Long>> longKeys() {
        return Arbitraries.oneOf(Arbitraries.longs(), Arbitraries.longs().between(-1_000, 1_000),
                        Arbitraries.of(Long.MIN_VALUE, Long.MIN_VALUE + 1, -1L, 0L, 1L, Long.MAX_VALUE - 1, Long.MAX_VALUE))
                .list().ofMaxSize(300);
    }

    /** Keys from a small domain, so that independent lists share keys by chance too. */
    @Provide
    Arbitrary<List<Long>> denseLongs() {
        return Arbitraries.oneOf(Arbitraries.longs().between(-300, 300),
                        Arbitraries.of(Long.MIN_VALUE, Long.MAX_VALUE))
                .list().ofMaxSize(200);
    }

    @Provide
    Arbitrary<List<String>> denseStrings() {
        return Arbitraries.oneOf(
                        Arbitraries.integers().between(0, 300).map(i -> "k" + i),
                        Arbitraries.strings().withChars("ab\u00e9\u4e2d").ofMaxLength(3))
                .list().ofMaxSize(200);
    }
}
