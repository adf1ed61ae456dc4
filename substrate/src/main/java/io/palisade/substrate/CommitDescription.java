package io.palisade.substrate;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;

/**
 * What one committed table version did, in substrate terms: the single place from which the
 * coordinator maps foreign or recovered commits onto catalog actions ({@code io.palisade.fencing.action}).
 *
 * <p>Fragment sets are computed the same way by every store ({@link FragmentDiff}), from the
 * manifests of this version and the previous version on the same branch, so a rebased commit is
 * described by its effect as committed, not as staged. {@code fieldsModified} holds the field ids
 * the operation rewrote or whose definition (presence, metadata, nullability) changed, ascending.
 *
 * @param ref                  the version described
 * @param kind                 the operation kind
 * @param readVersion          the read version recorded in the transaction (0 for table creation). Lance
 *                             records the version a commit finally rebased onto, not the version it
 *                             was staged against, so this cannot tell whether a commit was rebased
 * @param properties           the transaction properties (e.g. the intent id of a PK install); empty if none
 * @param insertedRowsFilter   whether the transaction carried an inserted-rows key filter, if the store
 *                             can see it (Lance 7.0.0's Java API does not expose it: empty)
 * @param indicesAdded         names of index segments the commit added (CreateIndex; an optimise adds
 *                             and removes the same name), in transaction order
 * @param indicesRemoved       names of index segments the commit removed or replaced
 * @param rewriteGroups        {@code REWRITE}: the fragment groups the compaction rewrote (old fragment ids,
 *                             ascending, and how many fragments replaced them), in transaction order;
 *                             empty for other kinds or when the store cannot see them
 * @param remappedIndexFields  {@code REWRITE}: the fields of the indices whose coverage the compaction
 *                             remapped onto the new fragments, ascending; empty otherwise
 * @param payload              what else the version's transaction says ({@link Payload}): config and
 *                             metadata keys, new fields and a Merge's data files, replaced fields, index
 *                             segments with fields and coverage, new bases, and what the store could not see
 *
 * <p>Intended mapping onto the action catalog (done in one place by the coordinator):
 * {@code UPDATE}: added → AddFragments (key filter from the journal), updated → UpdateDeletionVector,
 * removed → RemoveFragments, non-empty {@code fieldsModified} → ReplaceFragmentColumns;
 * {@code APPEND} → AddFragments without a key filter; {@code DELETE} → UpdateDeletionVector /
 * RemoveFragments; {@code OVERWRITE} → RemoveFragments(all) + AddFragments + ChangeSchema;
 * {@code MERGE} → AddFields; {@code PROJECT} → DropFields / ChangeSchema; {@code UPDATE_CONFIG} with
 * the PK field in {@code fieldsModified} → UpdateSchemaMetadata (PK install), else UpdateConfig;
 * {@code CREATE_INDEX} with nothing removed → AddIndex, with a removed name → RewriteIndex;
 * {@code REWRITE} → one RewriteFragments per group, plus RebindIndexCoverage when indices were remapped; {@code RESERVE_FRAGMENTS} → ReserveFragmentIds;
 * {@code UNKNOWN} → refuse (a commit Palisade cannot name is a foreign commit).
 */
public record CommitDescription(
        TableRef ref,
        OperationKind kind,
        long readVersion,
        Map<String, String> properties,
        List<Long> fragmentsRemoved,
        List<Long> fragmentsAdded,
        List<Long> fragmentsUpdated,
        List<Integer> fieldsModified,
        Optional<Boolean> insertedRowsFilter,
        List<String> indicesAdded,
        List<String> indicesRemoved,
        List<RewriteGroup> rewriteGroups,
        List<Integer> remappedIndexFields,
        Payload payload) {

    /** One group of a compaction: old fragments rewritten together into {@code newFragments} fragments. */
    public record RewriteGroup(List<Long> oldFragments, int newFragments) {
        public RewriteGroup {
            oldFragments = List.copyOf(oldFragments);
        }
    }

    /**
     * The payload of a committed transaction beyond its fragment sets, as far as the store can see it
     * ({@link #notVisible} names what it could not; {@link CatalogActions} judges those parts
     * conservatively). {@link #NONE}: a store that records no payload (every list empty, nothing claimed).
     *
     * @param schema         the schema after the commit (every kind), in field-id order; empty if not recorded
     * @param fieldsAdded    fields present after the commit and not before ({@code MERGE}, {@code OVERWRITE})
     * @param fragmentFiles  {@code MERGE}: per fragment that existed before, the data files the commit gave it;
     *                       {@code DATA_REPLACEMENT}: per fragment, its replacement files
     * @param replacedFields {@code DATA_REPLACEMENT}: per fragment, the field ids whose data files were replaced
     * @param newIndices     {@code CREATE_INDEX}: the index segments added, in transaction order
     * @param removedIndices {@code CREATE_INDEX}: the index segments removed or replaced
     * @param mapUpdates     {@code UPDATE_CONFIG} (and an {@code OVERWRITE}'s config upserts): every key set or
     *                       removed in the config, table metadata, schema metadata or a field's metadata
     * @param replacedMaps   {@code UPDATE_CONFIG}: the maps replaced wholesale ({@code replace = true})
     * @param updateMode     {@code UPDATE}: Lance's update mode ("RewriteRows": rows moved into new fragments;
     *                       "RewriteColumns": columns rewritten in place, new fragments hold inserted rows only)
     * @param fragReuseIndex {@code REWRITE}: the fragment-reuse index a deferred-remap compaction registered
     * @param newBases       {@code UPDATE_BASES}: the bases added
     * @param notVisible     the parts of the transaction the store could not see, each named with why
     */
    public record Payload(List<SchemaField> schema, List<SchemaField> fieldsAdded, Map<Long, List<String>> fragmentFiles,
                          Map<Long, List<Integer>> replacedFields, List<IndexSegment> newIndices,
                          List<IndexSegment> removedIndices, List<MapUpdate> mapUpdates, List<MapRef> replacedMaps,
                          Optional<String> updateMode, Optional<java.util.UUID> fragReuseIndex, List<Base> newBases,
                          List<String> notVisible) {

        public static final Payload NONE = new Payload(List.of(), List.of(), Map.of(), Map.of(), List.of(), List.of(),
                List.of(), List.of(), Optional.empty(), Optional.empty(), List.of(), List.of());

        public Payload {
            schema = List.copyOf(schema);
            fieldsAdded = List.copyOf(fieldsAdded);
            fragmentFiles = copy(fragmentFiles);
            replacedFields = copy(replacedFields);
            newIndices = List.copyOf(newIndices);
            removedIndices = List.copyOf(removedIndices);
            mapUpdates = List.copyOf(mapUpdates);
            replacedMaps = List.copyOf(replacedMaps);
            newBases = List.copyOf(newBases);
            notVisible = List.copyOf(notVisible);
        }

        private static <T> Map<Long, List<T>> copy(Map<Long, List<T>> m) {
            Map<Long, List<T>> out = new java.util.TreeMap<>();
            m.forEach((k, v) -> out.put(k, List.copyOf(v)));
            return java.util.Collections.unmodifiableMap(out);
        }
    }

    /** A schema field: id, name, nullability, whether it carries the unenforced-primary-key metadata. */
    public record SchemaField(int id, String name, boolean nullable, boolean primaryKey) {
    }

    /** An index segment: its uuid, name, field ids and the fragments it covers (empty when not recorded). */
    public record IndexSegment(java.util.UUID uuid, String name, List<Integer> fields, Optional<List<Long>> coverage) {
        public IndexSegment {
            fields = List.copyOf(fields);
            coverage = coverage.map(List::copyOf);
        }
    }

    /** Which key-value map of a table an update targets. */
    public enum MapTarget { CONFIG, TABLE_METADATA, SCHEMA_METADATA, FIELD_METADATA }

    /** One map: {@code fieldId} is the field for {@link MapTarget#FIELD_METADATA}, else -1. */
    public record MapRef(MapTarget target, int fieldId) {
    }

    /** One key set ({@code value} present) or removed (empty) in a map. */
    public record MapUpdate(MapRef map, String key, Optional<String> value) {
    }

    /** A storage base: id (0 = assigned at commit), name (empty = none), path. */
    public record Base(int id, Optional<String> name, String path) {
    }

    /** A description with compaction detail and no further payload. */
    public CommitDescription(TableRef ref, OperationKind kind, long readVersion, Map<String, String> properties,
                             List<Long> fragmentsRemoved, List<Long> fragmentsAdded, List<Long> fragmentsUpdated,
                             List<Integer> fieldsModified, Optional<Boolean> insertedRowsFilter,
                             List<String> indicesAdded, List<String> indicesRemoved,
                             List<RewriteGroup> rewriteGroups, List<Integer> remappedIndexFields) {
        this(ref, kind, readVersion, properties, fragmentsRemoved, fragmentsAdded, fragmentsUpdated, fieldsModified,
                insertedRowsFilter, indicesAdded, indicesRemoved, rewriteGroups, remappedIndexFields, Payload.NONE);
    }

    /** A description without compaction detail (every kind but {@code REWRITE}, or a store that cannot see it). */
    public CommitDescription(TableRef ref, OperationKind kind, long readVersion, Map<String, String> properties,
                             List<Long> fragmentsRemoved, List<Long> fragmentsAdded, List<Long> fragmentsUpdated,
                             List<Integer> fieldsModified, Optional<Boolean> insertedRowsFilter,
                             List<String> indicesAdded, List<String> indicesRemoved) {
        this(ref, kind, readVersion, properties, fragmentsRemoved, fragmentsAdded, fragmentsUpdated, fieldsModified,
                insertedRowsFilter, indicesAdded, indicesRemoved, List.of(), List.of(), Payload.NONE);
    }

    public CommitDescription {
        properties = Map.copyOf(properties);
        fragmentsRemoved = List.copyOf(fragmentsRemoved);
        fragmentsAdded = List.copyOf(fragmentsAdded);
        fragmentsUpdated = List.copyOf(fragmentsUpdated);
        fieldsModified = List.copyOf(fieldsModified);
        indicesAdded = List.copyOf(indicesAdded);
        indicesRemoved = List.copyOf(indicesRemoved);
        rewriteGroups = List.copyOf(rewriteGroups);
        remappedIndexFields = List.copyOf(remappedIndexFields);
        java.util.Objects.requireNonNull(payload, "payload");
    }

    /** The same description for another ref (a fork version describes its parent's commit). */
    public CommitDescription at(TableRef other) {
        return new CommitDescription(other, kind, readVersion, properties, fragmentsRemoved, fragmentsAdded,
                fragmentsUpdated, fieldsModified, insertedRowsFilter, indicesAdded, indicesRemoved, rewriteGroups,
                remappedIndexFields, payload);
    }

    /**
     * The commit as the spike's legacy-operation records: one record per Lance operation (a Lance
     * transaction carries exactly one), naming every touched fragment.
     */
    public List<LegacyOperation> legacyOperations() {
        TreeSet<Long> touched = new TreeSet<>();
        touched.addAll(fragmentsRemoved);
        touched.addAll(fragmentsAdded);
        touched.addAll(fragmentsUpdated);
        return List.of(new LegacyOperation(kind.lanceName(), List.copyOf(touched), properties));
    }
}
