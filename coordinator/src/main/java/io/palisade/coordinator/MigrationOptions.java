package io.palisade.coordinator;

import io.palisade.journal.Durability;

import java.util.Map;
import java.util.Objects;
import java.util.TreeSet;

/**
 * Options of {@link PkMigration#run}.
 *
 * @param durability     journal durability of the migration's records (default {@code POWER_LOSS})
 * @param maxReportedIds how many offending ids a refusal lists per pinned image
 * @param storageOptions Lance storage options for a graph whose tables are on an object store, added to those of
 *                       {@code PALISADE_STORAGE_FILE} and {@code PALISADE_STORAGE_*} ({@link TableLocation}); empty by
 *                       default, ignored for tables on local disk
 */
public record MigrationOptions(Durability durability, int maxReportedIds, Map<String, String> storageOptions) {
    public MigrationOptions {
        Objects.requireNonNull(durability, "durability");
        if (maxReportedIds < 1) {
            throw new IllegalArgumentException("maxReportedIds >= 1");
        }
        storageOptions = Map.copyOf(storageOptions);
    }

    public static MigrationOptions defaults() {
        return new MigrationOptions(Durability.POWER_LOSS, 20, Map.of());
    }

    /** These options with {@code options} as the storage options. */
    public MigrationOptions withStorageOptions(Map<String, String> options) {
        return new MigrationOptions(durability, maxReportedIds, options);
    }

    /** The storage options' keys, never their values (credentials). */
    @Override
    public String toString() {
        return "MigrationOptions[durability=" + durability + ", maxReportedIds=" + maxReportedIds
                + ", storageOptions=" + new TreeSet<>(storageOptions.keySet()) + "]";
    }
}
