package io.palisade.heads;

import java.util.Objects;

/**
 * The catalog the journal last recorded ({@code CatalogRecorded}): what an open compares {@code catalog.json} with.
 *
 * @param sequence       the sequence of its {@code CatalogRecorded}
 * @param digest         SHA-256 (hex) of {@code catalog}
 * @param catalog        the catalog in its canonical JSON form
 * @param reason         why it was recorded
 * @param previousDigest nullable: the digest of the catalog recorded before it (none for the first): a file still
 *                       holding that one is a file write cut short after the record
 */
public record JournaledCatalog(long sequence, String digest, String catalog, String reason, String previousDigest) {
    public JournaledCatalog {
        Objects.requireNonNull(digest, "digest");
        Objects.requireNonNull(catalog, "catalog");
        Objects.requireNonNull(reason, "reason");
    }
}
