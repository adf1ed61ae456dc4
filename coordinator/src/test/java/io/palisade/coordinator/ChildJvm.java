package io.palisade.coordinator;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * The command line of a child JVM for this module's crash tests: this JVM's java, its Palisade options, the
 * children's class-data archive ({@link ChildCds}, trained once per test JVM by {@link TrainingChild}) and classpath
 * ({@link ChildClasspath}), a main.
 */
final class ChildJvm {
    /** JVM logging to stderr at warning level only, so that an unusable archive never writes into a child's log. */
    private static final List<String> LOG = List.of("-Xlog:disable", "-Xlog:all=warning:stderr");
    private static final ChildCds CDS = new ChildCds("coordinator-child", LOG);
    /**
     * Every child's {@code java.io.tmpdir}: Lance's JNI loader extracts its ~170 MB library there on every start and a
     * halted child never deletes it, so the children of this test JVM share one directory that is removed when the
     * test JVM exits.
     */
    private static final Path CHILD_TMP = childTmp();

    private ChildJvm() {
    }

    private static Path childTmp() {
        try {
            Path dir = Files.createTempDirectory("palisade-children-");
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                try (Stream<Path> files = Files.walk(dir)) {
                    files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
                } catch (IOException | UncheckedIOException e) {
                    // best effort at exit
                }
            }, "palisade-child-tmp-cleanup"));
            return dir;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * {@code java <this JVM's --add-*, native-access, unsafe and -Dchronicle options> -Xmx<heap>
     * [-Dpalisade.crash.at=<crashAt>] -cp <this classpath> <main> <args>}; {@code crashAt} may be null.
     */
    static List<String> command(String heap, String crashAt, Class<?> main, String... args) {
        List<String> cmd = jvm(CDS.options(ChildJvm::trainingChild));
        cmd.add("-Xmx" + heap);
        cmd.add("-Djava.io.tmpdir=" + CHILD_TMP);
        if (crashAt != null) {
            cmd.add("-Dpalisade.crash.at=" + crashAt);
        }
        cmd.add("-cp");
        cmd.add(classpath());
        cmd.add(main.getName());
        cmd.addAll(List.of(args));
        return cmd;
    }

    /** This JVM's java with its {@code --add-*}, native-access, unsafe and {@code -Dchronicle} options, then {@code extra}. */
    private static List<String> jvm(List<String> extra) {
        List<String> cmd = io.palisade.journal.ChildJava.command();
        cmd.addAll(extra);
        return cmd;
    }

    private static String classpath() {
        try {
            return ChildClasspath.get();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The archive's training child: {@link TrainingChild} in a scratch directory of {@link #CHILD_TMP}; part of no test. */
    private static ProcessBuilder trainingChild(List<String> dumpOptions) {
        List<String> cmd = jvm(dumpOptions);
        cmd.add("-Xmx384m");
        cmd.add("-Djava.io.tmpdir=" + CHILD_TMP);
        cmd.add("-cp");
        cmd.add(classpath());
        cmd.add(TrainingChild.class.getName());
        cmd.add(CHILD_TMP.resolve("training").toString());
        return new ProcessBuilder(cmd);
    }
}
