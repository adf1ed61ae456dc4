package io.palisade.substrate.lance;

import io.palisade.fencing.TableCorruptedException;
import io.palisade.substrate.ArrowRows;
import io.palisade.substrate.DamagedVersion;
import io.palisade.substrate.KeyedTable;
import io.palisade.substrate.MergePath;
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
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Versions torn by a power cut (file names survive, unsynced bytes do not): found, set aside, and the
 * version number reused; damage of an exact version reported without handing Lance a torn manifest.
 */
class LanceTornVersionsTest {
    private static final Schema S = new Schema(List.of(Field.notNullable("id", ArrowType.Utf8.INSTANCE),
            Field.nullable("v", new ArrowType.Int(64, true))));

    @TempDir
    Path dir;
    BufferAllocator allocator;
    LanceTableStore store;

    @BeforeEach
    void setUp() {
        allocator = new RootAllocator();
        store = new LanceTableStore(dir.resolve("tables").toString());
        store.createKeyed("t", TableKind.NODE, S).close();
        upsert(TableRef.main(1), "a");
        upsert(TableRef.main(2), "b");
    }

    @AfterEach
    void tearDown() {
        store.close();
        allocator.close();
    }

    private TableRef upsert(TableRef ref, String id) {
        try (KeyedTable t = store.openKeyed("t", ref); VectorSchemaRoot root = VectorSchemaRoot.create(S, allocator)) {
            ArrowRows.fill(root, List.of(new HashMap<>(Map.of("id", id, "v", 1L))));
            return t.upsert(root, MergePath.V2_FENCED).ref();
        }
    }

    private Path table() {
        return dir.resolve("tables/t.lance");
    }

    private static Path manifest(Path branchDir, long version) {
        return branchDir.resolve("_versions").resolve(Long.toUnsignedString(~version) + ".manifest");
    }

    /** The data file a version added (the newest by name is not ordered, so compare listings). */
    private static List<Path> files(Path d) throws IOException {
        try (Stream<Path> s = Files.list(d)) {
            return s.sorted().toList();
        }
    }

    @Test
    void aZeroLengthManifestAboveTheBaseIsTornSetAsideAndItsVersionNumberReused() throws IOException {
        Path m3 = manifest(table(), 3);
        assertThat(m3).exists();
        Files.write(m3, new byte[0]);

        List<DamagedVersion> torn = store.tornVersions("t", TableRef.MAIN, 2);
        assertThat(torn).hasSize(1);
        DamagedVersion v = torn.get(0);
        assertThat(v.ref()).isEqualTo(TableRef.main(3));
        assertThat(v.reason()).isEqualTo("manifest zero-length");
        assertThat(v.damaged()).containsExactly(m3 + ": zero-length");
        assertThat(v.setAside()).containsExactly(m3.toString(),
                table().resolve("_versions/latest_version_hint.json").toString());
        assertThat(store.tornVersions("t", TableRef.MAIN, 3)).isEmpty();
        assertThat(store.damage("t", TableRef.main(3))).isPresent();
        assertThat(store.damage("t", TableRef.main(2))).isEmpty();

        Path aside = dir.resolve("_palisade/torn/t/main/3");
        assertThat(store.setAside("t", v, aside)).containsExactlyElementsOf(v.setAside());
        assertThat(aside.resolve(m3.getFileName())).exists().isEmptyFile();
        assertThat(m3).doesNotExist();
        assertThat(store.setAside("t", v, aside)).isEmpty(); // idempotent: already moved
        assertThat(store.latest("t", TableRef.MAIN)).isEqualTo(TableRef.main(2));
        assertThat(store.tornVersions("t", TableRef.MAIN, 2)).isEmpty();

        assertThat(upsert(TableRef.main(2), "c")).isEqualTo(TableRef.main(3));
        assertThat(store.scanUnchecked("t", TableRef.main(3))).extracting(r -> r.get("id"))
                .containsExactlyInAnyOrder("a", "c"); // "b" was only in the torn version
    }

    @Test
    void garbageAndHalfWrittenManifestsAreTornAndNeverReachLance() throws IOException {
        Path m3 = manifest(table(), 3);
        byte[] good = Files.readAllBytes(m3);
        Files.write(m3, "not a manifest, but not empty either: garbage".getBytes());
        assertThat(store.tornVersions("t", TableRef.MAIN, 2)).singleElement()
                .satisfies(v -> assertThat(v.reason()).startsWith("manifest no Lance footer"));
        // cut in the middle: Lance 7.0.0 aborts the JVM on this one, so the framing check must stop it
        Files.write(m3, Arrays.copyOf(good, good.length / 2));
        assertThat(store.tornVersions("t", TableRef.MAIN, 2)).singleElement()
                .satisfies(v -> assertThat(v.ref()).isEqualTo(TableRef.main(3)));
        assertThatThrownBy(() -> store.openKeyed("t", TableRef.main(3)))
                .isInstanceOf(TableCorruptedException.class)
                .hasMessageContaining("version 3").hasMessageContaining(m3.toString());
        Files.write(m3, good);
        assertThat(store.tornVersions("t", TableRef.MAIN, 2)).isEmpty();
        assertThat(store.damage("t", TableRef.main(3))).isEmpty();
    }

    @Test
    void aZeroLengthDataFileTheVersionAddedIsDamageNamingTheFile() throws IOException {
        List<Path> before = files(table().resolve("data"));
        TableRef v4 = upsert(TableRef.main(3), "c");
        List<Path> added = files(table().resolve("data")).stream().filter(p -> !before.contains(p)).toList();
        assertThat(added).hasSize(1);
        Files.write(added.get(0), new byte[0]);

        assertThat(store.damage("t", v4)).hasValueSatisfying(d -> {
            assertThat(d.damaged()).containsExactly(added.get(0) + ": zero-length");
            assertThat(d.reason()).isEqualTo("a file it added is damaged");
        });
        assertThat(store.damage("t", TableRef.main(3))).isEmpty(); // it did not add that file
        assertThat(store.tornVersions("t", TableRef.MAIN, 3)).extracting(DamagedVersion::ref).containsExactly(v4);

        Files.delete(added.get(0));
        assertThat(store.damage("t", v4)).hasValueSatisfying(d ->
                assertThat(d.damaged()).containsExactly(added.get(0) + ": missing"));
        assertThatThrownBy(() -> store.scanUnchecked("t", v4)).isInstanceOf(TableCorruptedException.class)
                .hasMessageContaining("version 4");
    }

    @Test
    void aTornVersionOnATableBranchIsFoundUnderItsTreeDirectory() throws IOException {
        TableRef fork = store.forkBranch("t", TableRef.main(3), "b1");
        TableRef b4 = upsert(fork, "c");
        Path branchDir = table().resolve("tree/b1");
        Path m = manifest(branchDir, b4.version());
        assertThat(m).exists();
        Files.write(m, new byte[0]);

        assertThat(store.tornVersions("t", TableRef.MAIN, 2)).isEmpty();
        DamagedVersion v = store.tornVersions("t", "b1", 3).get(0);
        assertThat(v.ref()).isEqualTo(b4);
        store.setAside("t", v, dir.resolve("aside"));
        assertThat(store.latest("t", "b1")).isEqualTo(new TableRef("b1", 3));
        assertThat(upsert(new TableRef("b1", 3), "d")).isEqualTo(b4);
    }

    @Test
    void aDeletionFileTheVersionAddedIsCheckedUnderItsLanceName() throws IOException {
        TableRef v4;
        try (KeyedTable t = store.openKeyed("t", TableRef.main(3)); VectorSchemaRoot root = VectorSchemaRoot.create(S, allocator)) {
            ArrowRows.fill(root, List.of(new HashMap<>(Map.of("id", "c", "v", 1L)), new HashMap<>(Map.of("id", "d", "v", 1L))));
            assertThat(t.upsert(root, MergePath.V2_FENCED).ref()).isEqualTo(TableRef.main(4));
        }
        try (KeyedTable t = store.openKeyed("t", TableRef.main(4))) { // one row of a two-row fragment: a deletion file
            v4 = t.delete(io.palisade.fencing.KeyFilter.ofStrings(t.idFieldId(), List.of("c"))).ref();
        }
        assertThat(store.damage("t", v4)).isEmpty(); // the name is found: Lance prints its u64 ids unsigned
        List<Path> deletions = files(table().resolve("_deletions"));
        assertThat(deletions).hasSize(1);
        Files.write(deletions.get(0), new byte[0]);
        assertThat(store.damage("t", v4)).hasValueSatisfying(d ->
                assertThat(d.damaged()).containsExactly(deletions.get(0) + ": zero-length"));
    }

    @Test
    void aMissingPublishedManifestIsDamage() throws IOException {
        Files.delete(manifest(table(), 3));
        assertThat(store.damage("t", TableRef.main(3))).hasValueSatisfying(d ->
                assertThat(d.reason()).isEqualTo("manifest missing"));
    }

    /**
     * A table branch's fork version carries Lance's Clone transaction, which lance-core 7.0.0's readTransaction()
     * cannot convert: it panics in a function that cannot unwind and aborts the JVM. The check of a published head at a
     * fork version (a graph branch whose first write changed nothing) and the walk of a branch whose newest version
     * is its fork version must not ask for it.
     */
    @Test
    void aForkVersionIsCheckedWithoutReadingItsCloneTransaction() {
        TableRef fork = store.forkBranch("t", TableRef.main(3), "b1");
        assertThat(fork).isEqualTo(new TableRef("b1", 3));
        assertThat(store.damage("t", fork)).isEmpty();
        assertThat(store.tornVersions("t", "b1", 2)).isEmpty();
        TableRef b4 = upsert(fork, "c");
        assertThat(store.damage("t", b4)).isEmpty();
        assertThat(store.damage("t", fork)).isEmpty();
    }
}
