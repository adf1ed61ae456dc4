package io.palisade.cli;

import java.time.Instant;
import java.util.List;
import java.util.Locale;

/** The self-contained HTML of {@code palisade report}: inline CSS and SVG, no script, no network. */
final class Html {
    private static final int WIDTH = 1100;
    private static final int LEFT = 130;
    private static final int RIGHT = 20;
    private static final int LANE = 46;
    private static final int TOP = 30;

    private Html() {
    }

    static String esc(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }

    static String page(String graph, List<String> lanes, List<ReportCommand.Mark> marks, List<ReportCommand.KeyStat> keys,
                       int events, Instant from, Instant to) {
        long minSeq = marks.stream().mapToLong(ReportCommand.Mark::seq).min().orElse(0);
        long maxSeq = marks.stream().mapToLong(ReportCommand.Mark::seq).max().orElse(1);
        if (maxSeq == minSeq) {
            maxSeq = minSeq + 1;
        }
        int height = TOP + lanes.size() * LANE + 40;
        StringBuilder s = new StringBuilder();
        s.append("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>Palisade report: ")
                .append(esc(graph)).append("</title>\n<style>\n")
                .append("body{font-family:system-ui,-apple-system,Segoe UI,Helvetica,Arial,sans-serif;margin:24px;color:#1d2330;background:#fafbfc}\n")
                .append("h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 8px}.sub{color:#5a6478;font-size:13px}\n")
                .append("svg{background:#fff;border:1px solid #d8dde6;border-radius:6px}\n")
                .append(".lane-label{font-size:12px;fill:#1d2330;font-weight:600}.axis{font-size:10px;fill:#5a6478}\n")
                .append(".lane-line{stroke:#e3e7ee;stroke-width:1}\n")
                .append(".commit{fill:#2e9e5b}.conflict{fill:#d43c3c}.retry{fill:#f0a020}.recovery{fill:#2f6fd6}")
                .append(".aborted{fill:none;stroke:#8a4fd0;stroke-width:2}.crash{stroke:#111;stroke-width:3}.restart{stroke:#777;stroke-width:2;stroke-dasharray:3 2}\n")
                .append("table{border-collapse:collapse;background:#fff;font-size:13px}th,td{border:1px solid #d8dde6;padding:4px 10px;text-align:left}")
                .append("th{background:#eef1f6}td.n{text-align:right;font-variant-numeric:tabular-nums}\n")
                .append(".legend span{display:inline-block;margin-right:16px;font-size:13px}.sw{display:inline-block;width:11px;height:11px;border-radius:2px;margin-right:5px;vertical-align:-1px}\n")
                .append("</style></head><body>\n");
        s.append("<h1>Palisade report</h1>\n<div class=\"sub\">graph ").append(esc(graph)).append(" &middot; ")
                .append(events).append(" journal events")
                .append(from == null ? "" : " &middot; since " + esc(from.toString()))
                .append(to == null ? "" : " &middot; until " + esc(to.toString()))
                .append(" &middot; x axis: journal sequence (time in each mark's tooltip)</div>\n");
        s.append("<h2>Summary</h2>\n<table id=\"summary\"><tr>");
        String[] kinds = {"commit", "conflict", "retry", "crash", "recovery", "aborted"};
        for (String k : kinds) {
            s.append("<th>").append(switch (k) {
                case "commit" -> "commits";
                case "conflict" -> "conflicts";
                case "retry" -> "retries";
                case "crash" -> "crashes";
                case "recovery" -> "recoveries";
                default -> "aborted by recovery";
            }).append("</th>");
        }
        s.append("</tr><tr>");
        for (String k : kinds) {
            long n = marks.stream().filter(m -> m.kind().equals(k) && (k.equals("crash") ? m.lane().equals("writer")
                    : k.equals("recovery") ? m.lane().equals("writer") : true)).count();
            s.append("<td class=\"n\" id=\"count-").append(k).append("\">").append(n).append("</td>");
        }
        s.append("</tr></table>\n");
        s.append("<h2>Timeline per table</h2>\n<div class=\"legend\">")
                .append("<span><i class=\"sw\" style=\"background:#2e9e5b\"></i>commit</span>")
                .append("<span><i class=\"sw\" style=\"background:#d43c3c\"></i>conflict</span>")
                .append("<span><i class=\"sw\" style=\"background:#f0a020\"></i>retry</span>")
                .append("<span><i class=\"sw\" style=\"background:#111\"></i>crash</span>")
                .append("<span><i class=\"sw\" style=\"background:#2f6fd6\"></i>recovery</span>")
                .append("<span><i class=\"sw\" style=\"border:2px solid #8a4fd0\"></i>aborted by recovery</span>")
                .append("<span><i class=\"sw\" style=\"background:#999\"></i>writer restart</span></div>\n");
        s.append("<svg id=\"timeline\" class=\"timeline\" width=\"").append(WIDTH)
                .append("\" height=\"").append(height).append("\" viewBox=\"0 0 ").append(WIDTH).append(' ').append(height)
                .append("\" role=\"img\" aria-label=\"timeline of commits, conflicts, retries, crashes and recoveries per table\">\n");
        int plot = WIDTH - LEFT - RIGHT;
        for (int t = 0; t <= 5; t++) {
            long seq = minSeq + (maxSeq - minSeq) * t / 5;
            double x = LEFT + plot * (double) t / 5;
            s.append(String.format(Locale.ROOT, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" class=\"lane-line\"/>",
                    x, TOP - 8, x, TOP + lanes.size() * LANE));
            s.append(String.format(Locale.ROOT, "<text class=\"axis\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">seq %d</text>%n",
                    x, TOP + lanes.size() * LANE + 16, seq));
        }
        for (int i = 0; i < lanes.size(); i++) {
            String lane = lanes.get(i);
            int y = TOP + i * LANE + LANE / 2;
            s.append("<g class=\"lane\" data-lane=\"").append(esc(lane)).append("\">");
            s.append(String.format(Locale.ROOT, "<text class=\"lane-label\" x=\"10\" y=\"%d\">%s</text>", y + 4,
                    esc(lane.equals("writer") ? "writer (graph)" : lane)));
            s.append(String.format(Locale.ROOT, "<line class=\"lane-line\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>%n",
                    LEFT, y, WIDTH - RIGHT, y));
            for (ReportCommand.Mark m : marks) {
                if (!m.lane().equals(lane)) {
                    continue;
                }
                double x = LEFT + plot * (double) (m.seq() - minSeq) / (maxSeq - minSeq);
                String title = "<title>" + esc(m.time() + "  " + m.title()) + "</title>";
                String cls = "mark " + m.kind();
                String shape = switch (m.kind()) {
                    case "commit" -> String.format(Locale.ROOT, "<circle class=\"%s\" cx=\"%.1f\" cy=\"%d\" r=\"5\">", cls, x, y - 8);
                    case "conflict" -> String.format(Locale.ROOT, "<rect class=\"%s\" x=\"%.1f\" y=\"%d\" width=\"9\" height=\"9\" transform=\"rotate(45 %.1f %d)\">",
                            cls, x - 4.5, y + 3, x, y + 7);
                    case "retry" -> String.format(Locale.ROOT, "<polygon class=\"%s\" points=\"%.1f,%d %.1f,%d %.1f,%d\">", cls,
                            x, y - 2, x - 5, y + 7, x + 5, y + 7);
                    case "recovery" -> String.format(Locale.ROOT, "<rect class=\"%s\" x=\"%.1f\" y=\"%d\" width=\"10\" height=\"10\">", cls, x - 5, y - 18);
                    case "aborted" -> String.format(Locale.ROOT, "<circle class=\"%s\" cx=\"%.1f\" cy=\"%d\" r=\"5\">", cls, x, y + 12);
                    case "crash" -> String.format(Locale.ROOT, "<path class=\"%s\" d=\"M%.1f %d L%.1f %d M%.1f %d L%.1f %d\">", cls,
                            x - 7, y - 7, x + 7, y + 7, x - 7, y + 7, x + 7, y - 7);
                    default -> String.format(Locale.ROOT, "<line class=\"%s\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\">", cls,
                            x, y - 16, x, y + 16);
                };
                String close = shape.startsWith("<circle") ? "</circle>" : shape.startsWith("<rect") ? "</rect>"
                        : shape.startsWith("<polygon") ? "</polygon>" : shape.startsWith("<path") ? "</path>" : "</line>";
                s.append(shape, 0, shape.length() - 1).append(" data-seq=\"").append(m.seq()).append("\">")
                        .append(title).append(close);
            }
            s.append("</g>\n");
        }
        s.append("</svg>\n");
        s.append("<h2>Busiest conflicting keys</h2>\n");
        s.append("<table id=\"conflict-keys\"><thead><tr><th>#</th><th>table</th><th>key</th><th>conflicts</th>")
                .append("<th>winning intents</th><th>last at seq</th></tr></thead><tbody>\n");
        int i = 0;
        for (ReportCommand.KeyStat k : keys) {
            s.append("<tr class=\"conflict-key\"><td class=\"n\">").append(++i).append("</td><td>").append(esc(k.table))
                    .append("</td><td><code>").append(esc(k.key)).append("</code></td><td class=\"n\">").append(k.conflicts)
                    .append("</td><td>").append(esc(String.join(", ", k.winners.stream().limit(3).toList())))
                    .append(k.winners.size() > 3 ? " &hellip;" : "").append("</td><td class=\"n\">").append(k.lastSeq)
                    .append("</td></tr>\n");
        }
        if (keys.isEmpty()) {
            s.append("<tr><td colspan=\"6\">no conflicts in this range</td></tr>\n");
        }
        s.append("</tbody></table>\n");
        s.append("<p class=\"sub\">Look deeper: <code>palisade explain GRAPH INTENT_ID</code>, ")
                .append("<code>palisade explain GRAPH --key K --table T</code>, <code>palisade audit GRAPH --format table</code>.</p>\n");
        s.append("</body></html>\n");
        return s.toString();
    }
}
