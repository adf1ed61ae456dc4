package io.palisade.cli;

import io.palisade.cli.ReportModel.Incident;
import io.palisade.cli.ReportModel.Kind;
import io.palisade.cli.ReportModel.KeyRow;

import java.time.Duration;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The self-contained HTML of {@code palisade report}: inline CSS and SVG, no script, no network.
 *
 * <p>The timeline ({@link ReportTimeline}) is drawn three times, for narrow, middle and wide screens (CSS media
 * queries show one), each an SVG with a {@code viewBox} at {@code width:100%}, so it is fluid and its bucket count
 * and ticks fit the width it is drawn for.
 */
final class Html {
    /** The widths (viewBox units) the timeline is drawn for, and the CSS media range each is shown in. */
    static final int[] WIDTHS = {900, 1400, 1900};
    private static final String[] MEDIA = {"(max-width: 1099px)", "(min-width: 1100px) and (max-width: 1699px)",
            "(min-width: 1700px)"};

    private Html() {
    }

    static String esc(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
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
                .append(".lane-label{font-size:").append(ReportTimeline.LANE_FONT).append("px;fill:#1d2330;font-weight:600}")
                .append(".peak{font-size:10px;fill:#5a6478}.tick{font-size:").append(ReportTimeline.AXIS_FONT).append("px;fill:#3b4456}")
                .append(".tick-seq{font-size:10px;fill:#7a8496}.grid{stroke:#eef0f4;stroke-width:1}.base{stroke:#c9cfd9;stroke-width:1}\n")
                .append(".commit{fill:#2e9e5b}.conflict{fill:#d43c3c}.retry{fill:#f0a020}.aborted{fill:#8a4fd0}\n")
                .append(".band{fill:#111;fill-opacity:.13;stroke:#111;stroke-opacity:.55;stroke-width:1}.band-label{font-size:")
                .append(ReportTimeline.BAND_FONT).append("px;fill:#111}.leader{stroke:#111;stroke-opacity:.45;stroke-width:1}\n")
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
        s.append("<h2>Summary</h2>\n<table id=\"summary\"><tr><th>commits</th><th>of them in graph transactions</th>")
                .append("<th>conflicts</th><th>retries</th>")
                .append("<th>aborted or rolled back</th><th>crashes</th><th>clean writer restarts</th></tr><tr>")
                .append("<td class=\"n\" id=\"count-commit\">").append(m.count(Kind.COMMIT)).append("</td>")
                .append("<td class=\"n\" id=\"count-transaction\">").append(m.transactions.size())
                .append(m.transactions.isEmpty() ? "" : " transactions, " + m.transactionParts + " parts")
                .append("</td>")
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
                ReportTimeline.draw(s, m, w);
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
