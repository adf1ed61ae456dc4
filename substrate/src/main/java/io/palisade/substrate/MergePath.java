package io.palisade.substrate;

/**
 * Which Lance merge-insert path a keyed write takes. Always named by the caller, never inferred,
 * because the two paths differ in what Lance fences (RFC-023 §2.1, §5.2; DESIGN §3, §9).
 *
 * <p>Lance 7.0.0's Java API has no {@code use_index(false)} switch: the path is decided by whether an
 * index on {@code id} exists and covers at least one fragment of the base ({@link TableSnapshot#mergePath()}).
 * A store therefore refuses a write whose requested path is not the one Lance would take with a
 * {@link io.palisade.fencing.ValidationException} instead of silently taking the other path.
 */
public enum MergePath {
    /**
     * No index on {@code id}: Lance's v2 hash-join merge. A merge ON exactly the primary key attaches
     * an inserted-rows key filter, so a concurrent same-key insert is rejected at commit and a disjoint
     * one rebases. Cost grows with table size.
     */
    V2_FENCED,
    /**
     * BTREE index on {@code id}: Lance's indexed merge. It attaches <em>no</em> key filter: two stale
     * writers inserting the same new key both commit (duplicate ids; pinned by a surface guard).
     * Palisade may use it only while its own exact key fence and the writer lease exclude every
     * concurrent same-key commit on the table.
     */
    INDEXED_UNFENCED
}
