package io.palisade.substrate;

/**
 * The plan Lance executed a merge-insert with, as the store chose it (reported in {@link CommitResult#plan()}):
 * {@link #INDEXED}, Lance's indexed merge, which looks up each source key in the BTREE on {@code id} and reads each
 * match at random; {@link #SCAN}, Lance's v2 merge, one scan of the key column joined with the source by hash
 * (taken without an index, with a by-source delete clause, and for a large merge by {@link MergeCost}); {@link #NONE}
 * for a commit that was no merge-insert (an append, a delete, maintenance) or a store that does not say.
 */
public enum MergePlan {
    NONE,
    INDEXED,
    SCAN
}
