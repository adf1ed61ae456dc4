package io.palisade.coordinator;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * The JVM options Palisade's dependencies need in the host JVM: Agrona and Chronicle reach into
 * {@code java.base} internals ({@code jdk.internal.misc.Unsafe}, {@code sun.nio.ch}, direct buffers, …) and fail with
 * an {@code IllegalAccessError} deep inside the first journal open without the {@code --add-opens} and
 * {@code --add-exports} below. The list is the build's one list ({@code palisade.jvm.flags} in the parent pom:
 * surefire, forked children and {@code bin/palisade} use it too), packaged as {@code jvm.options} beside this class.
 *
 * <p>{@link #check()} runs once, at the first {@link Palisade#create} or {@link Palisade#open}: when an open or an
 * export is missing it throws an {@link IllegalStateException} naming the missing options and the one line to add
 * to the {@code java} command, before anything is written. Options the check cannot observe or that only silence
 * warnings ({@code --enable-native-access}, {@code --sun-misc-unsafe-memory-access}, {@code -D…}) are in the line
 * but not required. An export or open of a module the runtime does not have (a {@code jlink} image without
 * {@code jdk.compiler}) is not required either.
 */
public final class JvmOptions {
    private static volatile boolean checked;

    private JvmOptions() {
    }

    /** Every option of the build's list, in order. */
    public static List<String> all() {
        try (InputStream in = JvmOptions.class.getResourceAsStream("jvm.options")) {
            if (in == null) {
                throw new IllegalStateException("jvm.options is missing from the palisade-coordinator jar");
            }
            String text = new String(in.readAllBytes(), StandardCharsets.UTF_8).strip();
            return Arrays.stream(text.split("\\s+")).filter(s -> !s.isEmpty()).toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The options of {@link #all()} this JVM lacks: {@code --add-opens}/{@code --add-exports} it can observe. */
    public static List<String> missing() {
        Module me = JvmOptions.class.getModule();
        List<String> out = new ArrayList<>();
        for (String option : all()) {
            boolean opens = option.startsWith("--add-opens=");
            if (!opens && !option.startsWith("--add-exports=")) {
                continue;
            }
            // --add-opens=MODULE/PACKAGE=TARGET
            String spec = option.substring(option.indexOf('=') + 1);
            int slash = spec.indexOf('/');
            int eq = spec.indexOf('=', slash);
            if (slash < 0 || eq < 0) {
                continue;
            }
            Optional<Module> module = ModuleLayer.boot().findModule(spec.substring(0, slash));
            String pkg = spec.substring(slash + 1, eq);
            if (module.isEmpty() || !module.get().getPackages().contains(pkg)) {
                continue;
            }
            boolean ok = opens ? module.get().isOpen(pkg, me) : module.get().isExported(pkg, me);
            if (!ok) {
                out.add(option);
            }
        }
        return out;
    }

    /** Fails fast, once, when this JVM lacks an option Palisade needs (see the class comment). */
    static void check() {
        if (checked) {
            return;
        }
        List<String> missing = missing();
        if (!missing.isEmpty()) {
            throw new IllegalStateException("this JVM lacks " + missing.size() + " option" + (missing.size() == 1 ? "" : "s")
                    + " Palisade needs (Agrona and Chronicle use JDK internals): " + String.join(" ", missing)
                    + ". Start java with this line (README \"Use it from Java\"): " + String.join(" ", all()));
        }
        checked = true;
    }
}
