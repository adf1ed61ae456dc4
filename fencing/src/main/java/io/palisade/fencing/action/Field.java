package io.palisade.fencing.action;

import java.util.Map;

/** A schema field: stable id (never reused), name, nullability, parent (-1 at top level) and metadata. */
public record Field(int id, String name, boolean nullable, int parentId, Map<String, String> metadata) {
    /** Lance's field-metadata key that marks the unenforced primary key. */
    public static final String PRIMARY_KEY_METADATA = "lance-schema:unenforced-primary-key";

    public Field {
        if (id < 0) {
            throw new IllegalArgumentException("field id must be non-negative: " + id);
        }
        if (name == null || name.isEmpty()) {
            throw new IllegalArgumentException("field name must not be empty");
        }
        metadata = Map.copyOf(metadata);
    }

    public static Field of(int id, String name, boolean nullable) {
        return new Field(id, name, nullable, -1, Map.of());
    }

    public boolean isPrimaryKey() {
        return "true".equalsIgnoreCase(metadata.get(PRIMARY_KEY_METADATA));
    }

    Field withMetadata(Map<String, String> m) {
        return new Field(id, name, nullable, parentId, m);
    }
}
