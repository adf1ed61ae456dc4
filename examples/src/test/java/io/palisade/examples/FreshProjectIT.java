package io.palisade.examples;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The embedding path as a new user would take it: the README's "Use it from Java" section copied into a fresh
 * Maven project outside the reactor, built by a separate {@code mvn} against the artifacts this build just made, and
 * run with a plain {@code java} command plus the one documented line of JVM options; then the same command without
 * the options fails fast with {@code JvmOptions}' message.
 *
 * <p>Runs in the integration-test phase (failsafe), after every module's jar exists. The reactor's jars and poms
 * are laid out in a scratch local repository; every other artifact (third-party jars, Maven plugins) is reached
 * through symbolic links into the build's own local repository, whose {@code io/palisade} directory is left out,
 * so the child build cannot see Palisade artifacts installed there by anyone.
 */
class FreshProjectIT {
    /** The reactor root: the parent of this module's directory (failsafe runs in the module basedir). */
    static final Path ROOT = Path.of("").toAbsolutePath().getParent();
    /** The library modules the coordinator artifact depends on, itself last. */
    static final List<String> MODULES = List.of("fencing", "journal", "table-heads", "substrate", "recovery", "coordinator");
    /** A deadlock guard only: a loaded machine may take minutes, never this long. */
    static final long TIMEOUT_MINUTES = 20;

    @TempDir
    Path tmp;

    @Test
    void theReadmeJavaSectionBuildsAndRunsInAFreshProjectAgainstTheBuiltArtifacts() throws Exception {
        String readme = Files.readString(ROOT.resolve("README.md"));
        String section = section(readme, "## Use it from Java\n");
        String pom = block(section, "xml");
        String java = block(section, "java");
        String commands = block(section, "bash");
        String jvmLine = block(section(readme, "## JVM flags\n"), "").strip();
        assertThat(jvmLine).as("README's JVM-flags line is the build's list (palisade.jvm.flags)")
                .isEqualTo(System.getProperty("palisade.jvm.flags").strip());
        assertThat(pom).as("the README's pom depends on the coordinator at this build's version")
                .contains("<artifactId>palisade-coordinator</artifactId>")
                .contains("<version>" + version() + "</version>");

        Path repo = scratchRepository();
        Path project = Files.createDirectories(tmp.resolve("writer-service"));
        Files.writeString(project.resolve("pom.xml"), pom);
        Files.createDirectories(project.resolve("src/main/java"));
        Files.writeString(project.resolve("src/main/java/WriterService.java"), java);
        Files.writeString(project.resolve("jvm.options"), jvmLine + "\n");

        Run run = bash(project, repo, tmp.resolve("java-tmp"), commands);
        assertThat(run.exit()).as("the README's commands in a fresh project: %s", run).isZero();
        List<String> lines = run.out().lines().toList();
        assertThat(lines).as(run.toString()).anyMatch(l -> l.startsWith("graph at "));
        List<String> winners = lines.stream().filter(l -> l.matches("writer [12] inserted alice: table version \\d+, journal seq \\d+"))
                .toList();
        assertThat(winners).as("exactly one writer wins, with its receipt: %s", run).hasSize(1);
        List<String> losers = lines.stream().filter(l -> l.matches("writer [12] lost: key conflict on table 'person'.*")).toList();
        assertThat(losers).as("the other gets the typed key conflict: %s", run).hasSize(1);
        assertThat(losers.get(0).charAt(7)).isNotEqualTo(winners.get(0).charAt(7));
        Matcher receipt = Pattern.compile("table version (\\d+), journal seq (\\d+)").matcher(winners.get(0));
        assertThat(receipt.find()).isTrue();
        assertThat(Long.parseLong(receipt.group(1))).isPositive();
        assertThat(Long.parseLong(receipt.group(2))).isPositive();
        int winner = winners.get(0).charAt(7) - '0';
        assertThat(lines).as("the service reads its own write").contains("alice is " + (30 + winner));
        assertThat(lines).contains("merged dev into main: 1 inserted, 1 updated");
        assertThat(lines).anyMatch(l -> l.startsWith("main now: ") && l.contains("alice") && l.contains("40")
                && l.contains("bob") && l.contains("25"));

        // the child build took Palisade from the reactor's jars, everything else from the build's local repository
        List<String> classpath = Arrays.asList(Files.readString(project.resolve("cp.txt")).strip().split(":"));
        Path coordinatorJar = repo.resolve("io/palisade/palisade-coordinator/" + version()
                + "/palisade-coordinator-" + version() + ".jar");
        assertThat(classpath).contains(coordinatorJar.toString());
        assertThat(classpath.stream().filter(e -> e.contains("/io/palisade/")))
                .as("every Palisade jar is one of this build's").hasSize(MODULES.size())
                .allMatch(e -> e.startsWith(repo.resolve("io/palisade").toString()));

        // the same java command without the one line: fails at once, names what is missing and the line, writes nothing
        String javaLine = commands.lines().filter(l -> l.startsWith("java ")).findFirst().orElseThrow();
        String without = javaLine.replace(" @jvm.options", "");
        assertThat(without).isNotEqualTo(javaLine);
        Path bareTmp = tmp.resolve("java-tmp-bare");
        Run bare = bash(project, repo, bareTmp, without);
        assertThat(bare.exit()).as(bare.toString()).isNotZero();
        assertThat(bare.err()).as(bare.toString()).contains("IllegalStateException: this JVM lacks")
                .contains("--add-opens=java.base/jdk.internal.misc=ALL-UNNAMED")
                .contains("Start java with this line (README \"Use it from Java\"): " + jvmLine)
                .doesNotContain("IllegalAccessError");
        try (Stream<Path> made = Files.walk(bareTmp)) {
            assertThat(made.filter(p -> p.getFileName().toString().equals("graph")).toList())
                    .as("the failed create left nothing").isEmpty();
        }
    }

    private static String version() {
        return System.getProperty("palisade.version");
    }

    /** The text of a README section, from its heading to the next one. */
    private static String section(String readme, String heading) {
        int at = readme.indexOf(heading);
        assertThat(at).as("README has %s", heading.strip()).isNotNegative();
        int end = readme.indexOf("\n## ", at + heading.length());
        return readme.substring(at, end < 0 ? readme.length() : end);
    }

    /** The first fenced block of {@code lang} ("" for a plain fence) in {@code text}, without its fences. */
    private static String block(String text, String lang) {
        String open = "\n```" + lang + "\n";
        int at = text.indexOf(open);
        assertThat(at).as("a ```%s block", lang).isNotNegative();
        int end = text.indexOf("\n```\n", at + open.length() - 1);
        return text.substring(at + open.length(), end + 1);
    }

    /**
     * A local repository for the child build: this build's jars and poms of the coordinator and its modules (as
     * {@code mvn install} lays them out), and a link to every other group of the build's own local repository.
     */
    private Path scratchRepository() throws IOException {
        Path repo = Files.createDirectories(tmp.resolve("repo"));
        Path m2 = Path.of(System.getProperty("palisade.m2.repository"));
        link(m2, repo, "io");
        link(m2.resolve("io"), Files.createDirectories(repo.resolve("io")), "palisade");
        String v = version();
        put(repo, "palisade-parent", v, ROOT.resolve("pom.xml"), null);
        for (String m : MODULES) {
            Path jar = ROOT.resolve(m).resolve("target/palisade-" + m + "-" + v + ".jar");
            assertThat(jar).as("module %s is packaged before the integration-test phase", m).isRegularFile();
            put(repo, "palisade-" + m, v, ROOT.resolve(m).resolve("pom.xml"), jar);
        }
        return repo;
    }

    /** Links every entry of {@code from} except {@code except} into {@code to}. */
    private static void link(Path from, Path to, String except) throws IOException {
        if (!Files.isDirectory(from)) {
            return;
        }
        try (Stream<Path> entries = Files.list(from)) {
            for (Path e : entries.toList()) {
                if (!e.getFileName().toString().equals(except)) {
                    Files.createSymbolicLink(to.resolve(e.getFileName().toString()), e);
                }
            }
        }
    }

    private static void put(Path repo, String artifactId, String version, Path pom, Path jar) throws IOException {
        Path dir = Files.createDirectories(repo.resolve("io/palisade").resolve(artifactId).resolve(version));
        Files.copy(pom, dir.resolve(artifactId + "-" + version + ".pom"));
        if (jar != null) {
            Files.copy(jar, dir.resolve(artifactId + "-" + version + ".jar"));
        }
    }

    record Run(int exit, String out, String err) {
        @Override
        public String toString() {
            return "exit " + exit + "\n--- stdout\n" + out + "\n--- stderr\n" + err;
        }
    }

    /**
     * Runs {@code script} with bash in {@code project}, as a user's shell would: {@code mvn} and {@code java} on the
     * PATH (this build's Maven, on the JDK this test runs on), the child build's local repository set to
     * {@code repo}, and {@code java.io.tmpdir} (where the example makes its graph and Lance unpacks its library)
     * under this test's directory.
     */
    private static Run bash(Path project, Path repo, Path javaTmp, String script) throws Exception {
        Files.createDirectories(javaTmp);
        Path out = Files.createTempFile(javaTmp.getParent(), "out", ".txt");
        Path err = Files.createTempFile(javaTmp.getParent(), "err", ".txt");
        List<String> cmd = new ArrayList<>(List.of("bash", "-e", "-u", "-o", "pipefail", "-c", script));
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(project.toFile())
                .redirectOutput(out.toFile()).redirectError(err.toFile()).redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()));
        Map<String, String> env = pb.environment();
        Path javaHome = Path.of(System.getProperty("java.home"));
        Path mavenHome = Path.of(System.getProperty("palisade.maven.home"));
        env.put("JAVA_HOME", javaHome.toString());
        env.put("PATH", javaHome.resolve("bin") + ":" + mavenHome.resolve("bin") + ":" + env.getOrDefault("PATH", "/usr/bin:/bin"));
        env.put("MAVEN_OPTS", "-Dmaven.repo.local=" + repo);
        env.remove("MAVEN_ARGS");
        env.remove("MAVEN_CONFIG");
        env.remove("JAVA_TOOL_OPTIONS");
        env.put("JDK_JAVA_OPTIONS", "-Djava.io.tmpdir=" + javaTmp);
        Process p = pb.start();
        if (!p.waitFor(TIMEOUT_MINUTES, TimeUnit.MINUTES)) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
            p.waitFor();
            throw new AssertionError("did not finish in " + TIMEOUT_MINUTES + " min: " + script + "\n"
                    + Files.readString(out) + Files.readString(err));
        }
        // Maven's console resets colours (ESC[0m) even with -q; a terminal shows nothing of it
        return new Run(p.exitValue(), plain(Files.readString(out, StandardCharsets.UTF_8)),
                plain(Files.readString(err, StandardCharsets.UTF_8)));
    }

    private static String plain(String console) {
        return console.replaceAll("\u001B\\[[;\\d]*m", "");
    }
}
