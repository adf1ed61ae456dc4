package io.palisade.cli;

import java.util.Comparator;
import java.util.List;

/** "Did you mean": the candidates nearest a mistyped word. */
final class Suggest {
    private Suggest() {
    }

    /** The candidates at the smallest edit distance from {@code typed}, if it is small for the word (or a prefix). */
    static List<String> nearest(String typed, List<String> candidates) {
        List<String> prefixed = candidates.stream().filter(c -> c.startsWith(typed) || typed.startsWith(c)).toList();
        int best = candidates.stream().mapToInt(c -> distance(typed, c)).min().orElse(Integer.MAX_VALUE);
        int limit = Math.max(2, typed.length() / 3);
        List<String> close = best <= limit ? candidates.stream().filter(c -> distance(typed, c) == best).toList() : List.of();
        if (!close.isEmpty()) {
            return close.stream().limit(3).toList();
        }
        return prefixed.stream().sorted(Comparator.comparingInt(c -> distance(typed, c))).limit(3).toList();
    }

    /** Levenshtein distance. */
    static int distance(String a, String b) {
        int[] prev = new int[b.length() + 1];
        int[] cur = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            prev[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            cur[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                cur[j] = Math.min(Math.min(cur[j - 1] + 1, prev[j] + 1), prev[j - 1] + cost);
            }
            int[] t = prev;
            prev = cur;
            cur = t;
        }
        return prev[b.length()];
    }
}
