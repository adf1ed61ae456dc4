package io.palisade.cli;

/** A command that writes nothing: its errors never say "nothing written", since it never writes. */
interface ReadOnly {
    /** Whether this invocation writes nothing (a command may write or not depending on its options). */
    default boolean readOnly() {
        return true;
    }
}
