package io.palisade.heads;

import io.palisade.journal.IntentOutcome;
import io.palisade.journal.JournalEvent;
import io.palisade.journal.LogicalOperation;

/**
 * The journal-ack steps of {@link HeadsReducer}: how writes acknowledged from the journal ({@code JOURNALED}) raise a
 * table's {@link FoldMark}, and how a fold (planned, then completed) lowers it. Owns the fold marks, the open fold
 * plans and the writes acknowledged after each plan of a {@link HeadsDraft}.
 *
 * <p>Invariants: at most one fold plan is open per (branch, table); a plan covers exactly the table's unfolded writes
 * when it is planned; an applied fold leaves unfolded exactly the writes acknowledged after its plan, above the plan's
 * watermark.
 */
final class FoldMarkSteps {
    private FoldMarkSteps() {
    }

    /** A fold's plan: follows its own open FOLD intent, and covers exactly the table's unfolded writes. */
    static void foldPlanned(HeadsDraft d, JournalEvent.FoldPlanned e) {
        OpenIntent o = d.open.get(e.intentId());
        if (o == null || o.recorded().operation() != LogicalOperation.FOLD
                || !o.graphBranch().equals(e.graphBranch()) || !o.table().equals(e.table())
                || o.phase() != IntentPhase.RECORDED || d.foldPlans.containsKey(e.intentId())) {
            throw d.fail(e.graphBranch(), e.table(), "fold plan of intent " + e.intentId()
                    + ", which is not an open fold intent of this table in phase A");
        }
        if (openPlan(d, e.graphBranch(), e.table()) != null) {
            throw d.fail(e.graphBranch(), e.table(), "fold plan of intent " + e.intentId() + " while the fold "
                    + openPlan(d, e.graphBranch(), e.table()).intentId() + " of the table is open");
        }
        FoldMark m = mark(d, e.graphBranch(), e.table());
        if (m.unfolded() != e.writes() || m.newestSequence() != e.throughSequence()) {
            throw d.fail(e.graphBranch(), e.table(), "fold " + e.intentId() + " covers " + e.writes()
                    + " writes through sequence " + e.throughSequence() + ", but the table has " + m.unfolded()
                    + " unfolded writes through " + m.newestSequence());
        }
        d.foldPlans = d.foldPlans.put(e.intentId(), e);
    }

    /**
     * The fold marks' part of an intent's completion ({@link IntentSteps#intentCompleted}, after its checks, while
     * {@code o} is still open): a fold intent's plan closes, and when the fold was applied its table's mark moves to
     * the plan's watermark; a {@code JOURNALED} write counts as unfolded on its table, and apart for the table's open
     * fold plan, if any.
     */
    static void intentCompleted(HeadsDraft d, OpenIntent o, IntentOutcome outcome, boolean applied, long nanos) {
        JournalEvent.FoldPlanned plan = d.foldPlans.get(o.intentId());
        if (plan != null) {
            d.foldPlans = d.foldPlans.remove(o.intentId());
            FoldMark later = d.foldLater.get(o.intentId());
            d.foldLater = d.foldLater.remove(o.intentId());
            if (applied) {
                // the writes acknowledged after the plan stay unfolded, above the fold's watermark
                FoldMark m = mark(d, o.graphBranch(), o.table());
                long newest = later == null ? plan.throughSequence() : later.newestSequence();
                if (m.newestSequence() != newest
                        || m.unfolded() != plan.writes() + (later == null ? 0 : later.unfolded())) {
                    throw d.fail(o.graphBranch(), o.table(), "fold " + o.intentId() + " completed " + outcome
                            + " through sequence " + plan.throughSequence() + " (" + plan.writes()
                            + " writes), but the table has " + m.unfolded() + " unfolded writes through "
                            + m.newestSequence());
                }
                putMark(d, o.graphBranch(), o.table(), later == null ? m.folded(plan.throughSequence()) : later);
            }
        }
        if (outcome == IntentOutcome.JOURNALED) {
            putMark(d, o.graphBranch(), o.table(),
                    mark(d, o.graphBranch(), o.table()).acknowledged(o.recordedAt(), d.seq, nanos));
            JournalEvent.FoldPlanned folding = openPlan(d, o.graphBranch(), o.table());
            if (folding != null) {
                FoldMark later = d.foldLater.get(folding.intentId());
                d.foldLater = d.foldLater.put(folding.intentId(), (later == null
                        ? FoldMark.NONE.folded(folding.throughSequence()) : later).acknowledged(o.recordedAt(), d.seq,
                        nanos));
            }
        }
    }

    /** The open fold plan of (branch, table), null when none (at most one is open per table). */
    private static JournalEvent.FoldPlanned openPlan(HeadsDraft d, String branch, String table) {
        JournalEvent.FoldPlanned[] found = {null};
        d.foldPlans.forEach((id, p) -> {
            if (p.graphBranch().equals(branch) && p.table().equals(table)) {
                found[0] = p;
            }
        });
        return found[0];
    }

    private static FoldMark mark(HeadsDraft d, String branch, String table) {
        PMap<String, FoldMark> m = d.folds.get(branch);
        FoldMark f = m == null ? null : m.get(table);
        return f == null ? FoldMark.NONE : f;
    }

    private static void putMark(HeadsDraft d, String branch, String table, FoldMark f) {
        PMap<String, FoldMark> m = d.folds.get(branch);
        d.folds = d.folds.put(branch, (m == null ? PMap.<String, FoldMark>empty() : m).put(table, f));
    }
}
