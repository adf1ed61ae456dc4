package io.palisade.it.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.palisade.cli.ReportLayoutCheck;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static io.palisade.it.cli.Launcher.run;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code palisade demo} end to end (same-key races, a SIGKILLed writer child, recovery), then its HTML report
 * checked for its counts and the conflict-keys table, and rendered by headless Chromium: a screenshot, and the
 * layout measured at 800, 1280 and 1920 px (ReportLayoutCheck: no overlapping labels, no clipped or misplaced ticks).
 */
class DemoAndReportTest {
    static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void demoRacesKillsAWriterRecoversAndTheReportDrawsTheTimelineInChromium() throws Exception {
        Path dir = Path.of(Launcher.ROOT.toString(), "end-to-end", "target", "cli-demo");
        deleteTree(dir);
        Launcher.Result demo = run("demo", dir.toString());
        assertThat(demo.code()).as(demo.toString()).isZero();
        assertThat(demo.out()).contains("1 winner").contains("KeyConflictException").contains("killed")
                .contains("recovery").contains("All invariants held")
                // the commands it suggests work from any directory and use the current option names
                .contains(Launcher.BIN.toAbsolutePath() + " audit").contains(" replay ").doesNotContain("--to-seq");
        // the losers it says it retried are the retries explain names (one idempotency key per racer)
        java.util.regex.Matcher retried = java.util.regex.Pattern.compile("the (\\d+) losers retried as upserts")
                .matcher(demo.out());
        assertThat(retried.find()).as(demo.out()).isTrue();
        Launcher.Result raced = run("explain", dir.resolve("graph").toString(), "--key", "race0-0", "--table", "person",
                "--format", "json");
        assertThat(raced.code()).as(raced.toString()).isZero();
        assertThat(JSON.readTree(raced.out()).findValue("retries").asInt()).as(raced.out())
                .isEqualTo(Integer.parseInt(retried.group(1)));
        String graph = dir.resolve("graph").toString();

        // what the page must show, computed from the journal through the CLI
        Set<String> createTable = new HashSet<>();
        for (String l : run("audit", graph, "--type", "intent_recorded").out().split("\n")) {
            JsonNode n = JSON.readTree(l);
            if (n.get("operation").asText().equals("create_table")) {
                createTable.add(n.get("intent_id").asText());
            }
        }
        int commits = 0;
        Set<String> conflictKeys = new HashSet<>();
        for (String l : run("audit", graph, "--type", "intent_completed").out().split("\n")) {
            JsonNode n = JSON.readTree(l);
            String o = n.get("outcome").asText();
            if ((o.equals("COMMITTED") || o.equals("ROLLED_FORWARD")) && !createTable.contains(n.get("intent_id").asText())) {
                commits++;
            }
            if (o.equals("KEY_CONFLICT")) {
                n.get("conflicting_keys").forEach(k -> conflictKeys.add(k.asText()));
            }
        }
        assertThat(commits).isGreaterThan(5);
        assertThat(conflictKeys).hasSize(15);

        Path html = dir.resolve("report.html");
        Launcher.Result rep = run("report", graph, "--html", html.toString());
        assertThat(rep.code()).as(rep.toString()).isZero();
        String page = Files.readString(html);
        assertThat(page).doesNotContain("http:").doesNotContain("https:").doesNotContain("url(").doesNotContain("<script")
                .doesNotContain("<link");

        assertThat(tdNumber(page, "count-commit")).isEqualTo(commits);
        assertThat(tdNumber(page, "count-conflict")).isEqualTo(35);
        // a crash band exists only when the kill landed while an intent was open (recovery had work to do)
        int recoveries = run("audit", graph, "--type", "recovery_finished").out().strip().isEmpty() ? 0 : 1;
        assertThat(tdNumber(page, "count-crash")).isEqualTo(recoveries);
        Matcher body = Pattern.compile("<table id=\"conflict-keys\">.*?<tbody>(.*?)</tbody>", Pattern.DOTALL).matcher(page);
        assertThat(body.find()).isTrue();
        assertThat(count(body.group(1), "<tr class=\"conflict-key\"")).isEqualTo(conflictKeys.size());
        for (String k : conflictKeys) {
            assertThat(body.group(1)).contains("<code>" + k + "</code>");
        }

        ReportLayoutCheck.assumeChromium();
        Path png = dir.resolve("report.png");
        ReportLayoutCheck.chromium(Files.createTempDirectory("chromium-profile"), 1280, "--screenshot=" + png,
                html.toUri().toString());
        assertThat(png).exists();
        assertThat(Files.size(png)).isGreaterThan(10_000);
        // the demo's story (crash -> abort -> recovery at the end) stays readable at every width
        for (ReportLayoutCheck.Verdict v : ReportLayoutCheck.check(html, ReportLayoutCheck.VIEWPORTS)) {
            assertThat(v.problems()).as("demo report at " + v.width() + " px: " + v.json()).isEmpty();
            assertThat(v.ticks()).isGreaterThanOrEqualTo(3);
            assertThat(v.bands()).isEqualTo(recoveries);
        }
        System.out.println("report screenshot: " + png);
    }

    private static int count(String s, String needle) {
        int n = 0;
        for (int i = s.indexOf(needle); i >= 0; i = s.indexOf(needle, i + 1)) {
            n++;
        }
        return n;
    }

    private static int tdNumber(String page, String id) {
        Matcher m = Pattern.compile("<td class=\"n\" id=\"" + id + "\">(\\d+)</td>").matcher(page);
        assertThat(m.find()).as(id).isTrue();
        return Integer.parseInt(m.group(1));
    }

    private static void deleteTree(Path p) throws IOException {
        if (!Files.exists(p)) {
            return;
        }
        try (var s = Files.walk(p)) {
            for (Path x : s.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.delete(x);
            }
        }
    }
}
