package io.palisade.fencing.action;

import io.palisade.fencing.KeyFilter;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * The part of one {@link ResourceKind} an action touches: everything, a set of ids (an id ending in
 * {@code ":*"} covers every id with that prefix, e.g. {@code "12:*"} = every field of fragment 12), or
 * an exact key filter.
 */
public sealed interface Scope {

    /** Every resource of the kind (e.g. an unfiltered keyed insert touches all keys). */
    record All() implements Scope {
    }

    record Ids(Set<String> ids) implements Scope {
        public Ids {
            ids = Set.copyOf(ids);
        }
    }

    record Keys(KeyFilter filter) implements Scope {
    }

    Scope ALL = new All();

    /**
     * What two scopes share, described for a conflict reason; empty when disjoint.
     *
     * @return the overlap: a description and the first few shared keys or ids
     */
    default Optional<Shared> intersect(Scope other) {
        return switch (this) {
            case All a -> other.isEmpty() ? Optional.empty() : Optional.of(new Shared("all (one side is unbounded)", other.sample()));
            case Ids ids -> switch (other) {
                case All a -> ids.ids().isEmpty() ? Optional.empty() : Optional.of(new Shared("all (one side is unbounded)", sample()));
                case Ids o -> sharedIds(ids.ids(), o.ids());
                case Keys k -> Optional.of(new Shared("incomparable scopes", List.of()));
            };
            case Keys k -> switch (other) {
                case All a -> k.filter().isEmpty() ? Optional.empty()
                        : Optional.of(new Shared("all (one side is unbounded)", sample()));
                case Ids o -> Optional.of(new Shared("incomparable scopes", List.of()));
                case Keys o -> {
                    KeyFilter.Overlap ov = k.filter().overlap(o.filter());
                    yield ov.conflict()
                            ? Optional.of(new Shared(ov.reason(), ov.sample(), ov.kind() == KeyFilter.Overlap.Kind.SHARED_KEYS))
                            : Optional.empty();
                }
            };
        };
    }

    default boolean isEmpty() {
        return switch (this) {
            case All a -> false;
            case Ids i -> i.ids().isEmpty();
            case Keys k -> k.filter().isEmpty();
        };
    }

    /** The first few ids or keys of this scope, for messages. */
    default List<String> sample() {
        return switch (this) {
            case All a -> List.of("*");
            case Ids i -> new ArrayList<>(new TreeSet<>(i.ids())).subList(0, Math.min(5, i.ids().size()));
            case Keys k -> {
                List<String> out = new ArrayList<>();
                for (int j = 0; j < Math.min(5, k.filter().size()); j++) {
                    out.add(k.filter().keyAt(j));
                }
                yield out;
            }
        };
    }

    /**
     * What two scopes share. {@code exactKeys} is true only when two exact key filters share the keys
     * in {@code sample}; a conservative overlap (unknown keys, incomparable filters) is not a proven
     * key collision.
     */
    record Shared(String description, List<String> sample, boolean exactKeys) {
        public Shared {
            sample = List.copyOf(sample);
        }

        Shared(String description, List<String> sample) {
            this(description, sample, false);
        }
    }

    private static Optional<Shared> sharedIds(Set<String> a, Set<String> b) {
        TreeSet<String> shared = new TreeSet<>();
        for (String x : a) {
            if (covers(b, x)) {
                shared.add(x);
            }
        }
        for (String y : b) {
            if (covers(a, y)) {
                shared.add(y);
            }
        }
        if (shared.isEmpty()) {
            return Optional.empty();
        }
        List<String> s = new ArrayList<>(shared).subList(0, Math.min(5, shared.size()));
        return Optional.of(new Shared(shared.size() + " shared " + s, s));
    }

    private static boolean covers(Set<String> set, String id) {
        if (set.contains(id)) {
            return true;
        }
        if (id.endsWith(":*")) {
            String prefix = id.substring(0, id.length() - 1);
            for (String s : set) {
                if (s.startsWith(prefix)) {
                    return true;
                }
            }
            return false;
        }
        int colon = id.indexOf(':');
        while (colon >= 0) {
            if (set.contains(id.substring(0, colon + 1) + "*")) {
                return true;
            }
            colon = id.indexOf(':', colon + 1);
        }
        return false;
    }
}
