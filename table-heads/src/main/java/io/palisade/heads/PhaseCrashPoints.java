package io.palisade.heads;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * The one crash-point mechanism of every module (docs/crash-points.md): checkpoint writing and recovery
 * name their points here, and the coordinator's write path reaches it through {@code CrashPoints}.
 * {@code -Dpalisade.crash.at=<name>} or {@code <name>:<nth>} halts the JVM (no shutdown hooks, like
 * SIGKILL) the nth time execution reaches that point. Without the property every call is a cheap
 * no-op. Exit status {@value #HALT_STATUS}.
 */
public final class PhaseCrashPoints {
    /** Exit status of a deliberate crash. */
    public static final int HALT_STATUS = 86;

    /** After the temporary checkpoint file is written and fsynced, before the rename. */
    public static final String CHECKPOINT_AFTER_TEMP = "checkpoint-after-temp";
    /** After the rename and the directory fsync, before the caller journals {@code CheckpointWritten}. */
    public static final String CHECKPOINT_AFTER_RENAME = "checkpoint-after-rename";
    /** After {@code RecoveryStarted} is durable, before any decision is journaled. */
    public static final String RECOVERY_AFTER_STARTED = "recovery-after-started";
    /** After one (graph branch, table) group's decision is durable (nth = group number). */
    public static final String RECOVERY_AFTER_CLASSIFY = "recovery-after-classify";
    /** After {@code RecoveryFinished} is durable. */
    public static final String RECOVERY_AFTER_FINISHED = "recovery-after-finished";
    /** After recovery journaled a torn version's set-aside, before it moved the files (docs/recovery.md). */
    public static final String RECOVERY_AFTER_SET_ASIDE_JOURNALED = "recovery-after-set-aside-journaled";

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

    private PhaseCrashPoints() {
    }

    private static volatile java.util.function.Consumer<String> listener;

    /**
     * Test seam: {@code l} runs on every hit of every point, on the thread that reaches it, before the
     * halt check (the crash suite's power-loss model). Null removes it.
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

    /** Whether a crash point is configured. */
    public static boolean armed() {
        return !TARGET.isEmpty();
    }

    /** Whether {@code name} is the configured crash point (a path that must be shaped for it asks first). */
    public static boolean armedAt(String name) {
        return TARGET.equals(name);
    }
}
