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
 * SIGKILL at random moments: each trial starts the workload child on a small random plan and
 * kills it after a random delay — mostly counted from its OPENED line (lands in writes), sometimes from
 * its start (lands in JVM start, journal open or recovery). About a quarter of the trials kill two
 * children in a row before checking, so the second one's recovery can itself be killed.
 *
 * <p>Sizes: {@code -Dpalisade.crash.random=N} kills (CI default {@value #CI_KILLS}; the long mode is
 * {@code -Dpalisade.crash.random=10000}), {@code -Dpalisade.crash.seed=S} replays a run, and
 * {@code -Dpalisade.crash.power.random=N} sets the random power cuts of {@link PowerLossTest}, which runs
 * the same trials with a power cut at a random sync point instead of a timed SIGKILL.
 */
class RandomKillTest {
    static final int CI_KILLS = 24;
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

    /**
     * Runs {@code kills} random kills on one graph; shared with the power-loss suite, whose children
     * ({@code power}) die by a power cut at a random sync point instead.
     */
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
                if (power) {
                    int checkpointEvery = 1 + r.nextInt(6);
                    // no clock: the cut is the kth sync point of the child, k uniform over about as many as it
                    // reaches (a k beyond its last one lets it end, and the cut comes after its close)
                    int k = 1 + r.nextInt(syncPointsEstimate(plan, checkpointEvery));
                    label.append(" cut@sync:").append(k);
                    segments.add(h.runChild(plan, new CrashHarness.Power(PowerCut.atSync(k)), true, checkpointEvery));
                } else {
                    boolean afterOpened = r.nextInt(5) != 0;
                    long delay = afterOpened ? r.nextInt(400) : r.nextInt(3_000);
                    int checkpointEvery = 1 + r.nextInt(6);
                    label.append(" kill@").append(delay).append(afterOpened ? "ms-after-open" : "ms-after-start");
                    segments.add(h.runChild(plan, new CrashHarness.RandomKill(delay, afterOpened), false, checkpointEvery));
                }
                done++;
            }
            h.verify(label.toString(), power, segments);
        }
        return trial;
    }

    /**
     * About how many sync points a power-mode child of {@code plan} reaches (CrashWorkload): the open and
     * the close, each write's named points and return, a merge's parts, a load's batches, and two
     * checkpoint points per checkpoint. Only the spread of the cuts depends on it, never a verdict.
     */
    static int syncPointsEstimate(List<Plan.Op> plan, int checkpointEvery) {
        int points = 2;
        int records = 0;
        for (Plan.Op op : plan) {
            switch (op.kind()) {
                case BRANCH -> {
                    points += 1;
                    records += 1;
                }
                case MERGE -> {
                    points += 13;
                    records += 12;
                }
                case LOAD, LOAD_STRICT -> {
                    points += 17;
                    records += 9;
                }
                case NOTE_INSERT, NOTE_UPSERT, NOTE_DELETE -> {
                    // after-journal-ack and the return; every FOLD_EVERY-th write a fold's five points
                    points += 2 + 5 / CrashWorkload.FOLD_EVERY;
                    records += 1 + 4 / CrashWorkload.FOLD_EVERY;
                }
                default -> {
                    points += 5;
                    records += 4;
                }
            }
        }
        return points + 2 * (records / checkpointEvery);
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
