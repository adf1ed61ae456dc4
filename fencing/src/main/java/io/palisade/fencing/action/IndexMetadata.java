package io.palisade.fencing.action;

import java.util.Set;
import java.util.UUID;

/** An index of the manifest model: identity, name, the fields it covers and its fragment bitmap. */
public record IndexMetadata(UUID uuid, String name, Set<Integer> fieldIds, Set<Long> fragmentBitmap, int version) {
    public IndexMetadata {
        fieldIds = Set.copyOf(fieldIds);
        fragmentBitmap = Set.copyOf(fragmentBitmap);
    }

    IndexMetadata withBitmap(Set<Long> bitmap) {
        return new IndexMetadata(uuid, name, fieldIds, bitmap, version);
    }
}
