package io.palisade.fencing.action;

import io.palisade.fencing.ValidationException;

import java.util.Arrays;

/**
 * A8: replaces the schema wholesale (Overwrite, Project). The replaced schema must keep the exact
 * primary key: same field ids, names, non-null, still marked (RFC-023 §9).
 */
public record ChangeSchema(Schema newSchema) implements Action {

    @Override
    public ActionKind kind() {
        return ActionKind.CHANGE_SCHEMA;
    }

    @Override
    public ResourceMask reads() {
        return ResourceMask.builder().all(ResourceKind.SCHEMA).id(ResourceKind.PRIMARY_KEY, "pk").build();
    }

    @Override
    public ResourceMask writes() {
        return ResourceMask.builder().all(ResourceKind.SCHEMA).all(ResourceKind.FIELD_NAMES)
                .all(ResourceKind.SCHEMA_METADATA).build();
    }

    @Override
    public void validate(Manifest base, TxnContext ctx) {
        int[] oldPk = base.schema().primaryKeyFieldIds();
        int[] newPk = newSchema.primaryKeyFieldIds();
        if (oldPk.length > 0 && !Arrays.equals(oldPk, newPk)) {
            throw new ValidationException("schema change would change the primary key from fields "
                    + Arrays.toString(oldPk) + " to " + Arrays.toString(newPk));
        }
        for (int id : newPk) {
            if (newSchema.field(id).orElseThrow().nullable()) {
                throw new ValidationException("schema change would make the primary-key field '"
                        + newSchema.field(id).orElseThrow().name() + "' nullable");
            }
        }
        for (int id : oldPk) {
            Field before = base.schema().field(id).orElseThrow();
            Field after = newSchema.field(id).orElseThrow();
            if (!before.name().equals(after.name()) || after.nullable()) {
                throw new ValidationException("schema change would rename or make nullable the primary key '"
                        + before.name() + "'");
            }
        }
    }

    @Override
    public Manifest apply(Manifest base, TxnContext ctx) {
        return base.withSchema(newSchema, Math.max(base.nextFieldId(), newSchema.maxFieldId() + 1));
    }
}
