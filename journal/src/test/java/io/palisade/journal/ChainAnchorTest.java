package io.palisade.journal;

import io.palisade.fencing.JournalCorruptedException;
import io.palisade.journal.JournalEvent.GraphBranchCreated;
import io.palisade.journal.JournalEvent.GraphBranchDeleted;
import io.palisade.journal.codec.RecordDescriptor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The chain anchor: a writer's open verifies the journal from the newest anchor, not from sequence 0, so its cost is
 * what was appended since; an anchor that does not hold (damaged, naming a record the journal no longer holds, or one
 * that hashes otherwise) sends the open back to sequence 0; the whole chain stays verifiable by {@code verify()}.
 */
class ChainAnchorTest {
    @TempDir
    Path tmp;

    private Path palisade() {
        return tmp.resolve("_palisade");
    }

    /** A journal of {@code sessions} writer sessions of {@code events} records each, anchored at the end of each. */
    private Path journal(int sessions, int events, boolean anchor) {
        Path palisade = palisade();
        for (int s = 0; s < sessions; s++) {
            try (Journal j = Journal.open(palisade, JournalFiles.ONE_CYCLE)) {
                for (int i = 0; i < events; i++) {
                    j.append(i % 2 == 0 ? new GraphBranchCreated("b" + i, "main", i) : new GraphBranchDeleted("b" + i),
                            Durability.POWER_LOSS);
                }
                if (anchor) {
                    j.anchor();
                }
            }
        }
        return palisade;
    }

    private static List<Long> sequences(Path palisade) {
        List<Long> out = new ArrayList<>();
        try (JournalReader r = JournalReader.open(palisade); JournalCursor c = r.read(0)) {
            for (JournalRecord rec = c.poll(); rec != null; rec = c.poll()) {
                out.add(rec.sequence());
            }
        }
        return out;
    }

    @Test
    void anAnchoredOpenReadsOnlyWhatFollowsTheAnchorAndTheWholeChainStaysVerifiable() {
        Path palisade = journal(2, 40, true);
        Path dir = palisade.resolve(Journal.DIRECTORY);
        ChainAnchor a = ChainAnchor.read(dir).orElseThrow();
        assertThat(a.sequence()).as("the anchor: the last record of the second session").isEqualTo(81);
        // a record of the first session, before the anchor, is damaged
        Path file = JournalFiles.cycleFile(palisade, 1);
        long[] b = JournalFiles.recordBounds(file, 5);
        JournalFiles.flipBit(file, b[0] + RecordDescriptor.HEADER_LENGTH + 2, 3);
        // the open verifies from the anchor: it does not read record 5, and the writer goes on from the end
        try (Journal j = Journal.open(palisade, JournalFiles.ONE_CYCLE)) {
            assertThat(j.append(new GraphBranchDeleted("x"), Durability.POWER_LOSS)).isEqualTo(83); // 82 = WriterStarted
        }
        // the whole chain is still verified by verify(), which names the damaged record
        try (JournalReader r = JournalReader.open(palisade)) {
            VerificationReport v = r.verify();
            assertThat(v.ok()).isFalse();
            assertThat(v.firstBadSequence()).isEqualTo(5);
        }
        // without the anchor the open verifies from sequence 0 and refuses
        deleteAnchor(dir);
        assertThatThrownBy(() -> Journal.open(palisade, JournalFiles.ONE_CYCLE))
                .isInstanceOf(JournalCorruptedException.class)
                .satisfies(e -> assertThat(((JournalCorruptedException) e).sequence()).isEqualTo(5));
    }

    @Test
    void corruptionAfterTheAnchorStillRefusesTheOpen() {
        Path palisade = journal(1, 40, true);
        try (Journal j = Journal.open(palisade, JournalFiles.ONE_CYCLE)) { // a session after the anchor
            for (int i = 0; i < 20; i++) {
                j.append(new GraphBranchDeleted("y" + i), Durability.POWER_LOSS);
            }
        }
        Path file = JournalFiles.cycleFile(palisade, 2);
        long[] b = JournalFiles.recordBounds(file, 45); // in the second segment (41 = its WriterStarted), after the anchor (40)
        JournalFiles.flipBit(file, b[0] + RecordDescriptor.HEADER_LENGTH + 2, 3);
        assertThatThrownBy(() -> Journal.open(palisade, JournalFiles.ONE_CYCLE))
                .isInstanceOf(JournalCorruptedException.class).hasMessageContaining("mid-log corruption");
    }

    @Test
    void anAnchorThatDoesNotHoldSendsTheOpenBackToSequenceZero() throws Exception {
        Path palisade = journal(1, 10, true);
        Path dir = palisade.resolve(Journal.DIRECTORY);
        List<Long> before = sequences(palisade);
        // names a record the journal does not hold (a power cut took it)
        new ChainAnchor(1_000, new byte[RecordDescriptor.HASH_LENGTH]).write(dir);
        try (Journal j = Journal.open(palisade, JournalFiles.ONE_CYCLE)) {
            assertThat(j.append(new GraphBranchDeleted("a"), Durability.POWER_LOSS)).isEqualTo(before.size() + 1);
            j.anchor();
        }
        // a record that hashes otherwise (a rewritten journal)
        ChainAnchor real = ChainAnchor.read(dir).orElseThrow();
        byte[] other = real.hash().clone();
        other[0] ^= 1;
        new ChainAnchor(real.sequence(), other).write(dir);
        try (Journal j = Journal.open(palisade, JournalFiles.ONE_CYCLE)) {
            assertThat(j.append(new GraphBranchDeleted("b"), Durability.POWER_LOSS)).isEqualTo(real.sequence() + 2);
        }
        // a damaged file
        byte[] image = Files.readAllBytes(dir.resolve(ChainAnchor.FILE));
        image[10] ^= 1;
        Files.write(dir.resolve(ChainAnchor.FILE), image);
        assertThat(ChainAnchor.read(dir)).isEmpty();
        try (Journal j = Journal.open(palisade, JournalFiles.ONE_CYCLE)) {
            assertThat(j.append(new GraphBranchDeleted("c"), Durability.POWER_LOSS)).isEqualTo(real.sequence() + 4);
        }
        assertThat(sequences(palisade)).as("dense, every record good").hasSize((int) real.sequence() + 5);
        try (JournalReader r = JournalReader.open(palisade)) {
            assertThat(r.verify().ok()).isTrue();
        }
    }

    @Test
    void anAnchorImageRoundTripsAndAnyDamageIsRefused() {
        byte[] hash = new byte[RecordDescriptor.HASH_LENGTH];
        for (int i = 0; i < hash.length; i++) {
            hash[i] = (byte) (i * 7);
        }
        ChainAnchor a = new ChainAnchor(123_456_789L, hash);
        byte[] image = a.encode();
        assertThat(image).hasSize(ChainAnchor.LENGTH);
        ChainAnchor back = ChainAnchor.decode(image).orElseThrow();
        assertThat(back.sequence()).isEqualTo(123_456_789L);
        assertThat(back.matches(hash)).isTrue();
        for (int bit = 0; bit < image.length * 8; bit++) {
            byte[] flipped = image.clone();
            flipped[bit / 8] ^= (byte) (1 << (bit % 8));
            assertThat(ChainAnchor.decode(flipped)).as("bit %d flipped", bit).isEmpty();
        }
        assertThat(ChainAnchor.decode(java.util.Arrays.copyOf(image, image.length - 1))).as("short").isEmpty();
    }

    private static void deleteAnchor(Path dir) {
        try {
            Files.delete(dir.resolve(ChainAnchor.FILE));
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
