package io.palisade.coordinator;

import io.palisade.journal.Durability;

/**
 * Options of {@link PkMigration#run}.
 *
 * @param durability journal durability of the migration's records (default {@code POWER_LOSS})
 * @param maxReportedIds how many offending ids a refusal lists per pinned image
 */
public record MigrationOptions(Durability durability, int maxReportedIds) {
    public MigrationOptions {
        if (maxReportedIds < 1) {
            throw new IllegalArgumentException("maxReportedIds >= 1");
        }
    }

    public static MigrationOptions defaults() {
        return new MigrationOptions(Durability.POWER_LOSS, 20);
    }
}
