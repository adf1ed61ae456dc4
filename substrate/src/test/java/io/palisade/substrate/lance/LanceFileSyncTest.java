package io.palisade.substrate.lance;

import io.palisade.fencing.KeyFilter;
import io.palisade.substrate.ArrowRows;
import io.palisade.substrate.CommitResult;
import io.palisade.substrate.KeyedTable;
import io.palisade.substrate.KeylessTable;
import io.palisade.substrate.MaintenancePlan;
import io.palisade.substrate.TableKind;
import io.palisade.substrate.TableRef;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Supplier;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Pins what Lance 7.0.0 writes for each commit the substrate makes, against what {@link LanceFileSync}
 * syncs (docs/lance-surface.md, "Durability"): for every commit path, the files synced are exactly the
 * files that appeared or were replaced on disk, and every directory holding one of them (and every
 * directory the commit created) is synced after its files. A Lance upgrade that writes a file elsewhere
 * fails here before it can lose an acknowledged write to a power cut.
 */
class LanceFileSyncTest {

    @TempDir
    Path dir;

    private final List<Path> syncedFiles = java.util.Collections.synchronizedList(new ArrayList<>()); // a batch syncs concurrently
    private final List<Path> syncedDirs = java.util.Collections.synchronizedList(new ArrayList<>());
    private BufferAllocator allocator;
    private LanceTableStore store;

    private static final Schema PERSON = new Schema(List.of(Field.notNullable("id", ArrowType.Utf8.INSTANCE),
            Field.nullable("age", new ArrowType.Int(64, true))));

    @BeforeEach
    void open() {
        allocator = new RootAllocator();
        store = new LanceTableStore(dir.toString(), Map.of(), (p, directory) -> {
            LanceFileSync.FSYNC.sync(p, directory);
            (directory ? syncedDirs : syncedFiles).add(p);
        });
    }

    @AfterEach
    void close() {
        allocator.close();
        store.close();
    }

    /** A file's identity: a rename that replaces it (the version hint) gives a new inode. */
    private static Map<Path, Object> listing(Path root) throws IOException {
        Map<Path, Object> out = new LinkedHashMap<>();
        if (!Files.exists(root)) {
            return out;
        }
        try (Stream<Path> s = Files.walk(root)) {
            for (Path p : s.toList()) {
                BasicFileAttributes a = Files.readAttributes(p, BasicFileAttributes.class);
                out.put(p, a.isDirectory() ? "dir" : a.fileKey());
            }
        }
        return out;
    }

    /** Runs {@code op} and asserts that it synced exactly the files it wrote and the directories naming them. */
    private <T> T checked(String what, String table, Supplier<T> op) throws IOException {
        Path root = dir.resolve(table + ".lance");
        Map<Path, Object> before = listing(root);
        syncedFiles.clear();
        syncedDirs.clear();
        T result = op.get();
        Map<Path, Object> after = listing(root);
        Set<Path> newFiles = new TreeSet<>();
        Set<Path> newDirs = new TreeSet<>();
        after.forEach((p, key) -> {
            if (!key.equals(before.get(p))) {
                (key.equals("dir") ? newDirs : newFiles).add(p);
            }
        });
        assertThat(newFiles).as(what + ": the commit wrote files").isNotEmpty();
        assertThat(new TreeSet<>(syncedFiles)).as(what + ": files synced = files written").isEqualTo(newFiles);
        assertThat(syncedFiles).as(what + ": each file synced once").doesNotHaveDuplicates();
        for (Path f : newFiles) {
            assertThat(syncedDirs).as(what + ": the directory of " + f).contains(f.getParent());
        }
        assertThat(syncedDirs).as(what + ": every directory the commit created").containsAll(newDirs);
        for (Path d : newDirs) {
            assertThat(syncedDirs).as(what + ": the parent naming new directory " + d).contains(d.getParent());
        }
        assertThat(syncedDirs).as(what + ": each directory synced once").doesNotHaveDuplicates();
        return result;
    }

    private VectorSchemaRoot people(Schema schema, Object... idAge) {
        VectorSchemaRoot r = VectorSchemaRoot.create(schema, allocator);
        List<Map<String, Object>> rows = new ArrayList<>();
        for (int i = 0; i < idAge.length; i += 2) {
            Map<String, Object> row = new HashMap<>();
            row.put("id", idAge[i]);
            row.put("age", idAge[i + 1]);
            rows.add(row);
        }
        ArrowRows.fill(r, rows);
        return r;
    }

    private CommitResult write(TableRef at, String what, java.util.function.Function<KeyedTable, CommitResult> op) throws IOException {
        try (KeyedTable t = store.openKeyed("p", at)) {
            return checked(what, "p", () -> op.apply(t));
        }
    }

    @Test
    void everyCommitPathSyncsExactlyTheFilesItWrote() throws IOException {
        TableRef ref = checked("create", "p", () -> {
            store.createKeyed("p", TableKind.NODE, PERSON).close();
            return store.latest("p", TableRef.MAIN);
        });
        assertThat(syncedDirs).as("create: the tables directory").contains(dir.toAbsolutePath());
        Schema schema;
        try (KeyedTable t = store.openKeyed("p", ref)) {
            schema = t.schema();
        }
        for (int i = 0; i < 3; i++) {
            try (VectorSchemaRoot rows = people(schema, "a" + i, (long) i, "b" + i, (long) i)) {
                ref = write(ref, "insert " + i, t -> t.insert(rows, t.mergePath())).ref();
            }
        }
        try (VectorSchemaRoot rows = people(schema, "a0", 10L, "n", 1L)) {
            ref = write(ref, "upsert", t -> t.upsert(rows, t.mergePath())).ref();
        }
        ref = write(ref, "delete", t -> t.delete(KeyFilter.ofStrings(t.idFieldId(), List.of("b1")))).ref();
        ref = write(ref, "create id index", KeyedTable::createIdIndex).ref();
        try (VectorSchemaRoot rows = people(schema, "a1", 11L, "m", 2L)) {
            ref = write(ref, "upsert on the indexed path", t -> t.upsert(rows, t.mergePath())).ref();
        }
        ref = write(ref, "index refresh", t -> t.commit(t.planIndexOptimize())).ref();
        ref = write(ref, "compaction", t -> {
            MaintenancePlan plan = t.planCompaction();
            assertThat(plan.isEmpty()).as("small fragments to compact").isFalse();
            return t.commit(plan);
        }).ref();
        ref = write(ref, "add columns", t -> t.addColumns(List.of(Field.nullable("score", new ArrowType.Int(64, true))))).ref();
        TableRef mainRef = ref;

        TableRef dev = checked("fork from main", "p", () -> store.forkBranch("p", mainRef, "dev"));
        Schema devSchema;
        try (KeyedTable t = store.openKeyed("p", dev)) {
            devSchema = t.schema();
        }
        try (VectorSchemaRoot rows = VectorSchemaRoot.create(devSchema, allocator)) {
            ArrowRows.fill(rows, List.of(Map.of("id", "d", "age", 4L)));
            dev = write(dev, "branch upsert", t -> t.upsert(rows, t.mergePath())).ref();
        }
        dev = write(dev, "branch delete", t -> t.delete(KeyFilter.ofStrings(t.idFieldId(), List.of("a2")))).ref();
        TableRef devNow = dev;
        TableRef dev2 = checked("fork of a branch (index rebuilt)", "p", () -> store.forkBranch("p", devNow, "dev2"));
        assertThat(dev2.version()).as("the rebuild commits one version").isEqualTo(devNow.version() + 1);

        try (VectorSchemaRoot rows = people(schema, "z", 1L)) {
            TableRef before = ref;
            ref = write(ref, "overwrite", t -> t.overwrite(rows)).ref();
            TableRef overwritten = ref;
            TableRef restored = checked("restore", "p", () -> store.restore("p", before));
            assertThat(restored.version()).isEqualTo(overwritten.version() + 1);
        }
    }

    @Test
    void keylessAppendsAndPrimaryKeyInstallsSyncWhatTheyWrote() throws IOException {
        Schema log = new Schema(List.of(Field.nullable("msg", ArrowType.Utf8.INSTANCE)));
        TableRef ref = checked("create keyless", "log", () -> {
            store.createKeyless("log", log).close();
            return store.latest("log", TableRef.MAIN);
        });
        try (KeylessTable t = store.openKeyless("log", ref);
             VectorSchemaRoot rows = VectorSchemaRoot.create(t.schema(), allocator)) {
            ArrowRows.fill(rows, List.of(Map.of("msg", "hello")));
            assertThat(checked("append", "log", () -> t.append(rows)).ref().version()).isEqualTo(ref.version() + 1);
        }
        checked("create legacy", "old", () -> {
            store.createLegacyKeyed("old", TableKind.NODE, PERSON);
            return null;
        });
        var install = checked("PK install", "old", () -> store.installPrimaryKey("old", TableRef.main(1), "i-1"));
        assertThat(install.ref().version()).isEqualTo(2);
    }

    @Test
    void aStoreBuiltNotToSyncSyncsNothing() throws IOException {
        try (LanceTableStore quiet = new LanceTableStore(dir.toString(), Map.of(), (LanceFileSync.Syncer) null)) {
            quiet.createKeyed("q", TableKind.NODE, PERSON).close();
        }
        assertThat(syncedFiles).isEmpty();
        assertThat(listing(dir.resolve("q.lance"))).isNotEmpty();
    }

    @Test
    void objectStoreRootsAreNotSyncedByPalisade() {
        assertThat(LanceFileSync.forRoot("s3://bucket/graph/tables", LanceFileSync.FSYNC)).isEmpty();
        assertThat(LanceFileSync.forRoot(dir.toString(), LanceFileSync.FSYNC)).isPresent();
        assertThat(LanceFileSync.forRoot(dir.toUri().toString(), LanceFileSync.FSYNC)).isPresent();
    }
}
