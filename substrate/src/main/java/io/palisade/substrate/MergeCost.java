package io.palisade.substrate;

/**
 * Which of Lance 7.0.0's two merge-insert plans costs less for a keyed merge of {@code rows} rows into a table of
 * {@code tableRows} rows with a BTREE on {@code id}:
 * <ul>
 *   <li>the <b>indexed</b> plan looks every source key up in the index and reads each matched row at random: its cost
 *       grows with {@code rows} (about 0.1 ms a row on the reference machine, docs/benchmarks.md);</li>
 *   <li>the <b>scan</b> plan (Lance's v2 hash join over one scan of the key column) costs about the same for any
 *       {@code rows}, growing with {@code tableRows} (about 0.25 ms per thousand rows of the table).</li>
 * </ul>
 * Lance takes the scan plan, even with the index present, when the merge carries a WhenNotMatchedBySource delete
 * clause; {@code DeleteIf "false"} deletes nothing and switches the plan (surface guards in
 * {@code LanceSurfaceGuardTest}). The scan plan also attaches Lance's inserted-rows key filter (RFC-023 §5.2).
 *
 * <p>The crossover: the scan plan from {@value #MIN_ROWS} rows, and from one row in {@value #TABLE_FRACTION} of the
 * table when that is more (about 2,000 rows at a million-row table).
 */
public final class MergeCost {
    /** Below this many rows the indexed plan is taken whatever the table's size. */
    public static final long MIN_ROWS = 256;
    /** The scan plan from {@code tableRows / TABLE_FRACTION} rows. */
    public static final long TABLE_FRACTION = 512;

    private MergeCost() {
    }

    /** Whether a merge of {@code rows} rows into a table of {@code tableRows} rows is cheaper on the scan plan. */
    public static boolean scanCheaper(long rows, long tableRows) {
        return rows >= Math.max(MIN_ROWS, tableRows / TABLE_FRACTION);
    }
}
