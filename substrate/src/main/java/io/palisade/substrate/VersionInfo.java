package io.palisade.substrate;

/**
 * One version of a table branch, as listed by {@link TableStore#listVersions}.
 *
 * @param ref             the version
 * @param totalRows       its row count, or -1 when the store does not record it
 * @param timestampMillis when it was committed (epoch milliseconds), or -1 when the store does not record it
 */
public record VersionInfo(TableRef ref, long totalRows, long timestampMillis) {

    /** A version whose commit time is not recorded. */
    public VersionInfo(TableRef ref, long totalRows) {
        this(ref, totalRows, -1);
    }
}
