package io.palisade.journal;

import java.util.List;

/**
 * What one run of the journal's row release did ({@link Journal#releaseRows}).
 *
 * @param requestedBelow  the sequence the caller named: every row-carrying record before it may be released
 * @param consideredBelow every closed file whose records all lie before this sequence has been considered (this run or
 *                        an earlier one); the writer's open file and the files after it are left for a later run
 * @param files           files rewritten by this run
 * @param records         {@code rows_recorded} records replaced by {@code rows_released}
 * @param rowBytes        bytes of Arrow IPC row data released
 * @param bytesBefore     record bytes of the rewritten files before (Chronicle's framing and index not counted)
 * @param bytesAfter      record bytes of the rewritten files after
 * @param skipped         files left as they were, each with the reason (a damaged file; a journal on Kafka)
 */
public record RowReleaseReport(long requestedBelow, long consideredBelow, int files, long records, long rowBytes,
                               long bytesBefore, long bytesAfter, List<String> skipped) {
    public RowReleaseReport {
        skipped = List.copyOf(skipped);
    }

    /** Record bytes this run gave back (the disk blocks follow: each file is written anew, sparse). */
    public long bytesFreed() {
        return Math.max(0, bytesBefore - bytesAfter);
    }
}
