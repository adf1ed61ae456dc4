package io.palisade.journal;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The verification of the files the journal's file retention moved out ({@link ArchivedFile}): their anchors form one
 * chain from sequence 0 (each file starts one past the last and links to its last hash), and every copy still at its
 * location has the SHA-256 recorded for it. The link from the last archived file to the first local record is checked
 * by the chain reader that reads on from there.
 *
 * @param problem        null when everything checked holds; else the first thing that does not
 * @param badSequence    the first sequence of the file the problem is in; -1 when none
 * @param copiesVerified copies read and matched
 * @param copiesMissing  copies named by the log but not at their location
 */
record ArchiveCheck(String problem, long badSequence, int copiesVerified, int copiesMissing) {
    static ArchiveCheck of(List<ArchivedFile> files) {
        int verified = 0;
        int missing = 0;
        for (int i = 0; i < files.size(); i++) {
            ArchivedFile f = files.get(i);
            String expectedPrevious = i == 0 ? JournalArchive.ZEROS : files.get(i - 1).lastHash();
            long expectedFirst = i == 0 ? 0 : files.get(i - 1).lastSequence() + 1;
            if (f.firstSequence() != expectedFirst) {
                return new ArchiveCheck("archived file " + f.file() + " starts at sequence " + f.firstSequence()
                        + ", not " + expectedFirst, f.firstSequence(), verified, missing);
            }
            if (!f.previousHash().equalsIgnoreCase(expectedPrevious)) {
                return new ArchiveCheck("hash chain broken between archived files: " + f.file()
                        + " links to a record that is not the last of the file before it", f.firstSequence(), verified,
                        missing);
            }
            if (f.copied()) {
                Path copy = Path.of(f.location());
                if (!Files.exists(copy)) {
                    missing++;
                } else if (!sha256(copy).equalsIgnoreCase(f.sha256())) {
                    return new ArchiveCheck("the copy of archived file " + f.file() + " at " + copy
                            + " does not match its SHA-256", f.firstSequence(), verified, missing);
                } else {
                    verified++;
                }
            }
        }
        return new ArchiveCheck(null, -1, verified, missing);
    }

    private static String sha256(Path file) {
        try {
            return JournalArchive.sha256Of(file);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the archived journal file " + file, e);
        }
    }
}
