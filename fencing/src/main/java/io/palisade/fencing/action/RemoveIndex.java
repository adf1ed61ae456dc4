package io.palisade.fencing.action;

import io.palisade.fencing.ValidationException;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;

/** A11: removes an index by id. */
public record RemoveIndex(UUID indexId) implements Action {

    @Override
    public ActionKind kind() {
        return ActionKind.REMOVE_INDEX;
    }

    @Override
    public ResourceMask reads() {
        return ResourceMask.builder().id(ResourceKind.INDICES, "uuid:" + indexId).build();
    }

    @Override
    public ResourceMask writes() {
        return reads();
    }

    @Override
    public void validate(Manifest base, TxnContext ctx) {
        if (!base.indices().containsKey(indexId)) {
            throw new ValidationException("cannot remove index " + indexId + ": it does not exist");
        }
    }

    @Override
    public Manifest apply(Manifest base, TxnContext ctx) {
        Map<UUID, IndexMetadata> idx = new LinkedHashMap<>(base.indices());
        idx.remove(indexId);
        return base.withIndices(idx);
    }
}
