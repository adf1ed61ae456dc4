package io.palisade.journal;

/**
 * What one run of the journal's file retention did ({@link Journal#archiveFiles}).
 *
 * @param files              closed files that left the local journal in this run
 * @param bytes              their lengths
 * @param firstLocalSequence the first sequence the local journal holds after the run
 * @param localBytes         the lengths of the local journal's cycle files after the run
 */
public record ArchiveReport(int files, long bytes, long firstLocalSequence, long localBytes) {
}
