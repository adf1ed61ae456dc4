package io.palisade.coordinator.internal;

import io.palisade.coordinator.Catalog;
import io.palisade.coordinator.Options;
import io.palisade.coordinator.Receipt;

import io.palisade.journal.JournalEvent;
import io.palisade.journal.TableHead;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * The end of a group's run (DESIGN §3 steps 5–6): journals what its substrate commit came to (for a commit to
 * publish, Phases C and D through {@link JournalPhases}), then answers every writer: a {@link Receipt} per committed
 * op, carrying the sequence of its durable completion, and each loser's failure. It keeps the write and maintenance
 * metrics, schedules the automatic index refresh ({@link Options#indexRefreshEvery()}) and hands every published
 * commit to {@link AutoMaintenance} (compaction and version retention).
 *
 * <p>Invariants: committer thread only. No future is completed before the records that explain its outcome are
 * durable, except an unknown outcome's (failed first, as nothing durable explains it) — receipts only after the
 * Phase C/D append, so a receipt never names an unjournaled completion. It writes no table and decides no outcome:
 * it acts on the {@link SubstrateCommit.Result} it is given, and fails each loser with the failure the result names.
 * A refresh it schedules is handed to {@code ahead}, which runs it before everything still pending.
 */
final class Publisher {
    private static final Logger LOG = LoggerFactory.getLogger(Publisher.class);

    private final Context ctx;
    private final JournalPhases journal;
    private final Consumer<WriteOp> ahead;
    private final AutoMaintenance maintenance;
    /** Row-adding commits per (graph branch/table) since its last index maintenance. */
    private final Map<String, Integer> sinceIndexRefresh = new HashMap<>();

    /** {@code ahead}: queues an op (an automatic index refresh) before everything pending. */
    Publisher(Context ctx, JournalPhases journal, Consumer<WriteOp> ahead, AutoMaintenance maintenance) {
        this.ctx = ctx;
        this.journal = journal;
        this.ahead = ahead;
        this.maintenance = maintenance;
    }

    /**
     * Journals and answers the outcome {@code result} of the group led by {@code first}, on table {@code def} whose
     * head was {@code head}; {@code phaseAStart}, {@code phaseBStart} and {@code phaseBEnd} ({@link System#nanoTime()})
     * time the phases for the write metrics.
     */
    void publish(WriteOp first, Catalog.TableDef def, TableHead head, SubstrateCommit.Result result,
                 long phaseAStart, long phaseBStart, long phaseBEnd) {
        switch (result) {
            case SubstrateCommit.Result.Committed c -> {
                List<JournalEvent> phaseCD = new ArrayList<>(c.records());
                int commitIndex = journal.publication(phaseCD, c.committed(), head, c.base(), c.achieved());
                long firstSeq = journal.publish(phaseCD, first instanceof WriteOp.Fold);
                long now = System.nanoTime();
                count(first, c.committed().size(), true, phaseAStart, phaseBStart, phaseBEnd, now);
                boolean writes = !(first instanceof WriteOp.Fold) && !first.maintenance();
                for (int i = 0; i < c.committed().size(); i++) {
                    Fence.Admitted a = c.committed().get(i);
                    WriteOp op = a.op();
                    if (writes) {
                        ctx.meters().tableAck.record(now - op.submission().submittedNanos());
                    }
                    op.future().complete(new Receipt(a.intentId(), firstSeq + commitIndex + i, op.table(), op.branch(),
                            c.achieved().version(), c.rows().get(i)));
                }
                failLosers(c);
                if (c.achieved().version() != c.base().version()) {
                    scheduleIndexRefresh(def, first, c.achieved().version());
                    maintenance.committed(def, first, c.achieved());
                }
            }
            case SubstrateCommit.Result.NothingCommitted n -> {
                journal.publish(n.records(), first instanceof WriteOp.Fold);
                count(first, 0, false, phaseAStart, phaseBStart, phaseBEnd, System.nanoTime());
                failLosers(n);
            }
            case SubstrateCommit.Result.Raced r -> {
                journal.append(r.records());
                ctx.meters().foreignCommits.increment();
                LOG.error("{}", r.failure().getMessage());
                r.raced().forEach(a -> a.op().future().completeExceptionally(r.failure()));
                failLosers(r);
            }
            case SubstrateCommit.Result.Unverified u -> {
                journal.append(u.records());
                LOG.error("{}", u.failure().getMessage());
                u.op().op().future().completeExceptionally(u.failure());
                failLosers(u);
            }
            case SubstrateCommit.Result.Unknown u -> {
                u.unknown().forEach(a -> a.op().future().completeExceptionally(u.failure()));
                if (!u.records().isEmpty()) {
                    journal.append(u.records());
                }
                failLosers(u);
            }
        }
    }

    private static void failLosers(SubstrateCommit.Result result) {
        result.losers().forEach(l -> l.op().op().future().completeExceptionally(l.failure()));
    }

    /**
     * Folds and maintenance have their own meters: the write meters (writes, commits, groups, phases) stay the
     * writes'.
     */
    private void count(WriteOp first, int committed, boolean anyCommitted, long t0, long t1, long t2, long t3) {
        Meters m = ctx.meters();
        if (first instanceof WriteOp.Fold fold) {
            if (anyCommitted) {
                Meters.TableMeters t = m.table(fold.table());
                t.folds().increment();
                t.foldedWrites().increment(fold.plan().writes());
            }
            return;
        }
        if (first.maintenance()) {
            if (anyCommitted) {
                m.maintenanceCommits.increment();
            }
            m.maintained(t3 - t0);
            return;
        }
        m.intentPhase.record(t1 - t0);
        m.commitPhase.record(t2 - t1);
        m.publishPhase.record(t3 - t2);
        if (anyCommitted) {
            m.substrateCommits.increment();
            m.tableAckWrites.increment(committed);
            m.group(committed);
        }
    }

    /**
     * Automatic index maintenance ({@link Options#indexRefreshEvery()}): counts the row-adding commits to
     * an indexed keyed table since its last index maintenance and, at the threshold, queues an index
     * optimise ahead of everything pending. It is an ordinary maintenance op (planned, journaled, judged,
     * verified); nobody waits for it, and a failure is logged and counted, never thrown at a writer.
     */
    private void scheduleIndexRefresh(Catalog.TableDef def, WriteOp committed, long version) {
        int every = ctx.options().indexRefreshEvery();
        if (every == 0 || !ctx.options().indexedMerge() || !def.kind().keyed()) {
            return;
        }
        String where = committed.where();
        switch (committed.kind()) {
            case OPTIMIZE_INDEX -> sinceIndexRefresh.remove(where);
            case INSERT, UPSERT, FOLD -> {
                int n = sinceIndexRefresh.merge(where, 1, Integer::sum);
                if (n >= every) {
                    sinceIndexRefresh.remove(where);
                    WriteOp refresh = new WriteOp.OptimizeIndex(WriteOp.Submission.of(committed.branch(),
                            committed.table(), version, Optional.empty()), false);
                    refresh.future().whenComplete((r, e) -> {
                        if (e != null && AutoMaintenance.closedFirst(e)) {
                            LOG.debug("automatic index optimise of {} dropped: the graph closed first", where);
                        } else if (e != null) {
                            ctx.meters().autoIndexRefreshFailures.increment();
                            LOG.warn("automatic index optimise of {} failed: {}", where, e.toString());
                        } else {
                            ctx.meters().autoIndexRefreshes.increment();
                        }
                    });
                    ahead.accept(refresh);
                }
            }
            // these add no unindexed fragments a merge would scan, or replace the table's fragments
            case DELETE, APPEND, OVERWRITE, ADD_COLUMNS, COMPACT -> {
            }
        }
    }
}
