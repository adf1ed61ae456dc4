package io.palisade.substrate.lance;

import io.palisade.substrate.CompactionTarget;
import io.palisade.substrate.FragmentStats;
import io.palisade.substrate.KeyedTable;
import io.palisade.substrate.MaintenancePlan;
import io.palisade.substrate.TableKind;
import io.palisade.substrate.TableRef;
import io.palisade.substrate.VersionExpiry;
import io.palisade.substrate.VersionInfo;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Version expiry removes exactly the versions below the bound it is given, with their files, and keeps what a
 * forked table branch still reads; compaction to a target rewrites only small fragments and fragments full of
 * deletions.
 */
class LanceVersionExpiryTest {
    private static final Schema SCHEMA = new Schema(List.of(Field.notNullable("id", ArrowType.Utf8.INSTANCE),
            Field.nullable("v", new ArrowType.Int(64, true))));

    @TempDir
    Path dir;

    private static VectorSchemaRoot rows(BufferAllocator a, long v, List<String> ids) {
        VectorSchemaRoot r = VectorSchemaRoot.create(SCHEMA, a);
        r.allocateNew();
        VarCharVector id = (VarCharVector) r.getVector("id");
        BigIntVector vv = (BigIntVector) r.getVector("v");
        for (int i = 0; i < ids.size(); i++) {
            id.setSafe(i, ids.get(i).getBytes(StandardCharsets.UTF_8));
            vv.setSafe(i, v);
        }
        r.setRowCount(ids.size());
        return r;
    }

    private static TableRef upsert(LanceTableStore store, BufferAllocator a, TableRef at, long v, List<String> ids) {
        try (KeyedTable t = store.openKeyed("t", at); VectorSchemaRoot r = rows(a, v, ids)) {
            return t.upsert(r, t.mergePath()).ref();
        }
    }

    private static Map<String, Long> values(LanceTableStore store, TableRef at) {
        try (KeyedTable t = store.openKeyed("t", at)) {
            Map<String, Long> out = new java.util.TreeMap<>();
            t.scan().forEach(r -> out.put(String.valueOf(r.get("id")), ((Number) r.get("v")).longValue()));
            return out;
        }
    }

    private long bytes() throws IOException {
        try (Stream<Path> s = Files.walk(dir)) {
            return s.filter(Files::isRegularFile).mapToLong(p -> p.toFile().length()).sum();
        }
    }

    private static List<String> keys(int from, int to) {
        return java.util.stream.IntStream.range(from, to).mapToObj(i -> "k" + i).toList();
    }

    @Test
    void expiryRemovesOnlyVersionsBelowTheBoundAndKeepsAForkedBranchReadable() throws IOException {
        try (BufferAllocator a = new RootAllocator(); LanceTableStore store = new LanceTableStore(dir.toString())) {
            store.createKeyed("t", TableKind.NODE, SCHEMA).close();
            TableRef at = upsert(store, a, TableRef.main(1), 0, keys(0, 100));
            for (int i = 1; i <= 5; i++) {
                at = upsert(store, a, at, i, keys(0, 10));
            }
            TableRef forkPoint = at;
            Map<String, Long> atFork = values(store, forkPoint);
            TableRef branch = store.forkBranch("t", forkPoint, "b1");
            for (int i = 6; i <= 30; i++) {
                at = upsert(store, a, at, i, keys(0, 10));
            }
            Map<String, Long> latest = values(store, at);
            long before = bytes();
            List<VersionInfo> versions = store.listVersions("t", TableRef.MAIN);
            assertThat(versions).allSatisfy(v -> assertThat(v.timestampMillis()).isPositive());
            long bound = at.version() - 3;

            VersionExpiry expiry = store.expireVersions("t", TableRef.MAIN, bound);

            assertThat(expiry.versions()).isPositive();
            assertThat(expiry.bytes()).isPositive();
            assertThat(bytes()).isLessThan(before);
            List<Long> kept = store.listVersions("t", TableRef.MAIN).stream().map(v -> v.ref().version()).toList();
            assertThat(kept).contains(at.version(), at.version() - 1, at.version() - 2, bound);
            assertThat(kept).allSatisfy(v -> assertThat(v >= bound || v == forkPoint.version()).isTrue());
            assertThat(values(store, at)).isEqualTo(latest);
            assertThat(values(store, branch)).isEqualTo(atFork);
            TableRef onBranch = upsert(store, a, branch, 99, keys(0, 1));
            assertThat(values(store, onBranch).get("k0")).isEqualTo(99L);
            assertThat(values(store, onBranch).get("k50")).isEqualTo(0L);
            assertThatThrownBy(() -> values(store, TableRef.main(2))).isInstanceOf(RuntimeException.class);
            assertThat(store.expireVersions("t", TableRef.MAIN, bound).versions()).isZero();
        }
    }

    /**
     * Lance keeps the version a table branch was forked from only when the fork names a file of that version's own
     * branch; {@code forkKeeps} says so before the fork is made. A version a table branch shares with its parent (its
     * fork version) is forked from the parent instead, and an empty append-only table names no file at all.
     */
    @Test
    void aForkKeepsItsSourceReadableExactlyWhenTheStoreSaysSo() {
        try (BufferAllocator a = new RootAllocator(); LanceTableStore store = new LanceTableStore(dir.toString())) {
            store.createKeyed("t", TableKind.NODE, SCHEMA).close();
            TableRef at = upsert(store, a, TableRef.main(1), 0, keys(0, 10));
            TableRef kept = at;
            assertThat(store.forkKeeps("t", kept)).isTrue();
            store.forkBranch("t", kept, "idle");
            TableRef b = store.forkBranch("t", kept, "b");
            assertThat(store.forkKeeps("t", b)).isFalse(); // b's fork version: main's state
            TableRef onB = upsert(store, a, b, 1, keys(0, 1));
            assertThat(store.forkKeeps("t", onB)).isTrue();
            for (int i = 2; i < 8; i++) {
                at = upsert(store, a, at, i, keys(0, 10));
            }
            store.expireVersions("t", TableRef.MAIN, at.version());
            assertThat(values(store, kept)).hasSize(10).containsValue(0L);

            store.createKeyless("e", SCHEMA).close();
            TableRef empty = TableRef.main(1);
            assertThat(store.forkKeeps("e", empty)).isFalse();
            store.forkBranch("e", empty, "idle");
            TableRef e = empty;
            for (int i = 0; i < 4; i++) {
                try (io.palisade.substrate.KeylessTable t = store.openKeyless("e", e); VectorSchemaRoot r = rows(a, i, keys(i, i + 1))) {
                    e = t.append(r).ref();
                }
            }
            store.expireVersions("e", TableRef.MAIN, e.version());
            assertThatThrownBy(() -> store.openKeyless("e", empty).close()).isInstanceOf(RuntimeException.class);
        }
    }

    @Test
    void theNewestVersionIsNeverRemoved() {
        try (BufferAllocator a = new RootAllocator(); LanceTableStore store = new LanceTableStore(dir.toString())) {
            store.createKeyed("t", TableKind.NODE, SCHEMA).close();
            TableRef at = upsert(store, a, TableRef.main(1), 0, keys(0, 10));
            at = upsert(store, a, at, 1, keys(0, 10));
            store.expireVersions("t", TableRef.MAIN, at.version() + 10);
            assertThat(store.listVersions("t", TableRef.MAIN)).extracting(v -> v.ref().version())
                    .containsExactly(at.version());
            assertThat(values(store, at)).hasSize(10).containsValue(1L);
        }
    }

    @Test
    void compactionToATargetRewritesSmallFragmentsAndLeavesFullOnes() {
        try (BufferAllocator a = new RootAllocator(); LanceTableStore store = new LanceTableStore(dir.toString())) {
            store.createKeyed("t", TableKind.NODE, SCHEMA).close();
            TableRef at = upsert(store, a, TableRef.main(1), 0, keys(0, 1000));
            for (int i = 1; i <= 20; i++) {
                at = upsert(store, a, at, i, List.of("k" + (1000 + i)));
            }
            CompactionTarget target = new CompactionTarget(100, 0.5);
            try (KeyedTable t = store.openKeyed("t", at)) {
                FragmentStats s = t.fragmentStats(target);
                assertThat(s.fragments()).isEqualTo(21);
                assertThat(s.smallFragments()).isEqualTo(20);
                assertThat(s.physicalRows()).isEqualTo(1020);
                assertThat(s.deletedRows()).isZero();
                MaintenancePlan plan = t.planCompaction(target);
                assertThat(plan.groups()).hasSize(1);
                assertThat(plan.groups().get(0)).hasSize(20);
                at = t.commit(plan).ref();
            }
            try (KeyedTable t = store.openKeyed("t", at)) {
                FragmentStats s = t.fragmentStats(target);
                assertThat(s.fragments()).isEqualTo(2);
                assertThat(s.smallFragments()).isEqualTo(1);
                assertThat(t.countRows()).isEqualTo(1020);
            }
            at = upsert(store, a, at, 7, keys(0, 600));
            try (KeyedTable t = store.openKeyed("t", at)) {
                FragmentStats s = t.fragmentStats(target);
                assertThat(s.deletedRows()).isEqualTo(600);
                assertThat(s.deletedRatio()).isGreaterThan(0.3);
                MaintenancePlan plan = t.planCompaction(target);
                assertThat(plan.groups().stream().flatMap(g -> g.stream()).toList()).contains(0L);
                at = t.commit(plan).ref();
            }
            try (KeyedTable t = store.openKeyed("t", at)) {
                assertThat(t.fragmentStats(target).deletedRows()).isZero();
                assertThat(t.countRows()).isEqualTo(1020);
            }
        }
    }
}
