package io.palisade.substrate;

/**
 * The outcome of {@link TableStore#installPrimaryKey} (set-if-absent). Invariant: for
 * {@link Outcome#ALREADY_PRESENT} {@code ref} is the unchanged base; for {@link Outcome#INSTALLED} it
 * is the single new version whose transaction properties carry the intent id.
 */
public record PrimaryKeyInstall(Outcome outcome, TableRef ref) {

    public enum Outcome {
        /** The table already had exactly the primary key {@code id}: nothing was written. */
        ALREADY_PRESENT,
        /** The primary key was absent and one UpdateConfig commit installed it. */
        INSTALLED
    }
}
