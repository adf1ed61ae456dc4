package io.palisade.fencing;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.IntStream;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Examples of the exact key filter: construction, comparability, intersection at scale. */
class KeyFilterTest {

    @Test
    void nullKeyInListIsRejectedNamingItsPosition() {
        assertThatThrownBy(() -> KeyFilter.ofStrings(0, Arrays.asList("a", "b", null)))
                .isExactlyInstanceOf(ValidationException.class)
                .hasMessageContaining("null key")
                .hasMessageContaining("position 2");
    }

    @Test
    void keyListKeepsRepeatedKeysOnce() {
        KeyFilter s = KeyFilter.ofStrings(0, List.of("b", "a", "b"));
        assertThat(s.keys()).containsExactly("a", "b");
        assertThat(s.size()).isEqualTo(2);
        KeyFilter l = KeyFilter.ofLongs(0, 3, 1, 3, 3, 2);
        assertThat(l.keys()).containsExactly("1", "2", "3");
        assertThat(l.longAt(0)).isEqualTo(1);
    }

    @Test
    void stringKeysAreOrderedByUtf8BytesNotUtf16() {
        // U+FF5E sorts below U+1F600 in UTF-16 code units only after the surrogate pair; UTF-8 byte order differs
        KeyFilter f = KeyFilter.ofStrings(0, List.of("\uD83D\uDE00", "\uFF5E", "z", "a\u0000", "a"));
        assertThat(f.keys()).containsExactly("a", "a\u0000", "z", "\uFF5E", "\uD83D\uDE00");
    }

    @Test
    void fieldIdsMustBePresentDistinctAndNonNegative() {
        assertThatThrownBy(() -> KeyFilter.ofLongs(new int[0], new long[] {1}))
                .isExactlyInstanceOf(ValidationException.class);
        assertThatThrownBy(() -> KeyFilter.ofLongs(new int[] {1, 1}, new long[] {1}))
                .isExactlyInstanceOf(ValidationException.class);
        assertThatThrownBy(() -> KeyFilter.ofLongs(-1, 1))
                .isExactlyInstanceOf(ValidationException.class);
        assertThatThrownBy(() -> KeyFilter.empty(null, KeyFilter.KeyType.UTF8))
                .isExactlyInstanceOf(ValidationException.class);
    }

    @Test
    void compositeKeyFieldIdsAreNormalisedToAscendingOrder() {
        KeyFilter a = KeyFilter.ofLongs(new int[] {4, 2}, new long[] {1});
        KeyFilter b = KeyFilter.ofLongs(new int[] {2, 4}, new long[] {1});
        assertThat(a.fieldIds()).containsExactly(2, 4);
        assertThat(a).isEqualTo(b);
        assertThat(a.comparableWith(b)).isTrue();
        assertThat(a.overlap(b).kind()).isEqualTo(KeyFilter.Overlap.Kind.SHARED_KEYS);
    }

    @Test
    void filtersOverDifferentFieldsAreIncomparableAndConflictConservatively() {
        KeyFilter a = KeyFilter.ofLongs(0, 1, 2, 3);
        KeyFilter b = KeyFilter.ofLongs(1, 4, 5, 6);
        for (KeyFilter.Overlap ov : List.of(a.overlap(b), b.overlap(a))) {
            assertThat(ov.kind()).isEqualTo(KeyFilter.Overlap.Kind.INCOMPARABLE);
            assertThat(ov.conflict()).isTrue();
            assertThat(ov.reason()).contains("different key fields");
        }
        assertThat(a.intersects(b)).isTrue();
        assertThat(b.intersects(a)).isTrue();
        assertThat(a.comparableWith(b)).isFalse();
    }

    @Test
    void filtersOfDifferentKeyTypesAreIncomparableAndConflictConservatively() {
        KeyFilter a = KeyFilter.ofLongs(0, 1);
        KeyFilter b = KeyFilter.ofStrings(0, List.of("2"));
        assertThat(a.overlap(b).kind()).isEqualTo(KeyFilter.Overlap.Kind.INCOMPARABLE);
        assertThat(b.overlap(a).kind()).isEqualTo(KeyFilter.Overlap.Kind.INCOMPARABLE);
        assertThat(a.overlap(b).reason()).contains("different key types");
        assertThat(a.intersects(b)).isTrue();
        assertThat(b.intersects(a)).isTrue();
    }

    @Test
    void incomparableFiltersCannotBeUnited() {
        assertThatThrownBy(() -> KeyFilter.ofLongs(0, 1).union(KeyFilter.ofLongs(1, 1)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> KeyFilter.ofLongs(0, 1).union(KeyFilter.ofStrings(0, List.of("1"))))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void emptyFilterNeverConflictsWithAComparableFilter() {
        KeyFilter emptyLongs = KeyFilter.empty(new int[] {0}, KeyFilter.KeyType.INT64);
        KeyFilter emptyStrings = KeyFilter.empty(new int[] {0}, KeyFilter.KeyType.UTF8);
        KeyFilter many = KeyFilter.ofLongs(0, LongStream.range(0, 10_000).toArray());
        KeyFilter words = KeyFilter.ofStrings(0, List.of("", "a", "b"));
        assertThat(emptyLongs.intersects(many)).isFalse();
        assertThat(many.intersects(emptyLongs)).isFalse();
        assertThat(emptyLongs.intersects(emptyLongs)).isFalse();
        assertThat(emptyStrings.intersects(words)).isFalse();
        assertThat(words.intersects(emptyStrings)).isFalse();
        assertThat(many.overlap(emptyLongs).kind()).isEqualTo(KeyFilter.Overlap.Kind.DISJOINT);
        assertThat(emptyLongs.isEmpty()).isTrue();
        assertThat(emptyLongs.keys()).isEmpty();
        assertThat(KeyFilter.ofStrings(0, List.of())).isEqualTo(emptyStrings);
        assertThat(KeyFilter.ofLongs(0)).isEqualTo(emptyLongs);
    }

    @Test
    void emptyStringIsARealKey() {
        KeyFilter a = KeyFilter.ofStrings(0, List.of(""));
        KeyFilter b = KeyFilter.ofStrings(0, List.of("", "x"));
        assertThat(a.size()).isEqualTo(1);
        assertThat(a.contains("")).isTrue();
        assertThat(a.overlap(b).sample()).containsExactly("");
        assertThat(a.intersects(KeyFilter.empty(new int[] {0}, KeyFilter.KeyType.UTF8))).isFalse();
    }

    @Test
    void prefixesAndNeighboursAreDifferentKeys() {
        KeyFilter a = KeyFilter.ofStrings(0, List.of("ab", "abd", "a\u0000"));
        KeyFilter b = KeyFilter.ofStrings(0, List.of("a", "abc", "abdd", "ab\u0000"));
        assertThat(a.intersects(b)).isFalse();
        assertThat(b.intersects(a)).isFalse();
        KeyFilter evens = KeyFilter.ofLongs(0, -2, 0, 2, Long.MAX_VALUE - 1);
        KeyFilter odds = KeyFilter.ofLongs(0, -1, 1, 3, Long.MAX_VALUE, Long.MIN_VALUE);
        assertThat(evens.intersects(odds)).isFalse();
    }

    @Test
    void extremeLongKeysOverlap() {
        KeyFilter a = KeyFilter.ofLongs(0, Long.MIN_VALUE, 0, Long.MAX_VALUE);
        KeyFilter b = KeyFilter.ofLongs(0, Long.MAX_VALUE, Long.MIN_VALUE);
        KeyFilter.Overlap ov = a.overlap(b);
        assertThat(ov.count()).isEqualTo(2);
        assertThat(ov.sample()).containsExactly(String.valueOf(Long.MIN_VALUE), String.valueOf(Long.MAX_VALUE));
        assertThat(ov.reason()).contains("2 shared keys");
    }

    @Test
    void overlapNamesTheFirstFiveSharedKeysInKeyOrder() {
        KeyFilter a = KeyFilter.ofLongs(0, LongStream.range(0, 100).toArray());
        KeyFilter b = KeyFilter.ofLongs(0, LongStream.range(50, 70).toArray());
        KeyFilter.Overlap ov = a.overlap(b);
        assertThat(ov.count()).isEqualTo(20);
        assertThat(ov.sample()).containsExactly("50", "51", "52", "53", "54");
        assertThat(b.overlap(a).sample()).containsExactly("50", "51", "52", "53", "54");
        assertThat(a.overlap(b, 2).sample()).containsExactly("50", "51");
        assertThat(a.overlap(b, 2).count()).isEqualTo(20);
    }

    @Test
    void singleSharedKeyIsReportedInTheSingular() {
        KeyFilter.Overlap ov = KeyFilter.ofStrings(0, List.of("a", "b")).overlap(KeyFilter.ofStrings(0, List.of("b", "c")));
        assertThat(ov.count()).isEqualTo(1);
        assertThat(ov.reason()).isEqualTo("1 shared key [b]");
    }

    @Test
    void containsIsTypedByKeyType() {
        KeyFilter l = KeyFilter.ofLongs(0, 5);
        KeyFilter s = KeyFilter.ofStrings(0, List.of("5"));
        assertThat(l.contains(5)).isTrue();
        assertThat(l.contains(6)).isFalse();
        assertThat(s.contains("5")).isTrue();
        assertThat(s.contains("6")).isFalse();
        assertThatThrownBy(() -> l.contains("5")).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> s.contains(5)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> s.longAt(0)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> s.keyAt(1)).isInstanceOf(IndexOutOfBoundsException.class);
    }

    @Test
    void filtersOfDifferentTypesOrFieldsAreNotEqual() {
        assertThat(KeyFilter.ofLongs(0, 1)).isNotEqualTo(KeyFilter.ofStrings(0, List.of("1")));
        assertThat(KeyFilter.ofLongs(0, 1)).isNotEqualTo(KeyFilter.ofLongs(1, 1));
        assertThat(KeyFilter.ofStrings(0, List.of("ab"))).isNotEqualTo(KeyFilter.ofStrings(0, List.of("a", "b")));
        assertThat(KeyFilter.ofLongs(0, 1, 2)).isEqualTo(KeyFilter.ofLongs(0, 2, 1)).hasSameHashCodeAs(KeyFilter.ofLongs(0, 2, 1));
    }

    @Test
    void toStringNamesTheFirstKeysOnly() {
        assertThat(KeyFilter.ofLongs(0, LongStream.range(0, 100).toArray()).toString())
                .contains("100 keys [0, 1, 2, 3, 4]...");
        assertThat(KeyFilter.ofStrings(0, List.of("a")).toString()).contains("1 keys [a]}");
    }

    @Test
    void fieldIdsAccessorDoesNotExposeInternalState() {
        KeyFilter f = KeyFilter.ofLongs(3, 1);
        f.fieldIds()[0] = 99;
        assertThat(f.fieldIds()).containsExactly(3);
        long[] keys = {2, 1};
        KeyFilter g = KeyFilter.ofLongs(0, keys);
        keys[0] = 1;
        assertThat(g.keys()).containsExactly("1", "2");
    }

    @Test
    void hundredThousandDisjointStringKeysOnEachSideNeverConflict() {
        List<String> a = new ArrayList<>();
        List<String> b = new ArrayList<>();
        for (int i = 0; i < 200_000; i++) {
            (i % 2 == 0 ? a : b).add(String.format("person-%08d", i));
        }
        KeyFilter fa = KeyFilter.ofStrings(0, a);
        KeyFilter fb = KeyFilter.ofStrings(0, b);
        assertThat(fa.size()).isEqualTo(100_000);
        assertThat(fa.intersects(fb)).isFalse();
        assertThat(fb.overlap(fa).count()).isZero();
        b.add("person-00000000");
        assertThat(fa.overlap(KeyFilter.ofStrings(0, b)).sample()).containsExactly("person-00000000");
    }

    @Test
    void millionDisjointLongKeysOnEachSideNeverConflict() {
        KeyFilter evens = KeyFilter.ofLongs(0, LongStream.range(0, 1_000_000).map(i -> 2 * i).toArray());
        KeyFilter odds = KeyFilter.ofLongs(0, LongStream.range(0, 1_000_000).map(i -> 2 * i + 1).toArray());
        assertThat(evens.size()).isEqualTo(1_000_000);
        assertThat(evens.intersects(odds)).isFalse();
        assertThat(odds.overlap(evens).kind()).isEqualTo(KeyFilter.Overlap.Kind.DISJOINT);
        KeyFilter oneMore = odds.union(KeyFilter.ofLongs(0, 1_999_998));
        KeyFilter.Overlap ov = evens.overlap(oneMore);
        assertThat(ov.count()).isEqualTo(1);
        assertThat(ov.sample()).containsExactly("1999998");
    }

    @Test
    void millionDisjointStringKeysOnEachSideNeverConflict() {
        List<String> a = new ArrayList<>(1_000_000);
        List<String> b = new ArrayList<>(1_000_000);
        IntStream.range(0, 2_000_000).forEach(i -> (i % 2 == 0 ? a : b).add(Integer.toString(i, 36)));
        KeyFilter fa = KeyFilter.ofStrings(0, a);
        KeyFilter fb = KeyFilter.ofStrings(0, b);
        assertThat(fa.size()).isEqualTo(1_000_000);
        assertThat(fa.intersects(fb)).isFalse();
        assertThat(fb.intersects(fa)).isFalse();
    }
}
