package io.palisade.fencing;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.UUID;

/** Key generators and reference computations shared by the key filter tests. */
final class KeyFilterTestSupport {

    /** UTF-8 unsigned byte order: the order a {@link KeyFilter} keeps its string keys in. */
    static final Comparator<String> UTF8_ORDER = (a, b) ->
            Arrays.compareUnsigned(a.getBytes(StandardCharsets.UTF_8), b.getBytes(StandardCharsets.UTF_8));

    private KeyFilterTestSupport() {
    }

    /** {@code n} distinct random longs over the whole range, none of them in {@code exclude}. */
    static Set<Long> randomLongs(Random rnd, int n, Set<Long> exclude) {
        Set<Long> out = new HashSet<>(n * 2);
        while (out.size() < n) {
            long v = rnd.nextLong();
            if (!exclude.contains(v)) {
                out.add(v);
            }
        }
        return out;
    }

    /** {@code n} distinct random string keys of mixed shapes, none of them in {@code exclude}. */
    static Set<String> randomStrings(Random rnd, int n, Set<String> exclude) {
        Set<String> out = new LinkedHashSet<>(n * 2);
        while (out.size() < n) {
            String s = randomKey(rnd);
            if (!exclude.contains(s)) {
                out.add(s);
            }
        }
        return out;
    }

    /** One key: a UUID, a prefixed counter, a short alphanumeric or a unicode string. */
    static String randomKey(Random rnd) {
        return switch (rnd.nextInt(4)) {
            case 0 -> new UUID(rnd.nextLong(), rnd.nextLong()).toString();
            case 1 -> "tenant-" + rnd.nextInt(8) + "/user/" + rnd.nextInt(1_000_000);
            case 2 -> Long.toString(rnd.nextLong() & 0xFFFFF, 36);
            default -> {
                StringBuilder sb = new StringBuilder();
                int len = 1 + rnd.nextInt(6);
                for (int i = 0; i < len; i++) {
                    int cp;
                    do {
                        cp = rnd.nextInt(4) == 0 ? rnd.nextInt(0x10FFFF + 1) : 0x20 + rnd.nextInt(0x3000);
                    } while (cp >= Character.MIN_SURROGATE && cp <= Character.MAX_SURROGATE);
                    sb.appendCodePoint(cp);
                }
                yield sb.toString();
            }
        };
    }

    static long[] toArray(Collection<Long> c) {
        return c.stream().mapToLong(Long::longValue).toArray();
    }

    static <T> Set<T> intersection(Collection<T> a, Collection<T> b) {
        Set<T> out = new HashSet<>(a);
        out.retainAll(new HashSet<>(b));
        return out;
    }

    static List<String> sortedLongKeys(Collection<Long> keys) {
        return new HashSet<>(keys).stream().sorted().map(String::valueOf).toList();
    }

    static List<String> sortedStringKeys(Collection<String> keys) {
        List<String> out = new ArrayList<>(new HashSet<>(keys));
        out.sort(UTF8_ORDER);
        return out;
    }
}
