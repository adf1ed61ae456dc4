package io.palisade.coordinator.internal;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * The committer's idle strategy: its phases in order, and no lost wake-up. Parks here are an hour long, so a wake-up
 * that does not arrive fails a test by its timeout instead of passing late.
 */
class WakeableIdleStrategyTest {
    private static final long HOUR = TimeUnit.HOURS.toNanos(1);
    private static final Duration LIMIT = Duration.ofSeconds(60);

    @Test
    void withinTheBackOffWindowItNeverParksUntilWokenNorAsksForWork() {
        AtomicInteger asked = new AtomicInteger();
        WakeableIdleStrategy idle = new WakeableIdleStrategy(2, 3, 1, 1, HOUR, () -> HOUR, () -> {
            asked.incrementAndGet();
            return false;
        });
        assertTimeoutPreemptively(LIMIT, () -> {
            for (int i = 0; i < 1_000; i++) {
                idle.idle(0); // spins, yields, then timed parks of 1 ns
            }
        });
        assertThat(asked).as("asked during the back-off").hasValue(0);
        assertThat(idle.parks()).isZero();
    }

    @Test
    void pastTheBackOffWindowItAsksForWorkBeforeEachParkAndStartsOverAfterWork() {
        AtomicInteger asked = new AtomicInteger();
        WakeableIdleStrategy idle = new WakeableIdleStrategy(2, 3, 1, 1, 0, () -> HOUR, () -> {
            asked.incrementAndGet();
            return true; // work waits: the strategy must not park
        });
        assertTimeoutPreemptively(LIMIT, () -> {
            idle.idle(0);
            idle.idle(0);
        });
        assertThat(asked).as("asked before each park").hasValue(2);
        assertThat(idle.parks()).as("parks begun while work waited").isZero();
        idle.idle(1); // work done: starts over
        assertThat(idle.parking()).isFalse();
    }

    @Test
    void aWakeUpEndsThePark() throws Exception {
        WakeableIdleStrategy idle = new WakeableIdleStrategy(0, 0, 1, 1, 0, () -> HOUR, () -> false);
        CountDownLatch returned = new CountDownLatch(1);
        Thread committer = new Thread(() -> {
            idle.idle();
            returned.countDown();
        }, "committer");
        committer.setDaemon(true);
        committer.start();
        assertTimeoutPreemptively(LIMIT, () -> {
            while (!idle.parking()) {
                Thread.onSpinWait();
            }
        });
        idle.wake();
        assertThat(returned.await(LIMIT.toSeconds(), TimeUnit.SECONDS)).as("the park ended by the wake-up").isTrue();
        committer.join();
        assertThat(idle.parking()).isFalse();
    }

    @Test
    void afterStopItParksNoMore() {
        WakeableIdleStrategy idle = new WakeableIdleStrategy(0, 0, 1, 1, 0, () -> HOUR, () -> false);
        idle.stop();
        assertTimeoutPreemptively(LIMIT, () -> {
            for (int i = 0; i < 100; i++) {
                idle.idle(0);
            }
        });
    }

    @Test
    void everySubmissionIsTakenUpAlthoughTheConsumerParksForAnHour() throws Exception {
        ConcurrentLinkedQueue<Integer> queue = new ConcurrentLinkedQueue<>();
        WakeableIdleStrategy idle = new WakeableIdleStrategy(1, 1, 1_000, 100_000, 1_000_000, () -> HOUR, () -> !queue.isEmpty());
        int producers = 4;
        int each = 20_000;
        AtomicInteger taken = new AtomicInteger();
        Thread consumer = new Thread(() -> {
            while (taken.get() < producers * each) {
                int n = 0;
                while (queue.poll() != null) {
                    n++;
                }
                taken.addAndGet(n);
                idle.idle(n);
            }
        }, "committer");
        consumer.setDaemon(true);
        consumer.start();
        Thread[] ps = new Thread[producers];
        for (int p = 0; p < producers; p++) {
            int base = p * each;
            ps[p] = new Thread(() -> {
                for (int i = 0; i < each; i++) {
                    queue.offer(base + i);
                    idle.wake();
                    if (i % 64 == 0) {
                        Thread.yield(); // let the consumer run dry and park between bursts
                    }
                }
            }, "submitter-" + p);
            ps[p].start();
        }
        for (Thread p : ps) {
            p.join();
        }
        // a lost wake-up leaves the consumer parked for an hour with work queued
        consumer.join(LIMIT.toMillis());
        assertThat(consumer.isAlive()).as("the consumer still waits with %d of %d taken", taken.get(), producers * each)
                .isFalse();
        assertThat(taken).hasValue(producers * each);
    }
}
