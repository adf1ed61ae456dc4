package io.palisade.coordinator;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * Named crash points at every phase boundary, for the crash matrix (docs/crash-points.md). With
 * {@code -Dpalisade.crash.at=<name>} or {@code <name>:<nth>} the JVM halts (no shutdown hooks, no
 * flushing: like SIGKILL) the nth time execution reaches that point (default: the first).
 * Without the property every call is a cheap no-op.
 */
public final class CrashPoints {
    /** Exit status of a deliberate crash, so a parent can tell it from other deaths. */
    public static final int HALT_STATUS = 86;

    private static final String TARGET;
    private static final int NTH;
    private static final AtomicInteger HITS = new AtomicInteger();

    static {
        String spec = System.getProperty("palisade.crash.at", "");
        int colon = spec.lastIndexOf(':');
        if (colon > 0) {
            TARGET = spec.substring(0, colon);
            NTH = Integer.parseInt(spec.substring(colon + 1));
        } else {
            TARGET = spec;
            NTH = 1;
        }
    }

    private CrashPoints() {
    }

    private static volatile java.util.function.Consumer<String> listener;

    /**
     * Test seam: {@code l} runs on every hit of every point, on the thread that reaches it, before the
     * halt check (the crash suite's power-loss model snapshots the journal at the sync points that the
     * write-path points follow). Null removes it.
     */
    public static void listener(java.util.function.Consumer<String> l) {
        listener = l;
    }

    /** Halts the JVM if {@code name} is the configured crash point and this is its nth hit. */
    public static void hit(String name) {
        java.util.function.Consumer<String> l = listener;
        if (l != null) {
            l.accept(name);
        }
        if (!TARGET.isEmpty() && TARGET.equals(name) && HITS.incrementAndGet() == NTH) {
            Runtime.getRuntime().halt(HALT_STATUS);
        }
    }

    /** Whether a crash point is configured (tests use it to assert the child really crashed there). */
    public static boolean armed() {
        return !TARGET.isEmpty();
    }
}
