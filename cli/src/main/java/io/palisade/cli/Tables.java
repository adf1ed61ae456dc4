package io.palisade.cli;

import java.io.PrintStream;
import java.util.List;

/**
 * Plain-text tables for a terminal: columns aligned by display width (a wide East Asian character takes two cells), a
 * cell kept on its row (a line break or tab in a value is shown as {@code \n} or {@code \t}), and a cell wider than
 * 80 cells cut with an ellipsis.
 */
final class Tables {
    static final int MAX_WIDTH = 80;

    private Tables() {
    }

    static void print(PrintStream out, List<String> header, List<List<String>> rows) {
        int[] w = new int[header.size()];
        for (int i = 0; i < w.length; i++) {
            w[i] = width(header.get(i));
        }
        for (List<String> r : rows) {
            for (int i = 0; i < w.length && i < r.size(); i++) {
                w[i] = Math.min(MAX_WIDTH, Math.max(w[i], width(visible(r.get(i)))));
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
            String c = visible(i < cells.size() ? cells.get(i) : "");
            if (width(c) > w[i]) {
                c = cut(c, w[i] - 1) + "…";
            }
            sb.append(c);
            if (i + 1 < w.length) {
                sb.append(" ".repeat(w[i] - width(c) + 2));
            }
        }
        sb.append('\n');
    }

    /** {@code s} on one line: line breaks, tabs and other control characters escaped. */
    static String visible(String s) {
        StringBuilder out = null;
        for (int i = 0; i < s.length(); i++) {
            char ch = s.charAt(i);
            String esc = switch (ch) {
                case '\n' -> "\\n";
                case '\r' -> "\\r";
                case '\t' -> "\\t";
                default -> Character.isISOControl(ch) ? String.format("\\u%04x", (int) ch) : null;
            };
            if (esc != null && out == null) {
                out = new StringBuilder(s.substring(0, i));
            }
            if (out != null) {
                out.append(esc != null ? esc : String.valueOf(ch));
            }
        }
        return out == null ? s : out.toString();
    }

    /** The cells {@code s} takes on a terminal. */
    static int width(String s) {
        int w = 0;
        for (int i = 0; i < s.length(); ) {
            int cp = s.codePointAt(i);
            w += cells(cp);
            i += Character.charCount(cp);
        }
        return w;
    }

    /** The longest prefix of {@code s} that takes at most {@code max} cells. */
    private static String cut(String s, int max) {
        int w = 0;
        int i = 0;
        while (i < s.length()) {
            int cp = s.codePointAt(i);
            if (w + cells(cp) > max) {
                break;
            }
            w += cells(cp);
            i += Character.charCount(cp);
        }
        return s.substring(0, i);
    }

    /** 0 for a combining mark, 2 for an East Asian wide or fullwidth character (and emoji), else 1. */
    private static int cells(int cp) {
        int type = Character.getType(cp);
        if (type == Character.NON_SPACING_MARK || type == Character.ENCLOSING_MARK || type == Character.FORMAT) {
            return 0;
        }
        boolean wide = (cp >= 0x1100 && cp <= 0x115F) || (cp >= 0x2E80 && cp <= 0x303E) || (cp >= 0x3041 && cp <= 0x33FF)
                || (cp >= 0x3400 && cp <= 0x4DBF) || (cp >= 0x4E00 && cp <= 0x9FFF) || (cp >= 0xA000 && cp <= 0xA4CF)
                || (cp >= 0xAC00 && cp <= 0xD7A3) || (cp >= 0xF900 && cp <= 0xFAFF) || (cp >= 0xFE30 && cp <= 0xFE4F)
                || (cp >= 0xFF00 && cp <= 0xFF60) || (cp >= 0xFFE0 && cp <= 0xFFE6) || (cp >= 0x1F300 && cp <= 0x1F64F)
                || (cp >= 0x1F900 && cp <= 0x1F9FF) || (cp >= 0x20000 && cp <= 0x3FFFD);
        return wide ? 2 : 1;
    }
}
