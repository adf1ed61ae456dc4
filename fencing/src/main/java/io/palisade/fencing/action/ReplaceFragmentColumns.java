package io.palisade.fencing.action;

import io.palisade.fencing.ValidationException;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * A4: replaces the data files of some fields of one fragment (DataReplacement, Update-RewriteColumns).
 * {@code updatedRows} names the rows whose values changed, when known.
 */
public record ReplaceFragmentColumns(FragmentRef fragment, Set<Integer> fieldIds, List<DataFile> newFiles,
                                     Optional<RowOffsets> updatedRows) implements Action {

    public ReplaceFragmentColumns {
        fieldIds = Set.copyOf(fieldIds);
        newFiles = List.copyOf(newFiles);
    }

    @Override
    public ActionKind kind() {
        return ActionKind.REPLACE_FRAGMENT_COLUMNS;
    }

    @Override
    public ResourceMask reads() {
        ResourceMask.Builder b = ResourceMask.builder();
        for (int f : fieldIds) {
            b.id(ResourceKind.SCHEMA, "field:" + f);
        }
        fragment.existingId().ifPresent(id -> {
            b.id(ResourceKind.FRAGMENTS, id).id(ResourceKind.DELETIONS, id);
            fieldIds.forEach(f -> b.id(ResourceKind.FRAGMENT_COLUMNS, id + ":" + f));
        });
        return b.build();
    }

    @Override
    public ResourceMask writes() {
        ResourceMask.Builder b = ResourceMask.builder();
        fragment.existingId().ifPresent(id -> fieldIds.forEach(f -> b.id(ResourceKind.FRAGMENT_COLUMNS, id + ":" + f)));
        return b.build();
    }

    @Override
    public void validate(Manifest base, TxnContext ctx) {
        long id = ctx.resolve(fragment);
        if (base.fragment(id).isEmpty()) {
            throw new ValidationException("cannot replace columns of fragment " + id + ": it does not exist");
        }
        for (int f : fieldIds) {
            if (base.schema().field(f).isEmpty()) {
                throw new ValidationException("cannot replace column of unknown field " + f);
            }
        }
        Set<Integer> covered = new HashSet<>();
        newFiles.forEach(d -> covered.addAll(d.fieldIds()));
        if (!covered.equals(fieldIds)) {
            throw new ValidationException("new files hold fields " + covered + " but the action replaces " + fieldIds);
        }
    }

    @Override
    public Manifest apply(Manifest base, TxnContext ctx) {
        long id = ctx.resolve(fragment);
        Fragment f = base.fragment(id).orElseThrow();
        List<DataFile> files = new ArrayList<>();
        for (DataFile d : f.files()) {
            Set<Integer> keep = new HashSet<>(d.fieldIds());
            keep.removeAll(fieldIds);
            if (!keep.isEmpty()) {
                files.add(new DataFile(d.path(), keep));
            }
        }
        files.addAll(newFiles);
        SortedMap<Long, Fragment> frags = new TreeMap<>(base.fragments());
        frags.put(id, f.withFiles(files));
        return base.withFragments(frags, base.nextFragmentId(), base.nextRowId());
    }
}
