package io.palisade.fencing.action;

/**
 * The kinds of manifest state an action reads or writes. Two actions can only conflict when one
 * writes a resource the other reads or writes; concurrent writes of a kind marked
 * {@code commutingWrites} commute by construction (appends to the fragment list, late-bound counters,
 * shrinking of index coverage).
 */
public enum ResourceKind {
    /** Membership of the fragment list as a whole: appended to by producers, read by "all current" selectors. */
    FRAGMENT_LIST(true, "fragment list"),
    /** Individual existing fragments by id (their existence and layout). */
    FRAGMENTS(false, "fragments"),
    /** A fragment's deletion vector. */
    DELETIONS(false, "deletion vectors"),
    /** The data files of one field of one fragment ({@code fragment:field}). */
    FRAGMENT_COLUMNS(false, "fragment columns"),
    /** Primary-key values inserted, updated or deleted (exact key filters; ALL when unknown). */
    KEYS(false, "keys"),
    /** The primary-key designation of the schema. */
    PRIMARY_KEY(false, "primary key"),
    /** Schema fields by id. */
    SCHEMA(false, "schema fields"),
    /** The set of field names (a new field's name must be unique). */
    FIELD_NAMES(false, "field names"),
    /** Schema and field metadata keys. */
    SCHEMA_METADATA(false, "schema metadata"),
    /** Index entries by id or name. */
    INDICES(false, "indices"),
    /** Which (fragment, field) pairs an index covers. */
    INDEX_COVERAGE(false, "index coverage"),
    /** Shrinking of index coverage; shrinks commute with each other. */
    INDEX_INVALIDATION(true, "index invalidations"),
    /** The fragment-reuse index (a singleton). */
    FRAG_REUSE(false, "fragment-reuse index"),
    /** Table config keys. */
    CONFIG(false, "config"),
    /** Table metadata keys. */
    TABLE_METADATA(false, "table metadata"),
    /** Id counters; late binding assigns ids at apply time, so concurrent bumps commute. */
    COUNTERS(true, "id counters"),
    /** Storage bases. */
    BASES(false, "bases"),
    /** MemWAL merged generations by shard. */
    MEMWAL(false, "MemWAL generations");

    private final boolean commutingWrites;
    private final String label;

    ResourceKind(boolean commutingWrites, String label) {
        this.commutingWrites = commutingWrites;
        this.label = label;
    }

    public boolean commutingWrites() {
        return commutingWrites;
    }

    public String label() {
        return label;
    }
}
