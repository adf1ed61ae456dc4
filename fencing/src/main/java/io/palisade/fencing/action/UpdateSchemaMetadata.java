package io.palisade.fencing.action;

import io.palisade.fencing.ValidationException;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A9: sets or removes schema-level ({@code fieldId == -1}) or field-level metadata keys. The
 * primary-key key is set-if-absent and permanent: setting it where no key exists installs the PK
 * (on a non-null field), re-setting the same value is a no-op, and changing or removing it is refused
 * (as Lance does: "reserved key ... cannot be changed once set").
 */
public record UpdateSchemaMetadata(List<MetadataUpdate> updates) implements Action {

    /** One key update; an empty value removes the key. */
    public record MetadataUpdate(int fieldId, String key, Optional<String> value) {
        public static MetadataUpdate set(int fieldId, String key, String value) {
            return new MetadataUpdate(fieldId, key, Optional.of(value));
        }

        public static MetadataUpdate remove(int fieldId, String key) {
            return new MetadataUpdate(fieldId, key, Optional.empty());
        }

        /** The id of this update's key in the action's {@link ResourceKind#SCHEMA_METADATA} mask. */
        public String resource() {
            return fieldId < 0 ? "schema:" + key : "field:" + fieldId + ":" + key;
        }

        /** Whether this update touches the primary-key designation. */
        public boolean primaryKey() {
            return fieldId >= 0 && Field.PRIMARY_KEY_METADATA.equals(key);
        }
    }

    public UpdateSchemaMetadata {
        updates = List.copyOf(updates);
    }

    /** The PK install of RFC-023 §8: mark {@code fieldId} as the unenforced primary key. */
    public static UpdateSchemaMetadata installPrimaryKey(int fieldId) {
        return new UpdateSchemaMetadata(List.of(MetadataUpdate.set(fieldId, Field.PRIMARY_KEY_METADATA, "true")));
    }

    @Override
    public ActionKind kind() {
        return ActionKind.UPDATE_SCHEMA_METADATA;
    }

    @Override
    public ResourceMask reads() {
        ResourceMask.Builder b = ResourceMask.builder();
        updates.stream().filter(u -> u.fieldId() >= 0).forEach(u -> b.id(ResourceKind.SCHEMA, "field:" + u.fieldId()));
        return b.build();
    }

    @Override
    public ResourceMask writes() {
        ResourceMask.Builder b = ResourceMask.builder();
        updates.forEach(u -> b.id(ResourceKind.SCHEMA_METADATA, u.resource()));
        if (changesPrimaryKey()) {
            b.id(ResourceKind.PRIMARY_KEY, "pk");
        }
        return b.build();
    }

    /** Whether any update touches the primary-key metadata key. */
    public boolean changesPrimaryKey() {
        return updates.stream().anyMatch(MetadataUpdate::primaryKey);
    }

    @Override
    public void validate(Manifest base, TxnContext ctx) {
        int[] pk = base.schema().primaryKeyFieldIds();
        for (MetadataUpdate u : updates) {
            if (u.fieldId() < 0) {
                continue;
            }
            Field f = base.schema().field(u.fieldId()).orElseThrow(
                    () -> new ValidationException("metadata update for unknown field " + u.fieldId()));
            if (!u.primaryKey()) {
                continue;
            }
            boolean same = u.value().isPresent() && f.isPrimaryKey() && "true".equalsIgnoreCase(u.value().get());
            if (same) {
                continue;
            }
            if (pk.length > 0) {
                throw new ValidationException("reserved key " + Field.PRIMARY_KEY_METADATA
                        + " cannot be changed once set (primary key is field " + pk[0] + ")");
            }
            if (u.value().isEmpty() || !"true".equalsIgnoreCase(u.value().get())) {
                throw new ValidationException("primary-key metadata can only be set to true");
            }
            if (f.nullable()) {
                throw new ValidationException("field '" + f.name() + "' is nullable and cannot be the primary key");
            }
        }
    }

    @Override
    public Manifest apply(Manifest base, TxnContext ctx) {
        Map<String, String> schemaMeta = new HashMap<>(base.schema().metadata());
        List<Field> fields = new ArrayList<>();
        for (Field f : base.schema().fields()) {
            Map<String, String> m = new HashMap<>(f.metadata());
            for (MetadataUpdate u : updates) {
                if (u.fieldId() == f.id()) {
                    u.value().ifPresentOrElse(v -> m.put(u.key(), v), () -> m.remove(u.key()));
                }
            }
            fields.add(f.withMetadata(m));
        }
        for (MetadataUpdate u : updates) {
            if (u.fieldId() < 0) {
                u.value().ifPresentOrElse(v -> schemaMeta.put(u.key(), v), () -> schemaMeta.remove(u.key()));
            }
        }
        return base.withSchema(new Schema(fields, schemaMeta), base.nextFieldId());
    }
}
