package io.palisade.substrate;

/**
 * The shape of one table state, read from its manifest (no data is read): what automatic compaction is triggered
 * by. The work to compute it is proportional to the state's fragment count, which compaction bounds.
 *
 * @param fragments      the state's fragments
 * @param smallFragments the fragments with fewer physical rows than the compaction target asked about
 * @param physicalRows   rows stored, deleted ones included
 * @param deletedRows    rows marked deleted and still stored
 */
public record FragmentStats(int fragments, int smallFragments, long physicalRows, long deletedRows) {

    /** The share of stored rows that are deleted, 0 for an empty state. */
    public double deletedRatio() {
        return physicalRows == 0 ? 0 : (double) deletedRows / physicalRows;
    }
}
