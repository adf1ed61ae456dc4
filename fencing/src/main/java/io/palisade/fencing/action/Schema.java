package io.palisade.fencing.action;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/** The schema of the manifest model: fields in order, plus schema-level metadata. */
public record Schema(List<Field> fields, Map<String, String> metadata) {
    public Schema {
        fields = List.copyOf(fields);
        metadata = Map.copyOf(metadata);
        java.util.Set<Integer> ids = new java.util.HashSet<>();
        java.util.Set<String> names = new java.util.HashSet<>();
        for (Field f : fields) {
            if (!ids.add(f.id())) {
                throw new IllegalArgumentException("duplicate field id " + f.id());
            }
            if (!names.add(f.parentId() + "/" + f.name())) {
                throw new IllegalArgumentException("duplicate field name '" + f.name() + "'");
            }
        }
    }

    public Optional<Field> field(int id) {
        return fields.stream().filter(f -> f.id() == id).findFirst();
    }

    public Optional<Field> field(String name) {
        return fields.stream().filter(f -> f.parentId() < 0 && f.name().equals(name)).findFirst();
    }

    /** Field ids that carry the unenforced primary-key metadata, ascending; empty for a keyless table. */
    public int[] primaryKeyFieldIds() {
        return fields.stream().filter(Field::isPrimaryKey).mapToInt(Field::id).sorted().toArray();
    }

    public boolean keyed() {
        return primaryKeyFieldIds().length > 0;
    }

    public int maxFieldId() {
        return fields.stream().mapToInt(Field::id).max().orElse(-1);
    }
}
