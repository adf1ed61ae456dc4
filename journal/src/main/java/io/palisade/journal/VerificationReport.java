package io.palisade.journal;

import java.util.List;
import java.util.Objects;

/**
 * Result of walking the whole journal (CRC32C and SHA-256 chain of every record).
 *
 * @param records           good records verified before the end or the first problem
 * @param endSequence       one past the last good record verified
 * @param lastHash          hex SHA-256 of the last good record (the chain head)
 * @param cutTails          torn tails that later writers cut (reported, not errors)
 * @param openTail          nullable: a torn tail at the end not yet cut by a writer
 * @param firstBadSequence  -1 when the journal verified; else the first sequence that failed
 * @param problem           nullable: what failed
 * @param verifiedFrom      the first sequence whose record was read: 0, or the first the local journal holds when the
 *                          file retention moved older files out (their chain is verified through their anchors)
 * @param archivedFiles     files the file retention moved out, whose anchors were checked to link end to end and to
 *                          the first local record
 * @param copiesVerified    archived files whose kept copy was read and matched its SHA-256
 * @param copiesMissing     archived files whose copy was kept but is no longer at its location (not a failure: an
 *                          operator may have moved the copies on)
 */
public record VerificationReport(long records, long endSequence, String lastHash, List<TornTail> cutTails,
                                 TornTail openTail, long firstBadSequence, String problem, long verifiedFrom,
                                 int archivedFiles, int copiesVerified, int copiesMissing) {
    public VerificationReport {
        Objects.requireNonNull(lastHash, "lastHash");
        cutTails = List.copyOf(cutTails);
    }

    /** A report with no archived files (a journal whose files are all local). */
    public VerificationReport(long records, long endSequence, String lastHash, List<TornTail> cutTails,
                              TornTail openTail, long firstBadSequence, String problem) {
        this(records, endSequence, lastHash, cutTails, openTail, firstBadSequence, problem, 0, 0, 0, 0);
    }

    /** Whether every record verified (torn tails are reported, not failures). */
    public boolean ok() {
        return problem == null;
    }
}
