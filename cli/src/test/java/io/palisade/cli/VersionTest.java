package io.palisade.cli;

import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code palisade --version} names the commit the build saw: {@code palisade <version> (commit <hash>)}, "-dirty"
 * after the hash when the tree had uncommitted changes, "commit unknown" when built without git history.
 */
class VersionTest {
    private static Properties props(String version, String commit, String dirty) {
        Properties p = new Properties();
        p.setProperty("version", version);
        p.setProperty("commit", commit);
        p.setProperty("dirty", dirty);
        return p;
    }

    @Test
    void theLineNamesTheCommitAndWhetherTheTreeWasDirty() {
        assertThat(Version.line(props("0.1.0", "5bdefe3", "false"))).isEqualTo("palisade 0.1.0 (commit 5bdefe3)");
        assertThat(Version.line(props("0.1.0", "5bdefe3", "true"))).isEqualTo("palisade 0.1.0 (commit 5bdefe3-dirty)");
        // built without .git: the build leaves the commit properties as written in the resource
        assertThat(Version.line(props("0.1.0", "${git.commit.id.abbrev}", "${git.dirty}")))
                .isEqualTo("palisade 0.1.0 (commit unknown)");
        assertThat(Version.line(new Properties())).isEqualTo("palisade (version unknown) (commit unknown)");
    }

    @Test
    void everyCommandPrintsTheBuildsVersionLine() throws Exception {
        CliRun.Result root = CliRun.run("--version");
        assertThat(root.code()).isZero();
        assertThat(root.out().strip()).matches("palisade [0-9][^ ]* \\(commit ([0-9a-f]{7,}(-dirty)?|unknown)\\)");
        assertThat(CliRun.run("compact", "--version").out()).isEqualTo(root.out());
        assertThat(CliRun.run("audit", "verify", "-V").out()).isEqualTo(root.out());
        String commit = Version.read().getProperty("commit");
        if (Files.exists(Path.of("..", ".git"))) { // built from a git work tree: the commit is known, and HEAD's
            assertThat(root.out()).doesNotContain("commit unknown");
            String head = git("rev-parse", "HEAD");
            if (head != null) {
                assertThat(head).as("HEAD is the commit the build saw").startsWith(commit);
            }
        }
    }

    /** The output of git in the source tree, or null without git. */
    private static String git(String... args) throws Exception {
        java.util.List<String> cmd = new java.util.ArrayList<>(java.util.List.of("git", "-C", ".."));
        cmd.addAll(java.util.List.of(args));
        try {
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes()).strip();
            return p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0 ? out : null;
        } catch (java.io.IOException e) {
            return null; // no git on this machine
        }
    }
}
