package io.palisade.substrate;

import java.util.List;
import java.util.Map;

/**
 * One Lance operation of a committed transaction, as the spike's legacy Operation → Action table
 * consumes it: its Lance name, every fragment it touched (removed, added or updated) and the
 * transaction properties.
 */
public record LegacyOperation(String name, List<Long> fragmentsTouched, Map<String, String> properties) {

    public LegacyOperation {
        fragmentsTouched = List.copyOf(fragmentsTouched);
        properties = Map.copyOf(properties);
    }
}
