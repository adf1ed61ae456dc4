package io.palisade.coordinator;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;

/** The command line of a child JVM for this module's crash tests: this JVM's java, its Palisade options, a main. */
final class ChildJvm {
    private ChildJvm() {
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
