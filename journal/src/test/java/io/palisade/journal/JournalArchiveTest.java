package io.palisade.journal;

import io.palisade.fencing.JournalArchivedException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The journal's file retention: closed, released files leave the local journal oldest first while it holds more than
 * its byte budget; the local journal stays a suffix of the whole whose chain verifies through the anchors the archive
 * log keeps; reads from before it are refused by a typed error naming where the files went; copies are verified; a
 * run interrupted before or after its log line is finished by the next.
 */
class JournalArchiveTest {
    @TempDir
    Path tmp;

    private final StepClock clock = new StepClock();

    private Path palisade() {
        return tmp.resolve("_palisade");
    }

    private Path journalDir() {
        return palisade().resolve(Journal.DIRECTORY);
    }

    private Journal open() {
        return Journal.open(palisade(), JournalOptions.defaults().withClock(clock));
    }

    private List<Path> cycleFiles() throws Exception {
        List<Path> out = new ArrayList<>();
        try (Stream<Path> s = Files.walk(journalDir())) {
            s.filter(p -> p.getFileName().toString().endsWith(ChronicleSupport.SUFFIX)).sorted().forEach(out::add);
        }
        return out;
    }

    private List<String> hashes(long from, long end) {
        List<String> out = new ArrayList<>();
        try (JournalReader r = JournalReader.open(palisade())) {
            for (long s = from; s < end; s++) {
                out.add(r.recordHash(s).orElseThrow());
            }
        }
        return out;
    }

    @Test
    void releasedFilesLeaveOldestFirstAndTheChainVerifiesThroughTheirAnchors() throws Exception {
        try (Journal j = open()) {
            RowReleaseTest.write(j, clock, 4, 0);
            RowReleaseTest.write(j, clock, 1, 100); // the writer's open file
            long end = j.endSequence();
            List<String> before = hashes(0, end);
            String head = j.chainHead();
            assertThat(cycleFiles()).hasSize(5);

            j.releaseRows(end);
            ArchiveReport report = j.archiveFiles(Long.MAX_VALUE, 0, null);

            assertThat(report.files()).isEqualTo(4);
            assertThat(cycleFiles()).hasSize(1);
            try (JournalReader r = JournalReader.open(palisade())) {
                long first = r.firstSequence();
                assertThat(first).isEqualTo(report.firstLocalSequence()).isEqualTo(end - 6);
                List<ArchivedFile> archived = r.archivedFiles();
                assertThat(archived).hasSize(4);
                assertThat(archived.get(0).firstSequence()).isZero();
                assertThat(archived.get(3).lastSequence()).isEqualTo(first - 1);
                assertThat(archived.get(3).lastHash()).isEqualToIgnoringCase(before.get((int) first - 1));
                assertThat(archived).allMatch(f -> !f.copied());

                assertThatThrownBy(() -> r.read(0)).isInstanceOf(JournalArchivedException.class)
                        .hasMessageContaining("journal sequence 0 is no longer in the local journal")
                        .hasMessageContaining("local journal starts at sequence " + first)
                        .hasMessageContaining("removed without a copy");
                assertThatThrownBy(() -> r.read(first - 1)).isInstanceOf(JournalArchivedException.class);
                assertThat(r.record(first - 1)).isEmpty();
                try (JournalCursor c = r.readAvailable(0)) {
                    assertThat(c.poll().sequence()).isEqualTo(first);
                }
                VerificationReport v = r.verify();
                assertThat(v.ok()).as(v.problem()).isTrue();
                assertThat(v.verifiedFrom()).isEqualTo(first);
                assertThat(v.records()).isEqualTo(end - first);
                assertThat(v.archivedFiles()).isEqualTo(4);
                assertThat(v.lastHash()).isEqualToIgnoringCase(head);
            }
            assertThat(hashes(end - 6, end)).isEqualTo(before.subList((int) end - 6, (int) end));
            RowReleaseTest.write(j, clock, 1, 200);
        }
        // a new writer opens on the shortened journal (its open verifies from the first local record) and appends
        try (Journal j = open()) {
            RowReleaseTest.write(j, clock, 1, 300);
            assertThat(j.reader().verify().ok()).isTrue();
        }
    }

    @Test
    void theByteBudgetKeepsTheNewestFiles() throws Exception {
        try (Journal j = open()) {
            RowReleaseTest.write(j, clock, 5, 0);
            long end = j.endSequence();
            j.releaseRows(end);
            List<Path> files = cycleFiles();
            // the bytes the five files use (to their last excerpt: they are sparse, far longer than that)
            long used = j.archiveFiles(Long.MAX_VALUE, Long.MAX_VALUE, null).localBytes();
            assertThat(used).isLessThan(Files.size(files.get(0)));

            // a byte over the budget: the oldest file leaves, and only it
            ArchiveReport first = j.archiveFiles(Long.MAX_VALUE, used - 1, null);
            assertThat(first.files()).isEqualTo(1);
            assertThat(first.localBytes()).isEqualTo(used - first.bytes()).isLessThanOrEqualTo(used - 1);
            // a byte more than what is left over: the next
            long budget = first.localBytes() - 1;
            ArchiveReport report = j.archiveFiles(Long.MAX_VALUE, budget, null);
            assertThat(report.files()).isEqualTo(1);
            assertThat(report.localBytes()).isLessThanOrEqualTo(budget);
            assertThat(cycleFiles()).containsExactlyElementsOf(files.subList(2, files.size()));
            assertThat(j.archiveFiles(Long.MAX_VALUE, budget, null).files()).isZero();
            assertThat(j.reader().verify().ok()).isTrue();
        }
    }

    @Test
    void onlyFilesTheRowReleaseWentPastLeave() throws Exception {
        try (Journal j = open()) {
            RowReleaseTest.write(j, clock, 4, 0);
            assertThat(j.archiveFiles(Long.MAX_VALUE, 0, null).files()).isZero();
            long firstOfThird = 2L * 6 + 1; // WriterStarted, then six records a file
            j.releaseRows(firstOfThird);
            ArchiveReport report = j.archiveFiles(Long.MAX_VALUE, 0, null);
            assertThat(report.files()).isEqualTo(j.reader().archivedFiles().size()).isBetween(1, 2);
            assertThat(report.firstLocalSequence()).isLessThanOrEqualTo(firstOfThird);
            assertThat(j.reader().verify().ok()).isTrue();
        }
    }

    @Test
    void unreleasedFilesLeaveOnlyWhenTheCallerLetsTheBudgetCutIntoTheWindow() throws Exception {
        try (Journal j = open()) {
            RowReleaseTest.write(j, clock, 4, 0);
            RowReleaseTest.write(j, clock, 1, 100); // the writer's open file
            long end = j.endSequence();
            String head = j.chainHead();
            // nothing released: the plain rule moves nothing
            assertThat(j.archiveFiles(Long.MAX_VALUE, 0, null).files()).isZero();
            // the caller's bound still holds: the first file holds sequences 0..6, the second 7..12
            assertThat(j.archiveFilesUnreleased(7 + 6, 0, null).files()).isEqualTo(2);
            assertThat(j.reader().firstSequence()).isEqualTo(13);
            ArchiveReport rest = j.archiveFilesUnreleased(Long.MAX_VALUE, 0, null);
            assertThat(rest.files()).isEqualTo(2);
            assertThat(rest.firstLocalSequence()).isEqualTo(end - 6);
            VerificationReport v = j.reader().verify();
            assertThat(v.ok()).as(v.problem()).isTrue();
            assertThat(v.archivedFiles()).isEqualTo(4);
            assertThat(v.lastHash()).isEqualToIgnoringCase(head);
            // the row release goes on over what is left, and the writer appends
            RowReleaseTest.write(j, clock, 1, 200);
            RowReleaseReport released = j.releaseRows(j.endSequence());
            assertThat(released.skipped()).isEmpty();
            assertThat(released.files()).isEqualTo(1);
            assertThat(j.reader().verify().ok()).isTrue();
        }
        try (Journal j = open()) {
            RowReleaseTest.write(j, clock, 1, 300);
            assertThat(j.reader().verify().ok()).isTrue();
        }
    }

    @Test
    void aFileWithARecordAtOrAfterTheNamedSequenceStays() throws Exception {
        try (Journal j = open()) {
            RowReleaseTest.write(j, clock, 4, 0);
            j.releaseRows(j.endSequence());
            // the first file holds sequences 0..6 (WriterStarted, then three writes of two records)
            assertThat(j.archiveFiles(7, 0, null).files()).isEqualTo(1);
            assertThat(j.archiveFiles(7 + 6, 0, null).files()).isEqualTo(1);
            assertThat(j.reader().firstSequence()).isEqualTo(13);
            assertThat(j.archiveFiles(18, 0, null).files()).isZero();
        }
    }

    @Test
    void copiesAreKeptVerifiedAndAnAlteredCopyFailsVerification() throws Exception {
        Path copies = tmp.resolve("journal-archive");
        try (Journal j = open()) {
            RowReleaseTest.write(j, clock, 3, 0);
            j.releaseRows(j.endSequence());
            assertThat(j.archiveFiles(Long.MAX_VALUE, 0, copies).files()).isEqualTo(2);
        }
        try (JournalReader r = JournalReader.open(palisade())) {
            List<ArchivedFile> archived = r.archivedFiles();
            assertThat(archived).allMatch(ArchivedFile::copied);
            assertThat(archived).allMatch(f -> Files.exists(Path.of(f.location())));
            VerificationReport v = r.verify();
            assertThat(v.ok()).isTrue();
            assertThat(v.copiesVerified()).isEqualTo(2);
            assertThatThrownBy(() -> r.read(0)).isInstanceOf(JournalArchivedException.class)
                    .hasMessageContaining("copied to " + copies)
                    .satisfies(e -> assertThat(((JournalArchivedException) e).location()).isEqualTo(copies.toString()));

            Path second = Path.of(archived.get(1).location());
            byte[] b = Files.readAllBytes(second);
            b[b.length / 3] ^= 1;
            Files.write(second, b);
            VerificationReport bad = r.verify();
            assertThat(bad.ok()).isFalse();
            assertThat(bad.problem()).contains(archived.get(1).file()).contains("does not match its SHA-256");
            assertThat(bad.firstBadSequence()).isEqualTo(archived.get(1).firstSequence());

            Files.delete(second);
            VerificationReport missing = r.verify();
            assertThat(missing.ok()).isTrue();
            assertThat(missing.copiesVerified()).isEqualTo(1);
            assertThat(missing.copiesMissing()).isEqualTo(1);
        }
    }

    @Test
    void anAlteredAnchorBreaksTheChain() throws Exception {
        try (Journal j = open()) {
            RowReleaseTest.write(j, clock, 3, 0);
            j.releaseRows(j.endSequence());
            j.archiveFiles(Long.MAX_VALUE, 0, null);
        }
        Path log = journalDir().resolve(JournalArchive.LOG_FILE);
        List<String> lines = Files.readAllLines(log);
        assertThat(lines).hasSize(2);
        String last = ArchivedFileJson.lastHash(lines.get(1));
        String altered = (last.charAt(0) == '0' ? "1" : "0") + last.substring(1);
        Files.writeString(log, lines.get(0) + "\n" + lines.get(1).replace(last, altered) + "\n");
        try (JournalReader r = JournalReader.open(palisade())) {
            VerificationReport v = r.verify();
            assertThat(v.ok()).isFalse();
            assertThat(v.problem()).contains("hash chain broken");
        }
    }

    @Test
    void aClosedSegmentWhoseFilesAllLeftIsRemovedAndTheNextWriterOpens() throws Exception {
        try (Journal j = open()) {
            RowReleaseTest.write(j, clock, 2, 0);
        }
        try (Journal j = open()) {
            RowReleaseTest.write(j, clock, 2, 100);
            j.releaseRows(j.endSequence());
            assertThat(j.archiveFiles(Long.MAX_VALUE, 0, null).files()).isEqualTo(3);
            assertThat(Segments.ready(journalDir())).hasSize(1);
            assertThat(Files.exists(Segments.dir(journalDir(), 1))).isFalse();
            assertThat(j.reader().verify().ok()).isTrue();
        }
        try (Journal j = open()) {
            RowReleaseTest.write(j, clock, 1, 200);
            assertThat(j.reader().verify().ok()).isTrue();
        }
    }

    @Test
    void aRunInterruptedBeforeOrAfterItsLogLineIsFinishedByTheNext() throws Exception {
        try (Journal j = open()) {
            RowReleaseTest.write(j, clock, 4, 0);
            long end = j.endSequence();
            j.releaseRows(end);
            List<Path> files = cycleFiles();

            JournalArchive.Hook beforeLog = new JournalArchive.Hook() {
                @Override
                public void beforeLog(Path file) {
                    throw new IllegalStateException("crash before the log line");
                }
            };
            assertThatThrownBy(() -> j.archiveFiles(Long.MAX_VALUE, 0, null, beforeLog)).hasMessageContaining("crash before");
            assertThat(cycleFiles()).isEqualTo(files);
            assertThat(j.reader().firstSequence()).isZero();

            JournalArchive.Hook afterLog = new JournalArchive.Hook() {
                @Override
                public void afterLog(Path file) {
                    throw new IllegalStateException("crash after the log line");
                }
            };
            assertThatThrownBy(() -> j.archiveFiles(Long.MAX_VALUE, 0, null, afterLog)).hasMessageContaining("crash after");
            // the log names the first file, which is still there: readers start after it all the same
            assertThat(cycleFiles()).isEqualTo(files);
            try (JournalReader r = JournalReader.open(palisade())) {
                long first = r.firstSequence();
                assertThat(first).isPositive();
                try (JournalCursor c = r.read(first)) {
                    assertThat(c.poll().sequence()).isEqualTo(first);
                }
                assertThat(r.verify().ok()).isTrue();
            }

            ArchiveReport next = j.archiveFiles(Long.MAX_VALUE, 0, null);
            assertThat(next.files()).isEqualTo(2);
            assertThat(cycleFiles()).containsExactly(files.get(3));
            assertThat(j.reader().archivedFiles()).hasSize(3);
            assertThat(j.reader().verify().ok()).isTrue();
        }
    }

    @Test
    void aTornLastLogLineIsIgnoredByReadersAndCutByTheNextRun() throws Exception {
        try (Journal j = open()) {
            RowReleaseTest.write(j, clock, 3, 0);
            j.releaseRows(j.endSequence());
            long all = j.archiveFiles(Long.MAX_VALUE, Long.MAX_VALUE, null).localBytes();
            // one file leaves when the budget is a byte short of what the files use
            assertThat(j.archiveFiles(Long.MAX_VALUE, all - 1, null).files()).isEqualTo(1);
            Path log = journalDir().resolve(JournalArchive.LOG_FILE);
            Files.writeString(log, "{\"epoch\":1,\"fi", java.nio.file.StandardOpenOption.APPEND);
            try (JournalReader r = JournalReader.open(palisade())) {
                assertThat(r.archivedFiles()).hasSize(1);
                assertThat(r.verify().ok()).isTrue();
            }
            assertThat(j.archiveFiles(Long.MAX_VALUE, 0, null).files()).isEqualTo(1);
            assertThat(Files.readAllLines(log)).hasSize(2);
            assertThat(j.reader().verify().ok()).isTrue();
        }
    }

    @Test
    void aClosedSegmentEndingInATornTailLeavesUpToItsLastGoodRecord() throws Exception {
        long lastGood;
        try (Journal j = Journal.open(palisade(), JournalFiles.ONE_CYCLE)) {
            RowReleaseTest.write(j, clock, 1, 0); // one file: the clock of ONE_CYCLE stands still
            lastGood = j.endSequence() - 1;
        }
        Path torn = JournalFiles.cycleFile(palisade(), 1);
        long end = JournalFiles.recordBounds(torn, lastGood)[1];
        byte[] tail = new byte[4 + 90];
        new java.util.Random(7).nextBytes(tail);
        tail[0] = 90; // a whole Chronicle data excerpt of 90 bytes of garbage
        tail[1] = 0;
        tail[2] = 0;
        tail[3] = 0;
        JournalFiles.write(torn, end, tail);
        clock.advance(600_000); // past ONE_CYCLE's standing clock
        try (Journal j = open()) { // the next writer cuts the tail
            RowReleaseTest.write(j, clock, 3, 100);
            j.releaseRows(j.endSequence());
            ArchiveReport report = j.archiveFiles(Long.MAX_VALUE, 0, null);
            assertThat(report.files()).isEqualTo(3);
            List<ArchivedFile> archived = j.reader().archivedFiles();
            assertThat(archived.get(0).epoch()).isEqualTo(1);
            assertThat(archived.get(0).lastSequence()).isEqualTo(lastGood);
            assertThat(Files.exists(Segments.dir(journalDir(), 1))).isFalse();
            VerificationReport v = j.reader().verify();
            assertThat(v.ok()).as(v.problem()).isTrue();
            assertThat(v.verifiedFrom()).isEqualTo(report.firstLocalSequence());
        }
    }

    @Test
    void aReadyMarkerLeftWithoutItsFilesIsPassedOverByReadersAndRemovedByTheNextRun() throws Exception {
        try (Journal j = open()) {
            RowReleaseTest.write(j, clock, 1, 0);
        }
        try (Journal j = open()) {
            RowReleaseTest.write(j, clock, 2, 100);
            j.releaseRows(j.endSequence());
            assertThat(j.archiveFiles(Long.MAX_VALUE, 0, null).files()).isEqualTo(2);
            assertThat(Files.exists(Segments.marker(journalDir(), 1))).isFalse();
            // as a crash between the last file's deletion and the marker's would have left it in earlier builds
            Files.createDirectories(Segments.dir(journalDir(), 1));
            Files.createFile(Segments.marker(journalDir(), 1));
            try (JournalReader r = JournalReader.open(palisade())) {
                long first = r.firstSequence();
                try (JournalCursor c = r.read(first)) {
                    assertThat(c.poll().sequence()).isEqualTo(first);
                }
                assertThat(r.verify().ok()).isTrue();
            }
            j.archiveFiles(Long.MAX_VALUE, 0, null);
            assertThat(Segments.ready(journalDir())).containsExactly(2);
        }
    }

    @Test
    void aDamagedRecordInAClosedFileStopsTheRetentionBeforeIt() throws Exception {
        try (Journal j = open()) {
            RowReleaseTest.write(j, clock, 4, 0);
            j.releaseRows(j.endSequence());
            List<Path> files = cycleFiles();
            // a bit of the payload of sequence 9, in the second file (sequences 7..12)
            long[] bounds = JournalFiles.recordBounds(files.get(1), 9);
            JournalFiles.flipBit(files.get(1), bounds[0] + (bounds[1] - bounds[0]) / 2, 3);

            assertThat(j.archiveFiles(Long.MAX_VALUE, 0, null).files()).isEqualTo(1);
            assertThat(cycleFiles()).containsExactlyElementsOf(files.subList(1, files.size()));
            assertThat(j.reader().verify().firstBadSequence()).isEqualTo(9);
        }
    }

    @Test
    void aDifferentFileAlreadyAtACopysPathIsNeverOverwritten() throws Exception {
        Path copies = tmp.resolve("shared-archive");
        try (Journal j = open()) {
            RowReleaseTest.write(j, clock, 2, 0);
            j.releaseRows(j.endSequence());
            Path first = cycleFiles().get(0);
            Path theirs = copies.resolve(first.getParent().getFileName().toString()).resolve(first.getFileName().toString());
            Files.createDirectories(theirs.getParent());
            Files.write(theirs, new byte[] {1, 2, 3});

            assertThatThrownBy(() -> j.archiveFiles(Long.MAX_VALUE, 0, copies))
                    .hasMessageContaining("a different journal file is already archived at " + theirs);
            assertThat(Files.readAllBytes(theirs)).containsExactly(1, 2, 3);
            assertThat(cycleFiles()).contains(first);
            assertThat(j.reader().firstSequence()).isZero();
        }
    }

    @Test
    void aReaderWhoseNextFilesLeaveWhileItReadsIsToldSoNeverThatTheJournalIsCorrupt() throws Exception {
        try (Journal j = open()) {
            RowReleaseTest.write(j, clock, 4, 0);
            RowReleaseTest.write(j, clock, 1, 100);
            long end = j.endSequence();
            j.releaseRows(end);
            try (JournalReader r = JournalReader.open(palisade()); JournalCursor c = r.read(0)) {
                assertThat(c.poll().sequence()).isZero();
                assertThat(j.archiveFiles(Long.MAX_VALUE, 0, null).files()).isEqualTo(4);
                long expected = 1;
                try {
                    for (JournalRecord rec = c.poll(); rec != null; rec = c.poll()) {
                        assertThat(rec.sequence()).isEqualTo(expected++);
                    }
                    assertThat(expected).isEqualTo(end); // read on from what it had open: nothing skipped
                } catch (JournalArchivedException e) {
                    assertThat(e.firstLocalSequence()).isGreaterThan(expected);
                    assertThat(e.getMessage()).contains("journal sequence " + expected + " is no longer in the local "
                            + "journal");
                }
            }
        }
    }

    /** Reads one field of a log line without the production parser. */
    private static final class ArchivedFileJson {
        static String lastHash(String line) throws Exception {
            return new com.fasterxml.jackson.databind.ObjectMapper().readTree(line).get("last_hash").asText();
        }
    }
}
