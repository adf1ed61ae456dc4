package io.palisade.benchmarks;

import java.util.Locale;

/**
 * One time window of a {@link SoakHarness} run: the writes acknowledged in it and their latency, then the state at
 * its end (the table's directory, the journal, the heap after a full collection, the graph's fold position) and the
 * graph's counters over the window. Printed as a Markdown table row ({@link #row}) and a CSV line ({@link #csv}, raw
 * bytes) so that a run's windows read as a time series.
 *
 * @param index         1-based window number
 * @param startSeconds  nominal start of the window, seconds since the writers started
 * @param endSeconds    nominal end of the window
 * @param seconds       measured length of the window (from the previous sample to this one)
 * @param writes        upserts acknowledged in the window (each a receipt; the latency histogram's count)
 * @param failures      upserts that failed in the window
 * @param p50Millis     median latency of the window's writes, call to receipt
 * @param p99Millis     99th percentile of the same
 * @param lanceCommits  substrate commits of writes in the window ({@code Metrics.Snapshot.substrateCommits()})
 * @param headVersion   the table's published Lance version on {@code main} at the end of the window
 * @param table         the table's directory at the end of the window ({@link DiskUsage#manifests()} = versions kept)
 * @param liveBytes     the live-data estimate the table's bytes are compared with ({@link SoakHarness#liveBytes})
 * @param journalBytes  length of the graph's journal files ({@code _palisade/journal}): Chronicle maps them, so
 *                      this is what it reserved
 * @param journalAllocated bytes allocated to those files ({@link DiskUsage#allocatedBytes}): what the journal uses
 * @param palisadeAllocated bytes allocated to all of {@code _palisade} (journal, checkpoints, catalog, lease)
 * @param heapAfterGc   heap used right after {@code System.gc()}
 * @param folds         folds committed in the window (journal-ack table; 0 for a table-ack one)
 * @param foldLagMillis age of the oldest unfolded write at the end of the window (0 when none)
 * @param unfolded      writes acknowledged but not yet folded at the end of the window
 * @param indexRefreshes automatic index optimises in the window
 * @param backPressureWaits acknowledgement groups that waited for a fold in the window
 * @param sampleMillis  time the end-of-window measurement itself took (collection and directory walks)
 */
record SoakWindow(int index, int startSeconds, int endSeconds, double seconds, long writes, long failures,
                  double p50Millis, double p99Millis, long lanceCommits, long headVersion, DiskUsage table,
                  long liveBytes, long journalBytes, long journalAllocated, long palisadeAllocated, long heapAfterGc,
                  long folds, long foldLagMillis, long unfolded, long indexRefreshes, long backPressureWaits, long sampleMillis) {

    static final String INDICES = "_indices";
    static final String DELETIONS = "_deletions";
    static final String DATA = "data";

    double perSecond() {
        return seconds <= 0 ? 0 : writes / seconds;
    }

    /** Table bytes over the live-data estimate (0 without an estimate). */
    double bytesOverLive() {
        return liveBytes <= 0 ? 0 : (double) table.bytes() / liveBytes;
    }

    /** The Markdown table's header and alignment lines. */
    static String header() {
        return "| elapsed s | writes | writes/s | failures | p50 ms | p99 ms | Lance commits | versions kept | head version "
                + "| table files | table MiB | _versions MiB | _indices MiB | _deletions MiB | data MiB | table / live "
                + "| journal MiB (allocated) | _palisade MiB (allocated) | heap after GC MiB | folds | fold lag ms | unfolded | index refreshes "
                + "| back-pressure waits | sample ms |\n"
                + "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:"
                + "|---:|---:|---:|";
    }

    /** This window as a row of {@link #header()}. */
    String row() {
        return String.format(Locale.ROOT, "| %d | %,d | %,.0f | %d | %.2f | %.2f | %,d | %,d | %,d | %,d | %.1f | %.1f | %.1f "
                        + "| %.1f | %.1f | %.1f | %.1f | %.1f | %.0f | %d | %,d | %,d | %d | %d | %,d |", endSeconds, writes,
                perSecond(), failures, p50Millis, p99Millis, lanceCommits, table.manifests(), headVersion, table.files(),
                mib(table.bytes()), mib(table.bytesUnder(DiskUsage.VERSIONS)), mib(table.bytesUnder(INDICES)),
                mib(table.bytesUnder(DELETIONS)), mib(table.bytesUnder(DATA)), bytesOverLive(), mib(journalAllocated),
                mib(palisadeAllocated), mib(heapAfterGc), folds, foldLagMillis, unfolded, indexRefreshes, backPressureWaits,
                sampleMillis);
    }

    /** The CSV header of {@link #csv()}: the same figures, bytes unscaled. */
    static String csvHeader() {
        return "window,start_s,end_s,seconds,writes,writes_per_s,failures,p50_ms,p99_ms,lance_commits,versions_kept,"
                + "head_version,table_files,table_bytes,versions_bytes,indices_bytes,deletions_bytes,data_bytes,live_bytes,"
                + "journal_bytes,journal_allocated_bytes,palisade_allocated_bytes,heap_after_gc_bytes,folds,fold_lag_ms,unfolded,index_refreshes,"
                + "back_pressure_waits,sample_ms";
    }

    String csv() {
        return String.format(Locale.ROOT, "%d,%d,%d,%.3f,%d,%.1f,%d,%.3f,%.3f,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d",
                index, startSeconds, endSeconds, seconds, writes, perSecond(), failures, p50Millis, p99Millis, lanceCommits,
                table.manifests(), headVersion, table.files(), table.bytes(), table.bytesUnder(DiskUsage.VERSIONS),
                table.bytesUnder(INDICES), table.bytesUnder(DELETIONS), table.bytesUnder(DATA), liveBytes, journalBytes,
                journalAllocated, palisadeAllocated, heapAfterGc, folds, foldLagMillis, unfolded, indexRefreshes, backPressureWaits, sampleMillis);
    }

    static double mib(long bytes) {
        return bytes / 1048576.0;
    }
}
