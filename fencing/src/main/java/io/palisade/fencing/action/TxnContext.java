package io.palisade.fencing.action;

import io.palisade.fencing.ValidationException;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The driver's working state while it walks one transaction's action list: the fragment ids each
 * action produced, so that later actions' {@link FragmentRef.ProducedBy} references resolve.
 */
public final class TxnContext {
    private final Map<Integer, List<Long>> produced = new HashMap<>();
    private int current = -1;

    void begin(int actionIndex) {
        current = actionIndex;
    }

    void produced(long fragmentId) {
        produced.computeIfAbsent(current, k -> new ArrayList<>()).add(fragmentId);
    }

    /** The fragment id a reference names; a forward or dangling reference is a {@link ValidationException}. */
    public long resolve(FragmentRef ref) {
        return switch (ref) {
            case FragmentRef.Id id -> id.id();
            case FragmentRef.ProducedBy p -> {
                if (p.action() >= current) {
                    throw new ValidationException("reference " + p + " points at action " + p.action()
                            + ", not before action " + current);
                }
                List<Long> out = produced.getOrDefault(p.action(), List.of());
                if (p.output() >= out.size()) {
                    throw new ValidationException("reference " + p + ": action " + p.action() + " produced "
                            + out.size() + " fragments");
                }
                yield out.get(p.output());
            }
        };
    }
}
