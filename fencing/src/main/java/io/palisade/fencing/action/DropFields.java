package io.palisade.fencing.action;

import io.palisade.fencing.ValidationException;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;

/** A7: tombstones fields and removes them from every fragment's files. The primary key cannot be dropped. */
public record DropFields(Set<Integer> fieldIds) implements Action {

    public DropFields {
        fieldIds = Set.copyOf(fieldIds);
    }

    @Override
    public ActionKind kind() {
        return ActionKind.DROP_FIELDS;
    }

    @Override
    public ResourceMask reads() {
        ResourceMask.Builder b = ResourceMask.builder().id(ResourceKind.PRIMARY_KEY, "pk");
        fieldIds.forEach(f -> b.id(ResourceKind.SCHEMA, "field:" + f));
        return b.build();
    }

    @Override
    public ResourceMask writes() {
        ResourceMask.Builder b = ResourceMask.builder();
        fieldIds.forEach(f -> b.id(ResourceKind.SCHEMA, "field:" + f));
        return b.build();
    }

    @Override
    public void validate(Manifest base, TxnContext ctx) {
        for (int id : fieldIds) {
            Field f = base.schema().field(id).orElseThrow(
                    () -> new ValidationException("cannot drop field " + id + ": it does not exist"));
            if (f.isPrimaryKey()) {
                throw new ValidationException("cannot drop field '" + f.name() + "': it is the primary key");
            }
        }
    }

    @Override
    public Manifest apply(Manifest base, TxnContext ctx) {
        List<Field> fields = new ArrayList<>(base.schema().fields());
        fields.removeIf(f -> fieldIds.contains(f.id()));
        SortedMap<Long, Fragment> frags = new TreeMap<>();
        for (Fragment fr : base.fragments().values()) {
            List<DataFile> files = new ArrayList<>();
            for (DataFile d : fr.files()) {
                Set<Integer> keep = new HashSet<>(d.fieldIds());
                keep.removeAll(fieldIds);
                if (!keep.isEmpty()) {
                    files.add(new DataFile(d.path(), keep));
                }
            }
            frags.put(fr.id(), fr.withFiles(files));
        }
        return base.withSchema(new Schema(fields, base.schema().metadata()), base.nextFieldId())
                .withFragments(frags, base.nextFragmentId(), base.nextRowId());
    }
}
