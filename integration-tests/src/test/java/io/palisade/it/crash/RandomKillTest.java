package io.palisade.it.crash;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * SIGKILL at random moments (issue 6): each trial starts the workload child on a small random plan and
 * kills it after a random delay — mostly counted from its OPENED line (lands in writes), sometimes from
 * its start (lands in JVM start, journal open or recovery). About a quarter of the trials kill two
 * children in a row before checking, so the second one's recovery can itself be killed.
 *
 * <p>Sizes: {@code -Dpalisade.crash.random=N} kills (CI default {@value #CI_KILLS}; the long mode is
 * {@code -Dpalisade.crash.random=10000}), {@code -Dpalisade.crash.seed=S} replays a run, and
 * {@code -Dpalisade.crash.power.random=N} sets the power-loss kills of {@link PowerLossTest}.
 */
class RandomKillTest {
    static final int CI_KILLS = 200;
    static final int TRIALS_PER_GRAPH = 8;

    @TempDir
    Path dir;

    @org.junit.jupiter.api.AfterEach
    void closeHarnesses() {
        CrashHarness.closeAll();
    }

    private static CrashSummary.Snapshot start;
    private static String run = "";

    @BeforeAll
    static void countFromHere() {
        start = CrashSummary.take();
    }

    @AfterAll
    static void printCounts() {
        CrashSummary.report("RandomKillTest", start, run);
    }

    /** Runs {@code kills} random kills on one graph; shared with the power-loss suite. */
    static int run(Path dir, long seed, int kills, boolean power) throws Exception {
        Random r = new Random(seed);
        CrashHarness h = null;
        int done = 0;
        int trial = 0;
        while (done < kills) {
            if (trial % TRIALS_PER_GRAPH == 0) {
                // every open scans every writer session's journal segment: a fresh graph now and then keeps
                // a trial's cost flat instead of growing with the run
                h = CrashHarness.open(dir.resolve("graph-" + trial), r.nextLong());
            }
            trial++;
            int children = r.nextInt(4) == 0 && kills - done >= 2 ? 2 : 1;
            List<CrashHarness.Segment> segments = new ArrayList<>();
            Model planned = h.model().copy();
            StringBuilder label = new StringBuilder("random trial " + trial + " seed " + seed + ":");
            for (int c = 0; c < children; c++) {
                List<Plan.Op> plan = h.randomPlan(2 + r.nextInt(3));
                boolean afterOpened = r.nextInt(5) != 0;
                long delay = afterOpened ? r.nextInt(400) : r.nextInt(3_000);
                int checkpointEvery = 1 + r.nextInt(6);
                label.append(" kill@").append(delay).append(afterOpened ? "ms-after-open" : "ms-after-start");
                segments.add(h.runChild(plan, new CrashHarness.RandomKill(delay, afterOpened), power, checkpointEvery));
                done++;
            }
            h.verify(label.toString(), power, segments);
        }
        return trial;
    }

    @Test
    void randomMomentKillsKeepEveryInvariant() throws Exception {
        int kills = Integer.getInteger("palisade.crash.random", CI_KILLS);
        long seed = Long.getLong("palisade.crash.seed", 6006L);
        int trials = run(dir, seed, kills, false);
        run = "seed=" + seed + " palisade.crash.random=" + kills;
        System.out.println("[crash-random] seed=" + seed + " kills=" + kills + " trials=" + trials);
        assertThat(CrashHarness.KILLS_MID_RUN.get()).as("some kills must land while the child runs").isPositive();
    }
}
