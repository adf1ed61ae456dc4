package io.palisade.substrate;

/** One version of a table branch, as listed by {@link TableStore#listVersions}. */
public record VersionInfo(TableRef ref, long totalRows) {
}
