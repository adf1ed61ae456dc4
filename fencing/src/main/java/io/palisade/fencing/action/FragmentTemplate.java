package io.palisade.fencing.action;

import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * A fragment before it has an id (the spike's late binding, §3.2): ids and row ids are assigned from
 * the manifest counters when the action is applied, so a concurrent commit never makes them stale and
 * rebase of produced ids is a no-op.
 */
public record FragmentTemplate(long physicalRows, List<DataFile> files) {
    public FragmentTemplate {
        if (physicalRows < 0) {
            throw new IllegalArgumentException("physical rows must be non-negative: " + physicalRows);
        }
        files = List.copyOf(files);
    }

    /** Every field id with data in this template. */
    public Set<Integer> fieldIds() {
        return files.stream().flatMap(f -> f.fieldIds().stream()).collect(Collectors.toUnmodifiableSet());
    }
}
