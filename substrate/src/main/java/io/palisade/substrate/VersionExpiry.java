package io.palisade.substrate;

/**
 * What removing a table branch's old versions ({@link TableStore#expireVersions}) took away.
 *
 * @param versions     manifests removed
 * @param files        data, deletion, index and transaction files removed
 * @param bytes        bytes removed
 */
public record VersionExpiry(long versions, long files, long bytes) {

    /** Nothing removed. */
    public static final VersionExpiry NONE = new VersionExpiry(0, 0, 0);
}
