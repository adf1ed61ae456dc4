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
        List<Integer> remappedIndexFields) {

    /** One group of a compaction: old fragments rewritten together into {@code newFragments} fragments. */
    public record RewriteGroup(List<Long> oldFragments, int newFragments) {
        public RewriteGroup {
            oldFragments = List.copyOf(oldFragments);
        }
    }

    /** A description without compaction detail (every kind but {@code REWRITE}, or a store that cannot see it). */
    public CommitDescription(TableRef ref, OperationKind kind, long readVersion, Map<String, String> properties,
                             List<Long> fragmentsRemoved, List<Long> fragmentsAdded, List<Long> fragmentsUpdated,
                             List<Integer> fieldsModified, Optional<Boolean> insertedRowsFilter,
                             List<String> indicesAdded, List<String> indicesRemoved) {
        this(ref, kind, readVersion, properties, fragmentsRemoved, fragmentsAdded, fragmentsUpdated, fieldsModified,
                insertedRowsFilter, indicesAdded, indicesRemoved, List.of(), List.of());
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
    }

    /** The same description for another ref (a fork version describes its parent's commit). */
    public CommitDescription at(TableRef other) {
        return new CommitDescription(other, kind, readVersion, properties, fragmentsRemoved, fragmentsAdded,
                fragmentsUpdated, fieldsModified, insertedRowsFilter, indicesAdded, indicesRemoved, rewriteGroups,
                remappedIndexFields);
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
