package io.palisade.journal;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;

/**
 * The start of a child JVM's command line for tests: this JVM's {@code java}, then the options of this JVM that
 * Palisade needs in every JVM ({@code --add-*}, {@code --enable-native-access}, {@code --sun-misc*}) and its
 * {@code -Dchronicle} settings; the caller adds heap, classpath, main and arguments.
 */
public final class ChildJava {
    private ChildJava() {
    }

    /** A new, mutable list: {@code java} and this JVM's Palisade and Chronicle options. */
    public static List<String> command() {
        List<String> cmd = new ArrayList<>();
        cmd.add(ProcessHandle.current().info().command().orElseThrow());
        for (String a : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            if (a.startsWith("--add-") || a.startsWith("--enable-native-access") || a.startsWith("--sun-misc")
                    || a.startsWith("-Dchronicle")) {
                cmd.add(a);
            }
        }
        return cmd;
    }
}
