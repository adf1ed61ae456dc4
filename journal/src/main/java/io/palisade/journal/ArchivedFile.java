package io.palisade.journal;

import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * One closed journal file that left the local journal ({@link JournalArchive}): where its records were, the two chain
 * hashes that tie it to its neighbours, and where a copy went. An auditor verifies the chain across archived files
 * with these anchors alone: each file's {@code previousHash} is the {@code lastHash} of the file before it, and the
 * first local record's previous-hash field is the last archived file's {@code lastHash}. A kept copy is checked against
 * {@code sha256}.
 *
 * @param epoch            the writer epoch of the segment the file belonged to
 * @param file             the Chronicle cycle file's name ({@code 20261205-0035V.cq4})
 * @param firstSequence    its first record's sequence
 * @param lastSequence     its last record's sequence
 * @param previousHash     hex: the previous-hash field of its first record (zeros for sequence 0)
 * @param lastHash         hex: the SHA-256 its last record links the next one to
 * @param bytes            the file's length
 * @param sha256           hex SHA-256 of the copy kept at {@code location}; null when no copy was kept
 * @param location         where the copy is (a path); null when the file was removed without a copy
 * @param archivedAtMillis when it left the local journal (epoch milliseconds)
 */
public record ArchivedFile(@JsonProperty("epoch") long epoch,
                           @JsonProperty("file") String file,
                           @JsonProperty("first_sequence") long firstSequence,
                           @JsonProperty("last_sequence") long lastSequence,
                           @JsonProperty("previous_hash") String previousHash,
                           @JsonProperty("last_hash") String lastHash,
                           @JsonProperty("bytes") long bytes,
                           @JsonProperty("sha256") String sha256,
                           @JsonProperty("location") String location,
                           @JsonProperty("archived_at_millis") long archivedAtMillis) {
    public ArchivedFile {
        if (epoch < 0 || file == null || firstSequence < 0 || lastSequence < firstSequence || previousHash == null
                || lastHash == null || bytes < 0) {
            throw new IllegalArgumentException("an archived journal file names its segment, its file, a sequence range "
                    + "and both chain hashes");
        }
    }

    /** The directory the copies go to ({@code location} is {@code DIR/epoch-…/FILE}); null when no copy was kept. */
    public String archiveDirectory() {
        return location == null ? null : java.nio.file.Path.of(location).getParent().getParent().toString();
    }

    /** Whether a copy of the file was kept. */
    public boolean copied() {
        return location != null;
    }
}
