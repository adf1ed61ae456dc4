package io.palisade.it.crash;

import io.palisade.heads.PhaseCrashPoints;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The crash matrix of issue 6 (docs/crash-points.md): every named crash point × every logical operation
 * that reaches it, in a child JVM halted at the point, each followed by recovery in this JVM and the
 * invariant checks of {@link CrashHarness#verify}. One graph carries the whole matrix, trial after trial.
 */
class CrashMatrixTest {
    static final List<String> WRITE_POINTS = List.of("after-intent", "after-substrate-commit", "before-publish",
            "after-publish");
    static final List<String> RECOVERY_POINTS = List.of(PhaseCrashPoints.RECOVERY_AFTER_STARTED,
            PhaseCrashPoints.RECOVERY_AFTER_CLASSIFY, PhaseCrashPoints.RECOVERY_AFTER_FINISHED);
    /** Logical operations that write a table (each goes through phases A–D). */
    enum WriteOp { INSERT, UPSERT, DELETE, APPEND, BRANCH_WRITE }

    @TempDir
    Path dir;

    @org.junit.jupiter.api.AfterEach
    void closeHarnesses() {
        CrashHarness.closeAll();
    }

    static final List<String> CELLS = new ArrayList<>();

    @AfterAll
    static void printCounts() {
        System.out.println("[crash-matrix] cells=" + CELLS.size() + " " + CrashHarness.summary());
    }

    private static List<Plan.Op> plan(CrashHarness h, WriteOp op) {
        Model m = h.model().copy();
        return switch (op) {
            case INSERT -> List.of(h.op(Plan.Kind.INSERT, m));
            case UPSERT -> List.of(h.op(Plan.Kind.UPSERT, m));
            case DELETE -> List.of(h.op(Plan.Kind.DELETE, m));
            case APPEND -> List.of(h.op(Plan.Kind.APPEND, m));
            case BRANCH_WRITE -> {
                Plan.Op b = h.op(Plan.Kind.BRANCH, m);
                m.apply(b);
                yield List.of(b, h.branchWrite(b.branch(), m));
            }
        };
    }

    private static void cell(CrashHarness h, String label, List<Plan.Op> plan, String point, int checkpointEvery)
            throws Exception {
        CrashHarness.Segment s = h.runChild(plan, new CrashHarness.AtPoint(point), false, checkpointEvery);
        assertThat(s.acked().size()).as("a halted write is never acknowledged: %s", label)
                .isLessThan(plan.size());
        h.verify(label, false, List.of(s));
        CELLS.add(label);
    }

    /**
     * Every write-path point × every write op. The cells that leave work for recovery (after-intent,
     * after-substrate-commit, before-publish) then start a second child that halts inside that recovery, at
     * a recovery point chosen so that every (recovery point × op) and every (recovery point × decision)
     * pair occurs: a Latin square over (write point, op) → recovery point. The parent's open then recovers.
     */
    @Test
    void everyWritePathAndRecoveryCrashPointTimesEveryWriteOperationRecovers() throws Exception {
        List<String> leavesWork = List.of("after-intent", "after-substrate-commit", "before-publish");
        for (WriteOp op : WriteOp.values()) {
            CrashHarness h = CrashHarness.open(dir.resolve(op.name()), 6001 + op.ordinal()); // a graph per op
            List<String> points = new ArrayList<>(WRITE_POINTS);
            if (op == WriteOp.BRANCH_WRITE) {
                points.add(1, "after-fork");
            }
            for (String point : points) {
                List<Plan.Op> plan = plan(h, op);
                CrashHarness.Segment s1 = h.runChild(plan, new CrashHarness.AtPoint(point), false, 2);
                assertThat(s1.acked().size()).as("a halted write is never acknowledged").isLessThan(plan.size());
                int w = leavesWork.indexOf(point);
                if (w < 0) {
                    h.verify(op + " x " + point, false, List.of(s1));
                    CELLS.add(op + " x " + point);
                    continue;
                }
                String rp = RECOVERY_POINTS.get((w + op.ordinal()) % RECOVERY_POINTS.size());
                CrashHarness.Segment s2 = h.runChild(List.of(), new CrashHarness.AtPoint(rp), false, 2);
                String label = op + " x " + point + " then RECOVERY x " + rp;
                h.verify(label, false, List.of(s1, s2));
                CELLS.add(op + " x " + point);
                CELLS.add("RECOVERY(" + op + ") x " + rp);
            }
        }
        assertThat(CELLS).contains("BRANCH_WRITE x after-fork", "DELETE x before-publish");
        for (String rp : RECOVERY_POINTS) {
            for (WriteOp op : WriteOp.values()) {
                assertThat(CELLS).contains("RECOVERY(" + op + ") x " + rp);
            }
        }
    }

    @Test
    void everyCheckpointCrashPointTimesEveryOperationRecovers() throws Exception {
        for (String point : List.of(PhaseCrashPoints.CHECKPOINT_AFTER_TEMP, PhaseCrashPoints.CHECKPOINT_AFTER_RENAME)) {
            CrashHarness h = CrashHarness.open(dir.resolve(point), 6002 + point.length());
            for (WriteOp op : WriteOp.values()) {
                // checkpointEvery=1: a checkpoint follows every journal batch; :1 is the one after the first
                // batch (Phase A, or the branch creation), :2 the next (Phase C/D, or the branch write's Phase A).
                // Each op gets :1 at one point and :2 at the other.
                int nth = 1 + (op.ordinal() + (point.equals(PhaseCrashPoints.CHECKPOINT_AFTER_TEMP) ? 0 : 1)) % 2;
                cell(h, op + " x " + point + ":" + nth, plan(h, op), point + ":" + nth, 1);
            }
            Plan.Op create = h.op(Plan.Kind.BRANCH, h.model().copy());
            cell(h, "BRANCH_CREATE x " + point, List.of(create), point + ":1", 1);
        }
    }

}
