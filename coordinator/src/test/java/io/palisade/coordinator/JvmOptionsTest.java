package io.palisade.coordinator;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An embedder's JVM without Palisade's options fails at the first call with one clear message naming
 * what is missing and the line to add — not with an {@code IllegalAccessError} from inside Agrona — and writes
 * nothing; with the options (this test JVM, via surefire's argLine) nothing is missing.
 */
class JvmOptionsTest {

    @Test
    void thisJvmHasEveryOptionThePackagedListNames() {
        assertThat(JvmOptions.all()).as("the build's list, packaged with the coordinator")
                .contains("--add-opens=java.base/jdk.internal.misc=ALL-UNNAMED", "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED");
        assertThat(JvmOptions.missing()).isEmpty();
    }

    private record Run(int exit, String output) {
    }

    private static Run child(Path target, boolean withOptions) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>();
        cmd.add(ProcessHandle.current().info().command().orElseThrow());
        if (withOptions) {
            cmd.addAll(JvmOptions.all());
        } else {
            for (String a : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
                if (a.startsWith("-Dchronicle")) {
                    cmd.add(a);
                }
            }
        }
        cmd.add("-Xmx256m");
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(EmbedChild.class.getName());
        cmd.add(target.toString());
        Path log = target.resolveSibling(target.getFileName() + ".log");
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        assertThat(p.waitFor(180, TimeUnit.SECONDS)).as("child finished").isTrue();
        return new Run(p.exitValue(), Files.readString(log, StandardCharsets.UTF_8));
    }

    @Test
    void aPlainJavaCommandFailsFastNamingTheMissingOptionsAndWritesNothing(@TempDir Path dir) throws Exception {
        Path target = dir.resolve("g");
        Run r = child(target, false);
        assertThat(r.exit()).as(r.output()).isNotZero();
        assertThat(r.output()).contains("IllegalStateException: this JVM lacks")
                .contains("--add-opens=java.base/jdk.internal.misc=ALL-UNNAMED")
                .contains("Start java with this line")
                .doesNotContain("IllegalAccessError");
        assertThat(Files.exists(target)).as("nothing created").isFalse();
        try (var s = Files.list(dir)) {
            assertThat(s.map(p -> p.getFileName().toString()).toList()).containsExactly("g.log");
        }
    }

    @Test
    void theOneLineTheMessageNamesIsEnough(@TempDir Path dir) throws Exception {
        Path target = dir.resolve("g");
        Run r = child(target, true);
        assertThat(r.exit()).as(r.output()).isZero();
        assertThat(r.output()).contains("CREATED 3");
        try (Graph g = Palisade.open(target, Options.defaults())) {
            assertThat(g.state().head("main", "person")).isPresent();
        }
    }
}
