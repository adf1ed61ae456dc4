package io.palisade.coordinator.internal;


import io.palisade.heads.PhaseCrashPoints;

/**
 * The write path's named crash points (docs/crash-points.md): {@code after-intent}, {@code after-fork},
 * {@code after-substrate-commit}, {@code before-publish}, {@code after-publish}, and those of the
 * migration and the bulk load. One mechanism serves every module: this class delegates to
 * {@link PhaseCrashPoints} ({@code -Dpalisade.crash.at=<name>[:<nth>]} halts the JVM like SIGKILL the
 * nth time execution reaches that point; without the property every call is a cheap no-op).
 */
public final class CrashPoints {
    /** Exit status of a deliberate crash, so a parent can tell it from other deaths. */
    public static final int HALT_STATUS = PhaseCrashPoints.HALT_STATUS;

    private CrashPoints() {
    }

    /** Halts the JVM if {@code name} is the configured crash point and this is its nth hit. */
    public static void hit(String name) {
        PhaseCrashPoints.hit(name);
    }

    /** Whether {@code name} is the configured crash point. */
    public static boolean armedAt(String name) {
        return PhaseCrashPoints.armedAt(name);
    }

    /** Whether a crash point is configured (tests use it to assert the child really crashed there). */
    public static boolean armed() {
        return PhaseCrashPoints.armed();
    }
}
