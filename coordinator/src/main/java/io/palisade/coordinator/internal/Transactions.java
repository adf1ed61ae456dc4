package io.palisade.coordinator.internal;

import io.palisade.coordinator.Catalog;
import io.palisade.coordinator.Receipt;
import io.palisade.coordinator.TransactionReceipt;
import io.palisade.fencing.KeyConflictException;
import io.palisade.fencing.KeyFilter;
import io.palisade.fencing.PalisadeException;
import io.palisade.fencing.ValidationException;
import io.palisade.heads.HeadsState;
import io.palisade.heads.Pin;
import io.palisade.journal.JournalEvent;
import io.palisade.journal.TableHead;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletionException;

/**
 * The commit of a graph transaction on the committer thread (docs/transactions.md): inserts, upserts and deletes of
 * several tables of one graph branch, published together or not at all.
 * <ol>
 *   <li>Each part is fenced as a write of its own ({@link Fence}: validation against the catalog); no key is written
 *       twice on one table; each strict insert's keys must be new to its table's newest state (unfolded writes, then
 *       the folded head); then the parts are judged together by the integrity checks
 *       ({@link TransactionIntegrity}). The part at fault fails the whole transaction: its own intent and conflict
 *       completion are journaled (the explanation of the refusal), nothing else.</li>
 *   <li>One append, one sync: every part's {@code IntentRecorded} (its table's head to itself) and
 *       {@code RowsRecorded}, then the {@code TransactionCommitted} naming them all: the commit point. Replay adds
 *       every part to its table's unfolded writes at that record, and none before it, so no reader through Palisade
 *       sees part of a transaction at any journal position, and a crash before it leaves none of it.</li>
 *   <li>The parts of table-ack tables are folded into their tables (one fold per table, through the ordinary fold
 *       with its own crash points and recovery) before the receipt is given; the parts of journal-ack tables fold as
 *       any acknowledged write does. A fold that fails leaves its part acknowledged and unfolded, readable, folded
 *       later (before any other operation on that table).</li>
 * </ol>
 * Crash point {@code after-transaction-commit} follows the commit point's sync; {@code transaction-torn}, when it is
 * the one configured, splits the batch so that a crash finds the parts journaled without their commit point. Committer thread only; runs as a
 * control task, after the fold in flight has been published.
 */
final class Transactions {
    private static final Logger LOG = LoggerFactory.getLogger(Transactions.class);

    private final Context ctx;
    private final JournalPhases journal;
    private final Fence fence;
    private final KeyPresence presence;
    private final Integrity integrity;
    private final TransactionIntegrity checks;
    private final Folder folder;

    Transactions(Context ctx, JournalPhases journal, Fence fence, KeyPresence presence, Integrity integrity,
                 Folder folder) {
        this.ctx = ctx;
        this.journal = journal;
        this.fence = fence;
        this.presence = presence;
        this.integrity = integrity;
        this.checks = new TransactionIntegrity(ctx, integrity);
        this.folder = folder;
    }

    /** Commits {@code parts} (inserts, upserts and deletes of keyed tables of {@code branch}) as one transaction. */
    TransactionReceipt commit(String branch, List<WriteOp> parts) {
        if (parts.isEmpty()) {
            throw new ValidationException("a transaction needs at least one insert, upsert or delete");
        }
        Catalog catalog = ctx.view().catalog();
        Set<String> tables = new LinkedHashSet<>();
        for (WriteOp op : parts) {
            if (!op.branch().equals(branch)) {
                throw new IllegalArgumentException("a part of a transaction on '" + branch + "' writes branch '"
                        + op.branch() + "'");
            }
            switch (op) {
                case WriteOp.Insert i -> tables.add(op.table());
                case WriteOp.Upsert u -> tables.add(op.table());
                case WriteOp.Delete d -> tables.add(op.table());
                case WriteOp.Update u -> throw unsupported(op);
                case WriteOp.Append a -> throw unsupported(op);
                case WriteOp.Overwrite o -> throw unsupported(op);
                case WriteOp.AddColumns a -> throw unsupported(op);
                case WriteOp.OptimizeIndex o -> throw unsupported(op);
                case WriteOp.Compact c -> throw unsupported(op);
                case WriteOp.Fold f -> throw unsupported(op);
            }
        }
        if (!ctx.view().state().branchLive(branch)) {
            throw new ValidationException("unknown graph branch '" + branch + "'");
        }
        for (String t : tables) {
            Catalog.TableDef def = catalog.require(t);
            if (!def.kind().keyed()) {
                throw new ValidationException("table '" + t + "' is append-only: a transaction writes keyed tables");
            }
            Optional<PalisadeException> refused = ctx.refusals().refusal(branch, t);
            if (refused.isPresent()) {
                throw refused.get();
            }
            if (def.journalAck() && backPressured(branch, t)) {
                folder.fold(branch, t); // the memory and lag bounds hold for a transaction's parts too
            }
        }
        HeadsState state = ctx.view().state();
        List<Fence.Admitted> admitted = admit(branch, parts, state);
        strictInserts(branch, state, admitted);
        Optional<TransactionIntegrity.Refusal> refusal = checks.judge(branch, state, admitted);
        if (refusal.isPresent()) {
            Fence.Admitted a = refusal.get().part();
            PalisadeException e = refusal.get().error();
            journal.append(journal.integrityRejection(a, head(state, a), e.getMessage(), named(e)));
            throw e;
        }
        return journalAndFold(branch, state, admitted, tables);
    }

    private static ValidationException unsupported(WriteOp op) {
        return new ValidationException("a transaction takes inserts, upserts and deletes, not " + op.kind());
    }

    /** Each part through the fence on its own, based at its table's head now; no key twice on one table. */
    private List<Fence.Admitted> admit(String branch, List<WriteOp> parts, HeadsState state) {
        Catalog catalog = ctx.view().catalog();
        List<Fence.Admitted> admitted = new ArrayList<>();
        Map<String, KeyFilter> written = new HashMap<>();
        for (WriteOp part : parts) {
            Catalog.TableDef def = catalog.require(part.table());
            Pin pin = state.pin(branch, part.table()).orElseThrow(() -> new ValidationException("table '"
                    + part.table() + "' has no head on branch '" + branch + "'"));
            WriteOp op = rebased(part, pin.head().version());
            Fence.Admission a = fence.admit(List.of(op), def, pin, state);
            if (a.accepted().size() != 1) {
                if (!a.rejected().isEmpty()) {
                    journal.append(a.rejections());
                    throw a.rejected().get(0).failure();
                }
                throw failure(op); // the fence failed it (bad input): nothing journaled
            }
            Fence.Admitted one = a.accepted().get(0);
            KeyFilter before = written.get(def.name());
            if (before != null && one.keys() != null && before.intersects(one.keys())) {
                Set<String> twice = new LinkedHashSet<>(one.keys().keys());
                twice.retainAll(new HashSet<>(before.keys()));
                throw new ValidationException("table '" + def.name() + "': key" + (twice.size() == 1 ? " " : "s ")
                        + String.join(", ", first(twice)) + " written twice in one transaction; write each key of a "
                        + "table once per transaction");
            }
            if (one.keys() != null) {
                written.put(def.name(), before == null ? one.keys() : before.union(one.keys()));
            }
            admitted.add(one);
        }
        return admitted;
    }

    /** {@code op} based at {@code version} (the head the transaction is judged on), with no idempotency key. */
    private static WriteOp rebased(WriteOp op, long version) {
        WriteOp.Submission s = WriteOp.Submission.of(op.branch(), op.table(), version, Optional.empty());
        return switch (op) {
            case WriteOp.Insert i -> new WriteOp.Insert(s, i.rows(), i.journalRows());
            case WriteOp.Upsert u -> new WriteOp.Upsert(s, u.rows(), u.journalRows());
            case WriteOp.Delete d -> new WriteOp.Delete(s, d.keys());
            case WriteOp.Update u -> throw unsupported(op);
            case WriteOp.Append a -> throw unsupported(op);
            case WriteOp.Overwrite o -> throw unsupported(op);
            case WriteOp.AddColumns a -> throw unsupported(op);
            case WriteOp.OptimizeIndex o -> throw unsupported(op);
            case WriteOp.Compact c -> throw unsupported(op);
            case WriteOp.Fold f -> throw unsupported(op);
        };
    }

    /** The failure the fence completed {@code op}'s future with. */
    private static PalisadeException failure(WriteOp op) {
        try {
            op.future().join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof PalisadeException p) {
                throw p;
            }
            throw e;
        }
        throw new IllegalStateException("the fence neither accepted nor failed a part of a transaction on "
                + op.where());
    }

    /**
     * The strict-insert fence of the transaction's inserts: a key held by the newest unfolded write of its table, or
     * by its folded head, fails the transaction with {@link KeyConflictException} naming the table and keys (the
     * part's intent and {@code KEY_CONFLICT} completion journaled).
     */
    private void strictInserts(String branch, HeadsState state, List<Fence.Admitted> admitted) {
        Catalog catalog = ctx.view().catalog();
        for (Fence.Admitted a : admitted) {
            if (!(a.op() instanceof WriteOp.Insert) || a.keys() == null) {
                continue;
            }
            List<String> keys = a.keys().keys();
            Map<String, UnfoldedWrites.Entry> tail = ctx.view().unfoldedNewest(branch, a.op().table(), keys);
            Set<String> untouched = new HashSet<>(keys);
            untouched.removeAll(tail.keySet());
            TableHead head = head(state, a);
            Set<String> atHead = untouched.isEmpty() ? Set.of()
                    : presence.presentAtHead(catalog.require(a.op().table()), branch, a.op().table(), head, untouched);
            List<String> held = new ArrayList<>();
            String winner = null;
            for (String k : keys) {
                UnfoldedWrites.Entry e = tail.get(k);
                if (e != null ? !e.deletes() : atHead.contains(k)) {
                    held.add(k);
                    if (winner == null && e != null) {
                        winner = e.intentId;
                    }
                }
            }
            if (!held.isEmpty()) {
                KeyConflictException c = new KeyConflictException(a.op().table(),
                        held.subList(0, Math.min(Integrity.NAMED, held.size())), held.size(), winner);
                ctx.meters().keyConflicts.increment();
                journal.append(journal.keyConflictRejection(a, head, c.getMessage(), winner, held));
                throw c;
            }
        }
    }

    /** Phase A and the commit point in one sync, then the folds of the table-ack parts; the receipt. */
    private TransactionReceipt journalAndFold(String branch, HeadsState state, List<Fence.Admitted> admitted,
                                              Set<String> tables) {
        String transactionId = "t-" + UUID.randomUUID();
        Map<Fence.Admitted, Long> removed = removedRows(branch, state, admitted);
        List<JournalEvent> batch = new ArrayList<>();
        List<String> intents = new ArrayList<>();
        for (Fence.Admitted a : admitted) {
            WriteOp op = a.op();
            batch.add(journal.acknowledgedIntent(a, head(state, a)));
            boolean delete = op instanceof WriteOp.Delete;
            JournalRowsMemo submitted = op.submittedRows();
            batch.add(new JournalEvent.RowsRecorded(a.intentId(), op.branch(), op.table(),
                    delete ? 0 : SubstrateWrites.rows(op).getRowCount(), delete ? new byte[0] : submitted.bytes()));
            intents.add(a.intentId());
        }
        batch.add(new JournalEvent.TransactionCommitted(transactionId, branch, intents));
        long first;
        try {
            if (CrashPoints.armedAt("transaction-torn")) {
                // the crash suite's model of a tail torn inside the batch: the parts durable, the commit point not
                first = journal.append(batch.subList(0, batch.size() - 1));
                CrashPoints.hit("transaction-torn");
                journal.append(batch.subList(batch.size() - 1, batch.size()));
            } else {
                first = journal.append(batch);
            }
        } catch (RuntimeException e) {
            tables.forEach(t -> integrity.forget(branch, t)); // the images hold the parts; the journal may not
            throw e;
        }
        long commitSeq = first + batch.size() - 1;
        CrashPoints.hit("after-transaction-commit");
        ctx.meters().transactions.increment();
        for (Fence.Admitted a : admitted) {
            if (!(a.op() instanceof WriteOp.Delete)) {
                presence.added(branch, a.op().table(), a.keys().keys());
            }
        }
        Map<String, Boolean> folded = new LinkedHashMap<>();
        for (String t : tables) {
            if (!ctx.view().catalog().require(t).journalAck()) {
                folded.put(t, foldPart(branch, t));
            }
        }
        HeadsState now = ctx.view().state();
        List<Receipt> receipts = new ArrayList<>();
        for (Fence.Admitted a : admitted) {
            WriteOp op = a.op();
            boolean in = folded.getOrDefault(op.table(), false);
            long version = now.head(branch, op.table()).map(TableHead::version).orElse(-1L);
            receipts.add(new Receipt(a.intentId(), commitSeq, op.table(), branch, in ? version : head(state, a).version(),
                    removed.getOrDefault(a, op.rowCount()), in));
        }
        return new TransactionReceipt(transactionId, commitSeq, branch, receipts);
    }

    /**
     * Folds a table-ack part's table; whether the part is in the table now. The transaction is committed whatever the
     * fold does: a failed fold is logged, not thrown (a fold of unknown outcome has poisoned the table, as any commit).
     */
    private boolean foldPart(String branch, String table) {
        try {
            return folder.fold(branch, table);
        } catch (RuntimeException e) {
            LOG.warn("graph transaction: the fold of {}/{} did not commit; its part stays acknowledged and unfolded: {}",
                    branch, table, e.toString());
            return false;
        }
    }

    /** The rows each delete part removes: the keys its table holds now (newest unfolded write, else the head). */
    private Map<Fence.Admitted, Long> removedRows(String branch, HeadsState state, List<Fence.Admitted> admitted) {
        Catalog catalog = ctx.view().catalog();
        Map<Fence.Admitted, Long> out = new java.util.IdentityHashMap<>();
        for (Fence.Admitted a : admitted) {
            if (!(a.op() instanceof WriteOp.Delete d)) {
                continue;
            }
            List<String> keys = d.keys().keys();
            Map<String, UnfoldedWrites.Entry> tail = ctx.view().unfoldedNewest(branch, d.table(), keys);
            Set<String> untouched = new HashSet<>(keys);
            untouched.removeAll(tail.keySet());
            Set<String> atHead = untouched.isEmpty() ? Set.of()
                    : presence.presentAtHead(catalog.require(d.table()), branch, d.table(), head(state, a), untouched);
            long n = 0;
            for (String k : new LinkedHashSet<>(keys)) {
                UnfoldedWrites.Entry e = tail.get(k);
                if (e != null ? !e.deletes() : atHead.contains(k)) {
                    n++;
                }
            }
            out.put(a, n);
        }
        return out;
    }

    private static TableHead head(HeadsState state, Fence.Admitted a) {
        return state.head(a.op().branch(), a.op().table()).orElseThrow();
    }

    private boolean backPressured(String branch, String table) {
        if (ctx.view().unfoldedBytes() >= ctx.options().maxUnfoldedBytes()) {
            return true;
        }
        long lag = ctx.view().foldLagMillis(branch, table);
        return lag >= 0 && lag >= ctx.options().maxFoldLagMillis();
    }

    private static List<String> named(PalisadeException e) {
        return switch (e) {
            case io.palisade.fencing.EndpointConflictException c -> c.keys();
            case io.palisade.fencing.UniqueConflictException u -> List.of(u.writer());
            default -> List.of();
        };
    }

    private static List<String> first(Set<String> keys) {
        return keys.stream().limit(Integrity.NAMED).toList();
    }
}
