package io.palisade.cli;

import io.palisade.cli.ReportModel.Activity;
import io.palisade.cli.ReportModel.Incident;
import io.palisade.cli.ReportModel.Kind;
import io.palisade.cli.ReportModel.KeyRow;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The self-contained HTML of {@code palisade report}: inline CSS and SVG, no script, no network.
 *
 * <p>The timeline is drawn three times, for narrow, middle and wide screens (CSS media queries show one), each an SVG
 * with a {@code viewBox} at {@code width:100%}, so it is fluid and its bucket count and ticks fit the width it is drawn
 * for. Layout invariants (checked in headless Chromium by {@code ReportLayoutCheck}): tick labels are whole times at
 * a round step, distinct, placed at their time, and lie inside the SVG; no two labels overlap; a crash band is at least
 * {@link #MIN_BAND} wide; text widths are estimated at {@link #EM} of the font size per character, which over-estimates
 * the sans-serif fonts a browser uses.
 */
final class Html {
    /** The widths (viewBox units) the timeline is drawn for, and the CSS media range each is shown in. */
    static final int[] WIDTHS = {900, 1400, 1900};
    private static final String[] MEDIA = {"(max-width: 1099px)", "(min-width: 1100px) and (max-width: 1699px)",
            "(min-width: 1700px)"};
    static final double EM = 0.62;
    static final double MIN_BAND = 6;
    private static final int LEFT = 150;
    private static final int RIGHT = 24;
    private static final int HALF = 30;
    private static final int LANE = 2 * HALF + 16;
    private static final int LABEL_ROW = 17;
    private static final int MAX_LABEL_ROWS = 4;
    private static final int AXIS_FONT = 11;
    private static final int LANE_FONT = 13;
    private static final int BAND_FONT = 11;
    private static final long[] STEPS_MS = {1, 2, 5, 10, 20, 50, 100, 200, 500, 1_000, 2_000, 5_000, 10_000, 15_000,
            30_000, 60_000, 120_000, 300_000, 600_000, 900_000, 1_800_000, 3_600_000, 7_200_000, 10_800_000, 21_600_000,
            43_200_000, 86_400_000, 172_800_000, 604_800_000};

    private Html() {
    }

    static String esc(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }

    static double textWidth(String s, int font) {
        return s.length() * EM * font;
    }

    private static String f(double d) {
        return String.format(Locale.ROOT, "%.1f", d);
    }

    static String page(String graph, ReportModel m) {
        StringBuilder s = new StringBuilder(64 * 1024);
        s.append("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n")
                .append("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>Palisade report: ")
                .append(esc(graph)).append("</title>\n<style>\n")
                .append("body{font-family:system-ui,-apple-system,Segoe UI,Helvetica,Arial,sans-serif;margin:16px;color:#1d2330;background:#fafbfc}\n")
                .append("h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:24px 0 8px}.sub{color:#5a6478;font-size:13px}\n")
                .append(".tl{display:none}.tl svg{display:block;width:100%;height:auto;background:#fff;border:1px solid #d8dde6;border-radius:6px}\n");
        for (int i = 0; i < WIDTHS.length; i++) {
            s.append("@media ").append(MEDIA[i]).append("{.tl-").append(WIDTHS[i]).append("{display:block}}\n");
        }
        s.append("@media print{.tl{display:none}.tl-").append(WIDTHS[0]).append("{display:block}}\n")
                .append("svg text{font-family:system-ui,-apple-system,Segoe UI,Helvetica,Arial,sans-serif}\n")
                .append(".lane-label{font-size:").append(LANE_FONT).append("px;fill:#1d2330;font-weight:600}")
                .append(".peak{font-size:10px;fill:#5a6478}.tick{font-size:").append(AXIS_FONT).append("px;fill:#3b4456}")
                .append(".tick-seq{font-size:10px;fill:#7a8496}.grid{stroke:#eef0f4;stroke-width:1}.base{stroke:#c9cfd9;stroke-width:1}\n")
                .append(".commit{fill:#2e9e5b}.conflict{fill:#d43c3c}.retry{fill:#f0a020}.aborted{fill:#8a4fd0}\n")
                .append(".band{fill:#111;fill-opacity:.13;stroke:#111;stroke-opacity:.55;stroke-width:1}.band-label{font-size:")
                .append(BAND_FONT).append("px;fill:#111}.leader{stroke:#111;stroke-opacity:.45;stroke-width:1}\n")
                .append("table{border-collapse:collapse;background:#fff;font-size:13px;max-width:100%}th,td{border:1px solid #d8dde6;padding:4px 8px;text-align:left;vertical-align:top}")
                .append("th{background:#eef1f6}td.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}td code{white-space:nowrap}td.committers code{white-space:normal;word-break:break-all}\n")
                .append(".legend span{display:inline-block;margin-right:16px;font-size:13px}.sw{display:inline-block;width:11px;height:11px;border-radius:2px;margin-right:5px;vertical-align:-1px}\n")
                .append("</style></head><body>\n");
        // header: the window, not the whole journal
        DateTimeFormatter full = DateTimeFormatter.ofPattern("uuuu-MM-dd HH:mm:ss.SSS").withZone(ZoneOffset.UTC);
        s.append("<h1>Palisade report</h1>\n<div class=\"sub\" id=\"window\">graph ").append(esc(graph));
        if (m.events == 0) {
            s.append(" &middot; the window holds no records");
        } else {
            s.append(" &middot; window seq ").append(m.first).append("&ndash;").append(m.last).append(": <b id=\"window-events\">")
                    .append(m.events).append("</b> events")
                    .append(m.events == m.journalEvents ? " (the whole journal)" : " of " + m.journalEvents + " in the journal")
                    .append(" &middot; ").append(full.format(m.start)).append(" &rarr; ").append(full.format(m.end))
                    .append(" UTC (<span id=\"window-span\">").append(span(Duration.between(m.start, m.end))).append("</span>)");
        }
        s.append("</div>\n");
        s.append("<h2>Summary</h2>\n<table id=\"summary\"><tr><th>commits</th><th>conflicts</th><th>retries</th>")
                .append("<th>aborted or rolled back</th><th>crashes</th><th>clean writer restarts</th></tr><tr>")
                .append("<td class=\"n\" id=\"count-commit\">").append(m.count(Kind.COMMIT)).append("</td>")
                .append("<td class=\"n\" id=\"count-conflict\">").append(m.count(Kind.CONFLICT)).append("</td>")
                .append("<td class=\"n\" id=\"count-retry\">").append(m.count(Kind.RETRY)).append("</td>")
                .append("<td class=\"n\" id=\"count-aborted\">").append(m.count(Kind.ABORTED)).append("</td>")
                .append("<td class=\"n\" id=\"count-crash\">").append(m.incidents.size()).append("</td>")
                .append("<td class=\"n\" id=\"count-restart\">").append(m.cleanRestarts).append("</td></tr></table>\n");
        s.append("<p class=\"sub\">A conflict is an intent that completed KEY_CONFLICT or WRITE_CONFLICT; a retry is a later ")
                .append("intent with the idempotency key of one that did not apply (docs/conflict-resolution.md, \"Conflicts and retries: definitions\").</p>\n");
        s.append("<h2>Timeline per table</h2>\n<div class=\"legend\">")
                .append("<span><i class=\"sw\" style=\"background:#2e9e5b\"></i>commits (up)</span>")
                .append("<span><i class=\"sw\" style=\"background:#d43c3c\"></i>conflicts (down)</span>")
                .append("<span><i class=\"sw\" style=\"background:#f0a020\"></i>retries (down)</span>")
                .append("<span><i class=\"sw\" style=\"background:#8a4fd0\"></i>aborted or rolled back (down)</span>")
                .append("<span><i class=\"sw\" style=\"background:rgba(17,17,17,.25);border:1px solid #555\"></i>")
                .append("crash &rarr; recovery (full height)</span></div>\n");
        if (m.events > 0) {
            for (int w : WIDTHS) {
                timeline(s, m, w);
            }
        }
        s.append("<p class=\"sub\">Bars count per time bucket; hover a bar for its times, sequences and counts. Each tick is ")
                .append("a UTC wall time; the number under it is the sequence of the last record at or before it.</p>\n");
        incidents(s, m, full);
        keys(s, m);
        s.append("<p class=\"sub\">Look deeper: <code>palisade explain GRAPH INTENT_ID</code>, ")
                .append("<code>palisade explain GRAPH --key K --table T</code>, <code>palisade audit GRAPH --from SEQ --format table</code>.</p>\n");
        s.append("</body></html>\n");
        return s.toString();
    }

    static String span(Duration d) {
        long ms = d.toMillis();
        if (ms < 1_000) {
            return ms + " ms";
        }
        if (ms < 60_000) {
            return String.format(Locale.ROOT, "%.1f s", ms / 1000.0);
        }
        if (ms < 3_600_000) {
            return (ms / 60_000) + " min " + (ms / 1000 % 60) + " s";
        }
        return (ms / 3_600_000) + " h " + (ms / 60_000 % 60) + " min";
    }

    /** One timeline drawn for a viewBox {@code width} units wide. */
    private static void timeline(StringBuilder s, ReportModel m, int width) {
        long t0 = nanos(m.start);
        long t1 = Math.max(nanos(m.end), t0 + 1_000_000); // at least 1 ms wide
        double plot = width - LEFT - RIGHT;
        java.util.function.LongToDoubleFunction x = t -> LEFT + plot * (Math.min(Math.max(t, t0), t1) - t0) / (double) (t1 - t0);

        // incident bands and their labels (greedy rows, no overlap)
        List<double[]> bands = new ArrayList<>();
        List<String[]> labels = new ArrayList<>(); // text, title
        List<double[]> placed = new ArrayList<>(); // x, row (or -1 when not labelled)
        List<List<double[]>> rows = new ArrayList<>();
        int i = 0;
        for (Incident in : m.incidents) {
            i++;
            double a = x.applyAsDouble(nanos(in.crashTime()));
            double b = Math.max(a, x.applyAsDouble(nanos(in.endTime())));
            if (b - a < MIN_BAND) {
                double c = (a + b) / 2;
                a = Math.max(LEFT, Math.min(c - MIN_BAND / 2, width - RIGHT - MIN_BAND));
                b = a + MIN_BAND;
            }
            bands.add(new double[]{a, b});
            String full = "#" + i + " " + in.label();
            String[] tries = {full, "#" + i + " pid " + in.pid() + " killed", "#" + i};
            double[] where = {a, -1};
            String chosen = null;
            for (String t : tries) {
                double tw = textWidth(t, BAND_FONT);
                if (tw > width - 8) {
                    continue;
                }
                double lx = Math.max(4, Math.min(a, width - RIGHT - tw));
                for (int r = 0; r < MAX_LABEL_ROWS && chosen == null; r++) {
                    if (rows.size() <= r) {
                        rows.add(new ArrayList<>());
                    }
                    boolean free = true;
                    for (double[] o : rows.get(r)) {
                        if (lx < o[1] + 8 && o[0] < lx + tw + 8) {
                            free = false;
                            break;
                        }
                    }
                    if (free) {
                        rows.get(r).add(new double[]{lx, lx + tw});
                        chosen = t;
                        where = new double[]{lx, r};
                    }
                }
                if (chosen != null) {
                    break;
                }
            }
            labels.add(new String[]{chosen, "seq " + in.crashSeq() + "\u2013" + in.endSeq() + ": writer pid " + in.pid()
                    + (in.epoch() > 0 ? " (epoch " + in.epoch() + ")" : "") + " " + in.cause() + "; "
                    + (in.recovery().isEmpty() ? "restarted with nothing to recover" : "recovery: " + in.label()
                    .substring(in.label().indexOf("recovery ") + 9)) + (in.restartPid() > 0 ? "; restarted as pid "
                    + in.restartPid() : "")});
            placed.add(where);
        }
        int labelRows = (int) rows.stream().filter(r -> !r.isEmpty()).count();
        int top = 10 + labelRows * LABEL_ROW + (labelRows > 0 ? 6 : 0);
        int lanesTop = top;
        int lanesBottom = lanesTop + m.tables.size() * LANE;
        int height = lanesBottom + 40;

        s.append("<div class=\"tl tl-").append(width).append("\"><svg id=\"timeline-").append(width)
                .append("\" class=\"timeline\" viewBox=\"0 0 ").append(width).append(' ').append(height)
                .append("\" data-t0=\"").append(t0).append("\" data-t1=\"").append(t1).append("\" data-left=\"")
                .append(LEFT).append("\" data-right=\"").append(width - RIGHT)
                .append("\" role=\"img\" aria-label=\"commits, conflicts and retries per table over time, with crashes and recoveries\">\n");

        // ticks: a round step whose labels fit, at whole multiples of it
        long spanMs = Math.max(1, (t1 - t0) / 1_000_000);
        long step = STEPS_MS[STEPS_MS.length - 1];
        DateTimeFormatter fmt = null;
        for (long st : STEPS_MS) {
            DateTimeFormatter fm = format(st, spanMs);
            double lw = textWidth(fm.format(Instant.EPOCH), AXIS_FONT) + 18;
            if (plot * st / (double) spanMs >= lw) {
                step = st;
                fmt = fm;
                break;
            }
        }
        if (fmt == null) {
            fmt = format(step, spanMs);
        }
        long firstTick = Math.floorDiv(t0 / 1_000_000 + step - 1, step) * step;
        String previousSeq = null;
        for (long ms = firstTick; ms * 1_000_000 <= t1; ms += step) {
            long tn = ms * 1_000_000;
            if (tn < t0) {
                continue;
            }
            double tx = x.applyAsDouble(tn);
            String label = fmt.format(Instant.ofEpochMilli(ms));
            double lw = textWidth(label, AXIS_FONT);
            if (tx - lw / 2 < 2 || tx + lw / 2 > width - 2) {
                continue; // a label that would be clipped is not drawn
            }
            s.append("<line class=\"grid\" x1=\"").append(f(tx)).append("\" x2=\"").append(f(tx)).append("\" y1=\"")
                    .append(lanesTop).append("\" y2=\"").append(lanesBottom + 4).append("\"/>");
            s.append("<text class=\"tick\" x=\"").append(f(tx)).append("\" y=\"").append(lanesBottom + 17)
                    .append("\" text-anchor=\"middle\" data-ms=\"").append(ms).append("\">").append(esc(label)).append("</text>");
            Map.Entry<Instant, Long> at = m.times.floorEntry(Instant.ofEpochMilli(ms));
            String seq = at == null ? null : "seq " + at.getValue();
            if (seq != null && !seq.equals(previousSeq)) {
                s.append("<text class=\"tick-seq\" x=\"").append(f(tx)).append("\" y=\"").append(lanesBottom + 31)
                        .append("\" text-anchor=\"middle\">").append(seq).append("</text>");
                previousSeq = seq;
            }
            s.append('\n');
        }

        // buckets: as many as the width holds at 4 units each, about 3 events each, at least 10
        int buckets = (int) Math.max(10, Math.min(plot / 4, Math.ceil(m.events / 3.0)));
        double bucketNs = (t1 - t0) / (double) buckets;
        for (int li = 0; li < m.tables.size(); li++) {
            String table = m.tables.get(li);
            int base = lanesTop + li * LANE + 8 + HALF;
            int[][] c = new int[buckets][Kind.values().length];
            long[][] seqs = new long[buckets][2];
            for (long[] sq : seqs) {
                sq[0] = Long.MAX_VALUE;
                sq[1] = -1;
            }
            for (Activity a : m.activity) {
                if (!a.table().equals(table)) {
                    continue;
                }
                int b = (int) Math.min(buckets - 1, Math.max(0, (nanos(a.time()) - t0) / bucketNs));
                c[b][a.kind().ordinal()]++;
                seqs[b][0] = Math.min(seqs[b][0], a.seq());
                seqs[b][1] = Math.max(seqs[b][1], a.seq());
            }
            int peak = 1;
            for (int[] cb : c) {
                peak = Math.max(peak, Math.max(cb[Kind.COMMIT.ordinal()],
                        cb[Kind.CONFLICT.ordinal()] + cb[Kind.RETRY.ordinal()] + cb[Kind.ABORTED.ordinal()]));
            }
            String name = table;
            int maxChars = (int) ((LEFT - 16) / (EM * LANE_FONT));
            if (name.length() > maxChars) {
                name = name.substring(0, maxChars - 1) + "\u2026";
            }
            s.append("<g class=\"lane\" data-lane=\"").append(esc(table)).append("\">");
            s.append("<text class=\"lane-label\" x=\"10\" y=\"").append(base - 4).append("\"><title>").append(esc(table))
                    .append("</title>").append(esc(name)).append("</text>");
            s.append("<text class=\"peak\" x=\"10\" y=\"").append(base + 12).append("\">peak ").append(peak)
                    .append(" per bucket</text>");
            s.append("<line class=\"base\" x1=\"").append(LEFT).append("\" x2=\"").append(width - RIGHT).append("\" y1=\"")
                    .append(base).append("\" y2=\"").append(base).append("\"/>\n");
            double bw = plot / buckets;
            DateTimeFormatter tip = DateTimeFormatter.ofPattern("HH:mm:ss.SSS").withZone(ZoneOffset.UTC);
            for (int b = 0; b < buckets; b++) {
                int[] cb = c[b];
                if (seqs[b][1] < 0) {
                    continue;
                }
                double bx = LEFT + b * bw;
                double gap = bw > 3 ? 0.6 : 0;
                s.append("<g class=\"bucket\"><title>").append(esc(table)).append(" \u00b7 ")
                        .append(tip.format(instant(t0 + (long) (b * bucketNs)))).append("\u2013")
                        .append(tip.format(instant(t0 + (long) ((b + 1) * bucketNs)))).append(" UTC \u00b7 seq ")
                        .append(seqs[b][0]).append("\u2013").append(seqs[b][1]).append(": ")
                        .append(cb[Kind.COMMIT.ordinal()]).append(" commits, ").append(cb[Kind.CONFLICT.ordinal()])
                        .append(" conflicts, ").append(cb[Kind.RETRY.ordinal()]).append(" retries")
                        .append(cb[Kind.ABORTED.ordinal()] > 0 ? ", " + cb[Kind.ABORTED.ordinal()] + " aborted or rolled back" : "")
                        .append("</title>");
                bar(s, "commit", bx + gap / 2, bw - gap, base, -height(cb[Kind.COMMIT.ordinal()], peak));
                double down = base + 1;
                for (Kind k : new Kind[]{Kind.CONFLICT, Kind.RETRY, Kind.ABORTED}) {
                    double h = height(cb[k.ordinal()], peak);
                    bar(s, k.name().toLowerCase(Locale.ROOT), bx + gap / 2, bw - gap, down, h);
                    down += h;
                }
                s.append("</g>");
            }
            s.append("</g>\n");
        }

        // bands over every lane, labels above
        for (int k = 0; k < bands.size(); k++) {
            double[] band = bands.get(k);
            String[] lab = labels.get(k);
            double[] where = placed.get(k);
            s.append("<g class=\"incident\"><title>").append(esc(lab[1])).append("</title>");
            s.append("<rect class=\"band\" x=\"").append(f(band[0])).append("\" y=\"").append(lanesTop).append("\" width=\"")
                    .append(f(band[1] - band[0])).append("\" height=\"").append(lanesBottom - lanesTop).append("\"/>");
            if (lab[0] != null) {
                int ly = 10 + (int) where[1] * LABEL_ROW + BAND_FONT;
                double mid = (band[0] + band[1]) / 2;
                s.append("<line class=\"leader\" x1=\"").append(f(mid)).append("\" x2=\"").append(f(mid)).append("\" y1=\"")
                        .append(ly + 3).append("\" y2=\"").append(lanesTop).append("\"/>");
                s.append("<text class=\"band-label\" x=\"").append(f(where[0])).append("\" y=\"").append(ly).append("\">")
                        .append(esc(lab[0])).append("</text>");
            }
            s.append("</g>\n");
        }
        s.append("</svg></div>\n");
    }

    private static double height(int n, int peak) {
        return n == 0 ? 0 : Math.max(1.5, HALF * n / (double) peak);
    }

    private static void bar(StringBuilder s, String cls, double x, double w, double y, double h) {
        if (h == 0) {
            return;
        }
        double top = h < 0 ? y + h : y;
        s.append("<rect class=\"").append(cls).append("\" x=\"").append(f(x)).append("\" y=\"").append(f(top))
                .append("\" width=\"").append(f(Math.max(0.8, w))).append("\" height=\"").append(f(Math.abs(h))).append("\"/>");
    }

    /** The tick format for a step: milliseconds below a second, seconds below a minute, the day past a day's span. */
    private static DateTimeFormatter format(long stepMs, long spanMs) {
        String p = stepMs < 1_000 ? "HH:mm:ss.SSS" : stepMs < 60_000 ? "HH:mm:ss" : "HH:mm";
        if (spanMs >= 86_400_000L) {
            p = "MM-dd " + p;
        }
        return DateTimeFormatter.ofPattern(p).withZone(ZoneOffset.UTC);
    }

    private static long nanos(Instant t) {
        return t.getEpochSecond() * 1_000_000_000L + t.getNano();
    }

    private static Instant instant(long nanos) {
        return Instant.ofEpochSecond(Math.floorDiv(nanos, 1_000_000_000L), Math.floorMod(nanos, 1_000_000_000L));
    }

    private static void incidents(StringBuilder s, ReportModel m, DateTimeFormatter full) {
        s.append("<h2>Crashes and recoveries</h2>\n<table id=\"incidents\"><thead><tr><th>#</th><th>seq</th><th>time (UTC)</th>")
                .append("<th>writer</th><th>what happened</th><th>recovery</th></tr></thead><tbody>\n");
        int i = 0;
        for (Incident in : m.incidents) {
            StringBuilder rec = new StringBuilder();
            for (Map.Entry<io.palisade.journal.RecoveryClassification.Kind, Integer> e : in.recovery().entrySet()) {
                rec.append(rec.isEmpty() ? "" : ", ").append(Incident.verb(e.getKey())).append(' ').append(e.getValue());
            }
            s.append("<tr class=\"incident-row\"><td class=\"n\">").append(++i).append("</td><td class=\"n\">")
                    .append(in.crashSeq()).append("&ndash;").append(in.endSeq()).append("</td><td>")
                    .append(full.format(in.crashTime())).append("</td><td>pid ").append(in.pid() < 0 ? "?" : in.pid())
                    .append(in.epoch() > 0 ? ", epoch " + in.epoch() : "").append("</td><td>").append(esc(in.cause()))
                    .append(in.restartPid() > 0 ? "; restarted as pid " + in.restartPid() : "").append("</td><td>")
                    .append(rec.isEmpty() ? "nothing to recover" : esc(rec.toString())).append("</td></tr>\n");
        }
        if (m.incidents.isEmpty()) {
            s.append("<tr><td colspan=\"6\">no crash in this window</td></tr>\n");
        }
        s.append("</tbody></table>\n");
    }

    private static void keys(StringBuilder s, ReportModel m) {
        s.append("<h2>Busiest conflicting keys</h2>\n");
        s.append("<table id=\"conflict-keys\"><thead><tr><th>#</th><th>table</th><th>key</th><th>conflicts</th>")
                .append("<th>committed by (intent@seq)</th><th>last conflict at seq</th></tr></thead><tbody>\n");
        int i = 0;
        for (KeyRow k : m.busiest) {
            s.append("<tr class=\"conflict-key\"><td class=\"n\">").append(++i).append("</td><td>").append(esc(k.table()))
                    .append("</td><td><code>").append(esc(k.key())).append("</code></td><td class=\"n\">").append(k.conflicts())
                    .append("</td><td class=\"committers\">");
            List<String> shown = k.committers().subList(0, Math.min(3, k.committers().size()));
            for (int j = 0; j < shown.size(); j++) {
                s.append(j == 0 ? "" : "<br>").append("<code>").append(esc(shown.get(j))).append("</code>");
            }
            if (k.committers().size() > 3) {
                s.append("<br>and ").append(k.committers().size() - 3).append(" more");
            }
            s.append("</td><td class=\"n\">").append(k.lastSeq()).append("</td></tr>\n");
        }
        if (m.busiest.isEmpty()) {
            s.append("<tr><td colspan=\"6\">no conflicts in this window</td></tr>\n");
        }
        s.append("</tbody></table>\n");
    }
}
