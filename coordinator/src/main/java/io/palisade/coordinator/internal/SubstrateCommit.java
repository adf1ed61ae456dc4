package io.palisade.coordinator.internal;

import io.palisade.coordinator.Catalog;

import io.palisade.fencing.CommitStateUnknownException;
import io.palisade.fencing.ForeignCommitException;
import io.palisade.fencing.KeyConflictException;
import io.palisade.fencing.KeyFilter;
import io.palisade.fencing.PalisadeException;
import io.palisade.fencing.ValidationException;
import io.palisade.fencing.WriteConflictException;
import io.palisade.fencing.action.Action;
import io.palisade.heads.Pin;
import io.palisade.journal.IntentOutcome;
import io.palisade.journal.JournalEvent;
import io.palisade.journal.TableHead;
import io.palisade.substrate.CommitDescription;
import io.palisade.substrate.CommitResult;
import io.palisade.substrate.TableRef;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Phase B (DESIGN §3 step 4; docs/coordinator.md "Pipeline", "Maintenance", "Foreign commits"): the substrate commit
 * of a list of fenced, journaled ops of one kind and table at an exact base version, and everything that decides
 * whether that commit may be published.
 * <ul>
 *   <li>One commit for all the ops ({@link SubstrateWrites}): a merge-insert ON exactly {@code id} (WhenMatched Fail
 *       for inserts, UpdateAll for upserts), a delete, an append, an overwrite, added columns or a maintenance plan (a
 *       fold: its merge-insert and deletes). Keys the substrate finds already present fail only the ops that own them,
 *       and the rest are committed again; a retryable write conflict is retried up to {@code upsertRetries} times (a
 *       maintenance plan never: it would not be the journaled one).</li>
 *   <li>The achieved-version rule: a write's commit must reach exactly base + 1, a maintenance commit exactly one
 *       effective version; anything else, or a commit Lance refused while the table branch moved past the base, met a
 *       foreign commit ({@link ForeignRace}) and is never acknowledged.</li>
 *   <li>A maintenance commit is verified against its journaled plan ({@code MaintenancePlan.mismatch}).</li>
 * </ul>
 *
 * <p>It records the session's refusals in {@link TableRefusals}: a table poisoned after a commit of unknown outcome, a
 * table refused after a foreign race; both last until the graph is reopened.
 *
 * <p>Invariants: committer thread only, except a fold's {@link #commit}, which runs on the fold thread while the
 * committer goes on acknowledging journal-ack writes (which write no table; every other op on the table waits for the
 * fold, see {@link Folder}); the only stage that writes tables, so one substrate commit is in flight per table (the
 * writer lease excludes every other Palisade process). It completes no future and changes no op: it returns a
 * {@link Result}, which names every loser with its failure ({@link Lost}). It appends to the journal (through
 * {@link JournalPhases}) only the completions of losers that must be durable before the survivors are committed again;
 * every other record it makes is returned in {@link Result#records()} for the caller to append. Crash points {@code after-fork} and
 * {@code after-substrate-commit} are hit here.
 */
final class SubstrateCommit {
    private static final Logger LOG = LoggerFactory.getLogger(SubstrateCommit.class);

    /**
     * What a substrate commit came to. Every case names its losers and the records still to journal. Invariants of
     * every case: the ops it names (committed, raced, unverified or unknown, and the losers) are exactly the group's,
     * each once; the losers are in the group's order, each with the failure its future is to be completed with.
     */
    sealed interface Result {
        /**
         * The ops that failed with a known outcome, in the group's order, each with its failure (their completions
         * journaled or in {@link #records()}).
         */
        List<Lost> losers();

        /** Records to journal next, in order (not yet appended). */
        List<JournalEvent> records();

        /**
         * {@code committed} are committed from {@code base} to {@code achieved} (equal: a no-op maintenance commit, or
         * a delete none of whose keys the table held) and may be published; {@code rows}: what each committed op
         * wrote, as its receipt counts it (a delete: the rows of its keys the table held, each counted for the first
         * op of the group that deletes it); {@code described}: the commit's actions when known (a verified
         * maintenance commit), else null.
         */
        record Committed(TableRef base, TableRef achieved, List<Fence.Admitted> committed, List<Long> rows,
                         List<Action> described, List<Lost> losers, List<JournalEvent> records) implements Result {
            public Committed {
                if (rows.size() != committed.size()) {
                    throw new IllegalArgumentException("a row count per committed op: " + rows.size() + " for "
                            + committed.size());
                }
            }
        }

        /** Nothing was committed: every op lost (key or write conflict, validation, a foreign commit Lance refused over, a maintenance plan without effect). */
        record NothingCommitted(List<Lost> losers, List<JournalEvent> records) implements Result {
        }

        /**
         * Lance rebased the commit of {@code raced} over a foreign commit: the records hold the evidence and every
         * intent's {@code FOREIGN_COMMIT} completion; nothing may be published; the table is refused for the session.
         */
        record Raced(ForeignCommitException failure, List<Fence.Admitted> raced, List<Lost> losers,
                     List<JournalEvent> records) implements Result {
        }

        /**
         * A maintenance commit reached {@code achieved} but is not its journaled plan: the records journal it as the
         * intent's effect ({@code TableCommitted}), nothing may be published; the table is poisoned.
         */
        record Unverified(CommitStateUnknownException failure, Fence.Admitted op, TableRef achieved, List<Lost> losers,
                          List<JournalEvent> records) implements Result {
        }

        /** The substrate commit of {@code unknown} failed with an unknown outcome; the table is poisoned. */
        record Unknown(CommitStateUnknownException failure, List<Fence.Admitted> unknown, List<Lost> losers,
                       List<JournalEvent> records) implements Result {
        }
    }

    private final Context ctx;
    private final JournalPhases journal;

    SubstrateCommit(Context ctx, JournalPhases journal) {
        this.ctx = ctx;
        this.journal = journal;
    }

    /**
     * The exact version a commit of the graph branch's table pinned at {@code pin} is made on: the head itself when
     * the branch owns the table, else a fork of the inherited head as {@code tableBranch} (crash point {@code after-fork}).
     */
    TableRef base(Pin pin, String table, String tableBranch) {
        TableHead head = pin.head();
        TableRef ref = new TableRef(head.tableBranch(), head.version());
        if (!pin.owned()) {
            ref = ctx.branches().forkForBranch(table, ref, tableBranch);
            CrashPoints.hit("after-fork");
        }
        return ref;
    }

    /**
     * Commits {@code ops} (one kind, graph branch and table, each with its intent journaled) as one substrate commit
     * on {@code base}, a version of the table branch the commit writes; see the class comment. An ADD_COLUMNS commit
     * also adds its columns to the catalog.
     */
    Result commit(Catalog.TableDef def, List<Fence.Admitted> ops, TableRef base) {
        Fence.Admitted firstAdmitted = ops.get(0);
        WriteOp first = firstAdmitted.op();
        String where = first.where();
        String tableBranch = base.branch();
        TableRef ref = base;
        List<JournalEvent> phaseCD = new ArrayList<>();
        CommitResult result = null;
        List<Fence.Admitted> live = new ArrayList<>(ops);
        Map<Fence.Admitted, PalisadeException> failures = new IdentityHashMap<>();
        int retries = 0;
        Set<String> deletable = null;
        while (!live.isEmpty()) {
            try {
                Faults.beforeSubstrateCommit(first.table(), ctx.layout().tables(), ctx.allocator());
                if (first instanceof WriteOp.Delete) {
                    // a delete that finds none of its keys commits no version
                    deletable = SubstrateWrites.present(ctx, ref, live);
                    if (deletable.isEmpty()) {
                        result = CommitResult.of(ref);
                        break;
                    }
                }
                result = SubstrateWrites.write(ctx, def, ref, live);
                break;
            } catch (KeyConflictException e) {
                if (refusedByForeign(first, ref, tableBranch, live, failures, phaseCD, e)) {
                    live.clear();
                    break;
                }
                Set<String> named = new HashSet<>(e.keys());
                List<Fence.Admitted> losers = live.stream().filter(op -> op.keys() != null
                        && op.keys().keys().stream().anyMatch(named::contains)).toList();
                if (losers.isEmpty()) {
                    losers = List.copyOf(live); // not attributable: every strict op of the group loses
                }
                for (Fence.Admitted op : losers) {
                    // each loser names its OWN keys only, in its reason as in its conflicting keys
                    // (docs/conflict-resolution.md "Conflicts and retries: definitions"): never a key of another
                    // op of the group. Not attributable (no op owns a named key): the loser names its own keys.
                    KeyFilter keys = op.keys();
                    List<String> mine = keys == null ? List.of() : keys.keys().stream().filter(named::contains).toList();
                    List<String> own = !mine.isEmpty() || keys == null ? mine
                            : keys.keys().subList(0, Math.min(20, keys.keys().size()));
                    KeyConflictException lost = new KeyConflictException(op.op().table(), own.isEmpty() ? e.keys() : own,
                            own.isEmpty() ? e.conflictingKeyCount() : mine.isEmpty() ? keys.keys().size() : mine.size(),
                            e.winningIntent().orElse(null));
                    phaseCD.add(journal.keyConflictLoss(op, lost.getMessage(), e.winningIntent().orElse(null), mine));
                    ctx.meters().keyConflicts.increment();
                    failures.put(op, lost);
                }
                live.removeAll(losers);
                if (!live.isEmpty()) {
                    // the losers' outcomes are durable before the survivors commit: otherwise a crash after that
                    // commit leaves the losers open in the survivors' group and recovery rolls them forward too
                    journal.append(List.copyOf(phaseCD));
                    phaseCD.clear();
                }
                ctx.meters().retries.increment();
            } catch (WriteConflictException e) {
                ctx.meters().writeConflicts.increment();
                if (refusedByForeign(first, ref, tableBranch, live, failures, phaseCD, e)) {
                    live.clear();
                    break;
                }
                // a maintenance intent journaled its plan: a different plan would be an unjournaled commit
                if (first.maintenance() || ++retries > ctx.options().upsertRetries()) {
                    for (Fence.Admitted op : live) {
                        phaseCD.add(journal.failed(op, IntentOutcome.WRITE_CONFLICT, e.getMessage()));
                        failures.put(op, e);
                    }
                    live.clear();
                }
                ctx.meters().retries.increment();
                ref = ctx.store().latest(first.table(), tableBranch);
            } catch (ValidationException e) {
                for (Fence.Admitted op : live) {
                    phaseCD.add(journal.failed(op, IntentOutcome.VALIDATION_FAILED, e.getMessage()));
                    failures.put(op, e);
                }
                ctx.meters().validationFailures.increment();
                live.clear();
            } catch (RuntimeException e) {
                ctx.refusals().poison(where);
                CommitStateUnknownException unknown = e instanceof CommitStateUnknownException c ? c
                        : new CommitStateUnknownException("substrate commit on " + where + " failed: " + e, e);
                return new Result.Unknown(unknown, List.copyOf(live), lost(ops, live, failures), phaseCD);
            }
        }
        if (result != null && !first.maintenance() && result.ref().version() > ref.version() + 1) {
            return raced(def, first, ref, result.ref(), ForeignRace.between(ref, result.ref()), ops, live, failures, phaseCD);
        }
        CrashPoints.hit(first instanceof WriteOp.Fold ? "after-fold-commit" : "after-substrate-commit");
        List<Action> committedActions = null;
        if (result != null && first.maintenance()) {
            List<CommitDescription> produced = List.of();
            Optional<String> mismatch;
            try {
                produced = WriteActions.describe(ctx.store(), first.table(), ref, result.ref());
                List<CommitDescription> effective = firstAdmitted.plan().effective(produced);
                if (effective.size() > 1) {
                    // one maintenance commit has one effective version (after Lance's own ReserveFragments and a
                    // compaction's planned index rebuild): the others below it are foreign, and Lance rebased the
                    // plan over them
                    return raced(def, first, ref, result.ref(), effective.subList(0, effective.size() - 1).stream()
                            .map(c -> c.ref().version()).toList(), ops, live, failures, phaseCD);
                }
                mismatch = firstAdmitted.plan().mismatch(produced);
            } catch (PalisadeException e) {
                mismatch = Optional.of("the committed versions could not be described: " + e.getMessage());
            }
            if (mismatch.isPresent() && result.ref().version() > ref.version()) {
                // A version exists that is not the journaled plan: journal it as the intent's effect (so no
                // version is unexplained), publish nothing, and refuse the table until recovery decides.
                ctx.refusals().poison(where);
                phaseCD.add(journal.tableCommitted(firstAdmitted, result.ref()));
                CommitStateUnknownException unknown = new CommitStateUnknownException("maintenance commit on " + where
                        + " reached " + result.ref() + " but is not its journaled plan (" + firstAdmitted.plan() + "): "
                        + mismatch.get() + "; the table is refused until the graph is reopened and recovered", null);
                return new Result.Unverified(unknown, firstAdmitted, result.ref(),
                        lost(ops, List.of(firstAdmitted), failures), phaseCD);
            }
            if (mismatch.isPresent()) {
                // nothing was committed although the plan had work: the intent had no effect
                phaseCD.add(journal.failed(firstAdmitted, IntentOutcome.ABORTED, mismatch.get()));
                failures.put(firstAdmitted, new WriteConflictException("maintenance of " + where + " committed nothing: "
                        + mismatch.get() + "; retry to plan again from the head"));
                ctx.meters().writeConflicts.increment();
                live.clear();
                result = null;
            } else {
                committedActions = WriteActions.ofVersions(produced, def.kind().keyed(), Optional.empty());
            }
        }
        if (result == null) {
            return new Result.NothingCommitted(lost(ops, live, failures), phaseCD);
        }
        if (first instanceof WriteOp.AddColumns a) {
            ctx.view().addToCatalog(a.table(), a.columns());
        }
        return new Result.Committed(ref, result.ref(), List.copyOf(live), rows(live, deletable), committedActions,
                lost(ops, live, failures), phaseCD);
    }

    /**
     * The rows each of {@code committed} wrote: its own count, or for a delete the keys of {@code deletable} (the
     * table's at the commit's base) it is the first of the group to delete.
     */
    private static List<Long> rows(List<Fence.Admitted> committed, Set<String> deletable) {
        Set<String> left = deletable == null ? null : new HashSet<>(deletable);
        List<Long> rows = new ArrayList<>(committed.size());
        for (Fence.Admitted a : committed) {
            if (a.op() instanceof WriteOp.Delete d && left != null) {
                long n = 0;
                for (String k : d.keys().keys()) {
                    if (left.remove(k)) {
                        n++;
                    }
                }
                rows.add(n);
            } else {
                rows.add(a.op().rowCount());
            }
        }
        return rows;
    }

    /** The ops of {@code all} not in {@code kept}, in order, each with its failure. */
    private static List<Lost> lost(List<Fence.Admitted> all, List<Fence.Admitted> kept,
                                   Map<Fence.Admitted, PalisadeException> failures) {
        return all.stream().filter(op -> !kept.contains(op)).map(op -> new Lost(op, failures.get(op))).toList();
    }

    /**
     * A commit of {@code live} from {@code base} reached {@code achieved} over the foreign versions {@code foreign}
     * ({@link ForeignRace}): refuses the table for the session; the evidence and every intent's completion join the
     * records. Nothing may be published or acknowledged.
     */
    private Result raced(Catalog.TableDef def, WriteOp first, TableRef base, TableRef achieved, List<Long> foreign,
                         List<Fence.Admitted> ops, List<Fence.Admitted> live,
                         Map<Fence.Admitted, PalisadeException> failures, List<JournalEvent> phaseCD) {
        KeyFilter keys = null;
        if (def.kind().keyed() && (first instanceof WriteOp.Insert || first instanceof WriteOp.Upsert
                || first instanceof WriteOp.Update)) {
            for (Fence.Admitted op : live) {
                if (op.keys() != null) {
                    keys = keys == null ? op.keys() : keys.union(op.keys());
                }
            }
        }
        ForeignRace race = ForeignRace.found(ctx.store(), first.branch(), first.table(), base, achieved, foreign,
                live.stream().map(Fence.Admitted::intentId).toList(), keys);
        ctx.refusals().refuse(first.where(), race.refusal());
        CrashPoints.hit("after-substrate-commit");
        phaseCD.addAll(race.events());
        return new Result.Raced(race.exception(), List.copyOf(live), lost(ops, live, failures), phaseCD);
    }

    /**
     * After Lance refused a commit of {@code live} from {@code ref} ({@code e}): whether the table branch moved past
     * {@code ref}. This thread is the table's only writer, so a newer version is foreign, and it is what Lance's
     * conflict check met. Then nothing of the group was committed: the finding and every intent's completion
     * (FOREIGN_COMMIT) join {@code phaseCD}, each op fails with the table's refusal, and the table is refused for
     * the session — never retried from the foreign version, which would absorb it.
     */
    private boolean refusedByForeign(WriteOp first, TableRef ref, String tableBranch, List<Fence.Admitted> live,
                                     Map<Fence.Admitted, PalisadeException> failures, List<JournalEvent> phaseCD,
                                     PalisadeException e) {
        TableRef latest = ctx.store().latest(first.table(), tableBranch);
        if (latest.version() <= ref.version()) {
            return false;
        }
        ForeignRace race = ForeignRace.refused(first.branch(), first.table(), ref, latest,
                live.stream().map(Fence.Admitted::intentId).toList(), e.getMessage());
        ctx.refusals().refuse(first.where(), race.refusal());
        phaseCD.addAll(race.events());
        ctx.meters().foreignCommits.increment();
        ForeignCommitException failure = race.exception();
        LOG.error("{}", failure.getMessage());
        for (Fence.Admitted op : live) {
            failures.put(op, failure);
        }
        return true;
    }
}
