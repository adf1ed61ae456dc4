package io.palisade.coordinator.internal;

import io.palisade.coordinator.Catalog;
import io.palisade.coordinator.Compaction;
import io.palisade.coordinator.Options;
import io.palisade.coordinator.Retention;
import io.palisade.fencing.GraphClosedException;
import io.palisade.heads.HeadsState;
import io.palisade.heads.OpenIntent;
import io.palisade.heads.Pin;
import io.palisade.journal.ExpectedBase;
import io.palisade.journal.JournalEvent;
import io.palisade.journal.TableHead;
import io.palisade.substrate.CompactionTarget;
import io.palisade.substrate.FragmentStats;
import io.palisade.substrate.TableRef;
import io.palisade.substrate.TableSnapshot;
import io.palisade.substrate.VersionExpiry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The graph's automatic maintenance, decided on the committer thread after each published commit:
 * <ul>
 *   <li><b>Compaction</b> ({@link Compaction}): every {@code checkEvery} commits to a table it reads the table's
 *       fragments from the manifest and, at a trigger, queues a compaction ahead of everything pending: an ordinary
 *       maintenance op (planned, journaled, judged, verified), nobody waits for it, and a failure is logged and
 *       counted, never thrown at a writer. A journal-ack table's compaction defers Lance's index remap, then
 *       rebuilds its id index ({@code MaintenancePlan#compactionDeferringRemap}).</li>
 *   <li><b>Version retention</b> ({@link Retention}): every {@code expireEvery} commits to a table branch it chooses
 *       the oldest version to keep, journals {@link JournalEvent.VersionsExpired} (synced), then removes the older
 *       versions through the store on the maintenance thread, off the acknowledgement path.</li>
 * </ul>
 *
 * <p>Invariants: committer thread only, except the removal itself. The bound chosen never exceeds any version a graph
 * branch's pin (owned or lazily inherited), an open intent's expected base or committed version, or the newest
 * {@code minVersions} of the table branch name; it is journaled before any file is removed; one removal per table
 * branch is in flight at a time. A store removal never races a commit it could hurt: Lance keeps every file no
 * manifest names (a commit in flight) and every file a forked table branch still names.
 */
final class AutoMaintenance {
    private static final Logger LOG = LoggerFactory.getLogger(AutoMaintenance.class);

    /** One commit's version and the time it was published, per table branch, newest last. */
    private record Published(long version, long millis) {
    }

    private final Context ctx;
    private final JournalPhases journal;
    private final Consumer<WriteOp> ahead;
    private final Map<String, Integer> sinceCheck = new HashMap<>();
    private final Set<String> compactionQueued = new HashSet<>();
    private final Map<String, Integer> sinceExpiry = new HashMap<>();
    private final Map<String, ArrayDeque<Published>> published = new HashMap<>();
    private final Set<String> expiring = java.util.concurrent.ConcurrentHashMap.newKeySet();
    /** Graph branch, table and pinned version of every idle branch this process forked for retention. */
    private final Set<String> forks = new HashSet<>();
    private final ExecutorService remover;

    /** {@code ahead}: queues an op (an automatic compaction) before everything pending. */
    AutoMaintenance(Context ctx, JournalPhases journal, Consumer<WriteOp> ahead) {
        this.ctx = ctx;
        this.journal = journal;
        this.ahead = ahead;
        // the deterministic simulation steps everything on one thread: removals run inline there
        this.remover = ctx.steppedCommitter() ? null : Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "palisade-maintenance");
            t.setDaemon(true);
            return t;
        });
    }

    /** The compaction target of {@code options}. */
    static CompactionTarget target(Options options) {
        Compaction c = options.compaction();
        return new CompactionTarget(c.rowsPerFragment(), c.materializeDeletions());
    }

    /**
     * After {@code committed} (led by {@code first}) published version {@code achieved} of {@code def} on graph branch
     * {@code branch}: counts it towards the table's next compaction check and its table branch's next removal of old
     * versions, and runs whichever is due.
     */
    void committed(Catalog.TableDef def, WriteOp first, TableRef achieved) {
        String where = first.where();
        switch (first.kind()) {
            case COMPACT -> {
                compactionQueued.remove(where);
                sinceCheck.remove(where);
            }
            case INSERT, UPSERT, DELETE, APPEND, OVERWRITE, ADD_COLUMNS, OPTIMIZE_INDEX, FOLD -> maybeCompact(def, first, achieved);
        }
        maybeExpire(def.name(), achieved);
    }

    private void maybeCompact(Catalog.TableDef def, WriteOp first, TableRef achieved) {
        Compaction c = ctx.options().compaction();
        String where = first.where();
        if (!c.auto() || compactionQueued.contains(where) || sinceCheck.merge(where, 1, Integer::sum) < c.checkEvery()) {
            return;
        }
        sinceCheck.remove(where);
        FragmentStats s;
        try (TableSnapshot t = def.kind().keyed() ? ctx.store().openKeyed(def.name(), achieved)
                : ctx.store().openKeyless(def.name(), achieved)) {
            s = t.fragmentStats(target(ctx.options()));
        } catch (RuntimeException e) {
            LOG.warn("could not read the fragments of {} at {}: {}", where, achieved, e.toString());
            return;
        }
        boolean due = s.fragments() >= c.maxFragments() || s.smallFragments() >= c.maxSmallFragments()
                || s.deletedRatio() >= c.maxDeletedRatio();
        if (!due) {
            return;
        }
        compactionQueued.add(where);
        WriteOp compact = new WriteOp.Compact(WriteOp.Submission.of(first.branch(), first.table(), achieved.version(),
                Optional.empty()));
        compact.future().whenComplete((r, e) -> {
            compactionQueued.remove(where);
            if (e != null && closedFirst(e)) {
                LOG.debug("automatic compaction of {} dropped: the graph closed first", where);
            } else if (e != null) {
                ctx.meters().autoCompactionFailures.increment();
                LOG.warn("automatic compaction of {} failed: {}", where, e.toString());
            } else {
                ctx.meters().autoCompactions.increment();
            }
        });
        LOG.debug("compacting {} at {}: {} fragments, {} small, {} of {} rows deleted", where, achieved, s.fragments(),
                s.smallFragments(), s.deletedRows(), s.physicalRows());
        ahead.accept(compact);
    }

    /**
     * Whether automatic maintenance failed only because the graph closed before it ran: it did nothing, and it comes
     * due again after the next open, so it is neither a failure to count nor one to warn of.
     */
    static boolean closedFirst(Throwable e) {
        Throwable t = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
        return t instanceof GraphClosedException;
    }

    private void maybeExpire(String table, TableRef achieved) {
        Retention r = ctx.options().retention();
        if (!r.auto()) {
            return;
        }
        String key = table + "\u0000" + achieved.branch();
        long now = ctx.view().clockMillis();
        ArrayDeque<Published> history = published.computeIfAbsent(key, k -> new ArrayDeque<>());
        history.addLast(new Published(achieved.version(), now));
        while (history.size() > r.maxVersions() + r.expireEvery()) {
            history.pollFirst();
        }
        if (sinceExpiry.merge(key, 1, Integer::sum) < r.expireEvery() || expiring.contains(key)) {
            return;
        }
        sinceExpiry.remove(key);
        long latest = achieved.version();
        long before = bound(r, history, latest, now);
        HeadsState state = ctx.view().state();
        forkIdleBranches(table, achieved.branch(), before, state);
        before = Math.min(before, oldestNeeded(table, achieved.branch(), state, this::forked));
        if (before <= 1) {
            return;
        }
        journal.append(List.of(new JournalEvent.VersionsExpired(table, achieved.branch(), before, r.describe())));
        CrashPoints.hit("expiry-after-journal");
        expiring.add(key);
        long bound = before;
        Runnable remove = () -> {
            long t0 = System.nanoTime();
            try {
                VersionExpiry x = ctx.store().expireVersions(table, achieved.branch(), bound);
                CrashPoints.hit("expiry-after-remove");
                ctx.meters().versionCleanups.increment();
                ctx.meters().versionsExpired.increment(x.versions());
                ctx.meters().expiredBytes.increment(x.bytes());
                LOG.debug("removed {} versions ({} files, {} bytes) of {} {} below v{} in {} ms", x.versions(),
                        x.files(), x.bytes(), table, achieved.branch(), bound, (System.nanoTime() - t0) / 1_000_000);
            } catch (RuntimeException e) {
                ctx.meters().versionCleanupFailures.increment();
                LOG.warn("removing the versions of {} {} below v{} failed (a later removal retries): {}", table,
                        achieved.branch(), bound, e.toString());
            } finally {
                expiring.remove(key);
            }
        };
        if (remover == null) {
            remove.run();
        } else {
            remover.execute(remove);
        }
    }

    /**
     * The retention rule alone: versions below the count bound go whatever their age; versions below the time bound
     * go once older than the window; the newest {@code minVersions} stay. A version this process did not see published
     * has an unknown age and is taken for young until a version seen published after it is older than the window.
     */
    static long bound(Retention r, ArrayDeque<Published> history, long latest, long now) {
        long byCount = latest - r.maxVersions() + 1;
        long byTime = 0;
        long cutoff = now - r.window().toMillis();
        for (Published p : history) {
            if (p.millis() > cutoff) {
                break;
            }
            byTime = p.version() + 1; // it, and every version before it, was published before the cutoff
        }
        long floor = latest - r.minVersions() + 1;
        return Math.min(Math.max(byCount, byTime), floor);
    }

    /**
     * Gives every graph branch that reads {@code tableBranch} of {@code table} through a lazily inherited pin older than
     * {@code before} its own Lance table branch, forked at exactly that pin: the fork its first write would make
     * ({@link TableBranches#forkForBranch}, which that write then reuses). Lance keeps the version a table branch was
     * forked from, so the pin no longer holds every later version of {@code tableBranch} back from removal. Only when
     * it does ({@link io.palisade.substrate.TableStore#forkKeeps}): not for the version {@code tableBranch} was itself
     * forked at, which a fork takes from the parent, nor for a version naming no file of {@code tableBranch}'s own (an
     * empty append-only table); such a pin is not forked and keeps binding. A fork that fails leaves the pin binding
     * (logged; the next removal tries again).
     */
    private void forkIdleBranches(String table, String tableBranch, long before, HeadsState state) {
        for (String b : state.branches().keySet()) {
            Optional<Pin> pin = state.pin(b, table);
            if (pin.isEmpty() || pin.get().owned() || !pin.get().head().tableBranch().equals(tableBranch)
                    || pin.get().head().version() >= before || forked(b, table, pin.get())) {
                continue;
            }
            TableRef pinned = new TableRef(tableBranch, pin.get().head().version());
            try {
                if (!ctx.store().forkKeeps(table, pinned)) {
                    continue; // a fork would not keep the pinned version: the pin keeps binding
                }
                ctx.branches().forkForBranch(table, pinned, TableBranches.tableBranchFor(b));
                forks.add(b + "\u0000" + table + "\u0000" + pin.get().head().version());
            } catch (RuntimeException e) {
                LOG.warn("could not fork {} of graph branch {} at its pin {}: {}; its pin keeps the versions after it",
                        table, b, pin.get().head(), e.toString());
            }
        }
    }

    /** Whether this process forked graph branch {@code branch}'s table branch of {@code table} at {@code pin}. */
    private boolean forked(String branch, String table, Pin pin) {
        return forks.contains(branch + "\u0000" + table + "\u0000" + pin.head().version());
    }

    /** Whether a graph branch's pin is held by a fork of its own (Lance keeps a fork's source version). */
    @FunctionalInterface
    interface Forked {
        boolean test(String branch, String table, Pin pin);
    }

    /**
     * The oldest version of {@code tableBranch} of {@code table} that the graph still names: a graph branch's pin,
     * owned or inherited (unless {@code forked} says Lance keeps it for the branch's own fork), and an open intent's
     * base or committed version. {@link Long#MAX_VALUE} when none does.
     */
    static long oldestNeeded(String table, String tableBranch, HeadsState state, Forked forked) {
        long oldest = Long.MAX_VALUE;
        for (String b : state.branches().keySet()) {
            Optional<Pin> pin = state.pin(b, table);
            if (pin.isPresent() && pin.get().head().tableBranch().equals(tableBranch)
                    && (pin.get().owned() || !forked.test(b, table, pin.get()))) {
                oldest = Math.min(oldest, pin.get().head().version());
            }
        }
        for (OpenIntent i : state.openIntents()) {
            if (!i.recorded().table().equals(table)) {
                continue;
            }
            ExpectedBase base = i.recorded().expectedBase();
            if (base != null && base.tableBranch().equals(tableBranch)) {
                oldest = Math.min(oldest, base.version());
            }
            TableHead published = i.publishedHead();
            if (published != null && published.tableBranch().equals(tableBranch)) {
                oldest = Math.min(oldest, published.version());
            }
            if (tableBranch.equals(i.committedTableBranch()) && i.committedVersion() > 0) {
                oldest = Math.min(oldest, i.committedVersion());
            }
        }
        return oldest;
    }

    /** Waits for the removal in flight, if any (on close, before the store closes). */
    void close() {
        if (remover == null) {
            return;
        }
        remover.shutdown();
        try {
            if (!remover.awaitTermination(5, TimeUnit.MINUTES)) {
                LOG.warn("a removal of old table versions is still running at close");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
