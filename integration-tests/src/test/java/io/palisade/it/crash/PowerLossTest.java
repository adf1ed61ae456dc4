package io.palisade.it.crash;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * POWER_LOSS durability under the power-cut model of {@link PowerLoss} (docs/crash-points.md): the child
 * snapshots the journal at every sync point it can observe; after the kill the journal is cut back to the
 * newest snapshot (everything unsynced is lost), then the same invariants are checked.
 */
class PowerLossTest {
    @TempDir
    Path dir;

    @org.junit.jupiter.api.AfterEach
    void closeHarnesses() {
        CrashHarness.closeAll();
    }

    private static CrashSummary.Snapshot start;
    private static long cutsDroppingAtStart;
    private static long recordsDroppedAtStart;

    @BeforeAll
    static void countFromHere() {
        start = CrashSummary.take();
        cutsDroppingAtStart = CrashHarness.POWER_CUTS_DROPPING.get();
        recordsDroppedAtStart = CrashHarness.POWER_RECORDS_DROPPED.get();
    }

    @AfterAll
    static void printCounts() {
        CrashSummary.report("PowerLossTest", start, "power-cuts-that-dropped-journal-records="
                + (CrashHarness.POWER_CUTS_DROPPING.get() - cutsDroppingAtStart) + " (records dropped: "
                + (CrashHarness.POWER_RECORDS_DROPPED.get() - recordsDroppedAtStart) + ")");
    }

    @Test
    void powerCutAtEveryWritePathPointKeepsEveryInvariant() throws Exception {
        CrashHarness h = CrashHarness.open(dir, 6007);
        List<String> points = new ArrayList<>(CrashMatrixTest.WRITE_POINTS);
        points.add("checkpoint-after-temp:2");
        points.add("checkpoint-after-rename:2");
        Plan.Kind[] kinds = {Plan.Kind.INSERT, Plan.Kind.UPSERT, Plan.Kind.DELETE, Plan.Kind.APPEND};
        for (int i = 0; i < points.size(); i++) {
            String point = points.get(i);
            for (Plan.Kind kind : List.of(kinds[i % kinds.length])) {
                List<Plan.Op> plan = List.of(h.op(kind, h.model().copy()));
                CrashHarness.Segment s = h.runChild(plan, new CrashHarness.AtPoint(point), true, 1);
                h.verify("POWER " + kind + " x " + point, true, List.of(s));
            }
        }
    }

    @Test
    void powerCutAtRandomMomentsKeepsEveryInvariant() throws Exception {
        int kills = Integer.getInteger("palisade.crash.power.random", 10);
        RandomKillTest.run(dir, Long.getLong("palisade.crash.seed", 6008L), kills, true);
    }
}
