package io.palisade.fencing.action;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.UUID;

/**
 * A small, immutable model of a table manifest: enough state (fragments, schema, indices, config,
 * counters, bases, MemWAL generations) for every catalog action's {@code validate}, {@code rebase}
 * and {@code apply} to be real. Each {@code with*} method returns a new manifest.
 *
 * <p>Counters only grow: {@code nextFragmentId} is above every fragment id, {@code nextFieldId} above
 * every field id, and {@code nextRowId} above every fragment's row-id range.
 */
public record Manifest(
        long version,
        Schema schema,
        SortedMap<Long, Fragment> fragments,
        Map<UUID, IndexMetadata> indices,
        Map<String, String> config,
        Map<String, String> tableMetadata,
        long nextFragmentId,
        long nextRowId,
        int nextFieldId,
        List<BasePath> bases,
        Optional<FragReuse> fragReuse,
        Map<String, Long> mergedGenerations) {

    /** The fragment-reuse index: remaps that indices may apply lazily after a compaction. */
    public record FragReuse(UUID index, List<Remap> entries) {
        public FragReuse {
            entries = List.copyOf(entries);
        }
    }

    public Manifest {
        fragments = Collections.unmodifiableSortedMap(new TreeMap<>(fragments));
        indices = Collections.unmodifiableMap(new LinkedHashMap<>(indices));
        config = Map.copyOf(config);
        tableMetadata = Map.copyOf(tableMetadata);
        bases = List.copyOf(bases);
        mergedGenerations = Map.copyOf(mergedGenerations);
        if (!fragments.isEmpty() && fragments.lastKey() >= nextFragmentId) {
            throw new IllegalArgumentException("nextFragmentId " + nextFragmentId + " is not above fragment " + fragments.lastKey());
        }
        if (schema.maxFieldId() >= nextFieldId) {
            throw new IllegalArgumentException("nextFieldId " + nextFieldId + " is not above field " + schema.maxFieldId());
        }
    }

    /** An empty table of the given schema at version 1. */
    public static Manifest empty(Schema schema) {
        return new Manifest(1, schema, new TreeMap<>(), Map.of(), Map.of(), Map.of(), 0, 0,
                schema.maxFieldId() + 1, List.of(), Optional.empty(), Map.of());
    }

    public Optional<Fragment> fragment(long id) {
        return Optional.ofNullable(fragments.get(id));
    }

    public long liveRows() {
        return fragments.values().stream().mapToLong(Fragment::liveRows).sum();
    }

    Manifest withVersion(long v) {
        return new Manifest(v, schema, fragments, indices, config, tableMetadata, nextFragmentId, nextRowId,
                nextFieldId, bases, fragReuse, mergedGenerations);
    }

    Manifest withSchema(Schema s, int nextField) {
        return new Manifest(version, s, fragments, indices, config, tableMetadata, nextFragmentId, nextRowId,
                nextField, bases, fragReuse, mergedGenerations);
    }

    Manifest withFragments(SortedMap<Long, Fragment> f, long nextFragment, long nextRow) {
        return new Manifest(version, schema, f, indices, config, tableMetadata, nextFragment, nextRow,
                nextFieldId, bases, fragReuse, mergedGenerations);
    }

    Manifest withIndices(Map<UUID, IndexMetadata> i) {
        return new Manifest(version, schema, fragments, i, config, tableMetadata, nextFragmentId, nextRowId,
                nextFieldId, bases, fragReuse, mergedGenerations);
    }

    Manifest withConfig(Map<String, String> c, Map<String, String> t) {
        return new Manifest(version, schema, fragments, indices, c, t, nextFragmentId, nextRowId,
                nextFieldId, bases, fragReuse, mergedGenerations);
    }

    Manifest withBases(List<BasePath> b) {
        return new Manifest(version, schema, fragments, indices, config, tableMetadata, nextFragmentId, nextRowId,
                nextFieldId, b, fragReuse, mergedGenerations);
    }

    Manifest withFragReuse(Optional<FragReuse> r) {
        return new Manifest(version, schema, fragments, indices, config, tableMetadata, nextFragmentId, nextRowId,
                nextFieldId, bases, r, mergedGenerations);
    }

    Manifest withMergedGenerations(Map<String, Long> g) {
        return new Manifest(version, schema, fragments, indices, config, tableMetadata, nextFragmentId, nextRowId,
                nextFieldId, bases, fragReuse, g);
    }

    /**
     * Applies a transaction's actions in order to this manifest (validate, then apply, each against
     * the working manifest) and returns the next version. Any invalid action is a
     * {@link io.palisade.fencing.ValidationException} naming its index; nothing is half-applied.
     */
    public Manifest apply(List<Action> actions) {
        TxnContext ctx = new TxnContext();
        Manifest m = this;
        for (int i = 0; i < actions.size(); i++) {
            Action a = actions.get(i);
            ctx.begin(i);
            try {
                a.validate(m, ctx);
            } catch (io.palisade.fencing.ValidationException e) {
                throw new io.palisade.fencing.ValidationException("action " + i + " (" + a.kind().label() + ") is invalid: "
                        + e.getMessage(), e);
            }
            m = a.apply(m, ctx);
        }
        return m.withVersion(version + 1);
    }

    /** Ids of fragments in ascending order. */
    public List<Long> fragmentIds() {
        return new ArrayList<>(fragments.keySet());
    }
}
