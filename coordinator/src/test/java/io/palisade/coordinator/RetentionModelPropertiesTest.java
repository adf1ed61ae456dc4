package io.palisade.coordinator;

import io.palisade.fencing.MergeConflictException;
import io.palisade.fencing.VersionExpiredException;
import io.palisade.heads.HeadsState;
import io.palisade.heads.Pin;
import io.palisade.journal.TableHead;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.longs;

/**
 * Version retention and automatic compaction at tight bounds (2 to 4 versions kept, no time window, a removal every
 * 2 commits; compaction checked every 2 commits at 4 small fragments) against a serial model that never cleans up.
 * A random sequence of upserts and deletes of a few keys on {@code main} and on graph branches, branch creations
 * (from {@code main} or from another branch, lazily inherited until written), merges between any two branches and
 * explicit compactions runs one op at a time. The model keeps each branch's rows as a map (a branch copies its
 * parent's at creation) and the keys each branch changed and when, and merges as {@link Graph#merge} documents: the
 * keys the source changed since its fork are brought to the target (present on the source: written; absent: deleted
 * from the target if there), unless one of them was also changed on the target since that fork, which is a
 * {@link MergeConflictException} naming exactly those keys, with nothing merged. A merge whose fork-point read is
 * refused with {@link VersionExpiredException} (the parent's version the source was forked from lies below the
 * parent's retention bound) must not have been a conflict, and changes nothing either. An explicit compaction of a
 * table the branch still inherits lazily is not run (see {@link #apply}). The properties:
 * <ol>
 *   <li>after every op, every live branch scans exactly the model's rows (id to age, each id once);</li>
 *   <li>every point recorded after a change to {@code main} (journal sequence, {@code main}'s head then, the model's
 *       rows then) reads back through {@link Graph#scanAt} as exactly those rows, or fails with
 *       {@link VersionExpiredException} naming a kept version newer than the one asked for; a point at one of the
 *       newest {@code minVersions} versions of {@code main} always reads back. Checked on the reopened graph, when no
 *       removal is in flight;</li>
 *   <li>after close (which waits for the removal in flight) and reopen with the same options, every live branch
 *       scans the model's rows again.</li>
 * </ol>
 * Across all examples at least one point must have been refused as expired, versions must have been removed and
 * an automatic compaction must have run, so the properties are not met vacuously.
 *
 * <p>{@code -Dpalisade.retention.props.examples=N} runs N random sequences (default {@value #DEFAULT_EXAMPLES}).
 */
class RetentionModelPropertiesTest extends GraphTestSupport {
    static final int DEFAULT_EXAMPLES = 6;
    static final long DEFAULT_SEED = 20261204L;
    private static final List<String> KEYS = List.of("a", "b", "c", "d", "e");
    private static final int MAX_BRANCHES = 4;
    private static final Retention RETENTION = Retention.DEFAULTS.withVersions(2, 4).withWindow(Duration.ZERO)
            .withExpireEvery(2);
    private static final Options OPTIONS = Options.defaults().withRetention(RETENTION)
            .withCompaction(Compaction.DEFAULTS.withTriggers(6, 4, 0.3).withCheckEvery(2).withTarget(50, 0.3));

    private final AtomicInteger example = new AtomicInteger();
    private final AtomicLong expiredPoints = new AtomicLong();
    private final AtomicLong versionsExpired = new AtomicLong();
    private final AtomicLong autoCompactions = new AtomicLong();

    private sealed interface Op permits Upsert, Delete, Branch, Merge, Compact {
    }

    private record Upsert(String branch, List<String> keys, long age) implements Op {
    }

    private record Delete(String branch, List<String> keys) implements Op {
    }

    private record Branch(String name, String from) implements Op {
    }

    private record Merge(String source, String target) implements Op {
    }

    private record Compact(String branch) implements Op {
    }

    /** A point of {@code main}'s history: its journal sequence, {@code main}'s head there, and the model's rows then. */
    private record Point(long seq, TableHead head, Map<String, Long> rows) {
    }

    /**
     * The serial model: each branch's rows, and the op (by its logical time) that last changed each key on each
     * branch; a branch's fork is the time it was created. Nothing is ever removed from it.
     */
    private static final class Model {
        final Map<String, Map<String, Long>> rows = new LinkedHashMap<>();
        final Map<String, Map<String, Integer>> changed = new HashMap<>();
        final Map<String, Integer> fork = new HashMap<>();
        int time;

        Model() {
            rows.put("main", new TreeMap<>());
            changed.put("main", new HashMap<>());
        }

        void upsert(String branch, List<String> keys, long age) {
            time++;
            keys.forEach(k -> {
                rows.get(branch).put(k, age);
                changed.get(branch).put(k, time);
            });
        }

        void delete(String branch, List<String> keys) {
            time++;
            keys.forEach(k -> {
                rows.get(branch).remove(k);
                changed.get(branch).put(k, time);
            });
        }

        void branch(String name, String from) {
            time++;
            rows.put(name, new TreeMap<>(rows.get(from)));
            changed.put(name, new HashMap<>());
            fork.put(name, time);
        }

        /** The keys changed on {@code branch} after logical time {@code since}. */
        Set<String> changedSince(String branch, int since) {
            Set<String> out = new TreeSet<>();
            changed.get(branch).forEach((k, t) -> {
                if (t > since) {
                    out.add(k);
                }
            });
            return out;
        }

        /** The keys a merge of {@code source} into {@code target} conflicts on (empty: it merges). */
        List<String> conflicts(String source, String target) {
            int since = fork.get(source);
            Set<String> both = changedSince(source, since);
            both.retainAll(changedSince(target, since));
            return both.stream().map(k -> "person:" + k).toList();
        }

        void merge(String source, String target) {
            Set<String> keys = changedSince(source, fork.get(source));
            time++;
            Map<String, Long> from = rows.get(source);
            Map<String, Long> to = rows.get(target);
            for (String k : keys) {
                if (from.containsKey(k)) {
                    to.put(k, from.get(k));
                    changed.get(target).put(k, time);
                } else if (to.remove(k) != null) {
                    changed.get(target).put(k, time);
                }
            }
        }
    }

    @Test
    void branchesAndMainsHistoryReadLikeASerialModelWhileOldVersionsAreRemovedAndTablesCompacted() {
        int examples = Integer.getInteger("palisade.retention.props.examples", DEFAULT_EXAMPLES);
        // a fixed seed by default, so that the suite is the same on every run; -Dpalisade.retention.props.seed=N
        // replays another, "random" draws one (a failure prints the example's own seed, replayable alone)
        String seed = System.getProperty("palisade.retention.props.seed", Long.toString(DEFAULT_SEED));
        var theory = qt().withExamples(examples).withShrinkCycles(0);
        if (!seed.equals("random")) {
            theory = theory.withFixedSeed(Long.parseLong(seed));
        }
        theory.forAll(longs().all()).checkAssert(this::matchesTheModel);
        assertThat(expiredPoints.get()).as("points of main refused as expired over %d examples", examples).isPositive();
        assertThat(versionsExpired.get()).as("versions removed over %d examples", examples).isPositive();
        assertThat(autoCompactions.get()).as("automatic compactions over %d examples", examples).isPositive();
    }

    /**
     * Lance keeps the manifest of the version a table branch was forked from, but not the files only that version
     * names once the forked branch no longer names them either, so after {@code main}'s bound has passed the fork
     * point its version is listed and unreadable. A read of it is refused as expired (it lies below a journaled
     * {@code versions_expired} bound), not reported as a damaged table.
     */
    @Test
    void aForkPointWhoseFilesRetentionRemovedIsRefusedAsExpired() {
        Options options = OPTIONS.withCompaction(Compaction.off());
        Path path = dir.resolve("fork");
        long forkPoint;
        long forkVersion;
        try (Graph g = Palisade.create(path, Rows.catalog(), options)) {
            upsert(g, "main", "a", 1L, "b", 1L, "c", 1L);
            upsert(g, "main", "a", 2L);                 // a deletion file for the first fragment
            g.createBranch("x", "main");
            forkPoint = g.state().lastSequence();
            forkVersion = g.state().head("main", "person").orElseThrow().version();
            upsert(g, "x", "z", 1L);                    // x forks from main at forkVersion
            upsert(g, "x", "b", 5L);                    // and stops naming main's deletion file
            for (int i = 0; i < 6; i++) {
                upsert(g, "x", "x" + i, (long) i);      // x's versions that named it are removed
            }
            upsert(g, "main", "c", 5L);                 // main stops naming it too
            for (int i = 0; i < 6; i++) {
                upsert(g, "main", "m" + i, (long) i);   // main's bound passes forkVersion
            }
        }
        try (Graph g = Palisade.open(path, options)) {
            assertThatThrownBy(() -> g.scanAt("main", "person", forkPoint))
                    .isInstanceOf(VersionExpiredException.class)
                    .hasMessageContaining("version retention")
                    .satisfies(e -> assertThat(((VersionExpiredException) e).oldestKept()).isGreaterThan(forkVersion));
            assertThat(ages(g.scan("x", "person"), "x")).containsEntry("a", 2L).containsEntry("b", 5L)
                    .containsEntry("c", 1L).containsEntry("z", 1L).hasSize(10);
        }
    }

    private void upsert(Graph g, String branch, Object... idAgePairs) {
        try (VectorSchemaRoot rows = Rows.people(allocator, idAgePairs)) {
            g.upsert(branch, "person", rows);
        }
    }

    /** One op drawn from {@code rnd} for the branches of {@code model} ({@code next}: the next new branch's number). */
    private static Op draw(Random rnd, Model model, int next) {
        List<String> live = new ArrayList<>(model.rows.keySet());
        List<String> others = live.subList(1, live.size()); // every branch but main
        int r = rnd.nextInt(100);
        if (r < 8 && others.size() < MAX_BRANCHES) {
            return new Branch("b" + next, live.get(rnd.nextInt(live.size())));
        }
        if (r < 22 && !others.isEmpty()) {
            String source = others.get(rnd.nextInt(others.size()));
            List<String> targets = new ArrayList<>(live);
            targets.remove(source);
            return new Merge(source, rnd.nextBoolean() ? "main" : targets.get(rnd.nextInt(targets.size())));
        }
        String branch = others.isEmpty() || rnd.nextBoolean() ? "main" : others.get(rnd.nextInt(others.size()));
        if (r < 28) {
            return new Compact(branch);
        }
        List<String> shuffled = new ArrayList<>(KEYS);
        Collections.shuffle(shuffled, rnd);
        List<String> keys = List.copyOf(shuffled.subList(0, 1 + rnd.nextInt(2)));
        return r < 78 ? new Upsert(branch, keys, rnd.nextInt(1000)) : new Delete(branch, keys);
    }

    private void matchesTheModel(long seed) {
        Random rnd = new Random(seed);
        int n = 60 + rnd.nextInt(61);
        Model model = new Model();
        List<Op> ops = new ArrayList<>();
        List<Point> points = new ArrayList<>();
        Path path = dir.resolve("g" + example.incrementAndGet());
        Metrics metrics;
        try (Graph g = Palisade.create(path, Rows.catalog(), OPTIONS)) {
            metrics = g.metrics();
            for (int i = 0; i < n; i++) {
                Op op = draw(rnd, model, i);
                ops.add(op);
                String where = "seed " + seed + ", op " + i + " of " + ops;
                boolean mainChanged;
                try {
                    mainChanged = apply(g, model, op, where);
                } catch (RuntimeException e) {
                    throw new AssertionError(where + ": " + e, e);
                }
                for (String b : model.rows.keySet()) {
                    assertThat(ages(g.scan(b, "person"), where)).as("%s: branch %s", where, b)
                            .isEqualTo(model.rows.get(b));
                }
                if (mainChanged) {
                    HeadsState s = g.state();
                    points.add(new Point(s.lastSequence(), s.head("main", "person").orElseThrow(),
                            Map.copyOf(model.rows.get("main"))));
                }
            }
        }
        // close waited for the removal in flight; the metrics' counters are final now
        versionsExpired.addAndGet(metrics.versionsExpired());
        autoCompactions.addAndGet(metrics.autoCompactions());
        String where = "seed " + seed + " after reopen, ops " + ops;
        try (Graph g = Palisade.open(path, OPTIONS)) {
            assertThat(g.branches()).as(where).containsExactlyInAnyOrderElementsOf(model.rows.keySet());
            for (String b : model.rows.keySet()) {
                assertThat(ages(g.scan(b, "person"), where)).as("%s: branch %s", where, b).isEqualTo(model.rows.get(b));
            }
            TableHead head = g.state().head("main", "person").orElseThrow();
            long newestKept = head.version() - RETENTION.minVersions() + 1;
            for (Point p : points) {
                boolean newest = p.head().tableBranch().equals(head.tableBranch()) && p.head().version() >= newestKept;
                List<Map<String, Object>> read;
                try {
                    read = g.scanAt("main", "person", p.seq());
                } catch (VersionExpiredException e) {
                    assertThat(newest).as("%s: point %s is among main's newest %d versions (head %s) but was refused: %s",
                            where, p, RETENTION.minVersions(), head, e.getMessage()).isFalse();
                    assertThat(e.oldestKept()).as("%s: point %s", where, p).isGreaterThan(p.head().version());
                    expiredPoints.incrementAndGet();
                    continue;
                }
                assertThat(ages(read, where)).as("%s: main at sequence %d (%s)", where, p.seq(), p.head())
                        .isEqualTo(p.rows());
            }
        }
    }

    /**
     * Runs {@code op} on the graph and the model; whether {@code main}'s rows may have changed. A compaction of a table
     * the branch still inherits is not run: it fails in Lance 7.0.0 (below).
     */
    private boolean apply(Graph g, Model model, Op op, String where) {
        switch (op) {
            case Upsert u -> {
                Object[] pairs = new Object[u.keys().size() * 2];
                for (int i = 0; i < u.keys().size(); i++) {
                    pairs[2 * i] = u.keys().get(i);
                    pairs[2 * i + 1] = u.age();
                }
                upsert(g, u.branch(), pairs);
                model.upsert(u.branch(), u.keys(), u.age());
                return u.branch().equals("main");
            }
            case Delete d -> {
                g.delete(d.branch(), "person", d.keys());
                model.delete(d.branch(), d.keys());
                return d.branch().equals("main");
            }
            case Branch b -> {
                g.createBranch(b.name(), b.from());
                model.branch(b.name(), b.from());
                return false;
            }
            case Merge m -> {
                List<String> conflicts = model.conflicts(m.source(), m.target());
                try {
                    g.merge(m.source(), m.target());
                } catch (MergeConflictException e) {
                    assertThat(e.keys()).as("%s: the keys changed on both sides", where).isEqualTo(conflicts);
                    return false;
                } catch (VersionExpiredException e) {
                    // the fork-point read of a source whose fork version retention removed; judged after the conflicts
                    assertThat(conflicts).as("%s: a conflicting merge refused as expired: %s", where, e.getMessage())
                            .isEmpty();
                    return false;
                }
                assertThat(conflicts).as("%s: the merge should have been refused", where).isEmpty();
                model.merge(m.source(), m.target());
                return m.target().equals("main");
            }
            case Compact c -> {
                Pin pin = g.state().pin(c.branch(), "person").orElseThrow();
                if (!pin.owned()) {
                    // not run: compacting a table the branch still inherits lazily fails in Lance 7.0.0 (the plan made
                    // on the parent's table branch is executed on the fork, which looks for the parent's data files
                    // under its own directory: CommitStateUnknownException) and fences the table until reopen
                    return false;
                }
                g.compact(c.branch(), "person");
                return c.branch().equals("main");
            }
        }
    }

    /** {@code rows} as id to age, each id once. */
    private static Map<String, Long> ages(List<Map<String, Object>> rows, String where) {
        Map<String, Long> out = new TreeMap<>();
        for (Map<String, Object> r : rows) {
            if (out.put((String) r.get("id"), (Long) r.get("age")) != null) {
                fail("%s: id %s read twice in %s", where, r.get("id"), rows);
            }
        }
        return out;
    }
}
