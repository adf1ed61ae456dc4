package io.palisade.it.crash;

import io.palisade.coordinator.internal.CrashPoints;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A child JVM run to a named crash point: this JVM's flags (the --add-opens Palisade needs, -da for Chronicle), a small
 * heap, its own temporary directory under {@code work} (Lance's JNI loader extracts its library there on every start)
 * (removed after the run) and {@code -Dpalisade.crash.at=point}. The run must end halted there ({@link CrashPoints#HALT_STATUS}, like SIGKILL).
 */
final class CrashChild {
    private CrashChild() {
    }

    /** Runs {@code main} with {@code args} until it halts at {@code point}; its stdout lines. */
    static List<String> runToHalt(Path work, String point, Class<?> main, String... args) throws Exception {
        Path tmp = Files.createDirectories(work.resolve("child-tmp"));
        List<String> cmd = new ArrayList<>();
        cmd.add(ProcessHandle.current().info().command().orElseThrow());
        for (String a : java.lang.management.ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            if (!a.startsWith("-Xmx") && !a.startsWith("-agentlib") && !a.startsWith("-Dpalisade.crash")
                    && !a.startsWith("-Djava.io.tmpdir")) {
                cmd.add(a);
            }
        }
        cmd.add("-Xmx384m");
        cmd.add("-XX:+UseSerialGC");
        cmd.add("-XX:TieredStopAtLevel=1");
        cmd.add("-Dchronicle.analytics.disable=true");
        cmd.add("-Djava.io.tmpdir=" + tmp);
        cmd.add("-Dpalisade.crash.at=" + point);
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(main.getName());
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd);
        Path err = work.resolve("child.err");
        pb.redirectError(err.toFile());
        Process p = pb.start();
        List<String> lines = new ArrayList<>();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line = r.readLine(); line != null; line = r.readLine()) {
                lines.add(line);
            }
        }
        if (!p.waitFor(180, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            p.waitFor();
        }
        LazyFsPowerLossTest.deleteTree(tmp);
        List<String> errLines = Files.readAllLines(err);
        assertThat(p.exitValue()).as("the child halts at %s (stdout %s, stderr %s)", point, lines,
                String.join("\n", errLines.subList(Math.max(0, errLines.size() - 20), errLines.size())))
                .isEqualTo(CrashPoints.HALT_STATUS);
        return lines;
    }
}
