package io.palisade.fencing.action;

import io.palisade.fencing.ValidationException;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * A6: adds fields (field ids bound at apply time) and, per existing fragment, the data file holding
 * the new fields' values. A non-nullable new field needs a file for every current fragment.
 */
public record AddFields(List<NewField> newFields, Map<Long, String> fragmentFiles) implements Action {

    /** A field to add; its id is assigned from the manifest's field counter. */
    public record NewField(String name, boolean nullable) {
    }

    public AddFields {
        newFields = List.copyOf(newFields);
        fragmentFiles = Map.copyOf(fragmentFiles);
    }

    @Override
    public ActionKind kind() {
        return ActionKind.ADD_FIELDS;
    }

    @Override
    public ResourceMask reads() {
        // reads the whole schema: a concurrent drop or replacement may free or take a name
        // the whole fragment list (a non-nullable field needs data in every fragment, including appended ones)
        return ResourceMask.builder().all(ResourceKind.FRAGMENT_LIST)
                .ids(ResourceKind.FRAGMENTS, fragmentFiles.keySet()).all(ResourceKind.SCHEMA).build();
    }

    @Override
    public ResourceMask writes() {
        ResourceMask.Builder b = ResourceMask.builder().id(ResourceKind.COUNTERS, "field");
        newFields.forEach(f -> b.id(ResourceKind.FIELD_NAMES, f.name()));
        return b.build();
    }

    @Override
    public void validate(Manifest base, TxnContext ctx) {
        Set<String> names = new HashSet<>();
        for (NewField f : newFields) {
            if (f.name() == null || f.name().isEmpty()) {
                throw new ValidationException("a new field needs a non-empty name");
            }
            if (!names.add(f.name()) || base.schema().field(f.name()).isPresent()) {
                throw new ValidationException("field '" + f.name() + "' already exists");
            }
        }
        for (long id : fragmentFiles.keySet()) {
            if (base.fragment(id).isEmpty()) {
                throw new ValidationException("new column file for fragment " + id + ", which does not exist");
            }
        }
        if (newFields.stream().anyMatch(f -> !f.nullable())) {
            for (long id : base.fragments().keySet()) {
                if (!fragmentFiles.containsKey(id)) {
                    throw new ValidationException("non-nullable new field needs data for fragment " + id);
                }
            }
        }
    }

    @Override
    public Manifest apply(Manifest base, TxnContext ctx) {
        List<Field> fields = new ArrayList<>(base.schema().fields());
        Set<Integer> ids = new HashSet<>();
        int next = base.nextFieldId();
        for (NewField f : newFields) {
            fields.add(Field.of(next, f.name(), f.nullable()));
            ids.add(next++);
        }
        SortedMap<Long, Fragment> frags = new TreeMap<>(base.fragments());
        fragmentFiles.forEach((id, path) -> {
            Fragment fr = frags.get(id);
            List<DataFile> files = new ArrayList<>(fr.files());
            files.add(new DataFile(path, ids));
            frags.put(id, fr.withFiles(files));
        });
        return base.withSchema(new Schema(fields, base.schema().metadata()), next)
                .withFragments(frags, base.nextFragmentId(), base.nextRowId());
    }
}
