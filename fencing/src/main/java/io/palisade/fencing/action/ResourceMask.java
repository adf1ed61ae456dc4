package io.palisade.fencing.action;

import io.palisade.fencing.KeyFilter;

import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The resources an action reads (or writes), by {@link ResourceKind}. The driver intersects a
 * transaction's masks with a winner's masks to decide whether a rule has to look at the pair at all:
 * disjoint masks commute without further checks.
 */
public final class ResourceMask {
    public static final ResourceMask NONE = new ResourceMask(new EnumMap<>(ResourceKind.class));

    private final Map<ResourceKind, Scope> scopes;

    private ResourceMask(Map<ResourceKind, Scope> scopes) {
        this.scopes = Collections.unmodifiableMap(scopes);
    }

    public static Builder builder() {
        return new Builder();
    }

    public Map<ResourceKind, Scope> scopes() {
        return scopes;
    }

    public Optional<Scope> scope(ResourceKind kind) {
        return Optional.ofNullable(scopes.get(kind));
    }

    public Set<ResourceKind> kinds() {
        return scopes.keySet();
    }

    /** What this mask and {@code other} share in {@code kind}. */
    public Optional<Scope.Shared> overlap(ResourceMask other, ResourceKind kind) {
        Scope a = scopes.get(kind);
        Scope b = other.scopes.get(kind);
        if (a == null || b == null) {
            return Optional.empty();
        }
        return a.intersect(b);
    }

    /** One shared resource between two actions' masks. */
    public record Contact(ResourceKind kind, String how, Scope.Shared shared) {
        @Override
        public String toString() {
            return kind.label() + " (" + how + ": " + shared.description() + ")";
        }
    }

    /**
     * Every resource on which two actions interfere: one writes what the other reads, or both write
     * a kind whose writes do not commute.
     */
    public static List<Contact> contacts(Action a, Action b) {
        List<Contact> out = new ArrayList<>();
        for (ResourceKind k : ResourceKind.values()) {
            a.writes().overlap(b.reads(), k).ifPresent(s -> out.add(new Contact(k, "write/read", s)));
            a.reads().overlap(b.writes(), k).ifPresent(s -> out.add(new Contact(k, "read/write", s)));
            if (!k.commutingWrites()) {
                a.writes().overlap(b.writes(), k).ifPresent(s -> out.add(new Contact(k, "write/write", s)));
            }
        }
        return out;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ResourceMask m && scopes.equals(m.scopes);
    }

    @Override
    public int hashCode() {
        return scopes.hashCode();
    }

    @Override
    public String toString() {
        return scopes.toString();
    }

    public static final class Builder {
        private final Map<ResourceKind, Set<String>> ids = new EnumMap<>(ResourceKind.class);
        private final Map<ResourceKind, Scope> fixed = new EnumMap<>(ResourceKind.class);

        public Builder ids(ResourceKind kind, Iterable<?> values) {
            Set<String> s = ids.computeIfAbsent(kind, k -> new HashSet<>());
            for (Object v : values) {
                s.add(String.valueOf(v));
            }
            return this;
        }

        public Builder id(ResourceKind kind, Object value) {
            ids.computeIfAbsent(kind, k -> new HashSet<>()).add(String.valueOf(value));
            return this;
        }

        public Builder all(ResourceKind kind) {
            fixed.put(kind, Scope.ALL);
            return this;
        }

        public Builder keys(KeyFilter filter) {
            fixed.putIfAbsent(ResourceKind.KEYS, new Scope.Keys(filter));
            return this;
        }

        public ResourceMask build() {
            Map<ResourceKind, Scope> m = new EnumMap<>(ResourceKind.class);
            ids.forEach((k, v) -> {
                if (!v.isEmpty()) {
                    m.put(k, new Scope.Ids(v));
                }
            });
            m.putAll(fixed);
            return new ResourceMask(m);
        }
    }
}
