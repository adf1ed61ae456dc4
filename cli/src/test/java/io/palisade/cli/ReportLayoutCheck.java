package io.palisade.cli;

import org.junit.jupiter.api.Assumptions;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Checks a {@code palisade report} page in a real headless Chromium (Debian package {@code chromium}): a copy of the
 * page gets a script that measures every label of the visible timeline with {@code getBoundingClientRect}; one
 * probe page holds a copy per viewport width in an iframe of that width, collects their verdicts and writes them into
 * the DOM, which {@code chromium --headless --dump-dom} prints (one Chromium run checks every width). Loopback only: the page is a local
 * file and Chromium runs with networking features off.
 *
 * <p>The verdict lists problems: labels that overlap, labels outside their SVG (clipped), a page wider than the
 * viewport, fewer than two ticks, repeated tick labels, ticks not at a whole multiple of one step or not at their time,
 * a crash band narrower than its minimum. An empty list is a pass.
 */
public final class ReportLayoutCheck {
    public static final Path CHROMIUM = Path.of(System.getProperty("palisade.chromium", "/usr/bin/chromium"));
    /** The viewport widths a report is checked at. */
    public static final int[] VIEWPORTS = {800, 1280, 1920};

    private static final String SCRIPT = """
            <script>
            (function () {
              const problems = [];
              const shown = e => e.getClientRects().length > 0;
              const svgs = [...document.querySelectorAll('svg.timeline')].filter(shown);
              if (svgs.length !== 1) problems.push('expected one visible timeline, found ' + svgs.length);
              const page = document.documentElement.scrollWidth;
              if (page > innerWidth + 1) problems.push('page is ' + page + ' px wide in a ' + innerWidth + ' px viewport');
              let ticks = 0, texts = 0, bands = 0;
              for (const svg of svgs) {
                const sb = svg.getBoundingClientRect();
                const vb = svg.viewBox.baseVal;
                const scale = sb.width / vb.width;
                const boxes = [...svg.querySelectorAll('text')].map(t => ({s: t.textContent, b: t.getBoundingClientRect()}));
                texts += boxes.length;
                for (const x of boxes) {
                  if (x.b.left < sb.left - 0.5 || x.b.right > sb.right + 0.5 || x.b.top < sb.top - 0.5 || x.b.bottom > sb.bottom + 0.5)
                    problems.push('clipped label "' + x.s + '"');
                }
                for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) {
                  const a = boxes[i].b, b = boxes[j].b;
                  if (Math.min(a.right, b.right) - Math.max(a.left, b.left) > 0.5 && Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > 0.5)
                    problems.push('labels overlap: "' + boxes[i].s + '" and "' + boxes[j].s + '"');
                }
                const t0 = Number(svg.dataset.t0), t1 = Number(svg.dataset.t1);
                const left = Number(svg.dataset.left), right = Number(svg.dataset.right);
                const tk = [...svg.querySelectorAll('text.tick')].map(t => ({s: t.textContent, ms: Number(t.dataset.ms), b: t.getBoundingClientRect()}));
                ticks += tk.length;
                if (tk.length < 2) problems.push('only ' + tk.length + ' tick(s)');
                if (new Set(tk.map(t => t.s)).size !== tk.length) problems.push('repeated tick labels: ' + tk.map(t => t.s).join(', '));
                const steps = new Set();
                for (let i = 0; i < tk.length; i++) {
                  const t = tk[i];
                  const want = sb.left + scale * (left + (right - left) * (t.ms * 1e6 - t0) / (t1 - t0));
                  const got = (t.b.left + t.b.right) / 2;
                  if (Math.abs(want - got) > 1.5) problems.push('tick "' + t.s + '" at ' + got.toFixed(1) + ' px, its time is at ' + want.toFixed(1));
                  if (i > 0) {
                    if (!(t.ms > tk[i - 1].ms && t.b.left > tk[i - 1].b.left)) problems.push('ticks out of order at "' + t.s + '"');
                    steps.add(t.ms - tk[i - 1].ms);
                  }
                  if (!/^(\\d\\d-\\d\\d )?\\d\\d:\\d\\d(:\\d\\d(\\.\\d\\d\\d)?)?$/.test(t.s)) problems.push('tick label "' + t.s + '" is not a time');
                }
                if (steps.size > 1) problems.push('ticks at uneven steps: ' + [...steps].join(', ') + ' ms');
                const step = [...steps][0];
                if (step && tk.some(t => t.ms % step !== 0)) problems.push('a tick is not a whole multiple of its ' + step + ' ms step');
                for (const r of svg.querySelectorAll('rect.band')) {
                  bands++;
                  if (r.getBoundingClientRect().width < %MIN_BAND% * scale - 0.1) problems.push('a crash band is narrower than its minimum');
                }
              }
              parent.postMessage(JSON.stringify({width: innerWidth, ticks, texts, bands, problems: problems.slice(0, 40), count: problems.length}), '*');
            })();
            </script>
            """.replace("%MIN_BAND%", Double.toString(ReportTimeline.MIN_BAND));

    /** The verdict of one page at one viewport width. */
    public record Verdict(int width, int ticks, int texts, int bands, List<String> problems, String json) {
    }

    private ReportLayoutCheck() {
    }

    /**
     * Skips the calling test, loudly (JUnit's report and stderr), when Chromium is not installed. It is never a
     * silent pass: {@code .ci/run} installs the package on a fresh machine where it runs as root.
     */
    public static void assumeChromium() {
        if (Files.isExecutable(CHROMIUM)) {
            return;
        }
        String why = "SKIPPED, NOT PASSED: headless Chromium is not installed at " + CHROMIUM + ", so the report layout "
                + "check (overlapping labels, clipped ticks) did not run. Install the Debian package 'chromium' "
                + "(apt-get install chromium); .ci/run installs it with apt-get when it runs as root and warns when it "
                + "cannot.";
        System.err.println("\n*** " + why + " ***\n");
        Assumptions.assumeTrue(false, why);
    }

    /** Renders {@code html} in headless Chromium at {@code viewport} px and returns what the measuring script found. */
    public static Verdict check(Path html, int viewport) throws Exception {
        return check(html, new int[]{viewport}).get(0);
    }

    /**
     * Renders {@code html} at each of {@code viewports} px in one headless Chromium run (one iframe per width, so each
     * copy of the page sees its own viewport and media queries) and returns the verdicts in the order of the widths.
     */
    public static List<Verdict> check(Path html, int... viewports) throws Exception {
        Path dir = Files.createTempDirectory("report-layout");
        try {
            String page = Files.readString(html, StandardCharsets.UTF_8);
            int body = page.lastIndexOf("</body>");
            if (body < 0) {
                throw new AssertionError("the report has no </body>");
            }
            Files.writeString(dir.resolve("page.html"), page.substring(0, body) + SCRIPT + page.substring(body),
                    StandardCharsets.UTF_8);
            StringBuilder probe = new StringBuilder("<!DOCTYPE html><html><body style=\"margin:0\">");
            int widest = 0;
            for (int w : viewports) {
                probe.append("<iframe src=\"page.html\" style=\"display:block;border:0;width:").append(w)
                        .append("px;height:1000px\"></iframe>");
                widest = Math.max(widest, w);
            }
            probe.append("<script>const got = {}; window.addEventListener('message', e => { const v = JSON.parse(e.data); ")
                    .append("got[v.width] = v; if (Object.keys(got).length === ").append(viewports.length).append(") { ")
                    .append("const out = document.createElement('pre'); out.id = 'layout-verdict'; ")
                    .append("out.textContent = JSON.stringify(Object.values(got)); document.body.appendChild(out); } });")
                    .append("</script></body></html>");
            Path probeFile = dir.resolve("probe.html");
            Files.writeString(probeFile, probe, StandardCharsets.UTF_8);
            String dom = chromium(dir.resolve("profile"), widest + 40, "--virtual-time-budget=30000", "--dump-dom",
                    probeFile.toUri().toString());
            Matcher m = Pattern.compile("<pre id=\"layout-verdict\">(.*?)</pre>", Pattern.DOTALL).matcher(dom);
            if (!m.find()) {
                throw new AssertionError("Chromium printed no verdict for " + java.util.Arrays.toString(viewports)
                        + " px; its DOM began: " + dom.substring(0, Math.min(500, dom.length())));
            }
            com.fasterxml.jackson.databind.JsonNode all = new com.fasterxml.jackson.databind.ObjectMapper()
                    .readTree(m.group(1).replace("&quot;", "\"").replace("&lt;", "<").replace("&gt;", ">")
                            .replace("&amp;", "&"));
            List<Verdict> out = new ArrayList<>();
            for (int w : viewports) {
                com.fasterxml.jackson.databind.JsonNode v = null;
                for (com.fasterxml.jackson.databind.JsonNode x : all) {
                    if (x.get("width").asInt() == w) {
                        v = x;
                    }
                }
                if (v == null) {
                    throw new AssertionError("no verdict at " + w + " px: " + all);
                }
                List<String> problems = new ArrayList<>();
                v.get("problems").forEach(p -> problems.add(p.asText()));
                if (v.get("count").asInt() > problems.size()) {
                    problems.add("and " + (v.get("count").asInt() - problems.size()) + " more");
                }
                out.add(new Verdict(w, v.get("ticks").asInt(), v.get("texts").asInt(), v.get("bands").asInt(),
                        problems, v.toString()));
            }
            return out;
        } finally {
            deleteTree(dir);
        }
    }

    /** Runs headless Chromium with networking features off and a private profile; returns its stdout. */
    public static String chromium(Path profile, int viewport, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(CHROMIUM.toString(), "--headless", "--no-sandbox", "--disable-gpu",
                "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update",
                "--disable-sync", "--disable-extensions", "--hide-scrollbars", "--user-data-dir=" + profile,
                "--window-size=" + viewport + ",1000"));
        cmd.addAll(List.of(args));
        Path out = Files.createTempFile("chromium", ".out");
        try {
            Process p = new ProcessBuilder(cmd).redirectOutput(out.toFile())
                    .redirectError(ProcessBuilder.Redirect.DISCARD).start();
            if (!p.waitFor(120, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new AssertionError("chromium did not finish in 120 s: " + cmd);
            }
            return Files.readString(out, StandardCharsets.UTF_8);
        } finally {
            Files.deleteIfExists(out);
        }
    }

    private static void deleteTree(Path p) throws IOException {
        if (!Files.exists(p)) {
            return;
        }
        try (var s = Files.walk(p)) {
            for (Path x : s.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(x);
            }
        }
    }
}
