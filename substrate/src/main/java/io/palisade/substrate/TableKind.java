package io.palisade.substrate;

/**
 * The class of a table (RFC-023 §4). The class is catalog-derived and recorded in the table's schema
 * metadata at creation ({@link KeyedSchemas#TABLE_KIND_METADATA}); callers never pick it per write.
 */
public enum TableKind {
    /** Node table: keyed on a non-null {@code id} (the unenforced primary key). */
    NODE,
    /** Edge table: keyed on a non-null {@code id}; {@code src} and {@code dst} are ordinary fields. */
    EDGE,
    /** Explicitly declared append-only table without a primary key; may use Lance Append. */
    KEYLESS;

    public boolean keyed() {
        return this != KEYLESS;
    }
}
