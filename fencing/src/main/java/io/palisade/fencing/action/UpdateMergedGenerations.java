package io.palisade.fencing.action;

import io.palisade.fencing.ValidationException;

import java.util.HashMap;
import java.util.Map;

/** A19: records the MemWAL generation merged per shard; generations only advance. */
public record UpdateMergedGenerations(Map<String, Long> generations) implements Action {

    public UpdateMergedGenerations {
        generations = Map.copyOf(generations);
    }

    @Override
    public ActionKind kind() {
        return ActionKind.UPDATE_MERGED_GENERATIONS;
    }

    @Override
    public ResourceMask reads() {
        return ResourceMask.builder().ids(ResourceKind.MEMWAL, generations.keySet()).build();
    }

    @Override
    public ResourceMask writes() {
        return reads();
    }

    @Override
    public void validate(Manifest base, TxnContext ctx) {
        generations.forEach((shard, g) -> {
            long current = base.mergedGenerations().getOrDefault(shard, -1L);
            if (g < current) {
                throw new ValidationException("shard " + shard + " merged generation would go back from " + current + " to " + g);
            }
        });
    }

    @Override
    public Manifest apply(Manifest base, TxnContext ctx) {
        Map<String, Long> g = new HashMap<>(base.mergedGenerations());
        g.putAll(generations);
        return base.withMergedGenerations(g);
    }
}
