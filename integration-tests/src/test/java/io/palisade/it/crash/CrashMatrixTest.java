package io.palisade.it.crash;

import io.palisade.heads.PhaseCrashPoints;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The crash matrix (docs/crash-points.md): every named crash point × every logical operation
 * that reaches it, in a child JVM halted at the point, each followed by recovery in this JVM and the
 * invariant checks of {@link CrashHarness#verify}. One graph carries the whole matrix, trial after trial.
 */
class CrashMatrixTest {
    static final List<String> WRITE_POINTS = List.of("after-intent", "after-substrate-commit", "before-publish",
            "after-publish");
    static final List<String> RECOVERY_POINTS = List.of(PhaseCrashPoints.RECOVERY_AFTER_STARTED,
            PhaseCrashPoints.RECOVERY_AFTER_CLASSIFY, PhaseCrashPoints.RECOVERY_AFTER_FINISHED);
    static final List<String> CHECKPOINT_POINTS = List.of(PhaseCrashPoints.CHECKPOINT_AFTER_TEMP,
            PhaseCrashPoints.CHECKPOINT_AFTER_RENAME);
    /** The write-path points that leave an open intent for recovery to decide. */
    static final List<String> LEAVES_WORK = List.of("after-intent", "after-substrate-commit", "before-publish");
    /** The bulk load's points that leave an open load for recovery to roll back (one per recovery point). */
    static final List<String> LOAD_LEAVES_WORK = List.of("load-after-intent", "load-after-batch", "load-after-progress");
    /**
     * Logical operations that write a table (each goes through phases A–D, a merge once per part; the
     * bulk load has points of its own, {@code load-*}). Branch create writes no table and reaches no
     * write-path point: it has checkpoint cells only.
     */
    enum WriteOp { INSERT, UPSERT, DELETE, APPEND, BRANCH_WRITE, OVERWRITE, ADD_COLUMNS, BRANCH_MERGE, BULK_LOAD }

    /**
     * One cell's crash: the point, the hit that halts ({@code nth}; a merge hits the write-path points
     * once per part: insert, upsert, delete), and whether the op targets a graph branch that owns no
     * table yet (its first write forks: the only way to reach {@code after-fork}).
     */
    record Cell(String point, int nth, boolean freshBranch) {
        /** The bulk load's restore point is reached by a strict load that fails (and restores) in its second batch. */
        boolean failingLoad() {
            return point.equals("load-after-restore");
        }

        String crashAt() {
            return nth == 1 ? point : point + ":" + nth;
        }
    }

    @TempDir
    Path dir;

    @org.junit.jupiter.api.AfterEach
    void closeHarnesses() {
        CrashHarness.closeAll();
    }

    static final List<String> CELLS = new ArrayList<>();
    private static CrashSummary.Snapshot start;

    @BeforeAll
    static void countFromHere() {
        start = CrashSummary.take();
    }

    @AfterAll
    static void printCounts() {
        CrashSummary.report("CrashMatrixTest", start, "cells=" + CELLS.size());
    }

    /** The write-path cells of {@code op}: every point it reaches. */
    static List<Cell> cells(WriteOp op) {
        return switch (op) {
            case INSERT, UPSERT, DELETE, APPEND, ADD_COLUMNS -> WRITE_POINTS.stream().map(p -> new Cell(p, 1, false)).toList();
            case BRANCH_WRITE -> List.of(new Cell("after-intent", 1, true), new Cell("after-fork", 1, true),
                    new Cell("after-substrate-commit", 1, true), new Cell("before-publish", 1, true),
                    new Cell("after-publish", 1, true));
            case OVERWRITE -> List.of(new Cell("after-intent", 1, false), new Cell("after-fork", 1, true),
                    new Cell("after-substrate-commit", 1, false), new Cell("before-publish", 1, false),
                    new Cell("after-publish", 1, false));
            // the parts are insert (:1), upsert (:2), delete (:3): halting in the first, second and third
            // part, and after the first part's publish, leaves every prefix of the merge to recovery
            case BRANCH_MERGE -> List.of(new Cell("after-intent", 1, false), new Cell("after-fork", 1, true),
                    new Cell("after-substrate-commit", 2, false), new Cell("before-publish", 3, false),
                    new Cell("after-publish", 1, false));
            // three batches (upsert mode); :2 of load-after-batch halts with one batch journaled and the
            // second committed but not journaled
            case BULK_LOAD -> List.of(new Cell("load-after-intent", 1, false), new Cell("load-after-fork", 1, true),
                    new Cell("load-after-batch", 2, false), new Cell("load-after-progress", 1, false),
                    new Cell("load-after-index", 1, false),
                    new Cell("load-before-publish", 1, false), new Cell("load-after-publish", 1, false),
                    new Cell("load-after-restore", 1, false));
        };
    }

    /**
     * The recovery point at which the second child of a write-path cell halts (null when the point leaves
     * nothing to recover): a Latin square over (write point, op), so that every recovery point meets every
     * op and every decision (after-intent → ABORTED, the other two → ROLLED_FORWARD).
     */
    static String recoveryPointFor(WriteOp op, String writePoint) {
        int w = op == WriteOp.BULK_LOAD ? LOAD_LEAVES_WORK.indexOf(writePoint) : LEAVES_WORK.indexOf(writePoint);
        return w < 0 ? null : RECOVERY_POINTS.get((w + op.ordinal()) % RECOVERY_POINTS.size());
    }

    /**
     * With a checkpoint after every journal batch, which checkpoint of the op's trial halts: :1 is the one
     * after the first batch (Phase A, or a branch creation), :2 the next (Phase C/D, or the branch write's
     * Phase A). Each op gets :1 at one checkpoint point and :2 at the other.
     */
    static int checkpointNth(WriteOp op, String point) {
        return 1 + (op.ordinal() + (point.equals(PhaseCrashPoints.CHECKPOINT_AFTER_TEMP) ? 0 : 1)) % 2;
    }

    /** The labels of every write-path and recovery cell, as the write-path test records them. */
    static List<String> writePathCells() {
        List<String> out = new ArrayList<>();
        for (WriteOp op : WriteOp.values()) {
            for (Cell cell : cells(op)) {
                out.addAll(labels(op, cell));
            }
        }
        return out;
    }

    /** The labels one write-path cell records: {@code OP x point[:n]}, then its recovery cell if it leaves work. */
    static List<String> labels(WriteOp op, Cell cell) {
        String rp = recoveryPointFor(op, cell.point());
        return rp == null ? List.of(op + " x " + cell.crashAt())
                : List.of(op + " x " + cell.crashAt(), "RECOVERY(" + op + ") x " + rp);
    }

    /**
     * Runs one write-path cell of {@code op} on {@code h}: a child halted at the cell's point (exit status asserted),
     * then, when the point leaves work ({@link #recoveryPointFor}), a second child halted inside its recovery; then
     * {@link CrashHarness#verify} (whose open recovers). Returns the labels it ran ({@link #labels}).
     */
    static List<String> runWritePathCell(CrashHarness h, WriteOp op, Cell cell) throws Exception {
        List<Plan.Op> plan = plan(h, op, cell);
        CrashHarness.Segment s1 = h.runChild(plan, new CrashHarness.AtPoint(cell.crashAt()), false, 2);
        assertThat(s1.acked().size()).as("a halted write is never acknowledged").isLessThan(plan.size());
        String name = op + " x " + cell.crashAt();
        String rp = recoveryPointFor(op, cell.point());
        if (rp == null) {
            h.verify(name, false, List.of(s1));
        } else {
            CrashHarness.Segment s2 = h.runChild(List.of(), new CrashHarness.AtPoint(rp), false, 2);
            h.verify(name + " then RECOVERY x " + rp, false, List.of(s1, s2));
        }
        return labels(op, cell);
    }

    /** The labels of every checkpoint cell, as the checkpoint test records them. */
    static List<String> checkpointCells() {
        List<String> out = new ArrayList<>();
        for (String point : CHECKPOINT_POINTS) {
            for (WriteOp op : WriteOp.values()) {
                out.add(op + " x " + point + ":" + checkpointNth(op, point));
            }
            out.add("BRANCH_CREATE x " + point);
        }
        return out;
    }

    /**
     * docs/crash-points.md names every cell of the matrix (cheap: no child JVM). The heavy tests below
     * assert that they ran exactly these cells.
     */
    @Test
    void theDocumentListsEveryCell() throws Exception {
        String doc = java.nio.file.Files.readString(Path.of("..", "docs", "crash-points.md"));
        List<String> missing = new ArrayList<>();
        for (String label : concat(writePathCells(), checkpointCells())) {
            if (!doc.contains("`" + label + "`")) {
                missing.add(label);
            }
        }
        assertThat(missing).as("cells not listed in docs/crash-points.md").isEmpty();
        List<String> loadPoints = cells(WriteOp.BULK_LOAD).stream().map(Cell::point).toList();
        for (String point : concat(concat(concat(WRITE_POINTS, List.of("after-fork")), loadPoints),
                concat(CHECKPOINT_POINTS, RECOVERY_POINTS))) {
            assertThat(doc).as("point %s listed", point).contains("| `" + point + "` |");
        }
    }

    private static List<String> concat(List<String> a, List<String> b) {
        List<String> out = new ArrayList<>(a);
        out.addAll(b);
        return out;
    }

    /**
     * The child's plan for one trial of {@code op}. A merge's setup (its source branch, an upsert of one
     * new and one existing key and a delete of another existing key there, so that the merge has all three
     * parts; with {@code freshBranch}, the target branch) runs in this JVM first, so the child's plan is
     * the merge alone and its nth hit of a point is in its nth part.
     */
    static List<Plan.Op> plan(CrashHarness h, WriteOp op, Cell cell) {
        boolean freshBranch = cell.freshBranch();
        Model m = h.model().copy();
        return switch (op) {
            case INSERT -> List.of(h.op(Plan.Kind.INSERT, m));
            case UPSERT -> List.of(h.op(Plan.Kind.UPSERT, m));
            case DELETE -> List.of(h.op(Plan.Kind.DELETE, m));
            case APPEND -> List.of(h.op(Plan.Kind.APPEND, m));
            case ADD_COLUMNS -> List.of(h.op(Plan.Kind.ADD_COLUMNS, m));
            case BRANCH_WRITE -> {
                Plan.Op b = h.op(Plan.Kind.BRANCH, m);
                m.apply(b);
                yield List.of(b, h.branchWrite(b.branch(), m));
            }
            case OVERWRITE -> {
                if (!freshBranch) {
                    yield List.of(h.op(Plan.Kind.OVERWRITE, m));
                }
                Plan.Op b = h.op(Plan.Kind.BRANCH, m);
                m.apply(b);
                yield List.of(b, h.overwrite(b.branch(), m));
            }
            case BRANCH_MERGE -> {
                List<Plan.Op> setup = new ArrayList<>();
                Plan.Op b = h.op(Plan.Kind.BRANCH, m);
                setup.add(b);
                m.apply(b);
                Plan.Op w = h.branchWrite(b.branch(), m);
                setup.add(w);
                m.apply(w);
                Model withoutUpserted = m.copy();
                w.rows().keySet().forEach(withoutUpserted.people.get(b.branch())::remove);
                Plan.Op d = h.branchDelete(b.branch(), withoutUpserted, 1);
                setup.add(d);
                String target = "main";
                if (freshBranch) {
                    Plan.Op t = h.op(Plan.Kind.BRANCH, m);
                    setup.add(t);
                    target = t.branch();
                }
                h.applyNow(setup);
                Plan.Op merge = CrashHarness.merge(b.branch(), target);
                assertThat(h.model().outcomes(merge)).as("the merge has an insert, an upsert and a delete part: %s",
                        setup).hasSize(4);
                yield List.of(merge);
            }
            case BULK_LOAD -> {
                if (cell.failingLoad()) {
                    yield List.of(h.failingStrictLoad("main", m));
                }
                if (!freshBranch) {
                    yield List.of(h.load("main", m));
                }
                Plan.Op b = h.op(Plan.Kind.BRANCH, m);
                m.apply(b);
                yield List.of(b, h.load(b.branch(), m));
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
     * Every write-path point × every write op that reaches it ({@link #cells}). The cells that leave work
     * for recovery (after-intent, after-substrate-commit, before-publish) then start a second child that
     * halts inside that recovery, at a recovery point chosen so that every (recovery point × op) and every
     * (recovery point × decision) pair occurs: a Latin square over (write point, op) → recovery point. The
     * parent's open then recovers.
     */
    @Test
    void everyWritePathAndRecoveryCrashPointTimesEveryWriteOperationRecovers() throws Exception {
        for (WriteOp op : WriteOp.values()) {
            CrashHarness h = CrashHarness.open(dir.resolve(op.name()), 6001 + op.ordinal()); // a graph per op
            for (Cell cell : cells(op)) {
                CELLS.addAll(runWritePathCell(h, op, cell));
            }
        }
        assertThat(CELLS).containsAll(writePathCells());
        assertThat(CELLS).contains("BRANCH_WRITE x after-fork", "DELETE x before-publish", "OVERWRITE x after-fork",
                "ADD_COLUMNS x after-substrate-commit", "BRANCH_MERGE x after-fork", "BRANCH_MERGE x before-publish:3");
        for (String rp : RECOVERY_POINTS) {
            for (WriteOp op : WriteOp.values()) {
                assertThat(CELLS).contains("RECOVERY(" + op + ") x " + rp);
            }
        }
    }

    @Test
    void everyCheckpointCrashPointTimesEveryOperationRecovers() throws Exception {
        for (String point : CHECKPOINT_POINTS) {
            CrashHarness h = CrashHarness.open(dir.resolve(point), 6002 + point.length());
            for (WriteOp op : WriteOp.values()) {
                int nth = checkpointNth(op, point); // checkpointEvery=1: a checkpoint follows every journal batch
                cell(h, op + " x " + point + ":" + nth, plan(h, op, new Cell(point, nth, false)), point + ":" + nth, 1);
            }
            Plan.Op create = h.op(Plan.Kind.BRANCH, h.model().copy());
            cell(h, "BRANCH_CREATE x " + point, List.of(create), point + ":1", 1);
        }
        assertThat(CELLS).containsAll(checkpointCells());
    }

}
