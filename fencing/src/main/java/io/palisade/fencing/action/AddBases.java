package io.palisade.fencing.action;

import io.palisade.fencing.ValidationException;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/** A18: appends storage bases; ids, names and paths must stay unique. */
public record AddBases(List<BasePath> newBases) implements Action {

    public AddBases {
        newBases = List.copyOf(newBases);
    }

    @Override
    public ActionKind kind() {
        return ActionKind.ADD_BASES;
    }

    @Override
    public ResourceMask reads() {
        return ResourceMask.NONE;
    }

    @Override
    public ResourceMask writes() {
        ResourceMask.Builder b = ResourceMask.builder();
        for (BasePath p : newBases) {
            b.id(ResourceKind.BASES, "id:" + p.id()).id(ResourceKind.BASES, "name:" + p.name())
                    .id(ResourceKind.BASES, "path:" + p.path());
        }
        return b.build();
    }

    @Override
    public void validate(Manifest base, TxnContext ctx) {
        Set<String> seen = new HashSet<>();
        List<BasePath> all = new ArrayList<>(base.bases());
        all.addAll(newBases);
        for (BasePath p : all) {
            if (!seen.add("id:" + p.id()) || !seen.add("name:" + p.name()) || !seen.add("path:" + p.path())) {
                throw new ValidationException("base " + p + " repeats an existing id, name or path");
            }
        }
    }

    @Override
    public Manifest apply(Manifest base, TxnContext ctx) {
        List<BasePath> all = new ArrayList<>(base.bases());
        all.addAll(newBases);
        return base.withBases(all);
    }
}
