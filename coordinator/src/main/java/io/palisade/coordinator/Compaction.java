package io.palisade.coordinator;

/**
 * Automatic compaction of a graph's tables: when it runs and what it aims for. After a commit the committer reads the
 * table's fragments (from the manifest, every {@code checkEvery} commits) and, when any trigger is reached, queues a
 * compaction: an ordinary journaled maintenance intent, judged by the conflict matrix like {@link Graph#compact}.
 * Compaction materialises deletions, so deleted rows stop costing disk and every read stops skipping them.
 *
 * <p>Defaults ({@link #DEFAULTS}): on; checked every 8 commits; compacts at 64 fragments, at 24 fragments below the
 * target size, or when 10 % of the stored rows are deleted; compacted fragments of 16,384 rows, and a fragment
 * rewritten once a fifth of its rows are deleted.
 *
 * @param auto                  whether the committer compacts by itself ({@link Graph#compact} works either way)
 * @param checkEvery            read the table's fragments after this many commits to it
 * @param maxFragments          compact when the table has this many fragments
 * @param maxSmallFragments     ... or this many fragments below {@code rowsPerFragment}
 * @param maxDeletedRatio       ... or when this share of its stored rows are deleted
 * @param rowsPerFragment       the row count compaction aims for per fragment
 * @param materializeDeletions  a fragment whose deleted share reaches this is rewritten without its deleted rows
 */
public record Compaction(boolean auto, int checkEvery, int maxFragments, int maxSmallFragments, double maxDeletedRatio,
                         long rowsPerFragment, double materializeDeletions) {

    /** The defaults described above. */
    public static final Compaction DEFAULTS = new Compaction(true, 8, 64, 24, 0.1, 16_384, 0.2);

    public Compaction {
        if (checkEvery < 1 || maxFragments < 2 || maxSmallFragments < 2 || !(maxDeletedRatio > 0 && maxDeletedRatio <= 1)
                || rowsPerFragment < 1 || !(materializeDeletions > 0 && materializeDeletions <= 1)) {
            throw new IllegalArgumentException("compaction: checkEvery >= 1, maxFragments >= 2, maxSmallFragments >= 2, "
                    + "maxDeletedRatio in (0, 1], rowsPerFragment >= 1, materializeDeletions in (0, 1]");
        }
    }

    /** The defaults with automatic compaction off. */
    public static Compaction off() {
        return DEFAULTS.withAuto(false);
    }

    public Compaction withAuto(boolean on) {
        return new Compaction(on, checkEvery, maxFragments, maxSmallFragments, maxDeletedRatio, rowsPerFragment,
                materializeDeletions);
    }

    public Compaction withTriggers(int fragments, int smallFragments, double deletedRatio) {
        return new Compaction(auto, checkEvery, fragments, smallFragments, deletedRatio, rowsPerFragment,
                materializeDeletions);
    }

    public Compaction withTarget(long rows, double deletions) {
        return new Compaction(auto, checkEvery, maxFragments, maxSmallFragments, maxDeletedRatio, rows, deletions);
    }

    public Compaction withCheckEvery(int commits) {
        return new Compaction(auto, commits, maxFragments, maxSmallFragments, maxDeletedRatio, rowsPerFragment,
                materializeDeletions);
    }
}
