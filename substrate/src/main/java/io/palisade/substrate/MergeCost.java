package io.palisade.substrate;

/**
 * Which of Lance 7.0.0's two merge-insert plans costs less for a keyed merge of {@code rows} rows into a table of
 * {@code tableRows} rows with a BTREE on {@code id}:
 * <ul>
 *   <li>the <b>indexed</b> plan looks every source key up in the index and reads each matched row at random: it pays
 *       per row, and more per row the larger the table (measured: about 0.013 ms a row at 100,000 rows, 0.11 ms at
 *       1,000,000);</li>
 *   <li>the <b>scan</b> plan (Lance's v2 hash join over one scan of the key column) costs about the same for any
 *       {@code rows}, growing slowly with the table (about 55 ms at 100,000 rows, 110 ms at 1,000,000).</li>
 * </ul>
 * Lance takes the scan plan, even with the index present, when the merge carries a WhenNotMatchedBySource delete
 * clause; {@code DeleteIf "false"} deletes nothing and switches the plan (surface guards in
 * {@code LanceSurfaceGuardTest}). The scan plan also attaches Lance's inserted-rows key filter (RFC-023 §5.2).
 *
 * <p>The crossover, measured by {@code MergePlanHarness} (docs/benchmarks.md "Merge plans"), lies near
 * {@code rows × tableRows = 3·10⁸} at both sizes (about 3,000 rows at a 100,000-row table, 300 at a million): the scan
 * plan from there, and never below {@value #MIN_ROWS} rows.
 */
public final class MergeCost {
    /** Below this many rows the indexed plan is taken whatever the table's size. */
    public static final long MIN_ROWS = 256;
    /** The scan plan once {@code rows × tableRows} reaches this. */
    public static final double CROSSOVER = 3e8;

    private MergeCost() {
    }

    /** Whether a merge of {@code rows} rows into a table of {@code tableRows} rows is cheaper on the scan plan. */
    public static boolean scanCheaper(long rows, long tableRows) {
        return rows >= MIN_ROWS && (double) rows * tableRows >= CROSSOVER;
    }

    /**
     * The plan a keyed merge of {@code rows} rows runs with on {@code path}: the scan plan without a covering index
     * ({@link MergePath#V2_FENCED}), with a by-source clause of the merge's own ({@code bySource}: a fold's deletes),
     * or where {@link #scanCheaper} says so; the indexed plan otherwise. {@code tableRows} is asked for only when the
     * cost decides (from {@value #MIN_ROWS} rows on an indexed table).
     */
    public static MergePlan plan(MergePath path, boolean bySource, long rows, java.util.function.LongSupplier tableRows) {
        if (path == MergePath.V2_FENCED || bySource) {
            return MergePlan.SCAN;
        }
        return rows >= MIN_ROWS && scanCheaper(rows, tableRows.getAsLong()) ? MergePlan.SCAN : MergePlan.INDEXED;
    }
}
