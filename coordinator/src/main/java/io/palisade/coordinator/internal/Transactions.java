package io.palisade.coordinator.internal;

import io.palisade.coordinator.Catalog;
import io.palisade.coordinator.Receipt;
import io.palisade.coordinator.TransactionReceipt;
import io.palisade.fencing.CommitStateUnknownException;
import io.palisade.fencing.IdempotencyMismatchException;
import io.palisade.fencing.KeyConflictException;
import io.palisade.fencing.KeyFilter;
import io.palisade.fencing.PalisadeException;
import io.palisade.fencing.ValidationException;
import io.palisade.heads.HeadsState;
import io.palisade.heads.IntentReceipt;
import io.palisade.heads.Pin;
import io.palisade.journal.JournalEvent;
import io.palisade.journal.TableHead;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * The commit of graph transactions on the committer thread (docs/transactions.md): inserts, upserts and deletes of
 * several tables of one graph branch, published together or not at all. The transactions queued together are
 * judged one after another, each against the state the ones before it leave, and journaled in one append.
 * <ol>
 *   <li>Each part is fenced as a write of its own ({@link Fence}: validation against the catalog); no key is written
 *       twice on one table; each strict insert's keys must be new to its table's newest state (the transactions of
 *       the batch before it, then the unfolded writes, then the folded head); then the parts are judged together by
 *       the integrity checks ({@link TransactionIntegrity}). The part at fault fails the whole transaction: its own
 *       intent and conflict completion are journaled (the explanation of the refusal), nothing else of it.</li>
 *   <li>One append, one sync for the batch: per transaction, the {@code TransactionStarted} naming its parts, every
 *       part's {@code IntentRecorded} (its table's head to itself) and {@code RowsRecorded}, then the
 *       {@code TransactionCommitted} naming them all: its commit point.
 *       Replay adds every part to its table's unfolded writes at that record, and none before it, so no reader through
 *       Palisade sees part of a transaction at any journal position, and a crash before it leaves none of it.</li>
 *   <li>The parts of table-ack tables are folded into their tables (one fold per table for the batch, through the
 *       ordinary fold with its own crash points and recovery) before the receipts are given; the parts of journal-ack
 *       tables fold as any acknowledged write does. A fold that fails leaves its parts acknowledged and unfolded,
 *       readable, folded later (before any other operation on that table).</li>
 * </ol>
 * Crash point {@code after-transaction-commit} follows the batch's sync, once per transaction it committed;
 * {@code transaction-torn}, when it is the one configured, journals each transaction in two appends, so that a crash
 * finds the parts journaled without their commit point. Committer thread only; runs after the fold in flight has been
 * published.
 */
final class Transactions {
    private static final Logger LOG = LoggerFactory.getLogger(Transactions.class);

    /** The most rows bytes a part may carry: one journal record's payload, less room for its other fields. */
    static final int MAX_PART_BYTES = io.palisade.journal.codec.RecordDescriptor.MAX_PAYLOAD_LENGTH - (1 << 20);

    private final Context ctx;
    private final JournalPhases journal;
    private final Fence fence;
    private final KeyPresence presence;
    private final Integrity integrity;
    private final TransactionIntegrity checks;
    private final Folder folder;
    /**
     * For the batch being judged: per {@code "<branch>/<table>/"}, the keys its deletes name that the folded head
     * holds, looked up once for the whole batch (null outside a batch); {@link #askedAtHead} the keys asked.
     */
    private Map<String, Set<String>> atHead;
    private Map<String, Set<String>> askedAtHead;

    /**
     * A queued graph transaction: its graph branch, its parts in order, its idempotency key and its request's digest
     * ({@link RequestDigest#ofTransaction}; null without a key), and the writer's future.
     */
    record Queued(String branch, List<WriteOp> parts, Optional<String> key, String digest,
                  CompletableFuture<TransactionReceipt> future, int named) {
        Queued {
            parts = List.copyOf(parts);
            if (key.isPresent() != (digest != null)) {
                throw new IllegalArgumentException("a transaction's digest goes with its idempotency key");
            }
            if (named < 0 || named > parts.size()) {
                throw new IllegalArgumentException("a transaction names 0 to " + parts.size() + " parts, not " + named);
            }
        }

        /** A transaction of the parts its writer named (none cascaded yet). */
        Queued(String branch, List<WriteOp> parts, Optional<String> key, String digest,
               CompletableFuture<TransactionReceipt> future) {
            this(branch, parts, key, digest, future, parts.size());
        }

        /**
         * Whether part {@code i} journals an idempotency key: a part the writer named, in a transaction with a key (the
         * edge deletes a cascade adds carry none: they are the named parts' consequence, judged anew by a repeat).
         */
        boolean keyed(int i) {
            return key.isPresent() && i < named;
        }

        /**
         * The idempotency key part {@code i} journals: the transaction's key for the first part, {@code "<key>#<i>"}
         * for the others (the key answers a repeat; the others keep every part's receipt under a key of its own).
         */
        String partKey(int i) {
            return i == 0 ? key.orElseThrow() : key.orElseThrow() + "#" + i;
        }
    }

    /** A transaction the batch accepted: its id, parts, the rows each delete removes, and its records. */
    private record Accepted(Queued tx, String id, List<Fence.Admitted> parts, Map<Fence.Admitted, Long> removed,
                            List<JournalEvent> records, TableHead[] heads) {
    }

    /** What the batch's earlier transactions did to a key: held by {@code intentId}, or deleted ({@code held} false). */
    private record Touch(boolean held, String intentId) {
    }

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

    /**
     * Commits the transactions of {@code batch}, in order; completes each one's future (a receipt, or the typed failure
     * of a transaction refused or of bad input).
     */
    void commit(List<Queued> batch) {
        List<Queued> valid = new ArrayList<>();
        Map<String, Queued> keyed = new HashMap<>(); // every part key of the batch's keyed transactions: its owner
        for (Queued q : batch) {
            try {
                validate(q);
                if (q.key().isPresent() && repeated(q, keyed)) {
                    continue;
                }
                valid.add(q);
            } catch (PalisadeException e) {
                if (e instanceof IdempotencyMismatchException) {
                    ctx.meters().validationFailures.increment();
                }
                q.future().completeExceptionally(e);
            }
        }
        if (valid.isEmpty()) {
            return;
        }
        // the memory and lag bounds hold for a transaction's parts too: fold first, before anything is judged
        Set<String> folded = new HashSet<>();
        for (Queued q : valid) {
            for (WriteOp op : q.parts()) {
                if (ctx.view().catalog().require(op.table()).journalAck() && folded.add(op.where())
                        && backPressured(q.branch(), op.table())) {
                    folder.fold(q.branch(), op.table());
                }
            }
        }
        HeadsState state = ctx.view().state();
        askedAtHead = new HashMap<>();
        atHead = lookUpAtHead(valid, state, askedAtHead);
        Map<String, Touch> touched = new HashMap<>();
        List<Accepted> accepted = new ArrayList<>();
        Map<Queued, PalisadeException> refused = new LinkedHashMap<>();
        List<JournalEvent> events = new ArrayList<>();
        integrity.holdEviction(); // the images hold transactions not journaled yet until the append
        try {
            for (Queued named : valid) {
                try {
                    Queued q = cascaded(named, state);
                    Accepted a = judge(q, state, touched, events);
                    accepted.add(a);
                    events.addAll(a.records());
                    for (Fence.Admitted p : a.parts()) {
                        boolean held = !(p.op() instanceof WriteOp.Delete);
                        for (String k : p.keys().keys()) {
                            touched.put(where(p.op()) + k, new Touch(held, p.intentId()));
                        }
                    }
                } catch (PalisadeException e) {
                    refused.put(named, e);
                }
            }
            Map<Accepted, Long> commitSeq = append(accepted, events);
            published(accepted, commitSeq, refused);
        } catch (RuntimeException | Error e) {
            // the journal may not hold what the images do: every image the batch touched is rebuilt on next use
            // (and the key filters, which the parts may or may not have reached)
            for (Accepted a : accepted) {
                a.parts().forEach(p -> {
                    integrity.forget(p.op().branch(), p.op().table());
                    presence.invalidate(p.op().branch(), p.op().table());
                });
            }
            PalisadeException failure = e instanceof PalisadeException p ? p
                    : new CommitStateUnknownException("internal error while committing graph transactions: " + e, e);
            accepted.forEach(a -> a.tx().future().completeExceptionally(failure));
            refused.forEach((q, x) -> q.future().completeExceptionally(x));
            if (e instanceof Error err) {
                throw err;
            }
        } finally {
            atHead = null;
            askedAtHead = null;
            integrity.releaseEviction();
        }
    }

    /**
     * Whether keyed transaction {@code q} is a repeat, answered now: of a committed transaction (its receipt), or of
     * an earlier transaction of the batch with the same key (that one's answer, when it comes). Otherwise claims its
     * part keys in {@code keyed}.
     *
     * @throws IdempotencyMismatchException when its key, or a part key, names another request
     */
    private boolean repeated(Queued q, Map<String, Queued> keyed) {
        Optional<TransactionReceipt> first = repeat(ctx.view().state(), q);
        if (first.isPresent()) {
            ctx.meters().idempotentReplays.increment();
            q.future().complete(first.get());
            return true;
        }
        Queued twin = keyed.get(q.partKey(0));
        if (twin != null && twin.key().equals(q.key()) && twin.digest().equals(q.digest())) {
            ctx.meters().idempotentReplays.increment();
            twin.future().whenComplete((r, e) -> {
                if (e != null) {
                    q.future().completeExceptionally(e);
                } else {
                    q.future().complete(r);
                }
            });
            return true;
        }
        Map<String, String> openKeys = new HashMap<>();
        for (io.palisade.heads.OpenIntent o : ctx.view().state().openIntents()) {
            if (o.recorded().idempotencyKey() != null) {
                openKeys.put(o.recorded().idempotencyKey(), o.intentId());
            }
        }
        for (int i = 0; i < q.parts().size(); i++) {
            if (keyed.containsKey(q.partKey(i))) {
                throw new IdempotencyMismatchException(q.partKey(i), null);
            }
            if (openKeys.containsKey(q.partKey(i))) {
                // an intent left open (a commit of unknown outcome) holds the key: it answers no repeat yet
                throw new IdempotencyMismatchException(q.partKey(i), openKeys.get(q.partKey(i)));
            }
        }
        for (int i = 0; i < q.parts().size(); i++) {
            keyed.put(q.partKey(i), q);
        }
        return false;
    }

    /**
     * The receipt of the committed transaction whose idempotency key {@code q} repeats, from the receipts the heads
     * state keeps for its parts' keys; empty when the key names none. The parts were completed together by one commit
     * point, so their receipts are kept and expire together.
     *
     * @throws IdempotencyMismatchException when the key, or one of {@code q}'s part keys, was given to another request
     */
    static Optional<TransactionReceipt> repeat(HeadsState state, Queued q) {
        Optional<IntentReceipt> first = state.receipt(q.partKey(0));
        List<Receipt> parts = new ArrayList<>();
        for (int i = 0; i < q.parts().size(); i++) {
            Optional<IntentReceipt> r = i == 0 ? first : state.receipt(q.partKey(i));
            if (first.isEmpty()) {
                if (r.isPresent()) {
                    throw new IdempotencyMismatchException(q.partKey(i), r.get().intentId());
                }
                continue;
            }
            if (r.isEmpty() || !q.digest().equals(r.get().requestDigest())
                    || r.get().completionSequence() != first.get().completionSequence()) {
                throw new IdempotencyMismatchException(q.partKey(0), first.get().intentId());
            }
            parts.add(Receipts.of(r.get(), state));
        }
        return first.map(r -> new TransactionReceipt(transactionId(r.intentId()), r.completionSequence(), q.branch(),
                parts));
    }

    /** The id of the transaction whose first part is intent {@code firstPart}: the same UUID, prefix {@code t-}. */
    static String transactionId(String firstPart) {
        return "t-" + firstPart.substring(firstPart.indexOf('-') + 1);
    }

    /**
     * The keys the batch's deletes name that each table's folded head holds (a key an unfolded write touched is the
     * tail's to answer): one lookup per table for the batch, not one per part.
     */
    private Map<String, Set<String>> lookUpAtHead(List<Queued> batch, HeadsState state,
                                                  Map<String, Set<String>> askedOut) {
        Map<String, Set<String>> asked = new LinkedHashMap<>();
        Map<String, WriteOp> sample = new HashMap<>();
        for (Queued q : batch) {
            for (WriteOp op : q.parts()) {
                // a delete's keys are mostly held, so each would cost a lookup; an insert's new keys rarely pass the
                // key filter, and are looked up per part
                List<String> keys = op instanceof WriteOp.Delete d ? d.keys().keys() : List.of();
                if (!keys.isEmpty()) {
                    asked.computeIfAbsent(where(op), w -> new HashSet<>()).addAll(keys);
                    sample.putIfAbsent(where(op), op);
                }
            }
        }
        Map<String, Set<String>> out = new HashMap<>();
        asked.forEach((w, keys) -> {
            WriteOp op = sample.get(w);
            Optional<TableHead> head = state.head(op.branch(), op.table());
            if (head.isEmpty()) {
                return; // the part fails at its fence; nothing to look up
            }
            Map<String, UnfoldedWrites.Entry> tail = ctx.view().unfoldedNewest(op.branch(), op.table(), keys);
            Set<String> untouched = new HashSet<>(keys);
            untouched.removeAll(tail.keySet());
            askedOut.put(w, untouched);
            out.put(w, untouched.isEmpty() ? Set.of() : presence.presentAtHead(ctx.view().catalog().require(op.table()),
                    op.branch(), op.table(), head.get(), untouched));
        });
        return out;
    }

    /** The key of a table's key in {@code touched}: {@code "<branch>/<table>/"}. */
    private static String where(WriteOp op) {
        return op.where() + "/";
    }

    /** Refuses what no state makes right: no parts, an update or append, an unknown branch or table, a refused table. */
    private void validate(Queued q) {
        if (q.parts().isEmpty()) {
            throw new ValidationException("a transaction needs at least one insert, upsert or delete");
        }
        Catalog catalog = ctx.view().catalog();
        for (WriteOp op : q.parts()) {
            if (!op.branch().equals(q.branch())) {
                throw new IllegalArgumentException("a part of a transaction on '" + q.branch() + "' writes branch '"
                        + op.branch() + "'");
            }
            rebased(op, op.submission()); // refuses every kind but insert, upsert and delete
        }
        if (!ctx.view().state().branchLive(q.branch())) {
            throw new ValidationException("unknown graph branch '" + q.branch() + "'");
        }
        for (WriteOp op : q.parts()) {
            Catalog.TableDef def = catalog.require(op.table());
            if (!def.kind().keyed()) {
                throw new ValidationException("table '" + op.table() + "' is append-only: a transaction writes keyed "
                        + "tables");
            }
            Optional<PalisadeException> r = ctx.refusals().refusal(q.branch(), op.table());
            if (r.isPresent()) {
                throw r.get();
            }
            if (op instanceof WriteOp.Delete d) {
                requireFits(d.keys(), op.table());
            }
            JournalRowsMemo rows = op.submittedRows();
            if (rows != null && rows.bytes().length > MAX_PART_BYTES) {
                throw new ValidationException("a part of the transaction writes " + rows.bytes().length / (1 << 20)
                        + " MiB of rows to '" + op.table() + "'; a part's rows are one journal record, at most "
                        + MAX_PART_BYTES / (1 << 20) + " MiB: write them in several transactions");
            }
        }
    }

    /**
     * {@code q} with, after its own parts, a delete of every edge its node deletes take along: the edges of the tables
     * that declare {@code "on_endpoint_delete": "cascade"} naming a deleted node, as the batch's integrity images hold
     * them now (an edge the transaction writes itself is left to that write). {@code q} itself when there are none.
     * Finding a node's edges reads the edge table's image (every edge, when the node has one).
     */
    private Queued cascaded(Queued q, HeadsState state) {
        Catalog catalog = ctx.view().catalog();
        if (q.parts().stream().noneMatch(op -> op instanceof WriteOp.Delete && catalog.cascadesFrom(op.table()))) {
            return q;
        }
        Map<String, Set<String>> written = new HashMap<>();
        for (WriteOp op : q.parts()) {
            written.computeIfAbsent(op.table(), t -> new HashSet<>()).addAll(keys(op));
        }
        Map<String, Set<String>> cascade = new LinkedHashMap<>();
        for (WriteOp op : q.parts()) {
            if (!(op instanceof WriteOp.Delete d) || !catalog.cascadesFrom(op.table())) {
                continue;
            }
            for (Catalog.Endpoint e : catalog.endpointsInto(op.table())) {
                Catalog.TableDef edge = catalog.require(e.edge());
                if (!edge.cascade()) {
                    continue;
                }
                TableImage image = integrity.image(edge, q.branch(), state);
                int col = image.column(e.column());
                Set<String> named = new LinkedHashSet<>();
                for (String k : d.keys().keys()) {
                    if (image.count(col, k) > 0) {
                        named.add(k);
                    }
                }
                if (named.isEmpty()) {
                    continue;
                }
                for (String id : image.rowsNaming(col, named, Integer.MAX_VALUE)) {
                    if (!written.getOrDefault(edge.name(), Set.of()).contains(id)) {
                        cascade.computeIfAbsent(edge.name(), t -> new LinkedHashSet<>()).add(id);
                    }
                }
            }
        }
        if (cascade.isEmpty()) {
            return q;
        }
        List<WriteOp> parts = new ArrayList<>(q.parts());
        for (Map.Entry<String, Set<String>> c : cascade.entrySet()) {
            Optional<PalisadeException> r = ctx.refusals().refusal(q.branch(), c.getKey());
            if (r.isPresent()) {
                throw r.get();
            }
            KeyFilter edges = catalog.require(c.getKey()).keyFilter(new ArrayList<>(c.getValue()));
            requireFits(edges, c.getKey());
            parts.add(new WriteOp.Delete(WriteOp.Submission.of(q.branch(), c.getKey(), -1, Optional.empty()), edges));
        }
        return new Queued(q.branch(), parts, q.key(), q.digest(), q.future(), q.named());
    }

    /**
     * Refuses a delete of {@code keys} from {@code table} whose key filter would not fit one journal record (its
     * intent carries it).
     */
    private static void requireFits(KeyFilter keys, String table) {
        if (keys.size() > 4096 && keys.encode().length > MAX_PART_BYTES) {
            throw new ValidationException("a delete of " + keys.size() + " keys of '" + table + "' (cascaded edges "
                    + "included) does not fit one journal record of " + MAX_PART_BYTES / (1 << 20) + " MiB: delete "
                    + "them in several transactions");
        }
    }

    /** The keys {@code op} (an insert, upsert or delete) writes. */
    private static List<String> keys(WriteOp op) {
        if (op instanceof WriteOp.Delete d) {
            return d.keys().keys();
        }
        org.apache.arrow.vector.VectorSchemaRoot rows = SubstrateWrites.rows(op);
        org.apache.arrow.vector.FieldVector ids = rows.getVector("id");
        if (ids == null) {
            return List.of(); // the part's fence refuses it
        }
        List<String> out = new ArrayList<>(rows.getRowCount());
        for (int i = 0; i < rows.getRowCount(); i++) {
            out.add(String.valueOf(ids.getObject(i)));
        }
        return out;
    }

    /**
     * Judges one transaction against {@code state} and what the batch's earlier transactions {@code touched}; its
     * records when accepted. A refusal throws its typed failure, its explanation added to {@code events}.
     */
    private Accepted judge(Queued q, HeadsState state, Map<String, Touch> touched, List<JournalEvent> events) {
        List<Fence.Admitted> admitted = admit(q, state, events);
        strictInserts(state, admitted, touched, events);
        Map<Fence.Admitted, Long> removed = removedRows(state, admitted, touched);
        // last: once the checks pass, the images hold the transaction (nothing below fails it)
        Optional<TransactionIntegrity.Refusal> refusal = checks.judge(q.branch(), state, admitted);
        if (refusal.isPresent()) {
            Fence.Admitted a = refusal.get().part();
            PalisadeException e = refusal.get().error();
            events.addAll(journal.integrityRejection(a, head(state, a), e.getMessage(), named(e)));
            throw e;
        }
        String id = transactionId(admitted.get(0).intentId());
        List<String> intents = admitted.stream().map(Fence.Admitted::intentId).toList();
        List<JournalEvent> records = new ArrayList<>();
        records.add(new JournalEvent.TransactionStarted(id, q.branch(), intents));
        TableHead[] heads = new TableHead[admitted.size()];
        for (int i = 0; i < admitted.size(); i++) {
            Fence.Admitted a = admitted.get(i);
            WriteOp op = a.op();
            heads[i] = head(state, a);
            records.add(journal.acknowledgedIntent(a, heads[i]));
            boolean delete = op instanceof WriteOp.Delete;
            records.add(new JournalEvent.RowsRecorded(a.intentId(), op.branch(), op.table(),
                    delete ? 0 : SubstrateWrites.rows(op).getRowCount(), delete ? new byte[0] : op.submittedRows().bytes()));
        }
        records.add(new JournalEvent.TransactionCommitted(id, q.branch(), intents));
        return new Accepted(q, id, admitted, removed, records, heads);
    }

    private static ValidationException unsupported(WriteOp op) {
        return new ValidationException("a transaction takes inserts, upserts and deletes, not " + op.kind());
    }

    /** Each part through the fence on its own, based at its table's head now; no key twice on one table. */
    private List<Fence.Admitted> admit(Queued q, HeadsState state, List<JournalEvent> events) {
        Catalog catalog = ctx.view().catalog();
        List<Fence.Admitted> admitted = new ArrayList<>();
        Map<String, KeyFilter> written = new HashMap<>();
        for (int i = 0; i < q.parts().size(); i++) {
            WriteOp part = q.parts().get(i);
            Catalog.TableDef def = catalog.require(part.table());
            Pin pin = state.pin(q.branch(), part.table()).orElseThrow(() -> new ValidationException("table '"
                    + part.table() + "' has no head on branch '" + q.branch() + "'"));
            WriteOp op = rebased(part, new WriteOp.Submission(q.branch(), part.table(), pin.head().version(),
                    q.keyed(i) ? Optional.of(q.partKey(i)) : Optional.empty(), new CompletableFuture<>(),
                    System.nanoTime(), q.keyed(i) ? q.digest() : null));
            Fence.Admission a = fence.admit(List.of(op), def, pin, state);
            if (a.accepted().size() != 1) {
                if (!a.rejected().isEmpty()) {
                    events.addAll(a.rejections());
                    throw a.rejected().get(0).failure();
                }
                throw failure(op); // the fence failed it (bad input): nothing journaled
            }
            Fence.Admitted one = a.accepted().get(0);
            KeyFilter before = written.get(def.name());
            if (before != null && before.intersects(one.keys())) {
                Set<String> twice = new LinkedHashSet<>(one.keys().keys());
                twice.retainAll(new HashSet<>(before.keys()));
                throw new ValidationException("table '" + def.name() + "': key" + (twice.size() == 1 ? " " : "s ")
                        + String.join(", ", first(twice)) + " written twice in one transaction; write each key of a "
                        + "table once per transaction");
            }
            written.put(def.name(), before == null ? one.keys() : before.union(one.keys()));
            admitted.add(one);
        }
        return admitted;
    }

    /**
     * {@code op} with submission {@code s}: based at the head the transaction is judged on, with its part key and the
     * transaction's digest.
     */
    private static WriteOp rebased(WriteOp op, WriteOp.Submission s) {
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
     * Whether each of {@code keys} of {@code a}'s table is held now: as the batch's earlier transactions left it, else
     * as the newest unfolded write of the key left it, else as the folded head holds it. The holder's intent, when a
     * write names it, in {@code holders}.
     */
    private Set<String> held(HeadsState state, Fence.Admitted a, List<String> keys, Map<String, Touch> touched,
                             Map<String, String> holders) {
        WriteOp op = a.op();
        Set<String> held = new LinkedHashSet<>();
        List<String> rest = new ArrayList<>();
        for (String k : keys) {
            Touch t = touched.get(where(op) + k);
            if (t == null) {
                rest.add(k);
            } else if (t.held()) {
                held.add(k);
                holders.putIfAbsent(k, t.intentId());
            }
        }
        Map<String, UnfoldedWrites.Entry> tail = ctx.view().unfoldedNewest(op.branch(), op.table(), rest);
        Set<String> untouched = new HashSet<>();
        for (String k : rest) {
            UnfoldedWrites.Entry e = tail.get(k);
            if (e == null) {
                untouched.add(k);
            } else if (!e.deletes()) {
                held.add(k);
                holders.putIfAbsent(k, e.intentId);
            }
        }
        if (!untouched.isEmpty()) {
            Set<String> looked = atHead == null || !(op instanceof WriteOp.Delete) ? null : atHead.get(where(op));
            if (looked != null) {
                // the batch's lookup answers the keys it was asked (a cascade's edge deletes were not among them)
                Set<String> asked = askedAtHead.getOrDefault(where(op), Set.of());
                Set<String> unasked = new HashSet<>();
                for (String k : untouched) {
                    if (!asked.contains(k)) {
                        unasked.add(k);
                    } else if (looked.contains(k)) {
                        held.add(k);
                    }
                }
                if (!unasked.isEmpty()) {
                    held.addAll(presence.presentAtHead(ctx.view().catalog().require(op.table()), op.branch(),
                            op.table(), head(state, a), unasked));
                }
            } else {
                held.addAll(presence.presentAtHead(ctx.view().catalog().require(op.table()), op.branch(), op.table(),
                        head(state, a), untouched));
            }
        }
        return held;
    }

    /**
     * The strict-insert fence of the transaction's inserts: a held key fails the transaction with
     * {@link KeyConflictException} naming the table and keys (the part's intent and {@code KEY_CONFLICT} completion
     * added to {@code events}).
     */
    private void strictInserts(HeadsState state, List<Fence.Admitted> admitted, Map<String, Touch> touched,
                               List<JournalEvent> events) {
        for (Fence.Admitted a : admitted) {
            if (!(a.op() instanceof WriteOp.Insert)) {
                continue;
            }
            Map<String, String> holders = new HashMap<>();
            List<String> keys = a.keys().keys();
            Set<String> held = held(state, a, keys, touched, holders);
            if (!held.isEmpty()) {
                List<String> named = keys.stream().filter(held::contains).toList();
                String winner = holders.get(named.get(0));
                KeyConflictException c = new KeyConflictException(a.op().table(),
                        named.subList(0, Math.min(Integrity.NAMED, named.size())), named.size(), winner);
                ctx.meters().keyConflicts.increment();
                events.addAll(journal.keyConflictRejection(a, head(state, a), c.getMessage(), winner, named));
                throw c;
            }
        }
    }

    /** The rows each delete part removes: the keys held now (see {@link #held}). */
    private Map<Fence.Admitted, Long> removedRows(HeadsState state, List<Fence.Admitted> admitted,
                                                  Map<String, Touch> touched) {
        Map<Fence.Admitted, Long> out = new IdentityHashMap<>();
        for (Fence.Admitted a : admitted) {
            if (a.op() instanceof WriteOp.Delete d) {
                out.put(a, (long) held(state, a, new ArrayList<>(new LinkedHashSet<>(d.keys().keys())), touched,
                        new HashMap<>()).size());
            }
        }
        return out;
    }

    /**
     * Journals the batch: one append and one sync for every accepted transaction and every refusal's explanation
     * ({@code transaction-torn} armed: each transaction in two appends); the sequence of each one's commit point.
     */
    private Map<Accepted, Long> append(List<Accepted> accepted, List<JournalEvent> events) {
        Map<Accepted, Long> commitSeq = new IdentityHashMap<>();
        if (events.isEmpty()) {
            return commitSeq;
        }
        // where each accepted transaction's records start in the batch (they were added in order, whole)
        Map<Accepted, Integer> start = new IdentityHashMap<>();
        int from = 0;
        for (Accepted a : accepted) {
            JournalEvent firstRecord = a.records().get(0);
            int i = from;
            while (events.get(i) != firstRecord) {
                i++;
            }
            start.put(a, i);
            from = i + a.records().size();
        }
        if (!CrashPoints.armedAt("transaction-torn")) {
            long first = journal.append(events);
            for (Accepted a : accepted) {
                commitSeq.put(a, first + start.get(a) + a.records().size() - 1);
            }
            return commitSeq;
        }
        // the crash suite's model of a tail torn inside a transaction: its parts durable, its commit point not
        int at = 0;
        for (Accepted a : accepted) {
            int s0 = start.get(a);
            int end = s0 + a.records().size();
            if (s0 > at) {
                journal.append(events.subList(at, s0));
            }
            journal.append(events.subList(s0, end - 1));
            CrashPoints.hit("transaction-torn");
            commitSeq.put(a, journal.append(events.subList(end - 1, end)));
            at = end;
        }
        if (at < events.size()) {
            journal.append(events.subList(at, events.size()));
        }
        return commitSeq;
    }

    /** After the batch's append: the folds of its table-ack parts, then every answer. */
    private void published(List<Accepted> accepted, Map<Accepted, Long> commitSeq,
                           Map<Queued, PalisadeException> refused) {
        for (Accepted a : accepted) {
            CrashPoints.hit("after-transaction-commit");
            ctx.meters().transactions.increment();
            for (Fence.Admitted p : a.parts()) {
                if (!(p.op() instanceof WriteOp.Delete)) {
                    presence.added(p.op().branch(), p.op().table(), p.keys().keys());
                }
            }
        }
        Map<String, Boolean> folded = new LinkedHashMap<>();
        for (Accepted a : accepted) {
            for (Fence.Admitted p : a.parts()) {
                WriteOp op = p.op();
                if (!ctx.view().catalog().require(op.table()).journalAck() && !folded.containsKey(op.where())) {
                    folded.put(op.where(), foldPart(op.branch(), op.table()));
                }
            }
        }
        HeadsState now = ctx.view().state();
        for (Accepted a : accepted) {
            List<Receipt> receipts = new ArrayList<>();
            for (int i = 0; i < a.parts().size(); i++) {
                Fence.Admitted p = a.parts().get(i);
                WriteOp op = p.op();
                boolean in = folded.getOrDefault(op.where(), false);
                long version = in ? now.head(op.branch(), op.table()).map(TableHead::version).orElse(-1L)
                        : a.heads()[i].version();
                receipts.add(new Receipt(p.intentId(), commitSeq.get(a), op.table(), op.branch(), version,
                        a.removed().getOrDefault(p, op.rowCount()), in));
            }
            a.tx().future().complete(new TransactionReceipt(a.id(), commitSeq.get(a), a.tx().branch(), receipts));
        }
        refused.forEach((q, e) -> q.future().completeExceptionally(e));
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
