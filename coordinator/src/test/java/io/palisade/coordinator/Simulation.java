package io.palisade.coordinator;

import io.palisade.fencing.CommitStateUnknownException;
import io.palisade.fencing.GraphRefusedException;
import io.palisade.fencing.KeyConflictException;
import io.palisade.fencing.MergeConflictException;
import io.palisade.fencing.WriteConflictException;
import io.palisade.heads.HeadsReplayer;
import io.palisade.heads.HeadsState;
import io.palisade.heads.PhaseCrashPoints;
import io.palisade.journal.Durability;
import io.palisade.journal.JournalCursor;
import io.palisade.journal.JournalEvent;
import io.palisade.journal.JournalReader;
import io.palisade.journal.JournalRecord;
import io.palisade.journal.RecoveryClassification;
import io.palisade.journal.VerificationReport;
import io.palisade.recovery.Recovery;
import io.palisade.recovery.RecoveryReport;
import io.palisade.substrate.ArrowRows;
import io.palisade.substrate.sim.SimulatedTableStore;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One seed of the deterministic simulation (docs/recovery.md, "Deterministic simulation"): a graph over
 * a {@link SimulatedTableStore}, its committer stepped on this thread ({@link Palisade.Wiring}), several
 * simulated writers submitting asynchronous strict inserts, upserts and deletes on small overlapping key
 * spaces of two keyed tables, appends to a keyless table, graph branches created, written and merged
 * into main, substrate faults (commit of unknown outcome before or after its effect, retryable write
 * conflicts), clean restarts and crashes at seeded named crash points (a listener on
 * {@link PhaseCrashPoints} throws {@link SimulatedCrash}; the graph is then abandoned as a dead process
 * leaves it and reopened over the same journal directory and the same store, which may crash again
 * inside recovery).
 *
 * <p>Every choice comes from one {@link SplittableRandom} seeded with the seed; nothing reads a clock or
 * depends on thread timing, so a seed replays exactly. Intent ids stay random (the checks never compare
 * them): every keyed write carries the idempotency key {@code s<n>}, by which a write of unknown outcome
 * is found in the journal after recovery.
 *
 * <p>After every reopen (and at a clean restart and at the end) the crash invariants (docs/recovery.md) are
 * checked against a model of the acknowledged writes: (1) every acknowledged write is present with its
 * values and (3) every unacknowledged one fully present or fully absent — the scanned state of every
 * branch and table must equal the model plus exactly the unacknowledged writes the journal says were
 * applied; (2) no keyed table holds a duplicate id, no appended message appears twice; (4) no intent or
 * recovery is left open and the journal verifies (CRC32C and hash chain); (5) a second recovery changes
 * nothing and leaves the heads digest unchanged, and checkpoint + tail replay equals full replay. Write
 * outcomes are checked as they arrive: a committed strict insert found none of its keys, a key conflict
 * names keys of its own that exist, and every other failure is the typed one its cause calls for.
 */
final class Simulation {

    /** Thrown by the crash-point listener: the simulated process dies here. Never caught by the product. */
    static final class SimulatedCrash extends Error {
        private static final long serialVersionUID = 1L;

        SimulatedCrash(String point) {
            super("simulated crash at " + point, null, false, false);
        }
    }

    /** An invariant or outcome check failed. */
    static final class Violation extends AssertionError {
        private static final long serialVersionUID = 1L;

        Violation(String message) {
            super(message);
        }
    }

    /** What one seed did; {@code trace} is the full event log (equal for equal seeds). */
    record Result(long seed, List<String> trace, Map<String, Long> counters) {
    }

    static final String CATALOG = """
            {"tables": [{"name": "person", "kind": "node", "columns": [{"name": "id", "type": "string"},
              {"name": "age", "type": "int64", "nullable": true}]},
             {"name": "tag", "kind": "node", "columns": [{"name": "id", "type": "string"},
              {"name": "age", "type": "int64", "nullable": true}]},
             {"name": "note", "kind": "node", "ack": "journal", "columns": [{"name": "id", "type": "string"},
              {"name": "age", "type": "int64", "nullable": true}]},
             {"name": "log", "kind": "append-only", "columns": [{"name": "msg", "type": "string", "nullable": true}]}]}
            """;
    static final List<String> KEYED = List.of("person", "tag", "note");
    /** The journal-ack table (docs/journal-ack.md): acknowledged from the journal, folded at the seed's small bounds. */
    static final String JOURNAL_ACK = "note";
    private static final String MAIN = HeadsState.MAIN;
    private static final int KEY_SPACE = 8;
    private static final List<String> WRITE_POINTS = List.of("after-intent", "after-fork", "after-substrate-commit",
            "before-publish", "after-publish", PhaseCrashPoints.CHECKPOINT_AFTER_TEMP, PhaseCrashPoints.CHECKPOINT_AFTER_RENAME,
            "after-journal-ack", "after-fold-intent", "after-fold-commit", "before-fold-publish", "after-fold-publish");
    private static final List<String> RECOVERY_POINTS = List.of(PhaseCrashPoints.RECOVERY_AFTER_STARTED,
            PhaseCrashPoints.RECOVERY_AFTER_CLASSIFY, PhaseCrashPoints.RECOVERY_AFTER_FINISHED);

    private enum Kind { INSERT, UPSERT, UPDATE, DELETE }

    /** One keyed write of a simulated writer. */
    private static final class Op {
        final long n;
        final int writer;
        final Kind kind;
        final String branch;
        final String table;
        final TreeMap<String, Long> rows;
        VectorSchemaRoot root;
        CompletableFuture<Receipt> future;

        Op(long n, int writer, Kind kind, String branch, String table, TreeMap<String, Long> rows) {
            this.n = n;
            this.writer = writer;
            this.kind = kind;
            this.branch = branch;
            this.table = table;
            this.rows = rows;
        }

        String key() {
            return "s" + n;
        }

        @Override
        public String toString() {
            return "#" + n + " w" + writer + " " + kind + " " + branch + "/" + table + " " + rows;
        }
    }

    /** A write whose effect is known applied (a receipt or the journal said so). */
    private record Applied(long n, String branch, String table, Set<String> keys) {
    }

    /** A merge whose call did not return (crash inside it): its planned writes on main, per table and kind. */
    private record PendingMerge(long n, String source, long journalEnd, Map<String, Map<Kind, TreeMap<String, Long>>> plan) {
    }

    private record PendingBranch(long n, String name, Map<String, TreeMap<String, Long>> snapshot,
                                 Map<String, Set<String>> ever) {
    }

    private final long seed;
    private final Path root;
    private final SplittableRandom random;
    private final List<String> trace = new ArrayList<>();
    private final Map<String, AtomicLong> counters = new TreeMap<>();
    private final SimulatedTableStore store = new SimulatedTableStore();
    private final Palisade.Wiring wiring = new Palisade.Wiring(tables -> store, true);
    private final BufferAllocator allocator = new RootAllocator();
    private final Options options;
    private final int writers;
    private final int[] capacity;
    private final int[] outstandingOf;

    private Graph graph;
    private long nextN;
    private int nextMsg;
    private int nextBranch;
    private final List<Op> outstanding = new ArrayList<>();
    private final List<Op> uncertain = new ArrayList<>();
    private final List<List<String>> uncertainAppends = new ArrayList<>();
    private PendingMerge pendingMerge;
    private PendingBranch pendingBranch;
    private final Set<String> poisoned = new TreeSet<>();
    private final Set<String> conflictInjected = new TreeSet<>();
    private final Set<String> unknownInjected = new TreeSet<>();

    // the model
    private final Map<String, Map<String, TreeMap<String, Long>>> rows = new TreeMap<>();
    private final Map<String, Set<String>> ever = new TreeMap<>();
    private final List<String> log = new ArrayList<>();
    private final Map<String, Long> forkN = new TreeMap<>();
    private final List<Applied> applied = new ArrayList<>();

    // the crash plan of the current session
    private String crashPoint;
    private int crashNth;
    private int crashHits;

    private Simulation(long seed, Path root) {
        this.seed = seed;
        this.root = root;
        this.random = new SplittableRandom(seed);
        int[] groups = {1, 2, 4, 256};
        // journal-ack folds at a small count bound (or a small memory bound: writers wait for a fold), never by the clock
        this.options = new Options(Durability.PROCESS_CRASH, random.nextBoolean(), groups[random.nextInt(groups.length)],
                random.nextInt(3), 3 + random.nextInt(18)).withFolding(Long.MAX_VALUE / 2_000_000, 1 + random.nextInt(6),
                random.nextInt(4) == 0 ? 300 : 1L << 40);
        this.writers = 2 + random.nextInt(4);
        this.capacity = new int[writers];
        this.outstandingOf = new int[writers];
        for (int w = 0; w < writers; w++) {
            capacity[w] = 1 + random.nextInt(2);
        }
        trace("options " + options + " writers=" + writers);
    }

    /** Runs {@code seed} in a fresh graph under {@code workRoot}; throws {@link Violation} on a broken invariant. */
    static Result run(long seed, Path workRoot) {
        Path dir = workRoot.resolve("seed-" + seed);
        Simulation s = new Simulation(seed, dir);
        PhaseCrashPoints.listener(s::onCrashPoint);
        try {
            s.run();
            return new Result(seed, List.copyOf(s.trace), s.snapshotCounters());
        } catch (RuntimeException | Error e) {
            s.writeTrace();
            throw e;
        } finally {
            PhaseCrashPoints.listener(null);
            try {
                if (s.graph != null) {
                    s.graph.engine().abandon();
                }
                s.closeOutstanding();
            } finally {
                s.allocator.close();
                deleteTree(dir);
            }
        }
    }

    private Map<String, Long> snapshotCounters() {
        Map<String, Long> m = new TreeMap<>();
        counters.forEach((k, v) -> m.put(k, v.get()));
        return m;
    }

    // ------------------------------------------------------------------ the schedule

    private void run() {
        graph = Palisade.create(root.resolve("g"), Catalog.fromJson(CATALOG), options, wiring);
        rows.put(MAIN, new TreeMap<>());
        for (String t : KEYED) {
            rows.get(MAIN).put(t, new TreeMap<>());
            ever.put(MAIN + "/" + t, new TreeSet<>());
        }
        armSessionCrash();
        int steps = 30 + random.nextInt(50);
        for (int i = 0; i < steps; i++) {
            try {
                step();
            } catch (SimulatedCrash c) {
                onCrash(c);
            }
        }
        try {
            drain();
        } catch (SimulatedCrash c) {
            onCrash(c);
        }
        crashPoint = null;
        graph.close();
        graph = null;
        graph = openAndRecover(false);
        verify("end");
        foldedTablesEqualTheModel();
        graph.close();
        graph = null;
    }

    private void step() {
        int r = random.nextInt(100);
        if (r < 50) {
            submit();
        } else if (r < 78) {
            trace("step");
            graph.engine().stepCommitter();
            collect();
        } else if (r < 84) {
            append();
        } else if (r < 87) {
            createBranch();
        } else if (r < 91) {
            merge();
        } else if (r < 96) {
            injectFault();
        } else if (r < 97) {
            cleanRestart();
        } else {
            drain();
        }
    }

    private void submit() {
        List<Integer> free = new ArrayList<>();
        for (int w = 0; w < writers; w++) {
            if (outstandingOf[w] < capacity[w]) {
                free.add(w);
            }
        }
        if (free.isEmpty()) {
            trace("step (writers full)");
            graph.engine().stepCommitter();
            collect();
            return;
        }
        int w = free.get(random.nextInt(free.size()));
        List<String> branches = new ArrayList<>(forkN.keySet());
        String branch = random.nextInt(10) < 7 || branches.isEmpty() ? MAIN : branches.get(random.nextInt(branches.size()));
        int tr = random.nextInt(20);
        String table = KEYED.get(tr < 9 ? 0 : tr < 14 ? 1 : 2);
        int k = random.nextInt(100);
        Kind kind = k < 38 ? Kind.INSERT : k < 68 ? Kind.UPSERT : k < 78 ? Kind.UPDATE : Kind.DELETE;
        TreeMap<String, Long> keys = new TreeMap<>();
        int n = 1 + random.nextInt(3);
        for (int i = 0; i < n; i++) {
            keys.put("k" + random.nextInt(KEY_SPACE), kind == Kind.DELETE ? 0L : (long) random.nextInt(100));
        }
        Op op = new Op(nextN++, w, kind, branch, table, keys);
        trace("submit " + op);
        count("ops-submitted");
        outstanding.add(op);
        outstandingOf[w]++;
        WriteOptions wo = WriteOptions.idempotencyKey(op.key());
        switch (kind) {
            case INSERT -> op.future = graph.insertAsync(branch, table, op.root = people(table, keys), wo);
            case UPSERT -> op.future = graph.upsertAsync(branch, table, op.root = people(table, keys), wo);
            case UPDATE -> op.future = graph.updateAsync(branch, table, keys.entrySet().stream()
                    .map(e -> Row.of("id", e.getKey(), "age", e.getValue())).toList(), wo);
            case DELETE -> op.future = graph.deleteAsync(branch, table, List.copyOf(keys.keySet()), wo);
        }
    }

    private void append() {
        List<String> msgs = new ArrayList<>();
        int n = 1 + random.nextInt(2);
        for (int i = 0; i < n; i++) {
            msgs.add("m" + (nextMsg++));
        }
        trace("append " + msgs);
        uncertainAppends.add(msgs);
        try (VectorSchemaRoot batch = logLines(msgs)) {
            graph.append(MAIN, "log", batch);
            uncertainAppends.remove(msgs);
            log.addAll(msgs);
            count("appends-acked");
        } catch (CommitStateUnknownException | GraphRefusedException | WriteConflictException e) {
            // GraphRefused: poisoned; WriteConflict: an injected conflict beyond the retries; unknown: a fault
            check("typed-failure", e instanceof GraphRefusedException ? poisoned.contains(MAIN + "/log")
                    : e instanceof WriteConflictException ? conflictInjected.contains("log") : unknownInjected.contains("log"),
                    "append failed with " + e);
            if (e instanceof CommitStateUnknownException) {
                poisoned.add(MAIN + "/log");
            } else {
                uncertainAppends.remove(msgs);
            }
            trace("append failed " + e.getClass().getSimpleName());
        } finally {
            collect();
        }
    }

    private void createBranch() {
        if (rows.size() > 3) {
            return;
        }
        drain();
        String name = "b" + (nextBranch++);
        long n = nextN++;
        Map<String, TreeMap<String, Long>> snap = new TreeMap<>();
        Map<String, Set<String>> everSnap = new TreeMap<>();
        for (String t : KEYED) {
            snap.put(t, new TreeMap<>(rows.get(MAIN).get(t)));
            everSnap.put(t, new TreeSet<>(ever.get(MAIN + "/" + t)));
        }
        trace("branch " + name + " #" + n);
        pendingBranch = new PendingBranch(n, name, snap, everSnap);
        graph.createBranch(name, MAIN);
        pendingBranch = null;
        addBranch(name, n, snap, everSnap);
        count("branches-created");
    }

    private void addBranch(String name, long n, Map<String, TreeMap<String, Long>> snap, Map<String, Set<String>> everSnap) {
        rows.put(name, snap);
        everSnap.forEach((t, keys) -> ever.put(name + "/" + t, keys));
        forkN.put(name, n);
    }

    private void merge() {
        if (forkN.isEmpty()) {
            return;
        }
        drain();
        // a merge is predicted exactly only when nothing about main is uncertain
        for (String t : List.of("person", "tag", "note", "log")) {
            if (store.armedFault(t).isPresent() || poisoned.stream().anyMatch(p -> p.endsWith("/" + t))) {
                return;
            }
        }
        if (!uncertain.isEmpty()) {
            return;
        }
        List<String> sources = new ArrayList<>(forkN.keySet());
        String source = sources.get(random.nextInt(sources.size()));
        long fork = forkN.get(source);
        long n = nextN++;
        List<String> both = new ArrayList<>();
        Map<String, Map<Kind, TreeMap<String, Long>>> plan = new TreeMap<>();
        for (String t : KEYED) {
            Set<String> src = changedSince(source, t, fork);
            Set<String> tgt = changedSince(MAIN, t, fork);
            for (String k : src) {
                if (tgt.contains(k)) {
                    both.add(t + ":" + k);
                }
            }
            Map<Kind, TreeMap<String, Long>> p = new TreeMap<>();
            for (Kind kind : Kind.values()) {
                p.put(kind, new TreeMap<>());
            }
            for (String k : src) {
                Long v = rows.get(source).get(t).get(k);
                boolean inMain = rows.get(MAIN).get(t).containsKey(k);
                if (v != null) {
                    p.get(inMain ? Kind.UPSERT : Kind.INSERT).put(k, v);
                } else if (inMain) {
                    p.get(Kind.DELETE).put(k, 0L);
                }
            }
            plan.put(t, p);
        }
        trace("merge " + source + " #" + n + " expect " + (both.isEmpty() ? "ok " + plan : "conflict " + both));
        long journalEnd = graph.engine().context().journal().endSequence();
        pendingMerge = both.isEmpty() ? new PendingMerge(n, source, journalEnd, plan) : null;
        try {
            MergeResult result = graph.merge(source, MAIN);
            check("merge-outcome", both.isEmpty(), "merge of " + source + " succeeded but keys " + both + " changed on both sides");
            long ins = 0, upd = 0, del = 0;
            for (String t : KEYED) {
                ins += plan.get(t).get(Kind.INSERT).size();
                upd += plan.get(t).get(Kind.UPSERT).size();
                del += plan.get(t).get(Kind.DELETE).size();
            }
            check("merge-outcome", result.inserted() == ins && result.updated() == upd && result.deleted() == del,
                    "merge of " + source + " did " + result + ", the model expects inserted=" + ins + " updated=" + upd
                            + " deleted=" + del);
            pendingMerge = null;
            for (String t : KEYED) {
                for (Kind kind : Kind.values()) {
                    applyMergePart(n, t, kind, plan.get(t).get(kind));
                }
            }
            count("merges");
        } catch (MergeConflictException e) {
            check("merge-outcome", !both.isEmpty(), "merge of " + source + " refused (" + e.getMessage()
                    + ") but the model finds no key changed on both sides");
            trace("merge conflict");
            count("merge-conflicts");
        }
    }

    private Set<String> changedSince(String branch, String table, long fork) {
        Set<String> keys = new TreeSet<>();
        for (Applied a : applied) {
            if (a.n() > fork && a.branch().equals(branch) && a.table().equals(table)) {
                keys.addAll(a.keys());
            }
        }
        return keys;
    }

    private void applyMergePart(long n, String table, Kind kind, TreeMap<String, Long> part) {
        if (part.isEmpty()) {
            return;
        }
        Op op = new Op(n, -1, kind, MAIN, table, part);
        apply(op);
    }

    private void injectFault() {
        // faults in the journal-ack table's folds are not modelled: a fold's unknown outcome reaches no writer
        String table = random.nextInt(6) == 0 ? "log" : KEYED.get(random.nextInt(2));
        if (store.armedFault(table).isPresent()) {
            return;
        }
        SimulatedTableStore.Fault[] all = SimulatedTableStore.Fault.values();
        SimulatedTableStore.Fault f = all[random.nextInt(all.length)];
        trace("fault " + table + " " + f);
        count("faults-armed");
        switch (f) {
            case WRITE_CONFLICT -> conflictInjected.add(table);
            case FAIL_BEFORE_COMMIT, FAIL_AFTER_COMMIT -> unknownInjected.add(table);
        }
        store.injectOnNextCommit(table, f);
    }

    private void cleanRestart() {
        drain();
        trace("restart");
        count("clean-restarts");
        graph.close(); // may crash writing its checkpoint
        graph = openAndRecover(false);
        verify("restart");
        armSessionCrash();
    }

    /** Steps the committer until every outstanding write has its outcome. */
    private void drain() {
        int guard = 0;
        while (!outstanding.isEmpty()) {
            graph.engine().stepCommitter();
            collect();
            if (++guard > 10_000) {
                throw new Violation("seed " + seed + ": the committer makes no progress on " + outstanding);
            }
        }
    }

    // ------------------------------------------------------------------ outcomes

    private void collect() {
        List<Op> ok = new ArrayList<>();
        List<Op> failed = new ArrayList<>();
        for (Iterator<Op> it = outstanding.iterator(); it.hasNext(); ) {
            Op op = it.next();
            if (op.future.isDone()) {
                it.remove();
                outstandingOf[op.writer]--;
                closeRoot(op);
                (op.future.isCompletedExceptionally() ? failed : ok).add(op);
            }
        }
        ok.sort(Comparator.comparingLong(op -> op.future.join().seq()));
        for (Op op : ok) {
            Receipt r = op.future.join();
            trace("ack #" + op.n + " v" + r.version() + " seq" + r.seq());
            count("ops-acked");
            check("receipt", r.table().equals(op.table) && r.branch().equals(op.branch), "receipt " + r + " for " + op);
            apply(op);
        }
        // a commit of unknown outcome refuses the table's later writes of the same duty cycle: register it first
        failed.sort(Comparator.comparingInt(op -> cause(op.future) instanceof CommitStateUnknownException ? 0 : 1));
        for (Op op : failed) {
            Throwable e = cause(op.future);
            trace("fail #" + op.n + " " + e.getClass().getSimpleName());
            String where = op.branch + "/" + op.table;
            switch (e) {
                case io.palisade.fencing.KeyNotFoundException nf -> {
                    count("keys-not-found");
                    check("key-not-found", op.kind == Kind.UPDATE && !nf.keys().isEmpty()
                            && op.rows.keySet().containsAll(nf.keys()), op + " refused with absent keys " + nf.keys());
                }
                case KeyConflictException kc -> {
                    count("key-conflicts");
                    check("key-conflict", op.kind == Kind.INSERT && !kc.keys().isEmpty()
                                    && op.rows.keySet().containsAll(kc.keys()) && ever.get(where).containsAll(kc.keys()),
                            op + " refused with conflicting keys " + kc.keys() + " (keys ever present: " + ever.get(where) + ")");
                }
                case WriteConflictException wc -> {
                    count("write-conflicts");
                    check("typed-failure", conflictInjected.contains(op.table), op + " failed with " + wc);
                }
                case CommitStateUnknownException cu -> {
                    count("commits-of-unknown-outcome");
                    check("typed-failure", unknownInjected.contains(op.table), op + " failed with " + cu);
                    poisoned.add(where);
                    uncertain.add(op);
                }
                case GraphRefusedException gr -> {
                    count("refused-poisoned");
                    check("typed-failure", poisoned.contains(where), op + " failed with " + gr);
                }
                default -> throw new Violation("seed " + seed + ": " + op + " failed with an unexpected " + e);
            }
        }
    }

    /** Applies a write known to be applied to the model, checking strict inserts against it. */
    private void apply(Op op) {
        TreeMap<String, Long> table = rows.get(op.branch).get(op.table);
        switch (op.kind) {
            case INSERT -> {
                for (String k : op.rows.keySet()) {
                    check("2-strict-insert", !table.containsKey(k), "strict insert " + op + " committed over existing key "
                            + k + " (model " + table + ")");
                }
                table.putAll(op.rows);
            }
            case UPSERT -> table.putAll(op.rows);
            case UPDATE -> {
                for (String k : op.rows.keySet()) {
                    check("update-of-present-keys", table.containsKey(k), "update " + op + " committed over absent key "
                            + k + " (model " + table + ")");
                }
                table.putAll(op.rows);
            }
            case DELETE -> op.rows.keySet().forEach(table::remove);
        }
        if (op.kind != Kind.DELETE) {
            ever.get(op.branch + "/" + op.table).addAll(op.rows.keySet());
        }
        applied.add(new Applied(op.n, op.branch, op.table, Set.copyOf(op.rows.keySet())));
    }

    private static Throwable cause(CompletableFuture<?> f) {
        try {
            f.get();
            throw new IllegalStateException("not failed");
        } catch (ExecutionException e) {
            return e.getCause();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    // ------------------------------------------------------------------ crashes and recovery

    private void armSessionCrash() {
        if (random.nextInt(10) < 8) {
            crashPoint = WRITE_POINTS.get(random.nextInt(WRITE_POINTS.size()));
            crashNth = 1 + random.nextInt(6);
        } else {
            crashPoint = null;
        }
        crashHits = 0;
        trace("arm " + crashPoint + ":" + crashNth);
    }

    private void onCrashPoint(String name) {
        if (name.equals(crashPoint) && ++crashHits == crashNth) {
            crashPoint = null;
            count("crashes");
            count("crashes@" + name);
            throw new SimulatedCrash(name);
        }
    }

    /** The process died: what it acknowledged stays, what was in flight is unknown, the rest is lost. */
    private void onCrash(SimulatedCrash c) {
        trace("crash " + c.getMessage());
        collect(); // outcomes delivered before the crash
        for (Op op : outstanding) {
            outstandingOf[op.writer]--;
            closeRoot(op);
            uncertain.add(op);
        }
        outstanding.clear();
        graph.engine().abandon();
        graph = openAndRecover(true);
        verify("crash at " + c.getMessage().substring("simulated crash at ".length()));
        armSessionCrash();
    }

    /** Opens the graph (recovery runs), possibly crashing inside recovery first (then opens again). */
    private Graph openAndRecover(boolean mayCrashInRecovery) {
        if (mayCrashInRecovery && random.nextInt(10) < 4) {
            crashPoint = RECOVERY_POINTS.get(random.nextInt(RECOVERY_POINTS.size()));
            crashNth = 1;
            crashHits = 0;
            trace("arm " + crashPoint);
        } else {
            crashPoint = null;
        }
        while (true) {
            try {
                Graph g = Palisade.open(root.resolve("g"), options, false, wiring);
                crashPoint = null;
                count("recoveries");
                RecoveryReport report = g.recoveryReport();
                Map<String, Integer> kinds = new TreeMap<>();
                for (RecoveryClassification c : report.classifications()) {
                    kinds.merge(c.kind().name(), 1, Integer::sum);
                    count("recovered-" + c.kind().name());
                }
                trace("recovered " + kinds + (report.closedRecovery() != null ? " closing an open recovery" : ""));
                return g;
            } catch (SimulatedCrash c) {
                trace("crash in recovery " + c.getMessage());
                count("crashes-in-recovery");
            }
        }
    }

    // ------------------------------------------------------------------ invariants

    private void verify(String label) {
        HeadsState state = graph.state();
        resolveUncertain(state, label);
        // branches
        check("1-acked-present", new TreeSet<>(graph.branches()).equals(rows.keySet()),
                label + ": branches " + graph.branches() + ", model " + rows.keySet());
        for (String b : rows.keySet()) {
            for (String t : KEYED) {
                TreeMap<String, Long> actual = new TreeMap<>();
                List<Map<String, Object>> scanned = graph.scan(b, t);
                for (Map<String, Object> row : scanned) {
                    Long prev = actual.put((String) row.get("id"), (Long) row.get("age"));
                    check("2-no-duplicate-id", prev == null,
                            label + ": duplicate id " + row.get("id") + " in " + b + "/" + t);
                }
                check("1+3-state-equals-model", actual.equals(rows.get(b).get(t)), label + ": " + b + "/" + t
                        + " holds " + actual + ", the model (acknowledged writes + the unacknowledged ones the journal "
                        + "applied) is " + rows.get(b).get(t) + "\n recovery: " + graph.recoveryReport().toJson());
            }
        }
        List<String> msgs = new ArrayList<>();
        graph.scan(MAIN, "log").forEach(r -> msgs.add((String) r.get("msg")));
        check("2-no-duplicate-append", new TreeSet<>(msgs).size() == msgs.size(), label + ": a message appears twice: " + msgs);
        check("1+3-state-equals-model", new TreeSet<>(msgs).equals(new TreeSet<>(log)), label + ": log " + msgs + ", model " + log);
        // 4
        check("4-no-open-intent", state.openIntents().isEmpty(), label + ": open intents " + state.openIntents());
        check("4-no-open-recovery", state.openRecovery().isEmpty(), label + ": a recovery is left open");
        Path palisade = root.resolve("g").resolve("_palisade");
        try (JournalReader jr = JournalReader.open(palisade)) {
            VerificationReport v = jr.verify();
            check("4-journal-verifies", v.ok(), label + ": journal " + v);
        }
        foldedOnce(state, label);
        // 5
        HeadsReplayer replayer = HeadsReplayer.of(palisade);
        HeadsReplayer.Replay viaCheckpoint = replayer.replay();
        RecoveryReport second = Recovery.run(graph.engine().context().journal(), viaCheckpoint, graph.engine().context().store(), false);
        check("5-second-recovery-noop", !second.changedAnything() && second.headsDigest().equals(state.digest()),
                label + ": a second recovery " + second.toJson());
        check("5-checkpoint-tail-equals-full-replay", viaCheckpoint.state().digest().equals(replayer.fullReplay().digest())
                && viaCheckpoint.state().digest().equals(state.digest()), label + ": checkpoint + tail replay (from "
                + viaCheckpoint.checkpointSequence() + ") differs from full replay");
        count("verifications");
        trace("verified " + label);
    }

    /**
     * Nothing folded twice, nothing skipped (docs/journal-ack.md): per graph branch and journal-ack table, the applied
     * folds' watermarks increase, and every write acknowledged from the journal ({@code JOURNALED}) lies in exactly one
     * applied fold's range (previous watermark, watermark] when it is at or below the table's watermark, in none when
     * it is above it; the table's unfolded count is the number of writes above it.
     */
    private void foldedOnce(HeadsState state, String label) {
        Map<String, String> whereOf = new TreeMap<>(); // intent -> branch/table
        Map<String, JournalEvent.FoldPlanned> plans = new TreeMap<>();
        Map<String, List<Long>> watermarks = new TreeMap<>();
        Map<String, List<Long>> acks = new TreeMap<>();
        try (JournalReader jr = JournalReader.open(root.resolve("g").resolve("_palisade")); JournalCursor c = jr.read(0)) {
            for (JournalRecord r = c.poll(); r != null; r = c.poll()) {
                switch (r.event()) {
                    case JournalEvent.IntentRecorded ir -> whereOf.put(ir.intentId(), ir.graphBranch() + "/" + ir.table());
                    case JournalEvent.FoldPlanned p -> plans.put(p.intentId(), p);
                    case JournalEvent.JournaledWrite w -> // a journal-ack write in one record: recorded and acknowledged
                            acks.computeIfAbsent(w.intent().graphBranch() + "/" + w.intent().table(),
                                    k -> new ArrayList<>()).add(r.sequence());
                    case JournalEvent.IntentCompleted ic when ic.outcome() == io.palisade.journal.IntentOutcome.JOURNALED ->
                            acks.computeIfAbsent(whereOf.get(ic.intentId()), k -> new ArrayList<>()).add(r.sequence());
                    case JournalEvent.IntentCompleted ic when plans.containsKey(ic.intentId())
                            && (ic.outcome() == io.palisade.journal.IntentOutcome.COMMITTED
                            || ic.outcome() == io.palisade.journal.IntentOutcome.ROLLED_FORWARD) -> {
                        JournalEvent.FoldPlanned p = plans.get(ic.intentId());
                        watermarks.computeIfAbsent(p.graphBranch() + "/" + p.table(), k -> new ArrayList<>())
                                .add(p.throughSequence());
                    }
                    default -> {
                        // other records fold nothing (the product's own switches are exhaustive; this is a test's view)
                    }
                }
            }
        }
        check("6-journal-ack-writes", acks.keySet().stream().allMatch(w -> w.endsWith("/" + JOURNAL_ACK)),
                label + ": writes acknowledged from the journal on table-ack tables: " + acks.keySet());
        for (String b : rows.keySet()) {
            String where = b + "/" + JOURNAL_ACK;
            List<Long> ws = watermarks.getOrDefault(where, List.of());
            List<Long> as = acks.getOrDefault(where, List.of());
            io.palisade.heads.FoldMark mark = state.foldMark(b, JOURNAL_ACK);
            long above = 0;
            for (int i = 1; i < ws.size(); i++) {
                check("6-folded-once", ws.get(i) > ws.get(i - 1), label + ": " + where + " fold watermarks " + ws);
            }
            for (long ack : as) {
                int covering = 0;
                long previous = -1;
                for (long w : ws) {
                    if (ack > previous && ack <= w) {
                        covering++;
                    }
                    previous = w;
                }
                boolean folded = !ws.isEmpty() && ack <= ws.get(ws.size() - 1);
                above += folded ? 0 : 1;
                check("6-folded-once", covering == (folded ? 1 : 0), label + ": the write acknowledged at " + ack + " on "
                        + where + " lies in " + covering + " applied folds (watermarks " + ws + ")");
            }
            check("6-unfolded-count", mark.unfolded() == above, label + ": " + where + " says " + mark + ", the journal "
                    + above + " writes above its last applied fold " + ws);
            count(above == 0 ? "fold-checks-all-folded" : "fold-checks-with-unfolded");
        }
    }

    /** After the last close folded everything: the journal-ack table itself holds the model on every branch, each id once. */
    private void foldedTablesEqualTheModel() {
        for (String b : rows.keySet()) {
            check("6-all-folded", graph.state().foldMark(b, JOURNAL_ACK).unfolded() == 0,
                    "end: " + b + "/" + JOURNAL_ACK + " unfolded after the close: " + graph.state().foldMark(b, JOURNAL_ACK));
            io.palisade.journal.TableHead h = graph.state().head(b, JOURNAL_ACK).orElseThrow();
            TreeMap<String, Long> actual = new TreeMap<>();
            try (io.palisade.substrate.KeyedTable t = store.openKeyed(JOURNAL_ACK,
                    new io.palisade.substrate.TableRef(h.tableBranch(), h.version()))) {
                for (Map<String, Object> row : t.scan()) {
                    check("6-folded-no-duplicate-id", actual.put((String) row.get("id"), (Long) row.get("age")) == null,
                            "end: duplicate id " + row.get("id") + " in the folded " + b + "/" + JOURNAL_ACK);
                }
            }
            check("6-folded-equals-model", actual.equals(rows.get(b).get(JOURNAL_ACK)), "end: the folded " + b + "/"
                    + JOURNAL_ACK + " holds " + actual + ", the model " + rows.get(b).get(JOURNAL_ACK));
        }
    }

    /** Moves every write of unknown outcome into the model, or out of it, as the recovered journal says. */
    private void resolveUncertain(HeadsState state, String label) {
        uncertain.sort(Comparator.comparingLong(op -> op.n));
        for (Op op : uncertain) {
            boolean was = state.receipt(op.key()).isPresent();
            trace("resolved #" + op.n + (was ? " applied" : " absent"));
            count(was ? "unacked-applied" : "unacked-absent");
            if (was) {
                apply(op);
            }
        }
        uncertain.clear();
        poisoned.clear();
        if (!uncertainAppends.isEmpty()) {
            Set<String> present = new TreeSet<>();
            graph.scan(MAIN, "log").forEach(r -> present.add((String) r.get("msg")));
            for (List<String> msgs : uncertainAppends) {
                boolean all = present.containsAll(msgs);
                check("3-all-or-nothing", all || msgs.stream().noneMatch(present::contains),
                        label + ": append " + msgs + " partly present: " + present);
                trace("resolved append " + msgs + (all ? " applied" : " absent"));
                count(all ? "unacked-applied" : "unacked-absent");
                if (all) {
                    log.addAll(msgs);
                }
            }
            uncertainAppends.clear();
        }
        if (pendingBranch != null) {
            boolean exists = graph.branches().contains(pendingBranch.name());
            trace("resolved branch " + pendingBranch.name() + (exists ? " created" : " absent"));
            if (exists) {
                addBranch(pendingBranch.name(), pendingBranch.n(), pendingBranch.snapshot(), pendingBranch.ever());
            }
            pendingBranch = null;
        }
        if (pendingMerge != null) {
            // the merge's writes are the intents without idempotency key journaled on main after it started; whether
            // each was applied is read from its IntentCompleted in the journal (the heads state forgets completed
            // intents once a checkpoint covers them)
            List<JournalEvent.IntentRecorded> parts = new ArrayList<>();
            Map<String, io.palisade.journal.IntentOutcome> outcomes = new HashMap<>();
            try (JournalReader jr = JournalReader.open(root.resolve("g").resolve("_palisade"));
                 JournalCursor c = jr.read(pendingMerge.journalEnd())) {
                for (JournalRecord r = c.poll(); r != null; r = c.poll()) {
                    if (r.event() instanceof JournalEvent.IntentRecorded ir && ir.idempotencyKey() == null
                            && ir.graphBranch().equals(MAIN) && KEYED.contains(ir.table())) {
                        parts.add(ir);
                    } else if (r.event() instanceof JournalEvent.IntentCompleted ic) {
                        outcomes.put(ic.intentId(), ic.outcome());
                    } else if (r.event() instanceof JournalEvent.JournaledWrite w) {
                        // a journal-ack write in one record: its intent, completed JOURNALED
                        JournalEvent.IntentRecorded ir = w.intent();
                        if (ir.idempotencyKey() == null && ir.graphBranch().equals(MAIN) && KEYED.contains(ir.table())) {
                            parts.add(ir);
                        }
                        outcomes.put(ir.intentId(), io.palisade.journal.IntentOutcome.JOURNALED);
                    }
                }
            }
            for (JournalEvent.IntentRecorded ir : parts) {
                Kind kind = switch (ir.operation()) {
                    case INSERT -> Kind.INSERT;
                    case UPSERT -> Kind.UPSERT;
                    case DELETE -> Kind.DELETE;
                    case FOLD -> null; // the fold of a side before the merge, not one of its parts
                    default -> throw new Violation("seed " + seed + ": a merge journaled " + ir);
                };
                if (kind == null) {
                    continue;
                }
                io.palisade.journal.IntentOutcome o = outcomes.get(ir.intentId());
                boolean was = o == io.palisade.journal.IntentOutcome.COMMITTED
                        || o == io.palisade.journal.IntentOutcome.ROLLED_FORWARD
                        || o == io.palisade.journal.IntentOutcome.JOURNALED;
                trace("resolved merge part " + ir.table() + " " + kind + (was ? " applied" : " absent"));
                if (was) {
                    applyMergePart(pendingMerge.n(), ir.table(), kind, pendingMerge.plan().get(ir.table()).get(kind));
                }
            }
            pendingMerge = null;
        }
    }

    private void check(String invariant, boolean ok, String message) {
        count("check:" + invariant);
        count("invariant-checks");
        if (!ok) {
            throw new Violation("seed " + seed + " [" + invariant + "] " + message);
        }
    }

    // ------------------------------------------------------------------ plumbing

    /** On failure: the seed's whole schedule, to target/sim-seed-N.trace (when run from a module directory). */
    private void writeTrace() {
        Path target = Path.of("target");
        if (Files.isDirectory(target)) {
            try {
                Files.write(target.resolve("sim-seed-" + seed + ".trace"), trace);
            } catch (IOException ignored) {
                // the failure itself is what matters
            }
        }
    }

    private void trace(String line) {
        trace.add(line);
    }

    private void count(String name) {
        counters.computeIfAbsent(name, k -> new AtomicLong()).incrementAndGet();
    }

    private VectorSchemaRoot people(String table, TreeMap<String, Long> keys) {
        List<Map<String, Object>> batch = new ArrayList<>();
        keys.forEach((id, age) -> {
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("id", id);
            row.put("age", age);
            batch.add(row);
        });
        VectorSchemaRoot r = VectorSchemaRoot.create(graph.catalog().require(table).arrowSchema(), allocator);
        ArrowRows.fill(r, batch);
        return r;
    }

    private VectorSchemaRoot logLines(List<String> msgs) {
        List<Map<String, Object>> batch = new ArrayList<>();
        for (String m : msgs) {
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("msg", m);
            batch.add(row);
        }
        VectorSchemaRoot r = VectorSchemaRoot.create(graph.catalog().require("log").arrowSchema(), allocator);
        ArrowRows.fill(r, batch);
        return r;
    }

    private static void closeRoot(Op op) {
        if (op.root != null) {
            op.root.close();
            op.root = null;
        }
    }

    private void closeOutstanding() {
        outstanding.forEach(Simulation::closeRoot);
        outstanding.clear();
    }

    static void deleteTree(Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        try (var walk = Files.walk(dir)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
