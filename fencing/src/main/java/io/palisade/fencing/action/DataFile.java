package io.palisade.fencing.action;

import java.util.Set;

/** A data file of a fragment and the field ids whose values it holds. */
public record DataFile(String path, Set<Integer> fieldIds) {
    public DataFile {
        if (path == null || path.isBlank()) {
            throw new IllegalArgumentException("data file path must not be blank");
        }
        fieldIds = Set.copyOf(fieldIds);
    }
}
