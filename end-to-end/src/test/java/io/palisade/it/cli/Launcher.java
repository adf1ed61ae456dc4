package io.palisade.it.cli;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs the real {@code bin/palisade} launcher in a separate process, from the repository root. */
final class Launcher {
    /** The repository root: the parent of this module's directory (surefire runs in the module basedir). */
    static final Path ROOT = Path.of("").toAbsolutePath().getParent();
    static final Path BIN = ROOT.resolve("bin/palisade");
    /**
     * JVM options for the launched commands: quick start-up (C1 only, serial GC: these are short processes) and a
     * private temp dir, where Lance extracts its JNI library, so that other processes' /tmp clean-ups cannot race it.
     */
    static final String JAVA_OPTS = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Djava.io.tmpdir="
            + ROOT.resolve("end-to-end/target/jni-tmp");

    /**
     * The launched commands' class-data archive (ChildCds); JVM logging is off so that nothing but the command's own
     * lines reaches the stdout and stderr the tests check.
     */
    static final io.palisade.coordinator.ChildCds CDS = new io.palisade.coordinator.ChildCds("launcher", List.of("-Xlog:disable"));

    record Result(int code, String out, String err) {
        @Override
        public String toString() {
            return "exit " + code + "\n--- stdout\n" + out + "\n--- stderr\n" + err;
        }
    }

    private Launcher() {
    }

    static void requireBuilt() {
        if (!Files.isExecutable(BIN) || !Files.isDirectory(ROOT.resolve("cli/target/lib"))) {
            throw new IllegalStateException("bin/palisade is not built: run mvn install (the cli module packages "
                    + "cli/target/lib before the end-to-end tests run)");
        }
    }

    static ProcessBuilder builder(List<String> cmd) {
        return builder(cmd, "");
    }

    static ProcessBuilder builder(List<String> cmd, String extraJavaOpts) {
        return builder(cmd, extraJavaOpts, CDS.options(Launcher::trainingCommand));
    }

    /** The class-data archive's training command (ChildCds): {@code palisade init} of a scratch graph. */
    private static ProcessBuilder trainingCommand(List<String> dumpOptions) {
        Path dir = ROOT.resolve("end-to-end/target/cds-training-launcher-" + ProcessHandle.current().pid());
        try {
            Files.createDirectories(dir);
            Path catalog = dir.resolve("catalog.json");
            Files.writeString(catalog, """
                    {"tables": [{"name": "person", "kind": "node", "columns": [{"name": "id", "type": "string"},
                      {"name": "age", "type": "int64", "nullable": true}]}]}""");
            Path g = dir.resolve("g-" + System.nanoTime());
            return builder(List.of(BIN.toString(), "init", g.toString(), "--catalog", catalog.toString()), "", dumpOptions);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static ProcessBuilder builder(List<String> cmd, String extraJavaOpts, List<String> cds) {
        try {
            Files.createDirectories(ROOT.resolve("end-to-end/target/jni-tmp"));
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(ROOT.toFile());
        pb.environment().put("PALISADE_JAVA_OPTS", (JAVA_OPTS + " " + String.join(" ", cds) + " " + extraJavaOpts).trim());
        return pb;
    }

    static Result withInput(String stdin, String... args) {
        return withInputAndJavaOpts("", stdin, args);
    }

    /** Like {@link #withInput} with extra JVM options for the launched command (e.g. fault injection). */
    static Result withInputAndJavaOpts(String javaOpts, String stdin, String... args) {
        requireBuilt();
        List<String> cmd = new ArrayList<>();
        cmd.add(BIN.toString());
        cmd.addAll(List.of(args));
        try {
            Path out = Files.createTempFile("palisade-out", ".txt");
            Path err = Files.createTempFile("palisade-err", ".txt");
            Process p = builder(cmd, javaOpts).redirectOutput(out.toFile())
                    .redirectError(err.toFile()).start();
            try (OutputStream in = p.getOutputStream()) {
                if (stdin != null) {
                    in.write(stdin.getBytes(StandardCharsets.UTF_8));
                }
            }
            if (!p.waitFor(180, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new AssertionError("palisade " + String.join(" ", args) + " did not finish in 180 s");
            }
            Result r = new Result(p.exitValue(), Files.readString(out), Files.readString(err));
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
            return r;
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    static Result run(String... args) {
        return withInput(null, args);
    }

    /** Starts the launcher without waiting (stdout piped to the caller). */
    static Process start(String... args) throws IOException {
        requireBuilt();
        List<String> cmd = new ArrayList<>();
        cmd.add(BIN.toString());
        cmd.addAll(List.of(args));
        return builder(cmd).redirectError(ProcessBuilder.Redirect.DISCARD).start();
    }
}
