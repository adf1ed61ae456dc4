package io.palisade.cli;

import java.io.PrintStream;
import java.util.List;

/** Plain-text tables. */
final class Tables {
    private Tables() {
    }

    static void print(PrintStream out, List<String> header, List<List<String>> rows) {
        int[] w = new int[header.size()];
        for (int i = 0; i < w.length; i++) {
            w[i] = header.get(i).length();
        }
        for (List<String> r : rows) {
            for (int i = 0; i < w.length && i < r.size(); i++) {
                w[i] = Math.min(80, Math.max(w[i], r.get(i).length()));
            }
        }
        StringBuilder sb = new StringBuilder();
        line(sb, header, w);
        for (int i = 0; i < w.length; i++) {
            sb.append("-".repeat(w[i])).append(i + 1 < w.length ? "  " : "\n");
        }
        for (List<String> r : rows) {
            line(sb, r, w);
        }
        out.print(sb);
    }

    private static void line(StringBuilder sb, List<String> cells, int[] w) {
        for (int i = 0; i < w.length; i++) {
            String c = i < cells.size() ? cells.get(i) : "";
            if (c.length() > w[i]) {
                c = c.substring(0, w[i] - 1) + "…";
            }
            sb.append(c);
            if (i + 1 < w.length) {
                sb.append(" ".repeat(w[i] - c.length() + 2));
            }
        }
        sb.append('\n');
    }
}
