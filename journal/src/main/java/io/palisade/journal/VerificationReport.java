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
 */
public record VerificationReport(long records, long endSequence, String lastHash, List<TornTail> cutTails,
                                 TornTail openTail, long firstBadSequence, String problem) {
    public VerificationReport {
        Objects.requireNonNull(lastHash, "lastHash");
        cutTails = List.copyOf(cutTails);
    }

    /** Whether every record verified (torn tails are reported, not failures). */
    public boolean ok() {
        return problem == null;
    }
}
