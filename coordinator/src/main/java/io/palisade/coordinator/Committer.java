package io.palisade.coordinator;

import io.palisade.fencing.CommitStateUnknownException;
import io.palisade.fencing.GraphRefusedException;
import io.palisade.fencing.KeyConflictException;
import io.palisade.fencing.KeyFilter;
import io.palisade.fencing.PalisadeException;
import io.palisade.fencing.ValidationException;
import io.palisade.fencing.WriteConflictException;
import io.palisade.fencing.action.Action;
import io.palisade.fencing.action.ActionCodec;
import io.palisade.fencing.action.AddFragments;
import io.palisade.fencing.action.KeyScope;
import io.palisade.fencing.conflict.CommittedTransaction;
import io.palisade.fencing.conflict.Conflict;
import io.palisade.fencing.conflict.ConflictResolver;
import io.palisade.fencing.conflict.Transaction;
import io.palisade.fencing.conflict.Verdict;
import io.palisade.heads.HeadsState;
import io.palisade.heads.Pin;
import io.palisade.journal.ExpectedBase;
import io.palisade.journal.HeadTransition;
import io.palisade.journal.IntentOutcome;
import io.palisade.journal.JournalEvent;
import io.palisade.journal.JournalEvent.HeadPublished;
import io.palisade.journal.JournalEvent.IntentCompleted;
import io.palisade.journal.JournalEvent.IntentRecorded;
import io.palisade.journal.JournalEvent.TableCommitted;
import io.palisade.journal.LogicalOperation;
import io.palisade.journal.TableHead;
import io.palisade.substrate.CatalogActions;
import io.palisade.substrate.CommitDescription;
import io.palisade.substrate.CommitResult;
import io.palisade.substrate.KeyedTable;
import io.palisade.substrate.KeylessTable;
import io.palisade.substrate.MaintenancePlan;
import io.palisade.substrate.MergePath;
import io.palisade.substrate.TableRef;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.ManyToOneConcurrentArrayQueue;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.util.VectorSchemaRootAppender;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;

/**
 * The one committer of a graph (DESIGN §3): an Agrona agent draining a many-to-one queue. Per duty
 * cycle it takes every queued operation, groups compatible ones (same kind, graph branch and table)
 * and runs each group through the pipeline:
 * <ol>
 *   <li>validate each operation (schema, non-null and unique ids) and check it against the commits
 *       published since its base with the fencing resolver and exact key filters; a maintenance
 *       operation is first planned on the head and its planned actions judged likewise;</li>
 *   <li>Phase A: journal every intent (one sync);</li>
 *   <li>Phase B: one substrate commit for the whole group (fork a lazily inherited table branch first);</li>
 *   <li>(maintenance) verify the committed versions against the journaled plan;</li>
 *   <li>Phases C and D: journal the commit, the head transition and every completion (one sync); ack.</li>
 * </ol>
 * Invariants: only this thread appends to the journal and writes tables, so one substrate commit is in
 * flight per table; the published {@link HeadsState} is replaced only here, after the records it folds
 * are durable. Every published commit is remembered (with its actions, described from the substrate on
 * first use) as a winner for operations based before it.
 */
final class Committer implements Agent {
    private static final Logger LOG = LoggerFactory.getLogger(Committer.class);
    private static final int RECENT_COMMITS = 4096;

    /** A task to run on the committer thread, in queue order with the writes. */
    record Control(Callable<Object> task, CompletableFuture<Object> future) {
    }

    /**
     * A commit remembered for conflict checks of operations based before it: the versions
     * {@code (from.version, to.version]} of {@code to}'s table branch are its effect (the committer is the
     * table's single writer). {@code keyAdds} holds, per intent, the journaled actions of the writes that
     * add keys (strict inserts, upserts, keyed overwrites): the strict-insert check judges only those,
     * since a delete's keys must not read as a collision with a later insert of the same key. Every other
     * check judges the commit by what it did, named by {@link CatalogActions#of} from the substrate's
     * description of its versions (described once, lazily, on the committer thread).
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

        /** The commit as the resolver's winner, with the actions its versions did. */
        CommittedTransaction committed() {
            if (described == null) {
                described = describedActions(table, keyed, from, to, keys);
            }
            return new CommittedTransaction(String.join(",", intents), to.version(), described);
        }
    }

    private final Graph graph;
    private final ManyToOneConcurrentArrayQueue<Object> queue;
    private final ArrayDeque<Object> pending = new ArrayDeque<>();
    private final Map<String, ArrayDeque<Recent>> recent = new HashMap<>();
    private final Set<String> poisoned = new HashSet<>();
    /** Tables refused for the rest of the session because a write raced a foreign commit (issue 14). */
    private final Map<String, io.palisade.fencing.ForeignCommitException> refused = new HashMap<>();
    /** Row-adding commits per (graph branch/table) since its last index maintenance. */
    private final Map<String, Integer> sinceIndexRefresh = new HashMap<>();

    Committer(Graph graph, ManyToOneConcurrentArrayQueue<Object> queue) {
        this.graph = graph;
        this.queue = queue;
    }

    @Override
    public String roleName() {
        return "palisade-committer";
    }

    @Override
    public int doWork() {
        int drained = queue.drain(pending::addLast, graph.options().maxGroup() * 4);
        int work = 0;
        while (!pending.isEmpty()) {
            Object head = pending.pollFirst();
            work++;
            if (head instanceof Control c) {
                runControl(c);
                continue;
            }
            WriteOp first = (WriteOp) head;
            List<WriteOp> group = new ArrayList<>();
            group.add(first);
            ArrayDeque<Object> rest = new ArrayDeque<>();
            while (!pending.isEmpty() && group.size() < graph.options().maxGroup()) {
                Object o = pending.pollFirst();
                if (o instanceof WriteOp w && w.groupsWith(first)) {
                    group.add(w);
                } else {
                    rest.addLast(o);
                    if (o instanceof Control || (o instanceof WriteOp w && w.branch.equals(first.branch)
                            && w.table.equals(first.table))) {
                        // keep controls ordered after the writes queued before them, and never pull a write
                        // past an earlier write of another kind on the same table (e.g. upsert k past delete k)
                        break;
                    }
                }
            }
            while (!rest.isEmpty()) {
                pending.addFirst(rest.pollLast());
            }
            try {
                runGroup(group);
            } catch (RuntimeException e) {
                LOG.error("committer failed a group of {} on {}/{}", group.size(), first.branch, first.table, e);
                PalisadeException failure = e instanceof PalisadeException p ? p
                        : new CommitStateUnknownException("internal error while committing: " + e, e);
                group.forEach(op -> op.future.completeExceptionally(failure));
            }
        }
        return drained + work;
    }

    private void runControl(Control c) {
        try {
            c.future().complete(c.task().call());
        } catch (Exception e) {
            c.future().completeExceptionally(e);
        }
    }

    /** Runs one write now, on the committer thread (for compound operations such as a branch merge). */
    Receipt runNow(WriteOp op) {
        runGroup(List.of(op));
        return op.future.join();
    }

    /** Refuses further writes to a graph branch's table until reopen (a commit of unknown outcome). */
    void poison(String branch, String table) {
        poisoned.add(branch + "/" + table);
    }

    boolean poisoned(String branch, String table) {
        return poisoned.contains(branch + "/" + table);
    }

    /** Fails everything still queued (on close). */
    void failPending(PalisadeException e) {
        queue.drain(pending::addLast);
        for (Object o : pending) {
            if (o instanceof WriteOp w) {
                w.future.completeExceptionally(e);
            } else if (o instanceof Control c) {
                c.future().completeExceptionally(e);
            }
        }
        pending.clear();
    }

    // ------------------------------------------------------------------ the pipeline

    private void runGroup(List<WriteOp> ops) {
        WriteOp first = ops.get(0);
        String where = first.branch + "/" + first.table;
        HeadsState state = graph.state();
        if (refused.containsKey(where)) {
            fail(ops, refused.get(where));
            return;
        }
        if (poisoned.contains(where)) {
            fail(ops, new GraphRefusedException("table '" + first.table + "' on branch '" + first.branch
                    + "' had a commit of unknown outcome; reopen the graph to recover it"));
            return;
        }
        Catalog.TableDef def;
        Pin pin;
        try {
            def = graph.catalog().require(first.table);
            if (!state.branchLive(first.branch)) {
                throw new ValidationException("unknown graph branch '" + first.branch + "'");
            }
            pin = state.pin(first.branch, first.table).orElseThrow(
                    () -> new ValidationException("table '" + first.table + "' has no head on branch '" + first.branch + "'"));
        } catch (ValidationException e) {
            fail(ops, e);
            return;
        }

        // 1. validation, idempotency, in-group and winner conflict checks
        List<WriteOp> accepted = new ArrayList<>();
        List<JournalEvent> phaseA = new ArrayList<>();
        Map<String, WriteOp> byIdempotencyKey = new HashMap<>();
        KeyFilter acceptedKeys = null;
        List<WriteOp> deferred = new ArrayList<>();
        KeyFilter deferredKeys = null;
        for (WriteOp op : ops) {
            if (op.idempotencyKey.isPresent()) {
                Optional<io.palisade.heads.Receipt> r = state.receipt(op.idempotencyKey.get());
                if (r.isPresent()) {
                    graph.metrics().idempotentReplays.increment();
                    op.future.complete(Graph.receipt(r.get(), state));
                    continue;
                }
                WriteOp twin = byIdempotencyKey.get(op.idempotencyKey.get());
                if (twin != null) {
                    graph.metrics().idempotentReplays.increment();
                    twin.future.whenComplete((rc, ex) -> {
                        if (ex != null) {
                            op.future.completeExceptionally(ex);
                        } else {
                            op.future.complete(rc);
                        }
                    });
                    continue;
                }
            }
            try {
                op.keys = graph.validate(def, op);
            } catch (ValidationException e) {
                graph.metrics().validationFailures.increment();
                op.future.completeExceptionally(e);
                continue;
            }
            op.intentId = "i-" + UUID.randomUUID();
            if (op.maintenance() && !planMaintenance(op, def, pin, where, phaseA)) {
                continue;
            }
            if (op.keys != null && ((acceptedKeys != null && acceptedKeys.intersects(op.keys))
                    || (deferredKeys != null && deferredKeys.intersects(op.keys)))) {
                // Same key twice in one group: serialise through the next group. A strict insert is not
                // rejected here: the op holding the key may still fail in Phase B (another of its keys
                // exists), and then this one conflicts with nothing. If the holder commits, the next
                // group's winner check rejects this op, naming the holder as the winning intent.
                // Every later op sharing a key with a deferred one is deferred too, so that no write of a
                // key overtakes an earlier write of the same key.
                deferred.add(op);
                deferredKeys = deferredKeys == null ? op.keys : deferredKeys.union(op.keys);
                continue;
            }
            if (op.kind == WriteOp.Kind.INSERT && op.keys != null) {
                Optional<Conflict> winner = winnerConflict(where, op);
                if (winner.isPresent()) {
                    Conflict c = winner.get();
                    rejectKeyConflict(op, def, pin, c.keys(), c.keys().size(), c.winnerId(), phaseA);
                    continue;
                }
            }
            if (op.idempotencyKey.isPresent()) {
                byIdempotencyKey.put(op.idempotencyKey.get(), op);
            }
            accepted.add(op);
            if (op.keys != null) {
                acceptedKeys = acceptedKeys == null ? op.keys : acceptedKeys.union(op.keys);
            }
        }
        for (int i = deferred.size() - 1; i >= 0; i--) {
            pending.addFirst(deferred.get(i));
        }
        if (accepted.isEmpty()) {
            if (!phaseA.isEmpty()) {
                graph.append(phaseA);
            }
            return;
        }

        // 2. Phase A
        TableHead head = pin.head();
        String tableBranch = pin.owned() ? head.tableBranch() : graph.tableBranchFor(first.branch);
        TableHead intendedTo = new TableHead(tableBranch, head.version() + 1, head.schemaId(), head.incarnation());
        ExpectedBase base = new ExpectedBase(head.tableBranch(), head.version(), head.schemaId(), state.lastSequence());
        for (WriteOp op : accepted) {
            phaseA.add(new IntentRecorded(op.intentId, op.idempotencyKey.orElse(null), operation(op.kind), op.branch, op.table,
                    base, ActionCodec.encode(actions(op)), op.keys,
                    new HeadTransition(op.branch, op.table, head, intendedTo)));
        }
        long t0 = System.nanoTime();
        graph.append(phaseA);
        CrashPoints.hit("after-intent");
        long t1 = System.nanoTime();

        // 3. Phase B
        TableRef ref = new TableRef(head.tableBranch(), head.version());
        if (!pin.owned()) {
            ref = graph.forkForBranch(first.table, ref, tableBranch);
            CrashPoints.hit("after-fork");
        }
        List<JournalEvent> phaseCD = new ArrayList<>();
        CommitResult result = null;
        List<WriteOp> live = new ArrayList<>(accepted);
        int retries = 0;
        while (!live.isEmpty()) {
            try {
                Faults.beforeSubstrateCommit(first.table, graph.layout().tables(), graph.allocator());
                result = commit(def, ref, live);
                break;
            } catch (KeyConflictException e) {
                if (refusedByForeign(first, where, ref, tableBranch, live, phaseCD, e)) {
                    live.clear();
                    break;
                }
                Set<String> named = new HashSet<>(e.keys());
                List<WriteOp> losers = live.stream().filter(op -> op.keys != null
                        && op.keys.keys().stream().anyMatch(named::contains)).toList();
                if (losers.isEmpty()) {
                    losers = List.copyOf(live); // not attributable: every strict op of the group loses
                }
                for (WriteOp op : losers) {
                    List<String> mine = op.keys == null ? List.of() : op.keys.keys().stream().filter(named::contains).toList();
                    phaseCD.add(new IntentCompleted(op.intentId, IntentOutcome.KEY_CONFLICT, e.getMessage(),
                            e.winningIntent().orElse(null), mine));
                    graph.metrics().keyConflicts.increment();
                    op.failure = new KeyConflictException(op.table, mine.isEmpty() ? e.keys() : mine,
                            Math.max(1, mine.size()), e.winningIntent().orElse(null));
                }
                live.removeAll(losers);
                if (!live.isEmpty()) {
                    // the losers' outcomes are durable before the survivors commit: otherwise a crash after that
                    // commit leaves the losers open in the survivors' group and recovery rolls them forward too
                    graph.append(List.copyOf(phaseCD));
                    phaseCD.clear();
                }
                graph.metrics().retries.increment();
            } catch (WriteConflictException e) {
                graph.metrics().writeConflicts.increment();
                if (refusedByForeign(first, where, ref, tableBranch, live, phaseCD, e)) {
                    live.clear();
                    break;
                }
                // a maintenance intent journaled its plan: a different plan would be an unjournaled commit
                if (first.maintenance() || ++retries > graph.options().upsertRetries()) {
                    for (WriteOp op : live) {
                        phaseCD.add(new IntentCompleted(op.intentId, IntentOutcome.WRITE_CONFLICT, e.getMessage(), null, List.of()));
                        op.failure = e;
                    }
                    live.clear();
                }
                graph.metrics().retries.increment();
                ref = graph.store().latest(first.table, tableBranch);
            } catch (ValidationException e) {
                for (WriteOp op : live) {
                    phaseCD.add(new IntentCompleted(op.intentId, IntentOutcome.VALIDATION_FAILED, e.getMessage(), null, List.of()));
                    op.failure = e;
                }
                graph.metrics().validationFailures.increment();
                live.clear();
            } catch (RuntimeException e) {
                poisoned.add(where);
                CommitStateUnknownException unknown = e instanceof CommitStateUnknownException c ? c
                        : new CommitStateUnknownException("substrate commit on " + where + " failed: " + e, e);
                live.forEach(op -> op.future.completeExceptionally(unknown));
                List<WriteOp> done = new ArrayList<>(accepted);
                done.removeAll(live);
                if (!phaseCD.isEmpty()) {
                    graph.append(phaseCD);
                }
                done.forEach(op -> op.future.completeExceptionally(op.failure));
                return;
            }
        }
        if (result != null && !first.maintenance() && result.ref().version() > ref.version() + 1) {
            raced(def, first, where, ref, result.ref(), ForeignRace.between(ref, result.ref()), accepted, live, phaseCD);
            return;
        }
        CrashPoints.hit("after-substrate-commit");
        List<Action> committedActions = null;
        if (result != null && first.maintenance()) {
            List<CommitDescription> produced = List.of();
            Optional<String> mismatch;
            try {
                produced = describe(first.table, ref, result.ref());
                List<CommitDescription> effective = produced.stream()
                        .filter(c -> c.kind() != io.palisade.substrate.OperationKind.RESERVE_FRAGMENTS).toList();
                if (effective.size() > 1) {
                    // one maintenance commit has one effective version (after Lance's own ReserveFragments): the
                    // others below it are foreign, and Lance rebased the plan over them
                    raced(def, first, where, ref, result.ref(), effective.subList(0, effective.size() - 1).stream()
                            .map(c -> c.ref().version()).toList(), accepted, live, phaseCD);
                    return;
                }
                mismatch = first.plan.mismatch(produced);
            } catch (PalisadeException e) {
                mismatch = Optional.of("the committed versions could not be described: " + e.getMessage());
            }
            if (mismatch.isPresent() && result.ref().version() > ref.version()) {
                // A version exists that is not the journaled plan: journal it as the intent's effect (so no
                // version is unexplained), publish nothing, and refuse the table until recovery decides.
                poisoned.add(where);
                phaseCD.add(new TableCommitted(List.of(first.intentId), first.branch, first.table,
                        result.ref().branch(), result.ref().version()));
                graph.append(phaseCD);
                CommitStateUnknownException unknown = new CommitStateUnknownException("maintenance commit on " + where
                        + " reached " + result.ref() + " but is not its journaled plan (" + first.plan + "): "
                        + mismatch.get() + "; the table is refused until the graph is reopened and recovered", null);
                LOG.error("{}", unknown.getMessage());
                first.future.completeExceptionally(unknown);
                return;
            }
            if (mismatch.isPresent()) {
                // nothing was committed although the plan had work: the intent had no effect
                phaseCD.add(new IntentCompleted(first.intentId, IntentOutcome.ABORTED, mismatch.get(), null, List.of()));
                first.failure = new WriteConflictException("maintenance of " + where + " committed nothing: "
                        + mismatch.get() + "; retry to plan again from the head");
                graph.metrics().writeConflicts.increment();
                live.clear();
                result = null;
            } else {
                committedActions = actionsOf(produced, def.kind().keyed(), Optional.empty());
            }
        }
        if (result != null && first.kind == WriteOp.Kind.ADD_COLUMNS) {
            graph.addToCatalog(first.table, first.newColumns);
        }
        long t2 = System.nanoTime();

        // 4. Phases C and D
        int commitIndex = -1;
        if (result != null) {
            TableHead to = new TableHead(result.ref().branch(), result.ref().version(), head.schemaId(), head.incarnation());
            List<String> ids = live.stream().map(op -> op.intentId).toList();
            phaseCD.add(new TableCommitted(ids, first.branch, first.table, to.tableBranch(), to.version()));
            phaseCD.add(new HeadPublished(List.of(new HeadTransition(first.branch, first.table, head, to))));
            commitIndex = phaseCD.size();
            boolean noOp = result.ref().version() == ref.version();
            for (WriteOp op : live) {
                phaseCD.add(new IntentCompleted(op.intentId, IntentOutcome.COMMITTED, noOp && op.maintenance()
                        ? "no-op: " + (op.kind == WriteOp.Kind.COMPACT ? "nothing to compact" : "the index covers every fragment")
                        + "; no table version was committed" : "", null, List.of()));
            }
            if (!noOp) {
                remember(where, def.kind().keyed(), ref, result.ref(), live, committedActions);
            }
        }
        CrashPoints.hit("before-publish");
        long firstSeq = graph.append(phaseCD);
        CrashPoints.hit("after-publish");
        long t3 = System.nanoTime();

        Metrics m = graph.metrics();
        if (first.maintenance()) {
            // maintenance has its own counter: the write metrics (commits, groups, phases) stay the writes'
            if (result != null) {
                m.maintenanceCommits.increment();
            }
        } else {
            m.phaseANanos.add(t1 - t0);
            m.phaseBNanos.add(t2 - t1);
            m.phaseCDNanos.add(t3 - t2);
            if (result != null) {
                m.substrateCommits.increment();
                m.commits.add(live.size());
                m.group(live.size());
            }
        }
        if (result != null) {
            for (int i = 0; i < live.size(); i++) {
                WriteOp op = live.get(i);
                op.future.complete(new Receipt(op.intentId, firstSeq + commitIndex + i, op.table, op.branch,
                        result.ref().version(), op.rowCount()));
            }
        }
        for (WriteOp op : accepted) {
            if (!live.contains(op)) {
                op.future.completeExceptionally(op.failure);
            }
        }
        if (result != null && result.ref().version() != ref.version()) {
            scheduleIndexRefresh(def, first, where, result.ref().version());
        }
    }

    /**
     * A commit of {@code live} from {@code base} reached {@code achieved} over the foreign versions {@code foreign}
     * ({@link ForeignRace}): journals the evidence, refuses the table for the session and fails every intent of the
     * group; nothing is published or acknowledged.
     */
    private void raced(Catalog.TableDef def, WriteOp first, String where, TableRef base, TableRef achieved,
                       List<Long> foreign, List<WriteOp> accepted, List<WriteOp> live, List<JournalEvent> phaseCD) {
        KeyFilter keys = null;
        if (def.kind().keyed() && (first.kind == WriteOp.Kind.INSERT || first.kind == WriteOp.Kind.UPSERT)) {
            for (WriteOp op : live) {
                if (op.keys != null) {
                    keys = keys == null ? op.keys : keys.union(op.keys);
                }
            }
        }
        ForeignRace race = ForeignRace.found(graph.store(), first.branch, first.table, base, achieved, foreign,
                live.stream().map(op -> op.intentId).toList(), keys);
        refused.put(where, race.refusal());
        CrashPoints.hit("after-substrate-commit");
        phaseCD.addAll(race.events());
        graph.append(phaseCD);
        graph.metrics().foreignCommits.increment();
        io.palisade.fencing.ForeignCommitException e = race.exception();
        LOG.error("{}", e.getMessage());
        live.forEach(op -> op.future.completeExceptionally(e));
        for (WriteOp op : accepted) {
            if (!live.contains(op)) {
                op.future.completeExceptionally(op.failure);
            }
        }
    }

    /**
     * After Lance refused a commit of {@code live} from {@code ref} ({@code e}): whether the table branch moved past
     * {@code ref}. This thread is the table's only writer, so a newer version is foreign, and it is what Lance's
     * conflict check met. Then nothing of the group was committed: the finding and every intent's completion
     * (FOREIGN_COMMIT) join {@code phaseCD}, each op fails with the table's refusal, and the table is refused for
     * the session — never retried from the foreign version, which would absorb it.
     */
    private boolean refusedByForeign(WriteOp first, String where, TableRef ref, String tableBranch, List<WriteOp> live,
                                     List<JournalEvent> phaseCD, PalisadeException e) {
        TableRef latest = graph.store().latest(first.table, tableBranch);
        if (latest.version() <= ref.version()) {
            return false;
        }
        ForeignRace race = ForeignRace.refused(first.branch, first.table, ref, latest,
                live.stream().map(op -> op.intentId).toList(), e.getMessage());
        refused.put(where, race.refusal());
        phaseCD.addAll(race.events());
        graph.metrics().foreignCommits.increment();
        io.palisade.fencing.ForeignCommitException failure = race.exception();
        LOG.error("{}", failure.getMessage());
        for (WriteOp op : live) {
            op.failure = failure;
        }
        return true;
    }

    /** Whether a write raced a foreign commit on the table this session (bulk loads check it too). */
    io.palisade.fencing.ForeignCommitException refusal(String branch, String table) {
        return refused.get(branch + "/" + table);
    }

    /** Refuses the table for the rest of the session after a bulk load raced a foreign commit. */
    void refuse(String branch, String table, io.palisade.fencing.ForeignCommitException refusal) {
        refused.put(branch + "/" + table, refusal);
    }

    /**
     * Automatic index maintenance ({@link Options#indexRefreshEvery()}): counts the row-adding commits to
     * an indexed keyed table since its last index maintenance and, at the threshold, queues an index
     * optimise ahead of everything pending. It is an ordinary maintenance op (planned, journaled, judged,
     * verified); nobody waits for it, and a failure is logged and counted, never thrown at a writer.
     */
    private void scheduleIndexRefresh(Catalog.TableDef def, WriteOp committed, String where, long version) {
        int every = graph.options().indexRefreshEvery();
        if (every == 0 || !graph.options().indexedMerge() || !def.kind().keyed()) {
            return;
        }
        switch (committed.kind) {
            case OPTIMIZE_INDEX -> sinceIndexRefresh.remove(where);
            case INSERT, UPSERT -> {
                int n = sinceIndexRefresh.merge(where, 1, Integer::sum);
                if (n >= every) {
                    sinceIndexRefresh.remove(where);
                    WriteOp refresh = new WriteOp(WriteOp.Kind.OPTIMIZE_INDEX, committed.branch, committed.table, null, null,
                            Optional.empty(), version);
                    refresh.future.whenComplete((r, e) -> {
                        if (e != null) {
                            graph.metrics().autoIndexRefreshFailures.increment();
                            LOG.warn("automatic index optimise of {} failed: {}", where, e.toString());
                        } else {
                            graph.metrics().autoIndexRefreshes.increment();
                        }
                    });
                    pending.addFirst(refresh);
                }
            }
            // these add no unindexed fragments a merge would scan, or replace the table's fragments
            case DELETE, APPEND, OVERWRITE, ADD_COLUMNS, COMPACT -> {
            }
        }
    }

    private void rejectKeyConflict(WriteOp op, Catalog.TableDef def, Pin pin, List<String> keys, long count,
                                   String winner, List<JournalEvent> phaseA) {
        TableHead head = pin.head();
        ExpectedBase base = new ExpectedBase(head.tableBranch(), head.version(), head.schemaId(), graph.state().lastSequence());
        phaseA.add(new IntentRecorded(op.intentId, op.idempotencyKey.orElse(null), operation(op.kind), op.branch, op.table,
                base, ActionCodec.encode(actions(op)), op.keys, new HeadTransition(op.branch, op.table, head, head)));
        KeyConflictException e = new KeyConflictException(op.table, keys, count, winner);
        phaseA.add(new IntentCompleted(op.intentId, IntentOutcome.KEY_CONFLICT, e.getMessage(), winner, keys));
        graph.metrics().keyConflicts.increment();
        op.future.completeExceptionally(e);
    }

    /** The fencing resolver's answer for a strict insert against commits published since its base. */
    private Optional<Conflict> winnerConflict(String where, WriteOp op) {
        ArrayDeque<Recent> commits = recent.get(where);
        if (commits == null) {
            return Optional.empty();
        }
        List<CommittedTransaction> winners = new ArrayList<>();
        for (Recent r : commits) {
            if (r.to.version() > op.baseVersion) {
                winners.addAll(r.keyAdds);
            }
        }
        if (winners.isEmpty()) {
            return Optional.empty();
        }
        Verdict v = ConflictResolver.check(new Transaction(op.intentId, op.baseVersion, actions(op)), winners);
        return v.conflicts().stream().filter(Conflict::keyCollision).findFirst();
    }

    /**
     * Plans a maintenance op on the head it will be committed on and judges the plan, as a transaction
     * read at the op's base, against every commit published since (DESIGN §3, docs/coordinator.md
     * "Maintenance"). COMPATIBLE: the plan is the op's. Any other verdict re-plans from the current head
     * (read version = head), at most {@code upsertRetries} times; when they are exhausted the intent is
     * journaled with its last plan and completed WRITE_CONFLICT, and the op fails with a retryable
     * {@link WriteConflictException}. A maintenance plan is committed exactly as planned, never as
     * rebased: Lance, not the resolver, decides what the commit writes. Returns whether the op goes on
     * to Phase A; on false its future is completed.
     */
    private boolean planMaintenance(WriteOp op, Catalog.TableDef def, Pin pin, String where, List<JournalEvent> phaseA) {
        TableHead head = pin.head();
        TableRef at = new TableRef(head.tableBranch(), head.version());
        long readVersion = Math.max(0, op.baseVersion);
        for (int attempt = 0; ; attempt++) {
            try {
                op.plan = plan(def, op, at);
            } catch (PalisadeException e) {
                if (e instanceof ValidationException) {
                    graph.metrics().validationFailures.increment();
                }
                op.future.completeExceptionally(e); // no plan: nothing journaled, nothing written
                return false;
            }
            String reason;
            try {
                Verdict v = ConflictResolver.check(new Transaction(op.intentId, readVersion, op.plan.actions()),
                        winners(where, readVersion));
                if (v.outcome() == Verdict.Outcome.COMPATIBLE) {
                    return true;
                }
                reason = v.outcome() + ": " + v.reason();
            } catch (PalisadeException e) {
                reason = "a winner could not be named: " + e.getMessage(); // judged conservatively: a conflict
            }
            graph.metrics().writeConflicts.increment();
            if (attempt >= graph.options().upsertRetries()) {
                WriteConflictException e = new WriteConflictException(op.kind + " of " + where + " planned at " + at
                        + " conflicts with commits since its base v" + readVersion + " (" + reason + "); retry");
                ExpectedBase base = new ExpectedBase(head.tableBranch(), head.version(), head.schemaId(), graph.state().lastSequence());
                phaseA.add(new IntentRecorded(op.intentId, op.idempotencyKey.orElse(null), operation(op.kind), op.branch, op.table, base,
                        ActionCodec.encode(actions(op)), null, new HeadTransition(op.branch, op.table, head, head)));
                phaseA.add(new IntentCompleted(op.intentId, IntentOutcome.WRITE_CONFLICT, e.getMessage(), null, List.of()));
                op.future.completeExceptionally(e);
                return false;
            }
            LOG.info("{} of {}: plan judged against winners since v{}: {}; planning again from the head", op.kind, where,
                    readVersion, reason);
            graph.metrics().maintenanceReplans.increment();
            graph.metrics().retries.increment();
            readVersion = head.version();
        }
    }

    /** The maintenance plan of {@code op} at the exact state {@code at}. */
    private MaintenancePlan plan(Catalog.TableDef def, WriteOp op, TableRef at) {
        if (def.kind().keyed()) {
            try (KeyedTable t = graph.store().openKeyed(op.table, at)) {
                return switch (op.kind) {
                    case OPTIMIZE_INDEX -> t.planIndexOptimize();
                    case COMPACT -> t.planCompaction();
                    case INSERT, UPSERT, DELETE, APPEND, OVERWRITE, ADD_COLUMNS ->
                            throw new IllegalArgumentException(op.kind + " is not maintenance");
                };
            }
        }
        try (KeylessTable t = graph.store().openKeyless(op.table, at)) {
            return switch (op.kind) {
                case COMPACT -> t.planCompaction();
                case OPTIMIZE_INDEX -> throw new ValidationException("table '" + op.table + "' is append-only and has no key index");
                case INSERT, UPSERT, DELETE, APPEND, OVERWRITE, ADD_COLUMNS ->
                        throw new IllegalArgumentException(op.kind + " is not maintenance");
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

    /** Descriptions of the versions {@code (from.version, to.version]} of {@code to}'s branch, ascending. */
    private List<CommitDescription> describe(String table, TableRef from, TableRef to) {
        List<CommitDescription> out = new ArrayList<>();
        for (long v = from.version() + 1; v <= to.version(); v++) {
            out.add(graph.store().decompose(table, new TableRef(to.branch(), v)));
        }
        return out;
    }

    private static List<Action> actionsOf(List<CommitDescription> versions, boolean keyed, Optional<KeyFilter> keys) {
        List<Action> out = new ArrayList<>();
        for (CommitDescription c : versions) {
            // the id field id only distinguishes a PK install, which never goes through this pipeline
            out.addAll(CatalogActions.of(c, keyed, -1, keys));
        }
        return out;
    }

    private List<Action> describedActions(String table, boolean keyed, TableRef from, TableRef to, Optional<KeyFilter> keys) {
        return actionsOf(describe(table, from, to), keyed, keys);
    }

    /**
     * Remembers a commit published by another path on this thread (a bulk load): judged by what its
     * versions did; never a key-add winner of the strict-insert check (its keys are not journaled).
     */
    void rememberCommit(String branch, String table, boolean keyed, TableRef from, TableRef to, String intentId) {
        ArrayDeque<Recent> q = recent.computeIfAbsent(branch + "/" + table, k -> new ArrayDeque<>());
        q.addLast(new Recent(table, keyed, from, to, List.of(intentId), List.of(), Optional.empty(), null));
        while (q.size() > RECENT_COMMITS) {
            q.pollFirst();
        }
    }

    /**
     * Remembers a commit that moved {@code from} to {@code to} (every committed op is remembered:
     * writes, deletes, overwrites, schema changes, maintenance). {@code described}: the commit's actions
     * when already known (maintenance verified them), else null (described on first use).
     */
    private void remember(String where, boolean keyed, TableRef from, TableRef to, List<WriteOp> committed,
                          List<Action> described) {
        ArrayDeque<Recent> q = recent.computeIfAbsent(where, k -> new ArrayDeque<>());
        List<CommittedTransaction> keyAdds = new ArrayList<>();
        KeyFilter keys = null;
        for (WriteOp op : committed) {
            if (op.keys != null && op.kind != WriteOp.Kind.DELETE) {
                keyAdds.add(new CommittedTransaction(op.intentId, to.version(), actions(op)));
            }
            if (op.keys != null) {
                keys = keys == null ? op.keys : keys.union(op.keys);
            }
        }
        q.addLast(new Recent(committed.get(0).table, keyed, from, to, committed.stream().map(op -> op.intentId).toList(),
                keyAdds, Optional.ofNullable(keys), described));
        while (q.size() > RECENT_COMMITS) {
            q.pollFirst();
        }
    }

    private CommitResult commit(Catalog.TableDef def, TableRef ref, List<WriteOp> ops) {
        WriteOp first = ops.get(0);
        if (first.kind == WriteOp.Kind.APPEND) {
            try (KeylessTable t = graph.store().openKeyless(first.table, ref); Combined rows = combine(ops)) {
                return t.append(rows.root);
            }
        }
        if (!def.kind().keyed()) {
            try (KeylessTable t = graph.store().openKeyless(first.table, ref)) {
                return switch (first.kind) {
                    case OVERWRITE -> t.overwrite(first.rows);
                    case ADD_COLUMNS -> t.addColumns(first.newColumns.stream().map(Catalog::arrowField).toList());
                    case COMPACT -> t.commit(first.plan);
                    case INSERT, UPSERT, DELETE, APPEND, OPTIMIZE_INDEX ->
                            throw new ValidationException(first.kind + " needs a keyed table");
                };
            }
        }
        try (KeyedTable t = graph.store().openKeyed(first.table, ref)) {
            MergePath path = t.mergePath();
            if (first.kind == WriteOp.Kind.OVERWRITE) {
                return t.overwrite(first.rows);
            }
            if (first.kind == WriteOp.Kind.ADD_COLUMNS) {
                return t.addColumns(first.newColumns.stream().map(Catalog::arrowField).toList());
            }
            if (first.maintenance()) {
                return t.commit(first.plan);
            }
            if (first.kind == WriteOp.Kind.DELETE) {
                KeyFilter all = ops.get(0).keys;
                for (int i = 1; i < ops.size(); i++) {
                    all = all.union(ops.get(i).keys);
                }
                return t.delete(all);
            }
            try (Combined rows = combine(ops)) {
                // The indexed path attaches no key filter in Lance 7.0.0; it is safe here only because this
                // thread is the graph's single writer (lease) and the exact fence above has excluded every
                // concurrent same-key commit (DESIGN §3).
                return first.kind == WriteOp.Kind.INSERT ? t.insert(rows.root, path) : t.upsert(rows.root, path);
            }
        }
    }

    /** The rows of a group as one batch; closes the combined batch it allocated. */
    private final class Combined implements AutoCloseable {
        final VectorSchemaRoot root;
        final boolean owned;

        Combined(VectorSchemaRoot root, boolean owned) {
            this.root = root;
            this.owned = owned;
        }

        @Override
        public void close() {
            if (owned) {
                root.close();
            }
        }
    }

    private Combined combine(List<WriteOp> ops) {
        if (ops.size() == 1) {
            return new Combined(ops.get(0).rows, false);
        }
        VectorSchemaRoot target = VectorSchemaRoot.create(ops.get(0).rows.getSchema(), graph.allocator());
        target.allocateNew();
        target.setRowCount(0);
        VectorSchemaRootAppender.append(false, target, ops.stream().map(o -> o.rows).toArray(VectorSchemaRoot[]::new));
        return new Combined(target, true);
    }

    private static List<Action> actions(WriteOp op) {
        return switch (op.kind) {
            case INSERT, UPSERT -> List.of(new AddFragments(List.of(), KeyScope.exact(op.keys)));
            case APPEND -> List.of(new AddFragments(List.of(), KeyScope.KEYLESS));
            // the rows a delete removes are only known to the substrate; its keys ride on the intent's key filter
            case DELETE -> List.of();
            case OVERWRITE -> List.of(io.palisade.fencing.action.RemoveFragments.allCurrent(),
                    new AddFragments(List.of(), op.keys == null ? KeyScope.KEYLESS : KeyScope.exact(op.keys)));
            case ADD_COLUMNS -> List.of(new io.palisade.fencing.action.AddFields(op.newColumns.stream()
                    .map(c -> new io.palisade.fencing.action.AddFields.NewField(c.name(), true)).toList(), java.util.Map.of()));
            // maintenance journals its plan (made before Phase A, committed exactly as planned)
            case OPTIMIZE_INDEX, COMPACT -> java.util.Objects.requireNonNull(op.plan, "maintenance op without a plan").actions();
        };
    }

    private static LogicalOperation operation(WriteOp.Kind k) {
        return switch (k) {
            case INSERT, APPEND -> LogicalOperation.INSERT;
            case UPSERT -> LogicalOperation.UPSERT;
            case DELETE -> LogicalOperation.DELETE;
            case OVERWRITE -> LogicalOperation.OVERWRITE;
            case ADD_COLUMNS -> LogicalOperation.ADD_COLUMNS;
            case OPTIMIZE_INDEX -> LogicalOperation.INDEX_MAINTENANCE;
            case COMPACT -> LogicalOperation.COMPACTION;
        };
    }

    private static void fail(List<WriteOp> ops, PalisadeException e) {
        ops.forEach(op -> op.future.completeExceptionally(e));
    }
}
