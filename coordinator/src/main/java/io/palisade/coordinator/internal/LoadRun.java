package io.palisade.coordinator.internal;

import io.palisade.coordinator.Catalog;
import io.palisade.coordinator.LoadMode;
import io.palisade.fencing.KeyConflictException;
import io.palisade.fencing.KeyFilter;
import io.palisade.fencing.ValidationException;
import io.palisade.journal.HeadTransition;
import io.palisade.journal.IntentOutcome;
import io.palisade.journal.JournalEvent;
import io.palisade.journal.JournalEvent.HeadPublished;
import io.palisade.journal.JournalEvent.IntentCompleted;
import io.palisade.journal.JournalEvent.LoadProgress;
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
import java.util.Set;

/**
 * One bulk load's progress: the batches it has committed, fenced and journaled ({@code LoadProgress} after each), the
 * re-batching buffer, and the rollback (a Restore to the start version) when it fails. Committer thread only.
 */
final class LoadRun implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(LoadRun.class);

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

    LoadRun(Context ctx, Catalog.TableDef def, String intentId, LoadMode mode, String tableBranch, TableRef start) {
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
                throw new LoadRaced(current, latest, keys, false, e.getMessage()); // refused because of a foreign commit
            }
            throw e;
        }
        if (r.ref().version() != current.version() + 1) {
            throw new LoadRaced(current, r.ref(), keys, true, null);
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
            throw new LoadRaced(current, r.ref(), null, true, null);
        }
        CrashPoints.hit("load-after-index");
        current = r.ref();
        ctx.view().journal(List.of(new LoadProgress(intentId, batches, current.branch(), current.version(), rows, null)));
    }

    private KeyFilter validate(VectorSchemaRoot batch) {
        try {
            return BatchValidation.validateRows(def, batch);
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
