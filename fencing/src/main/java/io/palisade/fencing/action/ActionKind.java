package io.palisade.fencing.action;

import java.util.EnumSet;
import java.util.Set;

import static io.palisade.fencing.action.ResourceKind.*;

/**
 * The nineteen catalog actions (spike §4, A1–A19) with the kinds of resource each may read and
 * write. These kind-level footprints bound every payload's {@link Action#reads()} and
 * {@link Action#writes()}; the conflict matrix is checked against them (a compatible cell must have
 * disjoint footprints; a ruled or conflicting cell must have overlapping ones).
 */
public enum ActionKind {
    ADD_FRAGMENTS(1, "AddFragments", EnumSet.of(FRAGMENTS, SCHEMA, PRIMARY_KEY), EnumSet.of(FRAGMENT_LIST, COUNTERS, KEYS)),
    REMOVE_FRAGMENTS(2, "RemoveFragments", EnumSet.of(FRAGMENT_LIST, FRAGMENTS), EnumSet.of(FRAGMENTS)),
    UPDATE_DELETION_VECTOR(3, "UpdateDeletionVector", EnumSet.of(FRAGMENTS, DELETIONS), EnumSet.of(DELETIONS, KEYS)),
    REPLACE_FRAGMENT_COLUMNS(4, "ReplaceFragmentColumns", EnumSet.of(FRAGMENTS, DELETIONS, SCHEMA, FRAGMENT_COLUMNS),
            EnumSet.of(FRAGMENT_COLUMNS)),
    REWRITE_FRAGMENTS(5, "RewriteFragments", EnumSet.of(FRAGMENTS, DELETIONS), EnumSet.of(FRAGMENTS, FRAGMENT_LIST, COUNTERS)),
    ADD_FIELDS(6, "AddFields", EnumSet.of(FRAGMENT_LIST, FRAGMENTS, SCHEMA), EnumSet.of(FIELD_NAMES, COUNTERS)),
    DROP_FIELDS(7, "DropFields", EnumSet.of(SCHEMA, PRIMARY_KEY), EnumSet.of(SCHEMA)),
    CHANGE_SCHEMA(8, "ChangeSchema", EnumSet.of(SCHEMA, PRIMARY_KEY), EnumSet.of(SCHEMA, FIELD_NAMES, SCHEMA_METADATA)),
    UPDATE_SCHEMA_METADATA(9, "UpdateSchemaMetadata", EnumSet.of(SCHEMA), EnumSet.of(SCHEMA_METADATA, PRIMARY_KEY)),
    ADD_INDEX(10, "AddIndex", EnumSet.of(SCHEMA, FRAGMENTS, FRAGMENT_COLUMNS, INDEX_INVALIDATION),
            EnumSet.of(INDICES, INDEX_COVERAGE)),
    REMOVE_INDEX(11, "RemoveIndex", EnumSet.of(INDICES), EnumSet.of(INDICES)),
    REWRITE_INDEX(12, "RewriteIndex", EnumSet.of(INDICES, FRAGMENTS, INDEX_INVALIDATION), EnumSet.of(INDICES, INDEX_COVERAGE)),
    INVALIDATE_INDEX_COVERAGE(13, "InvalidateIndexCoverage", EnumSet.noneOf(ResourceKind.class), EnumSet.of(INDEX_INVALIDATION)),
    REBIND_INDEX_COVERAGE(14, "RebindIndexCoverage", EnumSet.of(INDEX_INVALIDATION), EnumSet.of(INDEX_COVERAGE)),
    REGISTER_FRAG_REUSE(15, "RegisterFragReuse", EnumSet.of(INDEX_COVERAGE), EnumSet.of(FRAG_REUSE)),
    UPDATE_CONFIG(16, "UpdateConfig", EnumSet.noneOf(ResourceKind.class), EnumSet.of(CONFIG, TABLE_METADATA)),
    RESERVE_FRAGMENT_IDS(17, "ReserveFragmentIds", EnumSet.noneOf(ResourceKind.class), EnumSet.of(COUNTERS)),
    ADD_BASES(18, "AddBases", EnumSet.noneOf(ResourceKind.class), EnumSet.of(BASES)),
    UPDATE_MERGED_GENERATIONS(19, "UpdateMergedGenerations", EnumSet.of(MEMWAL), EnumSet.of(MEMWAL));

    private final int number;
    private final String label;
    private final Set<ResourceKind> reads;
    private final Set<ResourceKind> writes;

    ActionKind(int number, String label, Set<ResourceKind> reads, Set<ResourceKind> writes) {
        this.number = number;
        this.label = label;
        this.reads = Set.copyOf(reads);
        this.writes = Set.copyOf(writes);
    }

    /** The spike's number: A1..A19. */
    public int number() {
        return number;
    }

    public String code() {
        return "A" + number;
    }

    public String label() {
        return label;
    }

    public Set<ResourceKind> readKinds() {
        return reads;
    }

    public Set<ResourceKind> writeKinds() {
        return writes;
    }

    /**
     * Whether two actions of these kinds can interfere at all: one writes a kind the other reads, or
     * both write a kind whose writes do not commute. Symmetric.
     */
    public boolean mayInterfere(ActionKind other) {
        for (ResourceKind k : writes) {
            if (other.reads.contains(k) || (other.writes.contains(k) && !k.commutingWrites())) {
                return true;
            }
        }
        for (ResourceKind k : reads) {
            if (other.writes.contains(k)) {
                return true;
            }
        }
        return false;
    }
}
