package io.palisade.journal;

import io.palisade.fencing.JournalCorruptedException;
import io.palisade.journal.JournalEvent.GraphBranchCreated;
import io.palisade.journal.JournalEvent.GraphBranchDeleted;
import io.palisade.journal.codec.RecordDescriptor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.List;
import java.util.zip.CRC32C;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Bit flips and mid-log corruption of a closed journal's bytes. */
class CorruptionTest {

    @TempDir
    Path tmp;

    private Path journalWith(int events) {
        Path palisade = tmp.resolve("_palisade");
        try (Journal j = Journal.open(palisade, JournalFiles.ONE_CYCLE)) {
            for (int i = 0; i < events; i++) {
                j.append(i % 2 == 0 ? new GraphBranchCreated("b" + i, "main", i) : new GraphBranchDeleted("b" + i),
                        Durability.PROCESS_CRASH);
            }
        }
        return palisade;
    }

    @Test
    void everyBitFlipInTheLastRecordsIsDetected() {
        Path palisade = journalWith(4); // sequences 0..4
        Path file = JournalFiles.cycleFile(palisade, 1);
        int flips = 0;
        try (JournalReader r = JournalReader.open(palisade)) {
            for (long seq = 3; seq <= 4; seq++) {
                long[] b = JournalFiles.recordBounds(file, seq);
                for (long off = b[0]; off < b[1]; off++) {
                    for (int bit = 0; bit < 8; bit++) {
                        JournalFiles.flipBit(file, off, bit);
                        VerificationReport v = r.verify();
                        String what = "seq " + seq + " byte " + (off - b[0]) + " bit " + bit;
                        if (seq == 4) {
                            // The last record: a torn tail, reported; reading stops before it.
                            assertThat(v.ok()).as(what).isTrue();
                            assertThat(v.endSequence()).as(what).isEqualTo(4);
                            assertThat(v.openTail()).as(what).isNotNull();
                            assertThat(v.openTail().lastGoodSequence()).as(what).isEqualTo(3);
                        } else {
                            // Followed by a good record: mid-log corruption naming the sequence.
                            assertThat(v.ok()).as(what).isFalse();
                            assertThat(v.firstBadSequence()).as(what).isEqualTo(seq);
                        }
                        JournalFiles.flipBit(file, off, bit);
                        flips++;
                    }
                }
            }
            assertThat(r.verify().ok()).isTrue();
            assertThat(r.verify().openTail()).isNull();
        }
        assertThat(flips).isGreaterThan(2 * 8 * RecordDescriptor.MIN_RECORD_LENGTH);
    }

    @Test
    void aCorruptMiddleRecordRefusesTheOpenForWritingAndNamesTheSequence() {
        Path palisade = journalWith(9);
        Path file = JournalFiles.cycleFile(palisade, 1);
        long[] b = JournalFiles.recordBounds(file, 5);
        JournalFiles.flipBit(file, b[0] + RecordDescriptor.HEADER_LENGTH + 2, 3);

        for (int attempt = 0; attempt < 2; attempt++) { // the lease is released after each refusal
            assertThatThrownBy(() -> Journal.open(palisade, JournalFiles.ONE_CYCLE))
                    .isInstanceOf(JournalCorruptedException.class)
                    .hasMessageContaining("sequence 5")
                    .satisfies(e -> assertThat(((JournalCorruptedException) e).sequence()).isEqualTo(5));
        }
        try (JournalReader r = JournalReader.open(palisade)) {
            VerificationReport v = r.verify();
            assertThat(v.ok()).isFalse();
            assertThat(v.firstBadSequence()).isEqualTo(5);
            assertThat(v.records()).isEqualTo(5);
            try (JournalCursor c = r.read(0)) {
                for (int i = 0; i < 5; i++) {
                    assertThat(c.poll().sequence()).isEqualTo(i);
                }
                assertThatThrownBy(c::poll).isInstanceOf(JournalCorruptedException.class)
                        .hasMessageContaining("mid-log corruption");
            }
        }
        // No segment was started for the refused writers.
        assertThat(Segments.ready(palisade.resolve(Journal.DIRECTORY))).containsExactly(1L);
    }

    @Test
    void aLostExcerptHeaderHidingGoodRecordsIsMidLogCorruptionNotATornTail() {
        Path palisade = journalWith(300);
        Path file = JournalFiles.cycleFile(palisade, 1);
        long[] b = JournalFiles.recordBounds(file, 5);
        JournalFiles.write(file, b[0] - 4, new byte[4]); // Chronicle's header of record 5: reading stops there
        assertThatThrownBy(() -> Journal.open(palisade, JournalFiles.ONE_CYCLE))
                .isInstanceOf(JournalCorruptedException.class)
                .hasMessageContaining("hides good records")
                .satisfies(e -> assertThat(((JournalCorruptedException) e).sequence()).isEqualTo(5));
    }

    @Test
    void aRewrittenRecordWithAValidCrcBreaksTheHashChainAtTheNextSequence() throws IOException {
        Path palisade = journalWith(6);
        Path file = JournalFiles.cycleFile(palisade, 1);
        long[] b = JournalFiles.recordBounds(file, 3);
        int len = (int) (b[1] - b[0]);
        byte[] rec = new byte[len];
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
            f.seek(b[0]);
            f.readFully(rec);
            rec[len - 6] ^= 0x01; // change the event...
            CRC32C crc = new CRC32C();
            crc.update(rec, 0, len - 4);
            ByteBuffer.wrap(rec).order(ByteOrder.LITTLE_ENDIAN).putInt(len - 4, (int) crc.getValue()); // ...and re-seal it
            f.seek(b[0]);
            f.write(rec);
        }
        try (JournalReader r = JournalReader.open(palisade)) {
            VerificationReport v = r.verify();
            assertThat(v.firstBadSequence()).isEqualTo(4);
            assertThat(v.problem()).contains("hash chain broken");
        }
    }

    @Test
    void readingFromTheMiddleChecksTheChainFromTheRecordBefore() {
        Path palisade = journalWith(6);
        Path file = JournalFiles.cycleFile(palisade, 1);
        long[] b = JournalFiles.recordBounds(file, 3);
        JournalFiles.flipBit(file, b[0] + RecordDescriptor.HEADER_LENGTH, 0);
        try (JournalReader r = JournalReader.open(palisade)) {
            // Starting at 5 reads 4 first (chain anchor): fine. Starting at 2 meets the bad 3: refused.
            try (JournalCursor c = r.read(5)) {
                List<JournalRecord> got = c.drain();
                assertThat(got).extracting(JournalRecord::sequence).containsExactly(5L, 6L);
            }
            try (JournalCursor c = r.read(2)) {
                assertThat(c.poll().sequence()).isEqualTo(2);
                assertThatThrownBy(c::poll).isInstanceOf(JournalCorruptedException.class);
            }
        }
    }
}
