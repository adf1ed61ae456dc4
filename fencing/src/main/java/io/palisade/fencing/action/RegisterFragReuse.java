package io.palisade.fencing.action;

import java.util.List;
import java.util.Optional;
import java.util.UUID;

/** A15: replaces the fragment-reuse index (deferred remap of index coverage after a compaction). A singleton. */
public record RegisterFragReuse(UUID index, List<Remap> entries) implements Action {

    public RegisterFragReuse {
        entries = List.copyOf(entries);
    }

    @Override
    public ActionKind kind() {
        return ActionKind.REGISTER_FRAG_REUSE;
    }

    @Override
    public ResourceMask reads() {
        ResourceMask.Builder b = ResourceMask.builder();
        entries.forEach(e -> b.id(ResourceKind.INDEX_COVERAGE, e.oldFragment() + ":*"));
        return b.build();
    }

    @Override
    public ResourceMask writes() {
        return ResourceMask.builder().id(ResourceKind.FRAG_REUSE, "frag_reuse").build();
    }

    @Override
    public void validate(Manifest base, TxnContext ctx) {
        for (Remap r : entries) {
            ctx.resolve(r.newFragment());
        }
    }

    @Override
    public Manifest apply(Manifest base, TxnContext ctx) {
        return base.withFragReuse(Optional.of(new Manifest.FragReuse(index, entries)));
    }
}
