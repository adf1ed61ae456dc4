package io.palisade.it.crash;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * POWER_LOSS durability under the power-cut model of {@link PowerLoss} (docs/crash-points.md): the child
 * copies the whole graph directory at every sync point it reaches and the power fails at a chosen sync
 * point ({@link PowerCut}: a named point's nth hit, or the kth sync point of any kind) before that
 * point's copy exists; the graph is then replaced by the newest complete copy — everything done since
 * the previous sync point (journal records, Lance versions, checkpoints, catalog) is lost — and the same
 * invariants are checked. No clock decides anything: every cut is a sync point, chosen by name or number.
 */
class PowerLossTest {
    @TempDir
    Path dir;

    @org.junit.jupiter.api.AfterEach
    void closeHarnesses() {
        CrashHarness.closeAll();
    }

    private static CrashSummary.Snapshot start;
    private static long[] countsAtStart;
    private static Map<String, Long> cutAtAtStart;

    @BeforeAll
    static void countFromHere() {
        start = CrashSummary.take();
        countsAtStart = counts();
        cutAtAtStart = cutAt();
    }

    /** cuts, cuts dropping journal records, records dropped, cuts dropping table versions, versions dropped, cuts dropping either. */
    private static long[] counts() {
        return new long[] {CrashHarness.POWER_CUTS.get(), CrashHarness.POWER_CUTS_DROPPING.get(),
                CrashHarness.POWER_RECORDS_DROPPED.get(), CrashHarness.POWER_CUTS_DROPPING_VERSIONS.get(),
                CrashHarness.POWER_VERSIONS_DROPPED.get(), CrashHarness.POWER_CUTS_DROPPING_ANYTHING.get()};
    }

    private static Map<String, Long> cutAt() {
        Map<String, Long> m = new TreeMap<>();
        CrashHarness.POWER_CUT_AT.forEach((k, v) -> m.put(k, v.get()));
        return m;
    }

    private static long[] since(long[] from) {
        long[] now = counts();
        for (int i = 0; i < now.length; i++) {
            now[i] -= from[i];
        }
        return now;
    }

    @AfterAll
    static void printCounts() {
        long[] d = since(countsAtStart);
        Map<String, Long> at = new TreeMap<>();
        cutAt().forEach((k, v) -> {
            long n = v - cutAtAtStart.getOrDefault(k, 0L);
            if (n > 0) {
                at.put(k, n);
            }
        });
        CrashSummary.report("PowerLossTest", start, "power-cuts=" + d[0] + " cuts-that-dropped-journal-records=" + d[1]
                + " (records dropped: " + d[2] + ") cuts-that-dropped-table-versions=" + d[3] + " (versions dropped: "
                + d[4] + ") cuts-that-dropped-nothing=" + (d[0] - d[5]) + " cut-at=" + at);
    }

    /** What a named-point cut must lose: the step between the previous sync point and this one. */
    private enum Loses { JOURNAL_RECORDS, TABLE_VERSIONS, NOTHING_REQUIRED }

    /**
     * Every write-path, bulk-load, checkpoint and recovery sync point, and the return of a branch creation
     * (a journal sync no named point follows): the cut lands at the point, so the restore goes back to
     * the sync point before it, and each cell asserts that the cut lost what that step wrote.
     */
    @Test
    void powerCutAtEveryWritePathPointKeepsEveryInvariant() throws Exception {
        CrashHarness h = CrashHarness.open(dir, 6007);
        int cells = 0;
        // write path (no checkpoints in these children: the previous sync point is the previous step's)
        cells += cell(h, List.of(Plan.Kind.INSERT), "after-intent", 100, Loses.JOURNAL_RECORDS);
        cells += cell(h, List.of(Plan.Kind.BRANCH, Plan.Kind.UPSERT), "after-fork", 100, Loses.TABLE_VERSIONS);
        cells += cell(h, List.of(Plan.Kind.DELETE), "after-substrate-commit", 100, Loses.TABLE_VERSIONS);
        cells += cell(h, List.of(Plan.Kind.APPEND), "before-publish", 100, Loses.NOTHING_REQUIRED);
        cells += cell(h, List.of(Plan.Kind.ADD_COLUMNS), "before-publish", 100, Loses.NOTHING_REQUIRED); // the catalog rewrite
        cells += cell(h, List.of(Plan.Kind.UPSERT), "after-publish", 100, Loses.JOURNAL_RECORDS);
        cells += cell(h, List.of(Plan.Kind.OVERWRITE), "after-substrate-commit", 100, Loses.TABLE_VERSIONS);
        cells += cell(h, List.of(Plan.Kind.BRANCH), "returned", 100, Loses.JOURNAL_RECORDS);
        // checkpoints: a checkpoint after every batch
        cells += cell(h, List.of(Plan.Kind.UPSERT), "checkpoint-after-temp:2", 1, Loses.NOTHING_REQUIRED);
        cells += cell(h, List.of(Plan.Kind.APPEND), "checkpoint-after-rename:2", 1, Loses.NOTHING_REQUIRED);
        // a bulk load commits several Lance versions: three batches, each extending the id index
        cells += cell(h, List.of(Plan.Kind.LOAD), "load-after-intent", 100, Loses.JOURNAL_RECORDS);
        cells += cell(h, List.of(Plan.Kind.LOAD), "load-after-batch:2", 100, Loses.TABLE_VERSIONS);
        cells += cell(h, List.of(Plan.Kind.LOAD), "load-after-progress:2", 100, Loses.JOURNAL_RECORDS);
        cells += cell(h, List.of(Plan.Kind.LOAD), "load-after-index:2", 100, Loses.TABLE_VERSIONS);
        cells += cell(h, List.of(Plan.Kind.LOAD), "load-before-publish", 100, Loses.JOURNAL_RECORDS); // the last index's progress
        cells += cell(h, List.of(Plan.Kind.LOAD), "load-after-publish", 100, Loses.JOURNAL_RECORDS);
        // recovery: a write cut after its Lance commit leaves work; the recovering child is then cut too
        cells += recoveryCell(h, Plan.Kind.INSERT, "after-publish", "recovery-after-classify");
        cells += recoveryCell(h, Plan.Kind.LOAD, "load-after-progress:2", "recovery-after-finished");
        assertThat(cells).isEqualTo(18);
    }

    /** One child of {@code kinds} (built against the model in order) cut at {@code point}; verified. */
    private static int cell(CrashHarness h, List<Plan.Kind> kinds, String point, int checkpointEvery, Loses loses)
            throws Exception {
        List<Plan.Op> plan = plan(h, kinds);
        String label = "POWER " + kinds + " x " + point;
        CrashHarness.Segment s = h.runChild(plan, new CrashHarness.Power(PowerCut.atPoint(point)), true, checkpointEvery);
        expect(h, label, point, loses);
        h.verify(label, true, List.of(s));
        return 1;
    }

    /**
     * A write cut at {@code writePoint} (its restore leaves an open intent: the publish, or the load's last
     * progress, is lost), then a second child — an empty plan: it only opens, so recovery runs — cut at
     * {@code recoveryPoint}, which loses recovery's last journal batch; one verification of both.
     */
    private static int recoveryCell(CrashHarness h, Plan.Kind kind, String writePoint, String recoveryPoint) throws Exception {
        List<Plan.Op> plan = plan(h, List.of(kind));
        String label = "POWER " + kind + " x " + writePoint + " then RECOVERY x " + recoveryPoint;
        CrashHarness.Segment first = h.runChild(plan, new CrashHarness.Power(PowerCut.atPoint(writePoint)), true, 100);
        expect(h, label, writePoint, Loses.JOURNAL_RECORDS);
        CrashHarness.Segment second = h.runChild(List.of(), new CrashHarness.Power(PowerCut.atPoint(recoveryPoint)), true, 100);
        expect(h, label, recoveryPoint, Loses.JOURNAL_RECORDS);
        h.verify(label, true, List.of(first, second));
        return 1;
    }

    private static List<Plan.Op> plan(CrashHarness h, List<Plan.Kind> kinds) {
        Model m = h.model().copy();
        List<Plan.Op> plan = new ArrayList<>();
        for (Plan.Kind k : kinds) {
            Plan.Op op = k == Plan.Kind.UPSERT && !plan.isEmpty() && plan.get(plan.size() - 1).kind() == Plan.Kind.BRANCH
                    ? h.branchWrite(plan.get(plan.size() - 1).branch(), m) : h.op(k, m);
            m.apply(op);
            plan.add(op);
        }
        return plan;
    }

    private static void expect(CrashHarness h, String label, String point, Loses loses) {
        CrashHarness.CutOutcome cut = h.lastCut();
        String name = point.contains(":") ? point.substring(0, point.lastIndexOf(':')) : point;
        assertThat(cut.point()).as("%s: where the power failed", label).isEqualTo(name);
        switch (loses) {
            case JOURNAL_RECORDS -> assertThat(cut.journalRecords()).as("%s: journal records the cut lost", label).isPositive();
            case TABLE_VERSIONS -> assertThat(cut.tableVersions()).as("%s: table versions the cut lost", label).isPositive();
            case NOTHING_REQUIRED -> {
            }
        }
    }

    /**
     * The random trials of {@link RandomKillTest} with a power cut at a random sync point of each child
     * instead of a timed SIGKILL ({@code -Dpalisade.crash.power.random=N} cuts, default 5).
     */
    @Test
    void powerCutAtRandomMomentsKeepsEveryInvariant() throws Exception {
        int kills = Integer.getInteger("palisade.crash.power.random", 5);
        long[] before = counts();
        RandomKillTest.run(dir, Long.getLong("palisade.crash.seed", 6008L), kills, true);
        long[] d = since(before);
        assertThat(d[0]).as("power cuts").isEqualTo(kills);
        if (kills >= 5) {
            assertThat(d[5]).as("cuts that lost journal records or table versions (else the run tested nothing)")
                    .isPositive();
        }
    }
}
