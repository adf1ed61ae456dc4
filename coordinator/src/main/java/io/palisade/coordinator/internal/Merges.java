package io.palisade.coordinator.internal;

import io.palisade.coordinator.Catalog;
import io.palisade.coordinator.MergeResult;
import io.palisade.coordinator.Receipt;
import io.palisade.coordinator.TransactionReceipt;

import io.palisade.fencing.KeyFilter;
import io.palisade.fencing.MergeConflictException;
import io.palisade.heads.GraphBranch;
import io.palisade.heads.HeadsState;
import io.palisade.journal.IntentOutcome;
import io.palisade.journal.JournalCursor;
import io.palisade.journal.JournalEvent;
import io.palisade.journal.JournalReader;
import io.palisade.journal.JournalRecord;
import io.palisade.journal.LogicalOperation;
import io.palisade.journal.TableHead;
import io.palisade.substrate.ArrowRows;
import org.apache.arrow.vector.VectorSchemaRoot;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiFunction;

/** Branch merge planning and execution (runs on the committer thread). */
final class Merges {
    private Merges() {
    }

    static MergeResult merge(Context ctx, Committer committer, String source, String target) {
        HeadsState state = ctx.view().state();
        GraphBranches.checkMerge(state, source, target);
        GraphBranch branch = state.branch(source).orElseThrow();
        long fork = branch.fromSequence();
        Map<String, Set<String>> sourceKeys = changedKeys(ctx, state, source, fork);
        Map<String, Set<String>> targetKeys = changedKeys(ctx, state, target, fork);

        List<String> both = new ArrayList<>();
        for (Map.Entry<String, Set<String>> e : sourceKeys.entrySet()) {
            Set<String> t = targetKeys.getOrDefault(e.getKey(), Set.of());
            for (String k : new TreeSet<>(e.getValue())) {
                if (t.contains(k)) {
                    both.add(e.getKey() + ":" + k);
                }
            }
        }
        if (!both.isEmpty()) {
            throw new MergeConflictException("cannot merge '" + source + "' into '" + target + "': keys changed on both "
                    + "sides since the fork at sequence " + fork + ":", both.subList(0, Math.min(10, both.size())));
        }

        List<TableChange> changes = new ArrayList<>();
        for (Map.Entry<String, Set<String>> e : sourceKeys.entrySet()) {
            changes.add(change(ctx, source, target, ctx.view().catalog().require(e.getKey()), e.getValue()));
        }
        if (ctx.view().catalog().declaresIntegrity()) {
            return asTransaction(ctx, committer, source, target, changes);
        }
        long inserted = 0, updated = 0, deleted = 0;
        List<Receipt> receipts = new ArrayList<>();
        for (TableChange c : changes) {
            Catalog.TableDef def = c.def();
            if (!c.newRows().isEmpty()) {
                receipts.add(write(ctx, committer, WriteOp.Insert::new, target, def, c.newRows()));
                inserted += c.newRows().size();
            }
            if (!c.changedRows().isEmpty()) {
                receipts.add(write(ctx, committer, WriteOp.Upsert::new, target, def, c.changedRows()));
                updated += c.changedRows().size();
            }
            if (!c.gone().isEmpty()) {
                receipts.add(committer.runNow(new WriteOp.Delete(WriteOp.Submission.of(target, def.name(),
                        ctx.view().state().head(target, def.name()).map(TableHead::version).orElse(-1L),
                        Optional.empty()), keyFilter(def, c.gone()))));
                deleted += c.gone().size();
            }
        }
        return new MergeResult(source, target, inserted, updated, deleted, receipts);
    }

    /** What a merge does to one table of the target: the rows it inserts, the rows it replaces, the keys it deletes. */
    private record TableChange(Catalog.TableDef def, List<Map<String, Object>> newRows,
                               List<Map<String, Object>> changedRows, List<String> gone) {
    }

    /** The change the source's {@code keys} of {@code def} make to {@code target}. */
    private static TableChange change(Context ctx, String source, String target, Catalog.TableDef def, Set<String> keys) {
        Map<String, Map<String, Object>> sourceRows = rowsByKey(ctx.reads().scan(source, def.name()), keys);
        Set<String> targetNow = rowsByKey(ctx.reads().scan(target, def.name()), keys).keySet();
        List<Map<String, Object>> newRows = new ArrayList<>();
        List<Map<String, Object>> changedRows = new ArrayList<>();
        List<String> gone = new ArrayList<>();
        for (String k : new TreeSet<>(keys)) {
            Map<String, Object> row = sourceRows.get(k);
            if (row == null) {
                if (targetNow.contains(k)) {
                    gone.add(k);
                }
            } else if (!targetNow.contains(k)) {
                // absent from the target: inserted, whether or not it was there at the fork (had the target
                // deleted it since, the key would have changed on both sides and the merge stopped above). So a
                // merge never reads the fork point, whose version retention may have removed.
                newRows.add(row);
            } else {
                changedRows.add(row);
            }
        }
        return new TableChange(def, newRows, changedRows, gone);
    }

    /**
     * The merge of a graph that declares edge endpoints or unique columns: every table's change as one graph
     * transaction on the target ({@link Transactions}), so the rules are judged on the merge as a whole (an edge the
     * source added to a node the target deleted, one unique value taken on both sides) and the merge is published
     * whole or not at all. A refusal is the transaction's typed conflict; nothing of the merge is written then.
     */
    private static MergeResult asTransaction(Context ctx, Committer committer, String source, String target,
                                             List<TableChange> changes) {
        List<VectorSchemaRoot> roots = new ArrayList<>();
        List<WriteOp> parts = new ArrayList<>();
        long inserted = 0, updated = 0, deleted = 0;
        try {
            for (TableChange c : changes) {
                if (!c.newRows().isEmpty()) {
                    parts.add(new WriteOp.Insert(WriteOp.Submission.of(target, c.def().name(), -1, Optional.empty()),
                            filled(ctx, c.def(), c.newRows(), roots)));
                    inserted += c.newRows().size();
                }
                if (!c.changedRows().isEmpty()) {
                    parts.add(new WriteOp.Upsert(WriteOp.Submission.of(target, c.def().name(), -1, Optional.empty()),
                            filled(ctx, c.def(), c.changedRows(), roots)));
                    updated += c.changedRows().size();
                }
                if (!c.gone().isEmpty()) {
                    parts.add(new WriteOp.Delete(WriteOp.Submission.of(target, c.def().name(), -1, Optional.empty()),
                            keyFilter(c.def(), c.gone())));
                    deleted += c.gone().size();
                }
            }
            if (parts.isEmpty()) {
                return new MergeResult(source, target, 0, 0, 0, List.of());
            }
            TransactionReceipt r = committer.commitNow(new Transactions.Queued(target, parts, Optional.empty(), null,
                    new CompletableFuture<>()));
            return new MergeResult(source, target, inserted, updated, deleted, r.parts());
        } finally {
            roots.forEach(VectorSchemaRoot::close);
        }
    }

    private static VectorSchemaRoot filled(Context ctx, Catalog.TableDef def, List<Map<String, Object>> rows,
                                           List<VectorSchemaRoot> roots) {
        VectorSchemaRoot root = VectorSchemaRoot.create(def.arrowSchema(), ctx.allocator());
        roots.add(root);
        ArrowRows.fill(root, rows);
        return root;
    }

    private static KeyFilter keyFilter(Catalog.TableDef def, List<String> keys) {
        return def.column("id").orElseThrow().type() == Catalog.ColumnType.Scalar.INT64
                ? KeyFilter.ofLongs(def.idFieldId(), keys.stream().mapToLong(Long::parseLong).toArray())
                : KeyFilter.ofStrings(def.idFieldId(), keys);
    }

    /** Runs now a write of {@code rows} to {@code target} made by {@code kind} (an insert's or an upsert's constructor). */
    private static Receipt write(Context ctx, Committer committer,
                                 BiFunction<WriteOp.Submission, VectorSchemaRoot, WriteOp> kind, String target,
                                 Catalog.TableDef def, List<Map<String, Object>> rows) {
        try (VectorSchemaRoot root = VectorSchemaRoot.create(def.arrowSchema(), ctx.allocator())) {
            ArrowRows.fill(root, rows);
            return committer.runNow(kind.apply(WriteOp.Submission.of(target, def.name(),
                    ctx.view().state().head(target, def.name()).map(TableHead::version).orElse(-1L), Optional.empty()), root));
        }
    }

    private static Map<String, Map<String, Object>> rowsByKey(List<Map<String, Object>> rows, Set<String> keys) {
        Map<String, Map<String, Object>> out = new HashMap<>();
        for (Map<String, Object> r : rows) {
            String k = String.valueOf(r.get("id"));
            if (keys.contains(k)) {
                out.put(k, r);
            }
        }
        return out;
    }

    /**
     * Per table, the keys of every intent applied on {@code branch} after sequence {@code fork}: the keys
     * an intent wrote (its key filter, a bulk load's batch filters) and, for an overwrite, also every key
     * of the table it replaced, which it deleted unless it wrote them again. Read from the journal alone: an intent
     * counts when its {@code IntentCompleted} in the same range says it was applied (or acknowledged from the journal),
     * so the heads state need not remember completed intents.
     */
    private static Map<String, Set<String>> changedKeys(Context ctx, HeadsState state, String branch, long fork) {
        Map<String, JournalEvent.IntentRecorded> recorded = new HashMap<>();
        List<JournalEvent.LoadProgress> batches = new ArrayList<>();
        Map<String, IntentOutcome> outcomes = new HashMap<>();
        try (JournalReader reader = JournalReader.open(ctx.layout().palisade());
             JournalCursor cursor = reader.read(fork + 1)) {
            for (JournalRecord r = cursor.poll(); r != null; r = cursor.poll()) {
                // only these records say which keys an intent changed and whether it took effect
                if (r.event() instanceof JournalEvent.IntentRecorded ir && ir.graphBranch().equals(branch)) {
                    recorded.put(ir.intentId(), ir);
                } else if (r.event() instanceof JournalEvent.JournaledWrite w) {
                    // a journal-ack write in one record: recorded and completed JOURNALED together
                    if (w.intent().graphBranch().equals(branch)) {
                        recorded.put(w.intentId(), w.intent());
                    }
                    outcomes.put(w.intentId(), IntentOutcome.JOURNALED);
                } else if (r.event() instanceof JournalEvent.LoadProgress lp && lp.batchKeys() != null) {
                    batches.add(lp);
                } else if (r.event() instanceof JournalEvent.IntentCompleted ic) {
                    outcomes.put(ic.intentId(), ic.outcome());
                } else if (r.event() instanceof JournalEvent.TransactionCommitted tc) {
                    // a graph transaction's commit point completes its parts JOURNALED
                    tc.intentIds().forEach(id -> outcomes.put(id, IntentOutcome.JOURNALED));
                }
            }
        }
        Map<String, Set<String>> out = new HashMap<>();
        for (JournalEvent.IntentRecorded ir : recorded.values()) {
            IntentOutcome o = outcomes.get(ir.intentId());
            if (ir.keyFilter() == null || ir.operation() == LogicalOperation.CREATE_TABLE || o == null
                    || !(o == IntentOutcome.COMMITTED || o == IntentOutcome.ROLLED_FORWARD
                    || o == IntentOutcome.JOURNALED)) {
                continue;
            }
            // a journal-ack write changed its keys when it was acknowledged (its fold carries them again)
            Set<String> changed = out.computeIfAbsent(ir.table(), t -> new HashSet<>());
            changed.addAll(ir.keyFilter().keys());
            if (ir.operation() == LogicalOperation.OVERWRITE) {
                // an overwrite also changes every key it removed: the keys at the head it replaced
                for (Map<String, Object> row : ctx.reads().scan(branch, ir.table(), ir.intendedTransition().from())) {
                    changed.add(String.valueOf(row.get("id")));
                }
            }
        }
        for (JournalEvent.LoadProgress lp : batches) {
            // a bulk load journals its keys per batch (docs/bulk-load.md); it is recorded before its first batch
            JournalEvent.IntentRecorded ir = recorded.get(lp.intentId());
            IntentOutcome o = outcomes.get(lp.intentId());
            if (ir != null && (o == IntentOutcome.COMMITTED
                    || o == IntentOutcome.ROLLED_FORWARD)) {
                out.computeIfAbsent(ir.table(), t -> new HashSet<>()).addAll(lp.batchKeys().keys());
            } else if (ir == null) {
                // recorded before the fork point: the heads state still knows it when no checkpoint covered it since
                state.completedIntent(lp.intentId()).filter(c -> c.applied() && c.graphBranch().equals(branch))
                        .ifPresent(c -> out.computeIfAbsent(c.table(), t -> new HashSet<>()).addAll(lp.batchKeys().keys()));
            }
        }
        return out;
    }
}
