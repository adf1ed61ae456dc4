package io.palisade.coordinator.internal;

import io.palisade.coordinator.Catalog;
import io.palisade.coordinator.LoadMode;
import io.palisade.coordinator.Receipt;

import io.palisade.fencing.CommitStateUnknownException;
import io.palisade.fencing.KeyConflictException;
import io.palisade.fencing.KeyFilter;
import io.palisade.fencing.PalisadeException;
import io.palisade.fencing.ValidationException;
import io.palisade.fencing.action.ActionCodec;
import io.palisade.heads.HeadsState;
import io.palisade.heads.Pin;
import io.palisade.journal.ExpectedBase;
import io.palisade.journal.HeadTransition;
import io.palisade.journal.IntentOutcome;
import io.palisade.journal.JournalEvent;
import io.palisade.journal.JournalEvent.HeadPublished;
import io.palisade.journal.JournalEvent.IntentCompleted;
import io.palisade.journal.JournalEvent.IntentRecorded;
import io.palisade.journal.JournalEvent.LoadProgress;
import io.palisade.journal.JournalEvent.TableCommitted;
import io.palisade.journal.LogicalOperation;
import io.palisade.journal.TableHead;
import io.palisade.substrate.KeyedTable;
import io.palisade.substrate.TableRef;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * The bulk load path (docs/bulk-load.md), run on the committer thread so no other write
 * interleaves with it:
 * <ol>
 *   <li>Phase A: one {@link IntentRecorded} (INSERT for {@link LoadMode#APPEND}, UPSERT for
 *       {@link LoadMode#MERGE}; no key filter: keys are journaled per batch) plus a start-marker
 *       {@link LoadProgress} (batch -1) naming the table branch and the start version;</li>
 *   <li>per batch of at most {@code batchRows} rows: one fenced merge-insert ON {@code id} (WhenMatched
 *       Fail / UpdateAll) from the previous batch's version, then a {@link LoadProgress} with the
 *       achieved version and the batch's exact key filter;</li>
 *   <li>at the end: {@link TableCommitted}, one {@link HeadPublished} and {@link IntentCompleted}, in
 *       one journal append — readers of the graph see all of the load or none of it.</li>
 * </ol>
 * A failure after some batches committed (a key conflict, a bad batch, a reader error) rolls the table
 * branch back to the start version with a Restore commit and publishes that restored version (same
 * content as the start) before completing the intent with the failure, so no table version stays
 * unexplained. Peak memory is bounded by one batch (plus one re-batching buffer when the reader's
 * batches are not exactly {@code batchRows} long), never by the load or the table.
 */
final class BulkLoader {
    private static final Logger LOG = LoggerFactory.getLogger(BulkLoader.class);

    private BulkLoader() {
    }

    static Receipt load(Context ctx, Committer committer, String branch, String table, ArrowReader reader, LoadMode mode, int batchRows) {
        if (batchRows <= 0) {
            throw new ValidationException("batchRows must be positive, was " + batchRows);
        }
        Catalog.TableDef def = ctx.view().catalog().require(table);
        if (!def.kind().keyed()) {
            throw new ValidationException("table '" + table + "' is append-only and has no key: a bulk load needs a keyed table");
        }
        if (Integrity.checks(ctx.view().catalog(), def)) {
            throw new ValidationException("table '" + table + "' takes part in the graph's integrity declarations (edge "
                    + "endpoints or unique columns), which a bulk load does not check: write its rows with inserts "
                    + "and upserts, which are checked (docs/integrity.md)");
        }
        if (ctx.refusals().foreignRefusal(branch, table) != null) {
            throw ctx.refusals().foreignRefusal(branch, table);
        }
        if (ctx.refusals().poisoned(branch, table)) {
            throw new io.palisade.fencing.GraphRefusedException("table '" + table + "' on branch '" + branch
                    + "' had a commit of unknown outcome; reopen the graph to recover it");
        }
        HeadsState state = ctx.view().state();
        if (!state.branchLive(branch)) {
            throw new ValidationException("unknown graph branch '" + branch + "'");
        }
        Pin pin = state.pin(branch, table).orElseThrow(
                () -> new ValidationException("table '" + table + "' has no head on branch '" + branch + "'"));
        TableHead head = pin.head();
        String tableBranch = pin.owned() ? head.tableBranch() : TableBranches.tableBranchFor(branch);
        String intentId = "i-" + UUID.randomUUID();
        TableHead intendedTo = new TableHead(tableBranch, head.version() + 1, head.schemaId(), head.incarnation());
        ExpectedBase base = new ExpectedBase(head.tableBranch(), head.version(), head.schemaId(), state.lastSequence());
        LogicalOperation op = mode == LoadMode.APPEND ? LogicalOperation.INSERT : LogicalOperation.UPSERT;
        // the keys ride on the per-batch progress records, not on the intent (bounded memory)
        long recordedAt = ctx.view().journal(List.of(
                new IntentRecorded(intentId, null, op, branch, table, base, ActionCodec.encode(List.of()), null,
                        new HeadTransition(branch, table, head, intendedTo)),
                new LoadProgress(intentId, -1, head.tableBranch(), head.version(), 0, null)));
        CrashPoints.hit("load-after-intent");

        TableRef start = new TableRef(head.tableBranch(), head.version());
        if (!pin.owned()) {
            start = ctx.branches().forkForBranch(table, start, tableBranch);
            ctx.view().journal(List.of(new LoadProgress(intentId, -1, tableBranch, start.version(), 0, null)));
            CrashPoints.hit("load-after-fork");
        }
        LoadRun run = new LoadRun(ctx, def, intentId, mode, tableBranch, start);
        try {
            run.feed(reader, batchRows);
        } catch (LoadRaced r) {
            // not rolled back: a Restore would silently undo the foreign commit too; the operator decides
            ForeignRace race = r.committed ? duplicates(ctx, table, recordedAt, intentId, r, branch)
                    : ForeignRace.refused(branch, table, r.base, r.achieved, List.of(intentId), r.refusal);
            ctx.refusals().refuse(branch, table, race.refusal());
            ctx.view().journal(race.events());
            ctx.meters().foreignCommits.increment();
            LOG.error("bulk load {} of '{}' raced a foreign commit after {} batch(es): {}", intentId, table, run.batches,
                    race.detail());
            throw race.exception();
        } catch (KeyConflictException e) {
            KeyConflictException named = new KeyConflictException(table, e.keys(), e.conflictingKeyCount(),
                    e.winningIntent().orElse(null));
            named.initCause(e);
            run.rollBack(head, branch, table, IntentOutcome.KEY_CONFLICT, named.getMessage()
                    + " (present at the load's base or loaded twice by this load)", e.keys());
            throw named;
        } catch (ValidationException e) {
            run.rollBack(head, branch, table, IntentOutcome.VALIDATION_FAILED, e.getMessage(), List.of());
            throw e;
        } catch (RuntimeException e) {
            // a substrate failure of unknown outcome or a reader error: a Restore of the start version
            // undoes whatever was committed; if even that fails, the intent stays open, the table is
            // refused until reopen, and recovery rolls the load back then
            try {
                run.rollBack(head, branch, table, IntentOutcome.ABORTED, "bulk load failed: " + e, List.of());
            } catch (RuntimeException rollbackFailure) {
                e.addSuppressed(rollbackFailure);
                ctx.refusals().poison(branch, table);
                throw new CommitStateUnknownException("bulk load of '" + table + "' failed and could not be rolled back; "
                        + "reopen the graph to recover it: " + e.getMessage(), e);
            }
            if (e instanceof PalisadeException p) {
                throw p;
            }
            throw new ValidationException("bulk load of '" + table + "' failed (rolled back): " + e);
        } finally {
            run.close();
        }

        CrashPoints.hit("load-before-publish");
        TableRef end = run.current;
        List<JournalEvent> cd = new ArrayList<>();
        TableHead to = new TableHead(end.branch(), end.version(), head.schemaId(), head.incarnation());
        if (end.version() != head.version() || !end.branch().equals(head.tableBranch())) {
            cd.add(new TableCommitted(List.of(intentId), branch, table, end.branch(), end.version()));
            cd.add(new HeadPublished(List.of(new HeadTransition(branch, table, head, to))));
            cd.add(new IntentCompleted(intentId, IntentOutcome.COMMITTED, "", null, List.of()));
        } else {
            cd.add(new IntentCompleted(intentId, IntentOutcome.ABORTED, "empty load: nothing to commit", null, List.of()));
        }
        long first = ctx.view().journal(cd);
        if (end.version() > run.start.version()) {
            committer.rememberCommit(branch, table, def.kind().keyed(), run.start, end, intentId);
        }
        CrashPoints.hit("load-after-publish");
        ctx.meters().substrateCommits.increment(run.batches);
        ctx.meters().tableAckWrites.increment();
        return new Receipt(intentId, first + cd.size() - 1, table, branch, end.version(), run.rows);
    }


    /**
     * The race of a load whose batch Lance rebased over a foreign version, with an exact duplicate check of every
     * key the load committed (each journaled batch's key filter, read back one at a time, and the raced batch's
     * keys) at the achieved version.
     */
    private static ForeignRace duplicates(Context ctx, String table, long recordedAt, String intentId, LoadRaced r,
                                          String branch) {
        java.util.TreeSet<String> twice = new java.util.TreeSet<>();
        String failure = null;
        try (KeyedTable t = ctx.store().openKeyed(table, r.achieved)) {
            java.util.function.Consumer<KeyFilter> count = keys -> t.keyCounts(keys).forEach((k, n) -> {
                if (n > 1) {
                    twice.add(k);
                }
            });
            try (io.palisade.journal.JournalReader reader = ctx.journal().reader();
                 io.palisade.journal.JournalCursor c = reader.read(recordedAt)) {
                for (io.palisade.journal.JournalRecord rec = c.poll(); rec != null; rec = c.poll()) {
                    if (rec.event() instanceof LoadProgress lp && lp.intentId().equals(intentId) && lp.batchKeys() != null
                            && !lp.batchKeys().isEmpty()) {
                        count.accept(lp.batchKeys());
                    }
                }
            }
            if (r.keys != null && !r.keys.isEmpty()) {
                count.accept(r.keys);
            }
        } catch (RuntimeException e) {
            failure = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        }
        List<String> sample = new ArrayList<>(twice).subList(0, Math.min(ForeignRace.KEY_SAMPLE, twice.size()));
        return new ForeignRace(branch, table, r.base, r.achieved, true, ForeignRace.between(r.base, r.achieved),
                List.of(intentId), failure == null, failure == null ? sample : List.of(), failure, null);
    }

}
