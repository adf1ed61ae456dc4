package io.palisade.fencing.action;

import io.palisade.fencing.KeyFilter;

/**
 * Which keys an {@link AddFragments} writes (the key filter rides on AddFragments: the spike's open
 * question 1, option (a)).
 */
public sealed interface KeyScope {

    /** A keyless append-only table: rows have no logical key. Invalid on a keyed table. */
    record Keyless() implements KeyScope {
    }

    /** Exactly these keys (Palisade's fenced writes, and Lance merge-inserts ON exactly the PK). */
    record Exact(KeyFilter filter) implements KeyScope {
    }

    /**
     * Some keys of a keyed table, not known (a legacy bare Append or an unfiltered merge found on a
     * keyed table): conflicts with every keyed writer, in both commit orders.
     */
    record Unknown() implements KeyScope {
    }

    KeyScope KEYLESS = new Keyless();
    KeyScope UNKNOWN = new Unknown();

    static KeyScope exact(KeyFilter filter) {
        return new Exact(filter);
    }
}
