package io.palisade.substrate;

/**
 * What a compaction aims for: fragments of about {@code rowsPerFragment} rows, and a fragment whose deleted rows
 * reach {@code materializeDeletions} of its physical rows rewritten without them. A fragment at or above the target
 * and below the deletion ratio is left alone, so a compaction rewrites at most the small fragments plus the
 * fragments full of deletions, never the whole table for a handful of new rows.
 *
 * @param rowsPerFragment      the target row count of a compacted fragment (at least 1)
 * @param materializeDeletions the deleted-row ratio, in (0, 1], at which a fragment is rewritten without its
 *                             deleted rows
 */
public record CompactionTarget(long rowsPerFragment, double materializeDeletions) {

    /** Lance's own defaults: 1,048,576 rows per fragment, deletions materialised at 10 %. */
    public static final CompactionTarget LANCE_DEFAULTS = new CompactionTarget(1_048_576, 0.1);

    public CompactionTarget {
        if (rowsPerFragment < 1) {
            throw new IllegalArgumentException("a compacted fragment holds at least one row, not " + rowsPerFragment);
        }
        if (!(materializeDeletions > 0 && materializeDeletions <= 1)) {
            throw new IllegalArgumentException("the deleted-row ratio that rewrites a fragment is in (0, 1], not "
                    + materializeDeletions);
        }
    }
}
