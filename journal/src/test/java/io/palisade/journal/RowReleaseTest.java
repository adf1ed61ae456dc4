package io.palisade.journal;

import io.palisade.journal.JournalEvent.GraphBranchCreated;
import io.palisade.journal.JournalEvent.RowsRecorded;
import io.palisade.journal.JournalEvent.RowsReleased;
import io.palisade.journal.JournalEvent.IntentRecorded;
import io.palisade.journal.JournalEvent.WriteJournaled;
import io.palisade.journal.JournalEvent.WriteReleased;
import io.palisade.fencing.KeyFilter;
import io.palisade.journal.codec.RecordDescriptor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The journal's row release: closed files lose their rows, nothing else changes (sequences, times, every record's
 * hash, the chain's head), the writer's open file is never touched, a rewrite interrupted before its rename leaves the
 * old file, and a reader reading across a release reads a whole, verified chain.
 */
class RowReleaseTest {
    private static final long FIVE_MINUTES = 300_000L;
    private static final int ROW_BYTES = 64 * 1024;

    @TempDir
    Path tmp;

    private final StepClock clock = new StepClock();

    private Path palisade() {
        return tmp.resolve("_palisade");
    }

    private Journal open() {
        return Journal.open(palisade(), JournalOptions.defaults().withClock(clock));
    }

    private static byte[] rows(int i) {
        byte[] b = new byte[ROW_BYTES];
        Arrays.fill(b, (byte) i);
        return b;
    }

    /** Three writes (rows, then another record) per five-minute file, {@code files} files. */
    static void write(Journal j, StepClock clock, int files, int from) {
        write(j, clock, files, from, 3);
    }

    /** {@code perFile} writes (rows, then another record) per five-minute file, {@code files} files. */
    static void write(Journal j, StepClock clock, int files, int from, int perFile) {
        for (int f = 0; f < files; f++) {
            for (int i = 0; i < perFile; i++) {
                int n = from + f * perFile + i;
                j.appendBatch(List.of(new RowsRecorded("w" + n, "main", "t", 1, rows(n)),
                        new GraphBranchCreated("b" + n, "main", n)), Durability.POWER_LOSS);
            }
            clock.advance(FIVE_MINUTES);
        }
    }

    private List<JournalRecord> records() {
        List<JournalRecord> out = new ArrayList<>();
        try (JournalReader r = JournalReader.open(palisade()); JournalCursor c = r.read(0)) {
            for (JournalRecord rec = c.poll(); rec != null; rec = c.poll()) {
                out.add(rec);
            }
        }
        return out;
    }

    private List<String> hashes(long end) {
        List<String> out = new ArrayList<>();
        try (JournalReader r = JournalReader.open(palisade())) {
            for (long s = 0; s < end; s++) {
                out.add(r.recordHash(s).orElseThrow());
            }
        }
        return out;
    }

    /** Bytes the file system allocated to the journal, as {@code du -s -B1} reports them (its files are sparse). */
    private long journalBytes() throws Exception {
        Process du = new ProcessBuilder("du", "-s", "-B1", palisade().resolve(Journal.DIRECTORY).toString())
                .redirectErrorStream(true).start();
        String out = new String(du.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8).trim();
        assertThat(du.waitFor()).as("du: %s", out).isZero();
        return Long.parseLong(out.split("\\s+", 2)[0]);
    }

    @Test
    void closedFilesLoseTheirRowsAndEveryRecordKeepsItsSequenceTimeAndHash() throws Exception {
        try (Journal j = open()) {
            write(j, clock, 3, 0);
            write(j, clock, 1, 100); // the writer's open file, after the last advance
            long end = j.endSequence();
            List<JournalRecord> before = records();
            List<String> hashesBefore = hashes(end);
            String head = j.chainHead();
            long bytesBefore = journalBytes();

            RowReleaseReport report = j.releaseRows(end);

            assertThat(report.files()).isEqualTo(3);
            assertThat(report.records()).isEqualTo(9);
            assertThat(report.rowBytes()).isEqualTo(9L * ROW_BYTES);
            assertThat(report.skipped()).isEmpty();
            assertThat(report.bytesFreed()).isGreaterThan(8L * ROW_BYTES);
            assertThat(journalBytes()).isLessThan(bytesBefore - 8L * ROW_BYTES);

            List<JournalRecord> after = records();
            assertThat(after).hasSameSizeAs(before);
            int released = 0;
            for (int i = 0; i < before.size(); i++) {
                JournalRecord b = before.get(i);
                JournalRecord a = after.get(i);
                assertThat(a.sequence()).isEqualTo(b.sequence());
                assertThat(a.timestampNanos()).isEqualTo(b.timestampNanos());
                assertThat(a.writerEpoch()).isEqualTo(b.writerEpoch());
                if (b.event() instanceof RowsRecorded rows && a.event() instanceof RowsReleased r) {
                    released++;
                    assertThat(r.intentId()).isEqualTo(rows.intentId());
                    assertThat(r.rowCount()).isEqualTo(rows.rowCount());
                    assertThat(r.rowsBytes()).isEqualTo(rows.rows().length);
                    assertThat(r.recordHash()).asHexString().isEqualToIgnoringCase(hashesBefore.get(i));
                } else {
                    assertThat(a.event()).isEqualTo(b.event());
                }
            }
            assertThat(released).isEqualTo(9);
            // the writer's open file keeps its rows
            assertThat(after.subList(after.size() - 6, after.size()))
                    .noneMatch(r -> r.event() instanceof RowsReleased);
            assertThat(hashes(end)).isEqualTo(hashesBefore);
            VerificationReport v = j.reader().verify();
            assertThat(v.firstBadSequence()).isEqualTo(-1);
            assertThat(v.records()).isEqualTo(end);
            assertThat(v.lastHash()).isEqualTo(head);

            // nothing left to do: a second run rewrites nothing
            RowReleaseReport again = j.releaseRows(end);
            assertThat(again.files()).isZero();
            assertThat(again.records()).isZero();

            // appends go on after a release
            j.append(new GraphBranchCreated("later", "main", 1), Durability.POWER_LOSS);
        }
        // a new writer verifies the chain through the released files (from sequence 0: no anchor was written)
        Files.deleteIfExists(palisade().resolve(Journal.DIRECTORY).resolve(ChainAnchor.FILE));
        try (Journal j = open()) {
            // the previous writer's last file is closed now: its rows go too
            RowReleaseReport r = j.releaseRows(j.endSequence());
            assertThat(r.records()).isEqualTo(3);
            assertThat(j.reader().verify().firstBadSequence()).isEqualTo(-1);
        }
    }

    @Test
    void onlyFilesWhollyBeforeTheNamedSequenceAreRewritten() {
        try (Journal j = open()) {
            write(j, clock, 3, 0);
            assertThat(j.reader().rowsReleasedBelow()).isEmpty();
            // each file holds 6 records: the second file ends at sequence 12 (the first file starts with WriterStarted)
            RowReleaseReport r = j.releaseRows(12);
            assertThat(r.files()).isEqualTo(1);
            assertThat(r.consideredBelow()).isEqualTo(7);
            List<JournalRecord> recs = records();
            assertThat(recs.stream().filter(x -> x.event() instanceof RowsReleased).map(JournalRecord::sequence))
                    .containsExactly(1L, 3L, 5L);
            assertThat(j.reader().verify().firstBadSequence()).isEqualTo(-1);
            // a later run goes on from where this one stopped
            assertThat(j.releaseRows(13).files()).isEqualTo(1);
            assertThat(new RowRelease(palisade().resolve(Journal.DIRECTORY)).progress())
                    .isEqualTo(13);
            try (JournalReader reader = JournalReader.open(palisade())) {
                assertThat(reader.rowsReleasedBelow()).hasValue(13);
            }
        }
    }

    @Test
    void aRunStopsAfterItsByteBudgetAndTheNextGoesOn() {
        try (Journal j = open()) {
            write(j, clock, 3, 0);
            write(j, clock, 1, 100);
        }
        Path journalDir = palisade().resolve(Journal.DIRECTORY);
        // a budget below one file's records: every run rewrites exactly one file
        RowRelease release = new RowRelease(journalDir, 1);
        List<Integer> files = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            files.add(release.run(Long.MAX_VALUE).files());
        }
        // one file per run, then nothing; the newest segment's last file counts as the writer's and is kept
        assertThat(files).containsExactly(1, 1, 1, 0, 0);
        try (JournalReader r = JournalReader.open(palisade())) {
            assertThat(r.verify().ok()).isTrue();
        }
    }

    @Test
    void filesYoungerThanTheWindowKeepTheirRows() {
        try (Journal j = open()) {
            write(j, clock, 3, 0);
            write(j, clock, 1, 100);
            // the files' records are stamped at 0:30, 5:30, 10:30 and 15:30 minutes; a 6-minute window behind the
            // newest record (15:30) releases what ends before 9:30: the first two files, not the third
            RowReleaseReport r = j.releaseRows(j.endSequence(), java.time.Duration.ofMinutes(6));
            assertThat(r.files()).isEqualTo(2);
            assertThat(r.records()).isEqualTo(6);
            assertThat(j.releaseRows(j.endSequence(), java.time.Duration.ofMinutes(6)).files()).isZero();
            assertThat(j.releaseRows(j.endSequence()).files()).isEqualTo(1);
        }
    }

    @Test
    void aRewriteInterruptedBeforeItsRenameLeavesTheOldFileAndTheNextRunFinishesIt() {
        try (Journal j = open()) {
            write(j, clock, 2, 0);
            write(j, clock, 1, 100);
            long end = j.endSequence();
            List<String> hashesBefore = hashes(end);
            RowRelease.Hook crash = new RowRelease.Hook() {
                @Override
                public void beforeReplace(Path file) {
                    throw new IllegalStateException("crash before replacing " + file.getFileName());
                }
            };
            assertThatThrownBy(() -> j.releaseRows(end, java.time.Duration.ZERO, crash)).hasMessageContaining("crash before replacing");
            assertThat(palisade().resolve(Journal.DIRECTORY).resolve(RowRelease.WORK_DIR)).exists();
            assertThat(records()).noneMatch(r -> r.event() instanceof RowsReleased);
            assertThat(hashes(end)).isEqualTo(hashesBefore);

            RowReleaseReport r = j.releaseRows(end);
            assertThat(r.files()).isEqualTo(2);
            assertThat(palisade().resolve(Journal.DIRECTORY).resolve(RowRelease.WORK_DIR)).doesNotExist();
            assertThat(hashes(end)).isEqualTo(hashesBefore);
        }
    }

    @Test
    void aCursorReadingAcrossAReleaseReadsTheWholeVerifiedChain() {
        try (Journal j = open()) {
            write(j, clock, 3, 0);
            write(j, clock, 1, 100);
            long end = j.endSequence();
            List<Long> seen = new ArrayList<>();
            try (JournalReader r = j.reader(); JournalCursor c = r.read(0)) {
                for (int i = 0; i < 4; i++) {
                    seen.add(c.poll().sequence());
                }
                assertThat(j.releaseRows(end).files()).isEqualTo(3);
                for (JournalRecord rec = c.poll(); rec != null; rec = c.poll()) {
                    seen.add(rec.sequence());
                }
            }
            assertThat(seen).hasSize((int) end);
            assertThat(seen.get(seen.size() - 1)).isEqualTo(end - 1);
        }
    }

    @Test
    void aReleasedRecordWhoseKeptHashWasAlteredBreaksTheChain() throws Exception {
        long end;
        try (Journal j = open()) {
            write(j, clock, 2, 0);
            write(j, clock, 1, 100);
            end = j.endSequence();
            assertThat(j.releaseRows(end).records()).isEqualTo(6);
        }
        Path segment = JournalFiles.segmentDir(palisade(), 1);
        Path first;
        try (Stream<Path> s = Files.list(segment)) {
            first = s.filter(p -> p.toString().endsWith(".cq4")).sorted().findFirst().orElseThrow();
        }
        long[] bounds = JournalFiles.recordBounds(first, 1);
        // the kept hash is the payload's last 32 bytes, before the CRC: alter one and make the CRC match again, so the
        // record itself reads as good and only the chain can tell
        long hashByte = bounds[1] - RecordDescriptor.CRC_LENGTH - 1;
        JournalFiles.flipBit(first, hashByte, 0);
        byte[] record = new byte[(int) (bounds[1] - bounds[0])];
        try (java.io.RandomAccessFile f = new java.io.RandomAccessFile(first.toFile(), "r")) {
            f.seek(bounds[0]);
            f.readFully(record);
        }
        java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
        crc.update(record, 0, record.length - RecordDescriptor.CRC_LENGTH);
        int v32 = (int) crc.getValue();
        JournalFiles.write(first, bounds[1] - RecordDescriptor.CRC_LENGTH,
                new byte[] {(byte) v32, (byte) (v32 >>> 8), (byte) (v32 >>> 16), (byte) (v32 >>> 24)});
        try (JournalReader r = JournalReader.open(palisade())) {
            VerificationReport v = r.verify();
            assertThat(v.firstBadSequence()).isEqualTo(2);
            assertThat(v.problem()).contains("hash chain broken");
        }
    }

    @Test
    void aSegmentWrittenWithDailyFilesStillReadsAndItsRowsAreReleased() throws Exception {
        try (Journal j = open()) {
            write(j, clock, 2, 0);
        }
        // rewrite the first session's segment as a build before five-minute files wrote it: one daily file
        Path segment = JournalFiles.segmentDir(palisade(), 1);
        Path daily = tmp.resolve("daily");
        List<byte[]> excerpts = new ArrayList<>();
        try (var q = ChronicleSupport.open(segment, true); var t = q.createTailer()) {
            ExcerptReader r = new ExcerptReader(t);
            for (int n = r.next(); n != ExcerptReader.NONE; n = r.next()) {
                excerpts.add(Arrays.copyOf(r.buffer(), n));
            }
        }
        net.openhft.chronicle.core.time.SetTimeProvider time =
                new net.openhft.chronicle.core.time.SetTimeProvider(clock.millis() * 1_000_000L);
        try (var q = net.openhft.chronicle.queue.impl.single.SingleChronicleQueueBuilder.binary(daily)
                .rollCycle(ChronicleSupport.LEGACY_CYCLE).blockSize(ChronicleSupport.BLOCK_SIZE).timeProvider(time)
                .build(); var a = q.createAppender()) {
            for (byte[] e : excerpts) {
                try (var dc = a.writingDocument()) {
                    dc.wire().bytes().write(e);
                }
            }
        }
        try (Stream<Path> s = Files.walk(segment)) {
            for (Path p : s.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
        Files.move(daily, segment);
        try (Stream<Path> s = Files.list(segment)) {
            assertThat(s.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".cq4")))
                    .singleElement().asString().endsWith("F.cq4");
        }
        assertThat(ChronicleSupport.cycleOf(segment)).isEqualTo(ChronicleSupport.LEGACY_CYCLE);
        List<String> hashesBefore = hashes(excerpts.size());

        try (Journal j = open()) {
            assertThat(j.endSequence()).isEqualTo(excerpts.size() + 1);
            RowReleaseReport r = j.releaseRows(j.endSequence());
            assertThat(r.files()).isEqualTo(1);
            assertThat(r.records()).isEqualTo(6);
            assertThat(hashes(excerpts.size())).isEqualTo(hashesBefore);
            assertThat(j.reader().verify().ok()).isTrue();
        }
    }

    @Test
    void aReleasedRecordIsNeverAppended() {
        try (Journal j = open()) {
            long end = j.endSequence();
            assertThatThrownBy(() -> j.append(new RowsReleased("w", "main", "t", 1, 10, new byte[32]),
                    Durability.POWER_LOSS))
                    .hasMessageContaining("written by the row release only");
            assertThatThrownBy(() -> j.append(new WriteReleased(intent(1), 1, 10, new byte[32]), Durability.POWER_LOSS))
                    .hasMessageContaining("written by the row release only");
            assertThat(j.endSequence()).isEqualTo(end);
        }
    }

    /** The intent of journal-ack write {@code n}: an upsert of key {@code "k" + n}, the head to itself. */
    private static IntentRecorded intent(int n) {
        TableHead head = new TableHead("main", 3, 1, 0);
        return new IntentRecorded("w" + n, n % 2 == 0 ? "idem-" + n : null, LogicalOperation.UPSERT, "main", "t",
                new ExpectedBase("main", 3, 1, n), new byte[] {1, 2}, KeyFilter.ofStrings(0, List.of("k" + n)),
                new HeadTransition("main", "t", head, head), "digest-" + n);
    }

    @Test
    void aWriteJournaledInOneRecordIsReleasedWithItsIntentWholeAndTheChainVerifies() throws Exception {
        try (Journal j = open()) {
            for (int f = 0; f < 3; f++) {
                for (int i = 0; i < 3; i++) {
                    int n = f * 3 + i;
                    j.appendBatch(List.of(new WriteJournaled(intent(n), 1, rows(n)),
                            new RowsRecorded("r" + n, "main", "t", 1, rows(n))), Durability.POWER_LOSS);
                }
                clock.advance(FIVE_MINUTES);
            }
            j.append(new WriteJournaled(intent(99), 1, rows(99)), Durability.POWER_LOSS); // the open file
            long end = j.endSequence();
            List<JournalRecord> before = records();
            List<String> hashesBefore = hashes(end);
            String head = j.chainHead();

            RowReleaseReport report = j.releaseRows(end);

            assertThat(report.files()).isEqualTo(3);
            assertThat(report.records()).isEqualTo(18);
            assertThat(report.rowBytes()).isEqualTo(18L * ROW_BYTES);
            List<JournalRecord> after = records();
            assertThat(after).hasSameSizeAs(before);
            int writes = 0;
            for (int i = 0; i < before.size(); i++) {
                JournalRecord b = before.get(i);
                JournalRecord a = after.get(i);
                assertThat(a.sequence()).isEqualTo(b.sequence());
                assertThat(a.timestampNanos()).isEqualTo(b.timestampNanos());
                if (b.event() instanceof WriteJournaled w && a.event() instanceof WriteReleased r) {
                    writes++;
                    assertThat(r.intent()).isEqualTo(w.intent());
                    assertThat(r.rowCount()).isEqualTo(w.rowCount());
                    assertThat(r.rowsBytes()).isEqualTo(w.rows().length);
                    assertThat(r.recordHash()).asHexString().isEqualToIgnoringCase(hashesBefore.get(i));
                } else if (b.event() instanceof RowsRecorded) {
                    assertThat(a.event()).isInstanceOf(RowsReleased.class);
                } else {
                    assertThat(a.event()).isEqualTo(b.event());
                }
            }
            assertThat(writes).isEqualTo(9);
            assertThat(after.get(after.size() - 1).event()).isInstanceOf(WriteJournaled.class); // the open file's
            assertThat(hashes(end)).isEqualTo(hashesBefore);
            VerificationReport v = j.reader().verify();
            assertThat(v.firstBadSequence()).isEqualTo(-1);
            assertThat(v.lastHash()).isEqualTo(head);
        }
        // a new writer verifies the chain through the released files from sequence 0
        Files.deleteIfExists(palisade().resolve(Journal.DIRECTORY).resolve(ChainAnchor.FILE));
        try (Journal j = open()) {
            assertThat(j.reader().verify().firstBadSequence()).isEqualTo(-1);
        }
    }

    @Test
    void aClosedJournalReleasesNothing() {
        Journal j = open();
        j.close();
        assertThatThrownBy(() -> j.releaseRows(10)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("only its live writer releases rows");
    }
}
