package io.palisade.coordinator.internal;

import io.palisade.coordinator.Catalog;

import io.palisade.fencing.KeyConflictException;
import io.palisade.fencing.IdempotencyMismatchException;
import io.palisade.fencing.KeyFilter;
import io.palisade.fencing.PalisadeException;
import io.palisade.fencing.ValidationException;
import io.palisade.fencing.WriteConflictException;
import io.palisade.fencing.action.Action;
import io.palisade.fencing.conflict.CommittedTransaction;
import io.palisade.fencing.conflict.Conflict;
import io.palisade.fencing.conflict.ConflictResolver;
import io.palisade.fencing.conflict.Transaction;
import io.palisade.fencing.conflict.Verdict;
import io.palisade.heads.HeadsState;
import io.palisade.heads.Pin;
import io.palisade.journal.JournalEvent;
import io.palisade.journal.TableHead;
import io.palisade.substrate.KeyedTable;
import io.palisade.substrate.KeylessTable;
import io.palisade.substrate.MaintenancePlan;
import io.palisade.substrate.TableRef;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;

/**
 * The fence: which operations of a group go on to Phase A (DESIGN §3 steps 1–2; docs/coordinator.md "Pipeline",
 * "Maintenance"). For each operation in queue order: an idempotency key already answered returns the first receipt,
 * and a second op with the key of an earlier one in the group (its twin) is answered with the twin's outcome;
 * then validation against the catalog (its exact key filter), maintenance planning and judging, deferral of an op
 * sharing a key with an earlier accepted or deferred op of the group to the next group, and, for a strict insert,
 * the winner check against the commits published since its base ({@link #keyCollision}).
 *
 * <p>It holds the memory of recent published commits: the last {@value #RECENT_COMMITS} per graph branch and table,
 * and no more than hold {@value #RECENT_KEYS} keys between them (the newest commit is always kept), each with its
 * intents' key-adding actions and, described from the substrate on first use, what its versions did. The key bound
 * keeps the memory of a journal-ack table's folds, each of which touches thousands of keys, in a few MiB. Forgetting a
 * commit only costs the check that names its winner: every write is committed on the table's head, where Lance finds
 * a key a forgotten commit inserted, and every maintenance plan is made on the head.
 * Every commit the committer publishes is {@linkplain #remember remembered}, and so is a bulk load's
 * ({@link #rememberCommit}).
 *
 * <p>Invariants: committer thread only (nothing here is thread-safe). It reads the catalog, the published heads and
 * the substrate (planning on the head, describing remembered versions); it writes no table and appends nothing to the
 * journal: the records of the ops it rejects are returned in {@link Admission#rejections} for the caller to journal
 * ahead of Phase A. It completes the future of every op it does not pass on and does not reject (an idempotent replay
 * with the first receipt, an invalid op with its failure; a twin completes when its twin does, with the same
 * outcome); a rejected op is returned with its failure in {@link Admission#rejected}, for the caller to complete once
 * its records are journaled, so that a writer told of a rejection finds it in the journal. It leaves the accepted and
 * deferred ops' futures alone; it
 * changes no op: what it learns of an op it passes on (its intent id, its key filter, a maintenance op's judged plan)
 * is returned in an {@link Admitted}, which the later stages take. Guarantees: no two accepted
 * ops share a key; an op is deferred exactly when it shares a key with an earlier accepted or deferred op of the group
 * (so writes of one key keep queue order); an accepted strict insert collides with no key added by a remembered
 * commit after its base (RFC-023 §6: a strict insert is never turned into an update); an accepted maintenance op's
 * plan was judged COMPATIBLE with every remembered commit since the version it was read at.
 */
final class Fence {
    private static final Logger LOG = LoggerFactory.getLogger(Fence.class);
    static final int RECENT_COMMITS = 4096;
    /** At most this many keys in the remembered commits of one graph branch and table (the newest is always kept). */
    static final long RECENT_KEYS = 262_144;

    /**
     * What the fence made of a group: the ops for Phase A, in queue order; the ops deferred to the next group, in
     * queue order (unchanged: fenced again there); the ops it rejected with journaled records, in queue order, each with
     * the failure to complete it with once those records are journaled (not completed yet); the records of those
     * rejections, to journal (with Phase A, or alone when nothing was accepted).
     * Invariants: every op of the group is in at most one of the lists; an op in none was answered by the fence (an
     * idempotent replay, a twin, an invalid op or an unplannable maintenance op); no two accepted ops share a key.
     */
    record Admission(List<Admitted> accepted, List<WriteOp> deferred, List<Lost> rejected,
                     List<JournalEvent> rejections) {
    }

    /**
     * An op the fence passed on (or rejected with journaled records), with what it learned of it: {@code intentId},
     * the id its intent is journaled under (a fold's own, else a new {@code i-…}); {@code keys}, its exact validated
     * key filter (null for an op without keys: a keyless table's write, added columns, maintenance); {@code plan}, a
     * maintenance op's plan, judged COMPATIBLE with every remembered commit since the version it was read at (null for
     * any other op). Invariants: {@code op} and {@code intentId} non-null; {@code plan} non-null exactly when
     * {@code op.maintenance()} (a rejected maintenance op: its last plan); a fold's {@code intentId} and {@code keys}
     * are its own.
     */
    record Admitted(WriteOp op, String intentId, KeyFilter keys, MaintenancePlan plan) {
        Admitted {
            Objects.requireNonNull(op, "op");
            Objects.requireNonNull(intentId, "intentId");
            if ((plan != null) != op.maintenance()) {
                throw new IllegalArgumentException(op.kind() + " " + intentId + (plan == null ? " without" : " with")
                        + " a maintenance plan");
            }
        }
    }

    /**
     * A commit remembered for conflict checks of operations based before it: the versions
     * {@code (from.version, to.version]} of {@code to}'s table branch are its effect (the committer is the
     * table's single writer). {@code keyAdds} holds, per intent, the journaled actions of the writes that
     * add keys (strict inserts, upserts, keyed overwrites): the strict-insert check judges only those,
     * since a delete's keys must not read as a collision with a later insert of the same key. Every other
     * check judges the commit by what it did, named by {@link io.palisade.substrate.CatalogActions#of} from the
     * substrate's description of its versions (described once, lazily, on the committer thread).
     */
    private final class Recent {
        final String table;
        final boolean keyed;
        final TableRef from;
        final TableRef to;
        final List<String> intents;
        final List<CommittedTransaction> keyAdds;
        final Optional<KeyFilter> keys;
        private List<Action> described;

        Recent(String table, boolean keyed, TableRef from, TableRef to, List<String> intents,
               List<CommittedTransaction> keyAdds, Optional<KeyFilter> keys, List<Action> described) {
            this.table = table;
            this.keyed = keyed;
            this.from = from;
            this.to = to;
            this.intents = List.copyOf(intents);
            this.keyAdds = List.copyOf(keyAdds);
            this.keys = keys;
            this.described = described == null ? null : List.copyOf(described);
        }

        /** The keys the commit holds: its union filter's (key-adding intents' filters are parts of it). */
        long keyCount() {
            return keys.map(KeyFilter::size).orElse(0);
        }

        /** The commit as the resolver's winner, with the actions its versions did. */
        CommittedTransaction committed() {
            if (described == null) {
                described = WriteActions.ofVersions(WriteActions.describe(ctx.store(), table, from, to), keyed, keys);
            }
            return new CommittedTransaction(String.join(",", intents), to.version(), described);
        }
    }

    private final Context ctx;
    private final JournalPhases journal;
    private final Map<String, ArrayDeque<Recent>> recent = new HashMap<>();
    /** The keys the remembered commits of each graph branch and table hold between them. */
    private final Map<String, Long> recentKeys = new HashMap<>();

    Fence(Context ctx, JournalPhases journal) {
        this.ctx = ctx;
        this.journal = journal;
    }

    /**
     * Fences a group of compatible ops (one kind, graph branch and table) whose table is {@code def}, pinned at
     * {@code pin} in {@code state}; see the class comment for what it decides.
     */
    Admission admit(List<WriteOp> ops, Catalog.TableDef def, Pin pin, HeadsState state) {
        String where = ops.get(0).where();
        List<Admitted> accepted = new ArrayList<>();
        List<Lost> rejected = new ArrayList<>();
        List<JournalEvent> rejections = new ArrayList<>();
        Map<String, Admitted> byIdempotencyKey = new HashMap<>();
        KeyFilter acceptedKeys = null;
        List<WriteOp> deferred = new ArrayList<>();
        KeyFilter deferredKeys = null;
        for (WriteOp op : ops) {
            if (op.idempotencyKey().isPresent()) {
                Optional<io.palisade.heads.IntentReceipt> r = state.receipt(op.idempotencyKey().get());
                if (r.isPresent()) {
                    try {
                        RequestDigest.checkRepeat(op, r.get());
                    } catch (IdempotencyMismatchException e) {
                        ctx.meters().validationFailures.increment();
                        op.future().completeExceptionally(e);
                        continue;
                    }
                    ctx.meters().idempotentReplays.increment();
                    op.future().complete(Receipts.of(r.get(), state));
                    continue;
                }
                Admitted first = byIdempotencyKey.get(op.idempotencyKey().get());
                if (first != null) {
                    try {
                        RequestDigest.checkTwin(op, first.op(), first.intentId());
                    } catch (IdempotencyMismatchException e) {
                        ctx.meters().validationFailures.increment();
                        op.future().completeExceptionally(e);
                        continue;
                    }
                    WriteOp twin = first.op();
                    ctx.meters().idempotentReplays.increment();
                    twin.future().whenComplete((rc, ex) -> {
                        if (ex != null) {
                            op.future().completeExceptionally(ex);
                        } else {
                            op.future().complete(rc);
                        }
                    });
                    continue;
                }
            }
            KeyFilter keys;
            try {
                keys = BatchValidation.validate(def, op);
            } catch (ValidationException e) {
                ctx.meters().validationFailures.increment();
                op.future().completeExceptionally(e);
                continue;
            }
            // a fold names its intent itself (its plan names it too)
            String intentId = op instanceof WriteOp.Fold f ? f.intentId() : "i-" + UUID.randomUUID();
            MaintenancePlan plan = null;
            if (op.maintenance()) {
                Optional<MaintenancePlan> judged = planMaintenance(op, intentId, def, pin, where, rejected, rejections);
                if (judged.isEmpty()) {
                    continue;
                }
                plan = judged.get();
            }
            if (keys != null && ((acceptedKeys != null && acceptedKeys.intersects(keys))
                    || (deferredKeys != null && deferredKeys.intersects(keys)))) {
                // Same key twice in one group: serialise through the next group. A strict insert is not
                // rejected here: the op holding the key may still fail in Phase B (another of its keys
                // exists), and then this one conflicts with nothing. If the holder commits, the next
                // group's winner check rejects this op, naming the holder as the winning intent.
                // Every later op sharing a key with a deferred one is deferred too, so that no write of a
                // key overtakes an earlier write of the same key.
                deferred.add(op);
                deferredKeys = deferredKeys == null ? keys : deferredKeys.union(keys);
                continue;
            }
            Admitted admitted = new Admitted(op, intentId, keys, plan);
            // a journal-ack table's strict inserts are fenced against its unfolded writes and head (JournalAck)
            if (op instanceof WriteOp.Insert && keys != null && !def.journalAck()) {
                Optional<Conflict> winner = keyCollision(where, intentId, keys, op.baseVersion());
                if (winner.isPresent()) {
                    Conflict c = winner.get();
                    rejected.add(rejectKeyConflict(admitted, pin.head(), c.keys(), c.keys().size(), c.winnerId(),
                            rejections));
                    continue;
                }
            }
            if (op.idempotencyKey().isPresent()) {
                byIdempotencyKey.put(op.idempotencyKey().get(), admitted);
            }
            accepted.add(admitted);
            if (keys != null) {
                acceptedKeys = acceptedKeys == null ? keys : acceptedKeys.union(keys);
            }
        }
        // an update becomes the whole new rows of its keys, read now: the state its group commits on (Updates)
        return new Admission(Updates.resolve(ctx, def, accepted), deferred, rejected, rejections);
    }

    /**
     * The strict-insert winner check: whether adding {@code keys} (intent {@code intentId}, read at version
     * {@code since}) collides with a key added by a commit of {@code where} ({@code "<graph branch>/<table>"})
     * remembered as published after {@code since}. The fencing resolver judges it with exact key filters against
     * the key-adding intents of those commits only (a delete's keys never collide); the answer is the first key
     * collision, naming the winning intent and the colliding keys.
     */
    Optional<Conflict> keyCollision(String where, String intentId, KeyFilter keys, long since) {
        ArrayDeque<Recent> commits = recent.get(where);
        if (commits == null) {
            return Optional.empty();
        }
        List<CommittedTransaction> winners = new ArrayList<>();
        for (Recent r : commits) {
            if (r.to.version() > since) {
                winners.addAll(r.keyAdds);
            }
        }
        if (winners.isEmpty()) {
            return Optional.empty();
        }
        Verdict v = ConflictResolver.check(new Transaction(intentId, since, WriteActions.keyAdd(keys)), winners);
        return v.conflicts().stream().filter(Conflict::keyCollision).findFirst();
    }

    private Lost rejectKeyConflict(Admitted op, TableHead head, List<String> keys, long count, String winner,
                                   List<JournalEvent> rejections) {
        KeyConflictException e = new KeyConflictException(op.op().table(), keys, count, winner);
        rejections.addAll(journal.keyConflictRejection(op, head, e.getMessage(), winner, keys));
        ctx.meters().keyConflicts.increment();
        return new Lost(op, e);
    }

    /**
     * Plans a maintenance op on the head it will be committed on and judges the plan, as a transaction
     * read at the op's base, against every commit published since (DESIGN §3, docs/coordinator.md
     * "Maintenance"). COMPATIBLE: the plan is the op's. Any other verdict re-plans from the current head
     * (read version = head), at most {@code upsertRetries} times; when they are exhausted the intent is
     * journaled with its last plan and completed WRITE_CONFLICT, and the op fails with a retryable
     * {@link WriteConflictException}. A maintenance plan is committed exactly as planned, never as
     * rebased: Lance, not the resolver, decides what the commit writes. Returns the plan with which the op (intent
     * {@code intentId}) goes on to Phase A; when empty either its future is completed (no plan) or, when its retries
     * were exhausted, a rejection is added to {@code rejected} and its records to {@code rejections}.
     */
    private Optional<MaintenancePlan> planMaintenance(WriteOp op, String intentId, Catalog.TableDef def, Pin pin,
                                                      String where, List<Lost> rejected, List<JournalEvent> rejections) {
        TableHead head = pin.head();
        if (!pin.owned()) {
            // the branch reads another branch's version unchanged: nothing of its own to maintain, and a plan made on
            // that version cannot be committed on the fork its first write would make
            ctx.meters().validationFailures.increment();
            op.future().completeExceptionally(new ValidationException("graph branch '" + op.branch() + "' inherits table '"
                    + op.table() + "' unchanged from '" + pin.inheritedFrom() + "' (" + head.tableBranch() + "@"
                    + head.version() + "): it has no fragments or index of its own to maintain; maintain '"
                    + pin.inheritedFrom() + "', or write the branch first"));
            return Optional.empty();
        }
        TableRef at = new TableRef(head.tableBranch(), head.version());
        long readVersion = Math.max(0, op.baseVersion());
        for (int attempt = 0; ; attempt++) {
            MaintenancePlan plan;
            try {
                plan = plan(def, op, at);
            } catch (PalisadeException e) {
                if (e instanceof ValidationException) {
                    ctx.meters().validationFailures.increment();
                }
                op.future().completeExceptionally(e); // no plan: nothing journaled, nothing written
                return Optional.empty();
            }
            String reason;
            try {
                Verdict v = ConflictResolver.check(new Transaction(intentId, readVersion, plan.actions()),
                        winners(where, readVersion));
                if (v.outcome() == Verdict.Outcome.COMPATIBLE) {
                    return Optional.of(plan);
                }
                reason = v.outcome() + ": " + v.reason();
            } catch (PalisadeException e) {
                reason = "a winner could not be named: " + e.getMessage(); // judged conservatively: a conflict
            }
            ctx.meters().writeConflicts.increment();
            if (attempt >= ctx.options().upsertRetries()) {
                WriteConflictException e = new WriteConflictException(op.kind() + " of " + where + " planned at " + at
                        + " conflicts with commits since its base v" + readVersion + " (" + reason + "); retry");
                Admitted last = new Admitted(op, intentId, null, plan);
                rejections.addAll(journal.writeConflictRejection(last, head, e.getMessage()));
                rejected.add(new Lost(last, e));
                return Optional.empty();
            }
            LOG.info("{} of {}: plan judged against winners since v{}: {}; planning again from the head", op.kind(), where,
                    readVersion, reason);
            ctx.meters().maintenanceReplans.increment();
            ctx.meters().retries.increment();
            readVersion = head.version();
        }
    }

    /** The maintenance plan of {@code op} at the exact state {@code at}. */
    private MaintenancePlan plan(Catalog.TableDef def, WriteOp op, TableRef at) {
        if (def.kind().keyed()) {
            try (KeyedTable t = ctx.store().openKeyed(op.table(), at)) {
                return switch (op.kind()) {
                    case OPTIMIZE_INDEX -> t.planIndexOptimize();
                    case COMPACT -> t.planCompaction(AutoMaintenance.target(ctx.options()));
                    case INSERT, UPSERT, UPDATE, DELETE, APPEND, OVERWRITE, ADD_COLUMNS, FOLD ->
                            throw new IllegalArgumentException(op.kind() + " is not maintenance");
                };
            }
        }
        try (KeylessTable t = ctx.store().openKeyless(op.table(), at)) {
            return switch (op.kind()) {
                case COMPACT -> t.planCompaction(AutoMaintenance.target(ctx.options()));
                case OPTIMIZE_INDEX -> throw new ValidationException("table '" + op.table() + "' is append-only and has no key index");
                case INSERT, UPSERT, UPDATE, DELETE, APPEND, OVERWRITE, ADD_COLUMNS, FOLD ->
                        throw new IllegalArgumentException(op.kind() + " is not maintenance");
            };
        }
    }

    /** Every remembered commit of {@code where} after {@code readVersion}, as the resolver's winners. */
    private List<CommittedTransaction> winners(String where, long readVersion) {
        List<CommittedTransaction> out = new ArrayList<>();
        ArrayDeque<Recent> commits = recent.get(where);
        if (commits != null) {
            for (Recent r : commits) {
                if (r.to.version() > readVersion) {
                    out.add(r.committed());
                }
            }
        }
        return out;
    }

    /**
     * Remembers a commit published by another path on this thread (a bulk load): judged by what its
     * versions did; never a key-add winner of the strict-insert check (its keys are not journaled).
     */
    void rememberCommit(String branch, String table, boolean keyed, TableRef from, TableRef to, String intentId) {
        remember(WriteOp.where(branch, table), new Recent(table, keyed, from, to, List.of(intentId), List.of(),
                Optional.empty(), null));
    }

    /**
     * Remembers a published commit of {@code committed} that moved {@code where}'s table from {@code from} to
     * {@code to} (every committed op is remembered: writes, deletes, overwrites, schema changes, maintenance).
     * {@code described}: the commit's actions when already known (maintenance verified them), else null
     * (described on first use).
     */
    void remember(String where, boolean keyed, TableRef from, TableRef to, List<Admitted> committed, List<Action> described) {
        List<CommittedTransaction> keyAdds = new ArrayList<>();
        KeyFilter keys = null;
        for (Admitted op : committed) {
            // a fold's keys include the ones it deletes, and its table's inserts are fenced by JournalAck
            if (op.keys() != null && !(op.op() instanceof WriteOp.Delete) && !(op.op() instanceof WriteOp.Fold)) {
                keyAdds.add(new CommittedTransaction(op.intentId(), to.version(), WriteActions.of(op)));
            }
            if (op.keys() != null) {
                keys = keys == null ? op.keys() : keys.union(op.keys());
            }
        }
        remember(where, new Recent(committed.get(0).op().table(), keyed, from, to,
                committed.stream().map(Admitted::intentId).toList(), keyAdds, Optional.ofNullable(keys), described));
    }

    private void remember(String where, Recent commit) {
        ArrayDeque<Recent> q = recent.computeIfAbsent(where, k -> new ArrayDeque<>());
        q.addLast(commit);
        long keys = recentKeys.getOrDefault(where, 0L) + commit.keyCount();
        while (q.size() > RECENT_COMMITS || (keys > RECENT_KEYS && q.size() > 1)) {
            keys -= q.pollFirst().keyCount();
        }
        recentKeys.put(where, keys);
    }

    /** How many commits and keys the fence remembers of {@code where} (for the memory bound's test). */
    long[] remembered(String where) {
        ArrayDeque<Recent> q = recent.get(where);
        return new long[]{q == null ? 0 : q.size(), recentKeys.getOrDefault(where, 0L)};
    }
}
