package io.palisade.coordinator;

import io.palisade.fencing.VersionExpiredException;
import io.palisade.journal.JournalEvent;
import io.palisade.substrate.TableRef;
import io.palisade.substrate.lance.LanceTableStore;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Version retention ({@link Retention}): old table versions are removed, journaled first, and never one that a graph
 * branch (owned or lazily inherited pin), a branch of a branch, a head or an unfolded journal-ack tail still needs.
 */
class RetentionTest extends GraphTestSupport {
    /** Tight bounds so that a test's few dozen commits pass them: 2 to 4 versions, no time window, every 3 commits. */
    private static final Retention TIGHT = Retention.DEFAULTS.withVersions(2, 4).withWindow(Duration.ZERO)
            .withExpireEvery(3);

    private static Options tight() {
        return Options.defaults().withRetention(TIGHT).withIndexRefreshEvery(0).withCompaction(Compaction.off());
    }

    private void upsert(Graph g, String branch, String key, long age) {
        try (VectorSchemaRoot r = Rows.people(allocator, key, age)) {
            g.upsert(branch, "person", r);
        }
    }

    private static Map<String, Object> ages(List<Map<String, Object>> rows) {
        Map<String, Object> out = new TreeMap<>();
        rows.forEach(r -> assertThat(out.put((String) r.get("id"), r.get("age"))).as("id %s once", r.get("id")).isNull());
        return out;
    }

    private static List<Long> versions(Path graph, String tableBranch) {
        try (LanceTableStore s = new LanceTableStore(graph.resolve("tables").toString())) {
            return s.listVersions("person", tableBranch).stream().map(v -> v.ref().version()).toList();
        }
    }

    @Test
    void branchesAndBranchesOfBranchesReadWhatTheyReadAfterMainsOldVersionsAreRemoved() {
        Path p = dir.resolve("g");
        Map<String, Object> onB;
        Map<String, Object> onC;
        long early = -1;
        String bTableBranch;
        try (Graph g = Palisade.create(p, Rows.catalog(), tight())) {
            for (int i = 0; i < 10; i++) {
                upsert(g, "main", "k" + i, i);
                if (i == 4) {
                    early = g.state().lastSequence(); // a version no branch pins
                }
            }
            g.createBranch("b", "main");            // b inherits main's head lazily
            g.createBranch("lazy", "main");         // never written: its pin stays main's version
            upsert(g, "b", "k0", 100);              // b forks its own table branch
            g.createBranch("c", "b");               // c inherits b's table branch
            onB = ages(g.scan("b", "person"));
            onC = ages(g.scan("c", "person"));
            Map<String, Object> onLazy = ages(g.scan("lazy", "person"));
            bTableBranch = g.state().head("b", "person").orElseThrow().tableBranch();
            for (int i = 0; i < 40; i++) {
                upsert(g, "main", "k" + (i % 12), 1000 + i);
            }
            g.compact("main", "person");
            for (int i = 0; i < 6; i++) {
                upsert(g, "main", "m" + i, i);
            }
            assertThat(g.metrics().versionsExpired()).isPositive();
            assertThat(ages(g.scan("b", "person"))).isEqualTo(onB);
            assertThat(ages(g.scan("c", "person"))).isEqualTo(onC);
            assertThat(ages(g.scan("lazy", "person"))).isEqualTo(onLazy);
            // the lazily inherited pin's first write forks from main's old version, which retention kept
            upsert(g, "lazy", "z", 1);
            Map<String, Object> expected = new TreeMap<>(onLazy);
            expected.put("z", 1L);
            assertThat(ages(g.scan("lazy", "person"))).isEqualTo(expected);
            // c's first write forks from b's table branch at c's pin
            upsert(g, "c", "k1", 7);
            Map<String, Object> expectedC = new TreeMap<>(onC);
            expectedC.put("k1", 7L);
            assertThat(ages(g.scan("c", "person"))).isEqualTo(expectedC);
            for (int i = 0; i < 12; i++) {
                upsert(g, "main", "n" + i, i); // with the lazy pin gone, main's old versions can go
            }
            long before = g.state().lastSequence();
            long earlyPoint = early;
            assertThatThrownBy(() -> g.scanAt("main", "person", earlyPoint))
                    .isInstanceOf(VersionExpiredException.class)
                    .hasMessageContaining("version retention")
                    .hasMessageContaining("oldest version kept after it")
                    .satisfies(e -> assertThat(((VersionExpiredException) e).oldestKept()).isPositive());
            assertThat(ages(g.scanAt("main", "person", before))).isEqualTo(ages(g.scan("main", "person")));
        }
        // close waited for the removal in flight: main keeps at most its bound plus the commits since the last removal
        long mainHead;
        try (Graph g = Palisade.open(p, tight())) {
            mainHead = g.state().head("main", "person").orElseThrow().version();
            assertThat(ages(g.scan("b", "person"))).isEqualTo(onB);
        }
        List<Long> kept = versions(p, TableRef.MAIN);
        assertThat(kept).contains(mainHead);
        // the bound, the commits since the last removal, and the two versions Lance keeps for the forks of b and lazy
        assertThat(kept.size()).isLessThanOrEqualTo(TIGHT.maxVersions() + TIGHT.expireEvery() + 2);
        assertThat(versions(p, bTableBranch)).isNotEmpty();
        List<JournalEvent.VersionsExpired> expiries = BulkLoadTest.events(p).stream()
                .filter(e -> e instanceof JournalEvent.VersionsExpired).map(e -> (JournalEvent.VersionsExpired) e).toList();
        assertThat(expiries).isNotEmpty().allSatisfy(x -> {
            assertThat(x.table()).isEqualTo("person");
            assertThat(x.beforeVersion()).isLessThanOrEqualTo(mainHead);
            assertThat(x.rule()).contains("keeps the newest 2 to 4 versions");
        });
    }

    @Test
    void anIdleBranchsInheritedPinDoesNotHoldBackMainsVersionsAndItsFirstWriteUsesTheForkRetentionMade() {
        Path p = dir.resolve("idle");
        Map<String, Object> onIdle;
        try (Graph g = Palisade.create(p, Rows.catalog(), tight())) {
            for (int i = 0; i < 5; i++) {
                upsert(g, "main", "k" + i, i);
            }
            g.createBranch("idle", "main");
            g.createBranch("idle2", "idle"); // a branch of a branch, both never written
            onIdle = ages(g.scan("idle", "person"));
            for (int i = 0; i < 40; i++) {
                upsert(g, "main", "k" + (i % 7), 100 + i);
            }
            assertThat(g.state().pin("idle", "person").orElseThrow().owned()).isFalse();
            assertThat(ages(g.scan("idle", "person"))).isEqualTo(onIdle);
            assertThat(ages(g.scan("idle2", "person"))).isEqualTo(onIdle);
        }
        List<Long> kept = versions(p, TableRef.MAIN);
        // the count bound, the commits since the last removal, and the one version Lance keeps for the idle forks
        assertThat(kept.size()).isLessThanOrEqualTo(TIGHT.maxVersions() + TIGHT.expireEvery() + 1);
        try (Graph g = Palisade.open(p, tight())) {
            assertThat(ages(g.scan("idle", "person"))).isEqualTo(onIdle);
            upsert(g, "idle", "new", 1);
            upsert(g, "idle2", "new2", 2);
            Map<String, Object> expected = new TreeMap<>(onIdle);
            expected.put("new", 1L);
            assertThat(ages(g.scan("idle", "person"))).isEqualTo(expected);
            Map<String, Object> expected2 = new TreeMap<>(onIdle);
            expected2.put("new2", 2L);
            assertThat(ages(g.scan("idle2", "person"))).isEqualTo(expected2);
            assertThat(g.state().pin("idle", "person").orElseThrow().owned()).isTrue();
            // its fork point lies far below main's retention bound: a merge never needs to read it
            for (int i = 0; i < 12; i++) {
                upsert(g, "main", "k" + (i % 7), 500 + i);
            }
            Map<String, Object> mainBefore = ages(g.scan("main", "person"));
            g.merge("idle", "main");
            Map<String, Object> merged = new TreeMap<>(mainBefore);
            merged.put("new", 1L);
            assertThat(ages(g.scan("main", "person"))).isEqualTo(merged);
        }
    }

    /**
     * A branch whose first write changed nothing owns its table branch at the version it forked, which it shares with
     * main; a branch created from it pins that version lazily. When the first branch's removal of old versions passes
     * it, retention forks the idle branch's table branch from main's copy of that state (where a fork of a shared state
     * must be made), and the first branch's own copy goes: the idle branch still reads the pinned state, writes, and
     * reads it again after a reopen.
     */
    @Test
    void anIdleBranchPinningAStateItsParentsTableBranchSharesWithMainReadsItAfterThatBranchsVersionsAreRemoved() {
        Path p = dir.resolve("shared");
        Map<String, Object> pinned;
        try (Graph g = Palisade.create(p, Rows.catalog(), tight())) {
            for (int i = 0; i < 5; i++) {
                upsert(g, "main", "k" + i, i);
            }
            g.createBranch("b", "main");
            g.delete("b", "person", List.of("absent")); // b forks main's table and changes nothing
            assertThat(g.state().pin("b", "person").orElseThrow().owned()).isTrue();
            assertThat(g.state().head("b", "person").orElseThrow().version())
                    .isEqualTo(g.state().head("main", "person").orElseThrow().version());
            g.createBranch("idle", "b");             // pins b's table branch at the version it shares with main
            pinned = ages(g.scan("idle", "person"));
            for (int i = 0; i < 8; i++) {
                upsert(g, "b", "b" + i, i);          // b's removals pass the pinned version
            }
            assertThat(g.metrics().versionsExpired()).isPositive();
            assertThat(g.state().pin("idle", "person").orElseThrow().owned()).isFalse();
            assertThat(ages(g.scan("idle", "person"))).isEqualTo(pinned);
            for (int i = 0; i < 8; i++) {
                upsert(g, "main", "m" + i, i);       // and main's pass it too
            }
            assertThat(ages(g.scan("idle", "person"))).isEqualTo(pinned);
        }
        try (Graph g = Palisade.open(p, tight())) {
            assertThat(ages(g.scan("idle", "person"))).isEqualTo(pinned);
            upsert(g, "idle", "z", 1);
            Map<String, Object> expected = new TreeMap<>(pinned);
            expected.put("z", 1L);
            assertThat(ages(g.scan("idle", "person"))).isEqualTo(expected);
        }
    }

    /**
     * A branch created while an append-only table is still empty pins a version that names no file. A fork of it would
     * not make Lance keep it (Lance keeps a fork's source only for the files of its own the fork names), so retention
     * does not fork the idle branch and its pin keeps binding: main's old versions stay until the branch writes.
     */
    @Test
    void anIdleBranchPinningAnEmptyAppendOnlyTableStillReadsItAfterMainAppends() {
        Path p = dir.resolve("emptylog");
        try (Graph g = Palisade.create(p, Rows.catalog(), tight())) {
            g.createBranch("idle", "main");
            for (int i = 0; i < 12; i++) {
                try (VectorSchemaRoot r = Rows.logLines(allocator, "m" + i)) {
                    g.append("main", "log", r);
                }
            }
            assertThat(g.scan("idle", "log")).isEmpty();
            assertThat(g.scan("main", "log")).hasSize(12);
            try (VectorSchemaRoot r = Rows.logLines(allocator, "i")) {
                g.append("idle", "log", r);
            }
            for (int i = 0; i < 12; i++) {
                try (VectorSchemaRoot r = Rows.logLines(allocator, "n" + i)) {
                    g.append("main", "log", r);
                }
            }
            assertThat(g.metrics().versionsExpired()).isPositive();
            assertThat(g.scan("idle", "log")).extracting(r -> r.get("msg")).containsExactly("i");
        }
        try (Graph g = Palisade.open(p, tight())) {
            assertThat(g.scan("idle", "log")).extracting(r -> r.get("msg")).containsExactly("i");
            assertThat(g.scan("main", "log")).hasSize(24);
        }
    }

    @Test
    void theDefaultsKeepEveryVersionOfAShortRunAndKeepAllTurnsRemovalOff() {
        Path p = dir.resolve("defaults");
        try (Graph g = Palisade.create(p, Rows.catalog(), Options.defaults().withIndexRefreshEvery(0)
                .withCompaction(Compaction.off()))) {
            for (int i = 0; i < 70; i++) {
                upsert(g, "main", "k" + i, i);
            }
            assertThat(g.metrics().versionsExpired()).isZero(); // 70 versions, 10 minutes: inside both bounds
        }
        Path off = dir.resolve("off");
        try (Graph g = Palisade.create(off, Rows.catalog(), tight().withRetention(TIGHT.withAuto(false)))) {
            for (int i = 0; i < 20; i++) {
                upsert(g, "main", "k" + i, i);
            }
            assertThat(g.metrics().versionsExpired()).isZero();
        }
        assertThat(versions(off, TableRef.MAIN)).hasSizeGreaterThan(20);
        assertThat(BulkLoadTest.events(off)).noneMatch(e -> e instanceof JournalEvent.VersionsExpired);
    }

    @Test
    void aJournalAckTableKeepsWhatItsUnfoldedTailIsReadOver() {
        Path p = dir.resolve("ack");
        Map<String, Object> expected = new TreeMap<>();
        try (Graph g = Palisade.create(p, Catalog.fromJson(JournalAckTest.CATALOG), tight()
                .withFolding(3_600_000, 3, 1L << 40))) {
            for (int i = 0; i < 60; i++) {
                String k = "k" + (i % 9);
                upsert(g, "main", k, i);
                expected.put(k, (long) i);
                if (i % 4 == 3 && i < 50) {
                    g.optimizeIndex("main", "person"); // folds what is unfolded first; the last writes stay unfolded
                }
            }
            assertThat(g.metrics().folds()).isGreaterThanOrEqualTo(12);
            assertThat(ages(g.scan("main", "person"))).isEqualTo(expected);
            assertThat(g.metrics().versionsExpired()).isPositive();
        }
        try (Graph g = Palisade.open(p, tight())) {
            assertThat(ages(g.scan("main", "person"))).isEqualTo(expected);
        }
    }
}
