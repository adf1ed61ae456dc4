package io.palisade.coordinator;

import io.palisade.coordinator.internal.PkMigrator;

import java.nio.file.Path;

/**
 * The all-branch primary-key migration of a pre-fencing graph (RFC-023 §9, docs/migration.md): installs the PK
 * {@code [id]} on every pinned image of every live branch, verifies every branch, and stamps the graph at the fencing
 * format last. Crash-safe and resumable: a re-run after a crash rolls the journaled units forward; an installed PK is
 * never undone. While the stamp is pre-fencing, {@link Palisade#open} refuses the graph.
 */
public final class PkMigration {
    static {
        System.setProperty("chronicle.analytics.disable", "true");
    }

    private PkMigration() {
    }

    /** Runs (or resumes) the migration of the graph at {@code root}; takes the writer lease for its duration. */
    public static MigrationReport run(Path root, MigrationOptions options) {
        return PkMigrator.run(root, options);
    }
}
