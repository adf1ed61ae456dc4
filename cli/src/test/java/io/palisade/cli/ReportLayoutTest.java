package io.palisade.cli;

import io.palisade.journal.JournalEvent;
import io.palisade.journal.JournalRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code palisade report} on the incident graph ({@link IncidentJournals}; {@value IncidentJournals#SMALL_EVENTS}
 * events in CI, {@code -Dpalisade.report.events=16000} for the journal), whole and zoomed on the crash with
 * {@code --from/--to}, rendered in headless Chromium at 800, 1280 and 1920 px: no label overlaps another or leaves its
 * SVG, ticks are distinct whole times at their place, the crash band is drawn, and the header counts the window.
 * The 300-event demo graph is checked the same way by end-to-end's DemoAndReportTest.
 */
class ReportLayoutTest {
    static final int EVENTS = Integer.getInteger("palisade.report.events", IncidentJournals.SMALL_EVENTS);

    @Test
    void theIncidentReportWholeAndZoomedHasNoOverlappingOrClippedLabelsAtThreeWidths(@TempDir Path tmp) throws Exception {
        IncidentJournals.Incident incident = IncidentJournals.of(EVENTS);
        String graph = incident.graph().toString();
        List<JournalRecord> all = Cli.records(incident.graph(), 0);
        long recovered = all.stream().filter(r -> r.event() instanceof JournalEvent.RecoveryFinished)
                .mapToLong(JournalRecord::sequence).findFirst().orElseThrow();
        long from = Math.max(0, recovered - 150);
        long to = Math.min(all.get(all.size() - 1).sequence(), recovered + 150);

        Path whole = tmp.resolve("whole.html");
        CliRun.Result r = CliRun.run("report", graph, "--html", whole.toString());
        assertThat(r.code()).as(r.toString()).isZero();
        assertThat(own(r.err())).as("not a terminal: no progress drawn").isEmpty();
        assertThat(windowEvents(whole)).isEqualTo(all.size());

        Path zoom = tmp.resolve("zoom.html");
        r = CliRun.run("report", graph, "--html", zoom.toString(), "--from", Long.toString(from), "--to", Long.toString(to));
        assertThat(r.code()).as(r.toString()).isZero();
        assertThat(windowEvents(zoom)).isEqualTo(all.stream().filter(x -> x.sequence() >= from && x.sequence() <= to).count());
        assertThat(Files.readString(zoom)).contains("window seq " + from + "&ndash;" + to + ":")
                .contains("writer pid " + incident.killedPid() + " killed; recovery rolled forward"); // it died after a Lance commit (IncidentJournals)

        ReportLayoutCheck.assumeChromium();
        for (Path page : List.of(whole, zoom)) {
            for (ReportLayoutCheck.Verdict v : ReportLayoutCheck.check(page, ReportLayoutCheck.VIEWPORTS)) {
                int width = v.width();
                assertThat(v.problems()).as(page.getFileName() + " at " + width + " px: " + v.json()).isEmpty();
                assertThat(v.ticks()).as("ticks at " + width + " px").isGreaterThanOrEqualTo(3);
                assertThat(v.bands()).as("the crash band").isEqualTo(1);
            }
        }
    }

    @Test
    void theChromiumCheckFindsOverlappingLabelsClippedAndRepeatedTicks(@TempDir Path tmp) throws Exception {
        ReportLayoutCheck.assumeChromium();
        // one timeline for every width: two overlapping band labels, a tick clipped at the right, a repeated tick,
        // and a tick drawn away from its time
        String svg = "<svg class=\"timeline\" viewBox=\"0 0 1000 200\" style=\"width:100%\" data-t0=\"0\" "
                + "data-t1=\"10000000000\" data-left=\"100\" data-right=\"900\">"
                + "<text x=\"300\" y=\"20\">writer pid 1 killed</text><text x=\"310\" y=\"22\">writer pid 2 killed</text>"
                + "<text class=\"tick\" x=\"180\" y=\"190\" text-anchor=\"middle\" data-ms=\"1000\">00:00:01</text>"
                + "<text class=\"tick\" x=\"500\" y=\"190\" text-anchor=\"middle\" data-ms=\"5000\">00:00:05</text>"
                + "<text class=\"tick\" x=\"700\" y=\"190\" text-anchor=\"middle\" data-ms=\"9000\">00:00:05</text>"
                + "<text class=\"tick\" x=\"995\" y=\"190\" text-anchor=\"middle\" data-ms=\"10000\">00:00:10</text></svg>";
        Path page = tmp.resolve("bad.html");
        Files.writeString(page, "<!DOCTYPE html><html><body>" + svg + "</body></html>");
        ReportLayoutCheck.Verdict v = ReportLayoutCheck.check(page, 1280);
        assertThat(v.problems()).anyMatch(p -> p.startsWith("labels overlap: \"writer pid 1 killed\""))
                .anyMatch(p -> p.equals("clipped label \"00:00:10\""))
                .anyMatch(p -> p.startsWith("repeated tick labels"))
                .anyMatch(p -> p.startsWith("tick \"00:00:05\" at"))
                .anyMatch(p -> p.startsWith("ticks at uneven steps"));
    }

    @Test
    void dashWritesThePageToStdoutAndTheSummaryToStderr() throws Exception {
        IncidentJournals.Incident incident = IncidentJournals.of(IncidentJournals.SMALL_EVENTS);
        CliRun.Result r = CliRun.run("report", incident.graph().toString(), "--html", "-", "--from", "last 50");
        assertThat(r.code()).as(r.toString()).isZero();
        assertThat(r.out()).startsWith("<!DOCTYPE html>").endsWith("</html>\n").doesNotContain("<script")
                .doesNotContain("http:").doesNotContain("https:");
        assertThat(own(r.err())).startsWith("palisade: wrote the report to stdout: window seq ").contains("50 of ");
        assertThat(Files.exists(Path.of("-"))).isFalse();
    }

    /** stderr without the libraries' log lines (slf4j-simple writes them to the captured stderr in-process). */
    static String own(String err) {
        return err.lines().filter(l -> !l.matches("^\\[[^\\]]*\\] (TRACE|DEBUG|INFO|WARN) .*"))
                .map(l -> l + "\n").collect(java.util.stream.Collectors.joining());
    }

    static long windowEvents(Path html) throws Exception {
        Matcher m = Pattern.compile("<b id=\"window-events\">(\\d+)</b>").matcher(Files.readString(html));
        assertThat(m.find()).as("the header's event count").isTrue();
        return Long.parseLong(m.group(1));
    }
}
