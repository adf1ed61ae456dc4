package io.palisade.coordinator.internal;

import io.palisade.coordinator.Catalog;
import io.palisade.coordinator.LoadMode;
import io.palisade.coordinator.MergeResult;
import io.palisade.coordinator.Options;
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
import io.palisade.substrate.CommitResult;
import io.palisade.substrate.KeyedTable;
import io.palisade.substrate.TableRef;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.util.VectorSchemaRootAppender;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

/**
 * The bulk load path (issue 9, docs/bulk-load.md), run on the committer thread so no other write
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
        Run run = new Run(ctx, def, intentId, mode, tableBranch, start);
        try {
            run.feed(reader, batchRows);
        } catch (Raced r) {
            // not rolled back: a Restore would silently undo the foreign commit too; the operator decides
            ForeignRace race = r.committed ? duplicates(ctx, table, recordedAt, intentId, r, branch)
                    : ForeignRace.refused(branch, table, r.base, r.achieved, List.of(intentId), r.refusal);
            ctx.refusals().refuse(branch, table, race.refusal());
            ctx.view().journal(race.events());
            ctx.counters().foreignCommits.increment();
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
        ctx.counters().substrateCommits.add(run.batches);
        ctx.counters().commits.increment();
        return new Receipt(intentId, first + cd.size() - 1, table, branch, end.version(), run.rows);
    }

    /**
     * A batch (or its index extension) that Lance rebased over a foreign version ({@code committed}), or refused
     * because of one ({@code achieved} is then the table branch's latest version, {@code refusal} Lance's reason).
     */
    private static final class Raced extends RuntimeException {
        private static final long serialVersionUID = 1L;
        final transient TableRef base;
        final transient TableRef achieved;
        final transient KeyFilter keys;
        final boolean committed;
        final String refusal;

        Raced(TableRef base, TableRef achieved, KeyFilter keys, boolean committed, String refusal) {
            super("batch commit from " + base + (committed ? " reached " : " refused at ") + achieved, null, false, false);
            this.base = base;
            this.achieved = achieved;
            this.keys = keys;
            this.committed = committed;
            this.refusal = refusal;
        }
    }

    /**
     * The race of a load whose batch Lance rebased over a foreign version, with an exact duplicate check of every
     * key the load committed (each journaled batch's key filter, read back one at a time, and the raced batch's
     * keys) at the achieved version.
     */
    private static ForeignRace duplicates(Context ctx, String table, long recordedAt, String intentId, Raced r,
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

    /** One load's mutable progress. */
    private static final class Run implements AutoCloseable {
        final Context ctx;
        final Catalog.TableDef def;
        final String intentId;
        final LoadMode mode;
        final String tableBranch;
        final TableRef start;
        TableRef current;
        /** Whether the table has the {@code id} index, which this load then keeps covering every fragment. */
        final boolean maintainIndex;
        int batches;
        long rows;
        VectorSchemaRoot acc;

        Run(Context ctx, Catalog.TableDef def, String intentId, LoadMode mode, String tableBranch, TableRef start) {
            this.ctx = ctx;
            try (KeyedTable t = ctx.store().openKeyed(def.name(), start)) {
                this.maintainIndex = ctx.options().indexedMerge() && t.hasIdIndex();
            }
            this.def = def;
            this.intentId = intentId;
            this.mode = mode;
            this.tableBranch = tableBranch;
            this.start = start;
            this.current = start;
        }

        void feed(ArrowReader reader, int batchRows) {
            try {
                while (reader.loadNextBatch()) {
                    VectorSchemaRoot in = reader.getVectorSchemaRoot();
                    int n = in.getRowCount();
                    if (n == 0) {
                        continue;
                    }
                    if ((acc == null || acc.getRowCount() == 0) && n == batchRows) {
                        commitBatch(in); // the common case: no copy
                        continue;
                    }
                    int off = 0;
                    while (off < n) {
                        if (acc == null) {
                            acc = VectorSchemaRoot.create(in.getSchema(), ctx.allocator());
                            acc.allocateNew();
                            acc.setRowCount(0);
                        }
                        int take = Math.min(batchRows - acc.getRowCount(), n - off);
                        try (VectorSchemaRoot slice = in.slice(off, take)) {
                            VectorSchemaRootAppender.append(false, acc, slice);
                        }
                        off += take;
                        if (acc.getRowCount() == batchRows) {
                            flush();
                        }
                    }
                }
                if (acc != null && acc.getRowCount() > 0) {
                    flush();
                }
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }

        private void flush() {
            commitBatch(acc);
            acc.clear();
            acc.allocateNew();
            acc.setRowCount(0);
        }

        private void commitBatch(VectorSchemaRoot batch) {
            KeyFilter keys = validate(batch);
            CommitResult r;
            try (KeyedTable t = ctx.store().openKeyed(def.name(), current)) {
                // Indexed path: no Lance key filter; safe only because the load runs on the single
                // committer under the writer lease, so no concurrent same-key commit exists (DESIGN §3).
                r = mode == LoadMode.APPEND ? t.insert(batch, t.mergePath()) : t.upsert(batch, t.mergePath());
            } catch (KeyConflictException | io.palisade.fencing.WriteConflictException e) {
                TableRef latest = ctx.store().latest(def.name(), current.branch());
                if (latest.version() > current.version()) {
                    throw new Raced(current, latest, keys, false, e.getMessage()); // refused because of a foreign commit
                }
                throw e;
            }
            if (r.ref().version() != current.version() + 1) {
                throw new Raced(current, r.ref(), keys, true, null);
            }
            CrashPoints.hit("load-after-batch");
            current = r.ref();
            rows += batch.getRowCount();
            ctx.view().journal(List.of(new LoadProgress(intentId, batches, current.branch(), current.version(), rows, keys)));
            CrashPoints.hit("load-after-progress");
            if (maintainIndex) {
                coverWithIndex();
            }
            batches++;
        }

        /**
         * Extends the {@code id} index over the fragments the batch just added (one CreateIndex commit),
         * journaled as a second progress record of the same batch without keys. This is what bounds the
         * load's memory by the batch: the next batch's strict pre-check and merge look its keys up in an
         * index that covers the whole table, while Lance's v2 merge would join the batch against every
         * {@code id} of the table, whose memory grows with the table (docs/bulk-load.md, "Memory").
         */
        private void coverWithIndex() {
            CommitResult r;
            try (KeyedTable t = ctx.store().openKeyed(def.name(), current)) {
                r = t.optimizeIdIndex();
            }
            if (r.ref().equals(current)) {
                return; // nothing new to index
            }
            if (r.ref().version() != current.version() + 1) {
                throw new Raced(current, r.ref(), null, true, null);
            }
            CrashPoints.hit("load-after-index");
            current = r.ref();
            ctx.view().journal(List.of(new LoadProgress(intentId, batches, current.branch(), current.version(), rows, null)));
        }

        private KeyFilter validate(VectorSchemaRoot batch) {
            WriteOp probe = new WriteOp(WriteOp.Kind.UPSERT, HeadsState.MAIN, def.name(), batch, null, Optional.empty(), -1);
            try {
                return BatchValidation.validate(def, probe);
            } catch (ValidationException e) {
                FieldVector id = batch.getVector("id");
                if (id == null || id.getNullCount() > 0) {
                    throw e;
                }
                KeyFilter set = KeyFilter.fromBatch(batch, "id", def.idFieldId(), KeyFilter.Duplicates.MERGE);
                if (set.size() == batch.getRowCount()) {
                    throw e;
                }
                Set<String> seen = new java.util.HashSet<>();
                Set<String> twice = new LinkedHashSet<>();
                for (int i = 0; i < batch.getRowCount(); i++) {
                    String k = String.valueOf(id.getObject(i));
                    if (!seen.add(k)) {
                        twice.add(k);
                    }
                }
                List<String> named = new ArrayList<>(twice).subList(0, Math.min(KeyFilter.DEFAULT_SAMPLE, twice.size()));
                if (mode == LoadMode.APPEND) {
                    throw new KeyConflictException(def.name(), named, twice.size(), null);
                }
                throw new ValidationException("an upsert load batch of '" + def.name() + "' carries the same key twice: "
                        + named);
            }
        }

        /**
         * Undoes the committed batches (a Restore of the start version, published with the same content
         * as the start) and completes the intent with {@code outcome}.
         */
        void rollBack(TableHead head, String branch, String table, IntentOutcome outcome, String reason, List<String> keys) {
            List<JournalEvent> events = new ArrayList<>();
            TableRef latest = ctx.store().latest(table, tableBranch);
            if (latest.version() > start.version()) {
                TableRef restored = ctx.store().restore(table, start);
                LOG.warn("bulk load {} of '{}' failed after {} batches; restored {} as {}", intentId, table, batches,
                        start, restored);
                CrashPoints.hit("load-after-restore");
                TableHead to = new TableHead(restored.branch(), restored.version(), head.schemaId(), head.incarnation());
                events.add(new HeadPublished(List.of(new HeadTransition(branch, table, head, to))));
            }
            events.add(new IntentCompleted(intentId, outcome, reason, null, keys));
            ctx.view().journal(events);
        }

        @Override
        public void close() {
            if (acc != null) {
                acc.close();
            }
        }
    }
}
