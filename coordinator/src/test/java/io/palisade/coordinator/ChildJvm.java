package io.palisade.coordinator;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/** The command line of a child JVM for this module's crash tests: this JVM's java, its Palisade options, a main. */
final class ChildJvm {
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
        List<String> cmd = new ArrayList<>();
        cmd.add(ProcessHandle.current().info().command().orElseThrow());
        for (String a : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            if (a.startsWith("--add-") || a.startsWith("--enable-native-access") || a.startsWith("--sun-misc")
                    || a.startsWith("-Dchronicle")) {
                cmd.add(a);
            }
        }
        cmd.add("-Xmx" + heap);
        cmd.add("-Djava.io.tmpdir=" + CHILD_TMP);
        if (crashAt != null) {
            cmd.add("-Dpalisade.crash.at=" + crashAt);
        }
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(main.getName());
        cmd.addAll(List.of(args));
        return cmd;
    }
}
