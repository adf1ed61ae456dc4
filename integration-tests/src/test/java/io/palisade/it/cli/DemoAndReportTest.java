package io.palisade.it.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static io.palisade.it.cli.Launcher.run;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code palisade demo} end to end (same-key races, a SIGKILLed writer child, recovery), then its HTML report
 * rendered by headless Chromium: a screenshot, and the DOM checked for the timeline and the conflict-keys table.
 */
class DemoAndReportTest {
    static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void demoRacesKillsAWriterRecoversAndTheReportDrawsTheTimelineInChromium() throws Exception {
        Path dir = Path.of(Launcher.ROOT.toString(), "integration-tests", "target", "cli-demo");
        deleteTree(dir);
        Launcher.Result demo = run("demo", dir.toString());
        assertThat(demo.code()).as(demo.toString()).isZero();
        assertThat(demo.out()).contains("1 winner").contains("KeyConflictException").contains("killed")
                .contains("recovery").contains("All invariants held").contains("bin/palisade audit");
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

        ensureChromium();
        Path png = dir.resolve("report.png");
        Path profile = Files.createTempDirectory("chromium-profile");
        chromium(profile, "--screenshot=" + png, "file://" + html);
        assertThat(png).exists();
        assertThat(Files.size(png)).isGreaterThan(10_000);
        byte[] sig = Files.readAllBytes(png);
        assertThat(sig[1]).isEqualTo((byte) 'P');

        String dom = chromium(Files.createTempDirectory("chromium-profile"), "--dump-dom", "file://" + html);
        assertThat(dom).contains("<svg id=\"timeline\"");
        assertThat(count(dom, "class=\"mark commit\"")).isEqualTo(commits);
        assertThat(count(dom, "class=\"mark conflict\"")).isEqualTo(35);
        assertThat(count(dom, "class=\"mark crash\"")).isGreaterThanOrEqualTo(1);
        // recovery decisions exist only when the kill landed while an intent was open
        int recoveries = run("audit", graph, "--type", "recovery_finished").out().strip().isEmpty() ? 0 : 1;
        assertThat(count(dom, "class=\"mark recovery\"") > 0).isEqualTo(recoveries > 0);
        Matcher body = Pattern.compile("<table id=\"conflict-keys\">.*?<tbody>(.*?)</tbody>", Pattern.DOTALL).matcher(dom);
        assertThat(body.find()).isTrue();
        assertThat(count(body.group(1), "<tr class=\"conflict-key\"")).isEqualTo(conflictKeys.size());
        for (String k : conflictKeys) {
            assertThat(body.group(1)).contains("<code>" + k + "</code>");
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

    /** Installs Debian's chromium when missing (apt-get update + install); skips, with the reason, when impossible. */
    static void ensureChromium() throws Exception {
        if (Files.isExecutable(CHROMIUM)) {
            return;
        }
        String why;
        try {
            Process u = new ProcessBuilder("apt-get", "update").redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            u.waitFor(300, TimeUnit.SECONDS);
            Process i = new ProcessBuilder("apt-get", "install", "-y", "chromium").redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            boolean done = i.waitFor(600, TimeUnit.SECONDS);
            why = done ? "apt-get install -y chromium exited " + i.exitValue() : "apt-get install timed out";
        } catch (IOException e) {
            why = "apt-get is not available: " + e.getMessage();
        }
        Assumptions.assumeTrue(Files.isExecutable(CHROMIUM), "headless Chromium unavailable (" + why
                + "); the report rendering check is skipped, not passed");
    }

    static String chromium(Path profile, String... extra) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(CHROMIUM.toString(), "--headless", "--no-sandbox", "--disable-gpu",
                "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update",
                "--disable-sync", "--user-data-dir=" + profile, "--window-size=1200,900"));
        cmd.addAll(List.of(extra));
        Path out = Files.createTempFile("chromium", ".out");
        Process p = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("chromium did not finish: " + cmd);
        }
        return Files.readString(out);
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
