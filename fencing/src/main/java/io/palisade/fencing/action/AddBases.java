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
            identities(p).forEach(i -> b.id(ResourceKind.BASES, i));
        }
        return b.build();
    }

    @Override
    public void validate(Manifest base, TxnContext ctx) {
        Set<String> seen = new HashSet<>();
        List<BasePath> all = new ArrayList<>(base.bases());
        all.addAll(newBases);
        for (BasePath p : all) {
            if (!identities(p).stream().allMatch(seen::add)) {
                throw new ValidationException("base " + p + " repeats an existing id, name or path");
            }
        }
    }

    /**
     * What identifies a base: its path, its name unless it has none, and its id unless it is 0 (Lance's
     * "assign at commit", like an unnamed base: two such bases never clash on it).
     */
    static List<String> identities(BasePath p) {
        List<String> out = new ArrayList<>();
        out.add("path:" + p.path());
        p.givenName().ifPresent(n -> out.add("name:" + n));
        if (p.id() != 0) {
            out.add("id:" + p.id());
        }
        return out;
    }

    @Override
    public Manifest apply(Manifest base, TxnContext ctx) {
        List<BasePath> all = new ArrayList<>(base.bases());
        all.addAll(newBases);
        return base.withBases(all);
    }
}
