package io.palisade.coordinator.internal;

import org.junit.jupiter.api.Test;

import java.util.Random;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.longs;

/**
 * {@link RetentionAnchors}: the older anchor is always at least a window old, at most a window and a quarter plus one
 * checkpoint interval old, never the newest anchor; few anchors are kept.
 */
class RetentionAnchorsTest {
    private static final long SECOND = 1_000_000_000L;

    /** Checkpoints at random intervals up to {@code maxInterval}, for five windows, checking after each. */
    private static void checkpoints(long seed) {
        Random r = new Random(seed);
        long window = (1 + r.nextInt(600)) * SECOND;
        long maxInterval = 1 + (long) (r.nextDouble() * window / 4);
        RetentionAnchors a = new RetentionAnchors(window);
        long now = 0;
        long seq = 0;
        long first = -1;
        long newest = -1;
        java.util.Map<Long, Long> times = new java.util.HashMap<>();
        while (now < 5 * window) {
            now += 1 + (long) (r.nextDouble() * maxInterval);
            seq += 1 + r.nextInt(1_000);
            times.put(seq, now);
            a.checkpointed(seq, now);
            first = first < 0 ? now : first;
            newest = seq;
            long older = a.older(now);
            Set<Long> kept = a.sequences();
            assertThat(kept).as("anchors kept").hasSizeLessThanOrEqualTo(6);
            if (older >= 0) {
                assertThat(kept).contains(older);
                assertThat(older).as("never the newest anchor").isLessThan(java.util.Collections.max(kept));
                long age = now - times.get(older);
                assertThat(age).as("the older anchor's age, window %d ns", window).isGreaterThanOrEqualTo(window)
                        .isLessThanOrEqualTo(window + window / 4 + maxInterval);
            } else {
                assertThat(now - first).as("an older anchor exists once the first one is old enough")
                        .isLessThan(window);
            }
        }
        assertThat(newest).isPositive();
    }

    @Test
    void theOlderAnchorIsAWindowToAWindowAndAQuarterOldForAnyCheckpointRate() {
        qt().withExamples(300).forAll(longs().all()).checkAssert(RetentionAnchorsTest::checkpoints);
    }

    @Test
    void aZeroWindowKeepsTheCheckpointBeforeTheNewest() {
        RetentionAnchors a = new RetentionAnchors(0);
        a.checkpointed(10, 1);
        assertThat(a.older(1)).isEqualTo(-1);
        a.checkpointed(20, 2);
        assertThat(a.older(2)).isEqualTo(10);
        a.checkpointed(30, 3);
        assertThat(a.older(3)).isEqualTo(20);
        assertThat(a.sequences()).containsExactly(20L, 30L);
    }

    @Test
    void anchorsTakenOverFromAnEarlierWriterAreLetGoOnlyOnceAYoungerOneIsOldEnough() {
        long w = 100 * SECOND;
        RetentionAnchors a = new RetentionAnchors(w);
        a.takeOver(5, 0);
        a.takeOver(7, 30 * SECOND);
        a.takeOver(9, 90 * SECOND);
        a.takeOver(8, 95 * SECOND); // not after the newest: ignored
        a.checkpointed(12, 120 * SECOND);
        assertThat(a.older(120 * SECOND)).isEqualTo(5);
        assertThat(a.sequences()).containsExactly(5L, 7L, 9L, 12L);
        a.checkpointed(14, 135 * SECOND); // 7 is a window old now: 5 goes
        assertThat(a.older(135 * SECOND)).isEqualTo(7);
        assertThat(a.sequences()).as("14 is too close to 12 to be an anchor").containsExactly(7L, 9L, 12L);
        a.clear();
        assertThat(a.sequences()).isEmpty();
        assertThat(a.older(135 * SECOND)).isEqualTo(-1);
        assertThatThrownBy(() -> new RetentionAnchors(-1)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void anchorsBeforeTheLocalJournalAreLetGo() {
        RetentionAnchors a = new RetentionAnchors(100 * SECOND);
        a.checkpointed(10, 0);
        a.checkpointed(20, 30 * SECOND);
        a.checkpointed(30, 60 * SECOND);
        assertThat(a.sequences()).containsExactly(10L, 20L, 30L);
        a.dropBefore(20);
        assertThat(a.sequences()).containsExactly(20L, 30L);
        a.dropBefore(31);
        assertThat(a.sequences()).isEmpty();
        a.checkpointed(40, 61 * SECOND); // the first after: an anchor again
        assertThat(a.sequences()).containsExactly(40L);
    }
}
