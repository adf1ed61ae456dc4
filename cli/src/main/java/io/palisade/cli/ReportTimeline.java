package io.palisade.cli;

import io.palisade.cli.ReportModel.Activity;
import io.palisade.cli.ReportModel.Incident;
import io.palisade.cli.ReportModel.Kind;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The timeline of {@code palisade report}: one SVG drawn for a {@code viewBox} width, with a lane per table of
 * commits (up) and conflicts, retries and aborts (down) counted per time bucket, ticks at round UTC times with the
 * sequence under each, and a band from each crash to its recovery across the lanes.
 *
 * <p>Layout invariants (checked in headless Chromium by {@code ReportLayoutCheck}): tick labels are whole times at
 * a round step, distinct, placed at their time, and lie inside the SVG; no two labels overlap; a crash band is at least
 * {@link #MIN_BAND} wide; text widths are estimated at {@link #EM} of the font size per character, which over-estimates
 * the sans-serif fonts a browser uses.
 */
final class ReportTimeline {
    static final double EM = 0.62;
    static final double MIN_BAND = 6;
    private static final int LEFT = 150;
    private static final int RIGHT = 24;
    private static final int HALF = 30;
    private static final int LANE = 2 * HALF + 16;
    private static final int LABEL_ROW = 17;
    private static final int MAX_LABEL_ROWS = 4;
    // the font sizes (px) of tick, lane and band labels: the page's CSS sets them, text widths are estimated with them
    static final int AXIS_FONT = 11;
    static final int LANE_FONT = 13;
    static final int BAND_FONT = 11;
    private static final long[] STEPS_MS = {1, 2, 5, 10, 20, 50, 100, 200, 500, 1_000, 2_000, 5_000, 10_000, 15_000,
            30_000, 60_000, 120_000, 300_000, 600_000, 900_000, 1_800_000, 3_600_000, 7_200_000, 10_800_000, 21_600_000,
            43_200_000, 86_400_000, 172_800_000, 604_800_000};

    private ReportTimeline() {
    }

    static double textWidth(String s, int font) {
        return s.length() * EM * font;
    }

    private static String f(double d) {
        return String.format(Locale.ROOT, "%.1f", d);
    }

    /** Appends one timeline drawn for a viewBox {@code width} units wide. */
    static void draw(StringBuilder s, ReportModel m, int width) {
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
                    .append("\" text-anchor=\"middle\" data-ms=\"").append(ms).append("\">").append(Html.esc(label)).append("</text>");
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
            s.append("<g class=\"lane\" data-lane=\"").append(Html.esc(table)).append("\">");
            s.append("<text class=\"lane-label\" x=\"10\" y=\"").append(base - 4).append("\"><title>").append(Html.esc(table))
                    .append("</title>").append(Html.esc(name)).append("</text>");
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
                s.append("<g class=\"bucket\"><title>").append(Html.esc(table)).append(" \u00b7 ")
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
            s.append("<g class=\"incident\"><title>").append(Html.esc(lab[1])).append("</title>");
            s.append("<rect class=\"band\" x=\"").append(f(band[0])).append("\" y=\"").append(lanesTop).append("\" width=\"")
                    .append(f(band[1] - band[0])).append("\" height=\"").append(lanesBottom - lanesTop).append("\"/>");
            if (lab[0] != null) {
                int ly = 10 + (int) where[1] * LABEL_ROW + BAND_FONT;
                double mid = (band[0] + band[1]) / 2;
                s.append("<line class=\"leader\" x1=\"").append(f(mid)).append("\" x2=\"").append(f(mid)).append("\" y1=\"")
                        .append(ly + 3).append("\" y2=\"").append(lanesTop).append("\"/>");
                s.append("<text class=\"band-label\" x=\"").append(f(where[0])).append("\" y=\"").append(ly).append("\">")
                        .append(Html.esc(lab[0])).append("</text>");
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
}
