package io.palisade.journal;

import io.palisade.journal.JournalEvent.GraphBranchCreated;
import io.palisade.journal.JournalEvent.GraphBranchDeleted;
import io.palisade.journal.JournalEvent.TornTailCut;
import io.palisade.journal.JournalEvent.WriterStarted;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Torn tails: the last record of a closed journal is cut at every byte offset (the Chronicle cycle file
 * is truncated there, as a power cut that lost the tail of the file would leave it), optionally with
 * zeros or garbage appended after the cut. Reopening must recover to the last good record and never
 * return a bad one; the journal must then keep working across further reopens.
 */
class TornTailTest {

    @TempDir
    Path tmp;

    private Path pristine;
    private final List<JournalEvent> originals = new ArrayList<>();
    private Path cycleFile;
    private long lastStart;
    private long lastEnd;

    @BeforeEach
    void writeAClosedJournal() {
        pristine = tmp.resolve("pristine/_palisade");
        try (Journal j = Journal.open(pristine, JournalFiles.ONE_CYCLE)) {
            for (int i = 0; i < 4; i++) {
                JournalEvent e = new GraphBranchCreated("branch-" + i, "main", i);
                originals.add(e);
                j.append(e, Durability.PROCESS_CRASH);
            }
            JournalEvent last = new GraphBranchDeleted("b");
            originals.add(last);
            assertThat(j.append(last)).isEqualTo(5);
        }
        cycleFile = JournalFiles.cycleFile(pristine, 1);
        long[] bounds = JournalFiles.recordBounds(cycleFile, 5);
        lastStart = bounds[0];
        lastEnd = bounds[1];
    }

    @Test
    void truncatingTheLastRecordAtEveryByteOffsetRecoversToTheLastGoodRecord() {
        // From Chronicle's 4-byte excerpt header before our record to the last byte of our CRC.
        int torn = 0;
        for (long cut = lastStart - 4; cut < lastEnd; cut++) {
            Path copy = tmp.resolve("cut-" + cut + "/_palisade");
            JournalFiles.copyTruncated(pristine, copy, cycleFile, cut);
            torn += reopenAndCheck(copy, "truncated at " + cut, cut % 8 == 0) ? 1 : 0;
        }
        // Every cut inside our record (past Chronicle's header) leaves a torn record that must be reported.
        assertThat(torn).isGreaterThanOrEqualTo((int) (lastEnd - lastStart));
    }

    @Test
    void truncatingAndAppendingZerosOrGarbageRecoversToTheLastGoodRecord() {
        Random random = new Random(42);
        for (long cut = lastStart - 4; cut <= lastEnd; cut++) {
            // Zeros after a cut in the middle of the record are what plain truncation already reads as, so
            // they are checked here only where the record is complete.
            int variants = cut == lastEnd ? 2 : 1;
            for (int variant = 0; variant < variants; variant++) {
                Path copy = tmp.resolve("cut-" + cut + "-" + variant + "/_palisade");
                JournalFiles.copyTruncated(pristine, copy, cycleFile, cut);
                byte[] tail = new byte[48];
                if (variant == 0) {
                    random.nextBytes(tail);
                }
                JournalFiles.write(JournalFiles.cycleFile(copy, 1), cut, tail);
                reopenAndCheck(copy, "truncated at " + cut + (variant == 0 ? " + garbage" : " + zeros"),
                        cut % 8 == 0);
            }
        }
    }

    @Test
    void garbageShapedLikeAChronicleExcerptAfterTheLastRecordIsCutAsATornTail() {
        Path copy = tmp.resolve("shaped/_palisade");
        JournalFiles.copyTruncated(pristine, copy, cycleFile, lastEnd);
        byte[] tail = new byte[4 + 90];
        new Random(7).nextBytes(tail);
        tail[0] = 90; // a complete data excerpt of 90 bytes of garbage
        tail[1] = 0;
        tail[2] = 0;
        tail[3] = 0;
        JournalFiles.write(JournalFiles.cycleFile(copy, 1), lastEnd, tail);
        try (Journal j = Journal.open(copy, JournalFiles.ONE_CYCLE)) {
            assertThat(j.tornTailCutAtOpen()).get().satisfies(t -> {
                assertThat(t.lastGoodSequence()).isEqualTo(5);
                assertThat(t.excerpts()).isGreaterThanOrEqualTo(1);
            });
            assertThat(j.endSequence()).isEqualTo(8); // 0..5 kept, WriterStarted 6, TornTailCut 7
        }
    }

    /** Returns whether a torn tail was reported. {@code reopenTwice}: also reopen after appending (slower). */
    private boolean reopenAndCheck(Path palisade, String what, boolean reopenTwice) {
        boolean torn;
        long end;
        try (Journal j = Journal.open(palisade, JournalFiles.ONE_CYCLE)) {
            torn = j.tornTailCutAtOpen().isPresent();
            if (torn) {
                assertThat(j.tornTailCutAtOpen().get().lastGoodSequence()).as(what).isBetween(4L, 5L);
            }
            j.append(new GraphBranchCreated("after", "main", 1));
            end = j.endSequence();
        }
        if (reopenTwice) {
            try (Journal j = Journal.open(palisade, JournalFiles.ONE_CYCLE)) {
                assertThat(j.endSequence()).as(what).isEqualTo(end + 1);
            }
        }
        try (JournalReader r = JournalReader.open(palisade); JournalCursor c = r.read(0)) {
            List<JournalRecord> all = c.drain();
            assertThat(c.openTail()).as(what).isEmpty();
            // Never a bad record: what is kept is a prefix of what was written, unchanged.
            int kept = (int) all.stream().takeWhile(rec -> rec.writerEpoch() == 1).count();
            assertThat(kept).as(what).isBetween(5, 6);
            for (int i = 1; i < kept; i++) {
                assertThat(all.get(i).event()).as(what).isEqualTo(originals.get(i - 1));
            }
            assertThat(all.get(kept).event()).as(what).isInstanceOf(WriterStarted.class);
            if (torn) {
                assertThat(all.get(kept + 1).event()).as(what).isInstanceOf(TornTailCut.class);
                assertThat(c.cutTails()).as(what).hasSize(1);
            }
            assertThat(all).extracting(JournalRecord::sequence).as(what)
                    .containsExactlyElementsOf(java.util.stream.LongStream.range(0, all.size()).boxed().toList());
            assertThat(r.verify().ok()).as(what).isTrue();
        }
        return torn;
    }
}
