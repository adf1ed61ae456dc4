package io.palisade.coordinator.internal;

/** The version of this build of Palisade, stamped on every writer session the journal records. */
public final class BinaryVersion {
    /** Stamped on every writer session (the journal's {@code WriterSessionStarted}). */
    public static final String VERSION = "0.1.0";

    private BinaryVersion() {
    }
}
