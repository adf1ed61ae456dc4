package io.palisade.substrate.surface;

import io.palisade.fencing.action.Action;
import io.palisade.fencing.action.AddFields;
import io.palisade.fencing.action.AddIndex;
import io.palisade.fencing.action.ChangeSchema;
import io.palisade.fencing.action.RewriteIndex;
import io.palisade.fencing.action.UpdateConfig;
import io.palisade.substrate.CatalogActions;
import io.palisade.substrate.CommitDescription;
import io.palisade.substrate.CommitDescription.MapTarget;
import io.palisade.substrate.OperationKind;
import io.palisade.substrate.TableRef;
import io.palisade.substrate.lance.LanceTableStore;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lance.Dataset;
import org.lance.SourcedTransaction;
import org.lance.compaction.CompactionOptions;
import org.lance.operation.Overwrite;
import org.lance.operation.Update;
import org.lance.schema.SqlExpressions;

import java.lang.reflect.Method;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What a committed version's transaction exposes through lance-core 7.0.0, and that the Lance store's
 * {@code decompose} records all of it ({@link CommitDescription.Payload}; docs/lance-surface.md "What a
 * committed transaction exposes"). Payload parts the binding does not expose are pinned as absent, so
 * that a binding which exposes them fails here and the substrate can start recording them.
 */
class CommitPayloadSurfaceGuardTest {

    @TempDir
    Path dir;

    private LanceFixture f;
    private LanceTableStore store;

    @BeforeEach
    void setUp() {
        f = new LanceFixture(dir);
        store = new LanceTableStore(dir.toString());
    }

    @AfterEach
    void tearDown() {
        store.close();
        f.close();
    }

    private CommitDescription latest() {
        return store.decompose("t", TableRef.main(f.version()));
    }

    private static List<Action> actions(CommitDescription c) {
        return CatalogActions.of(c, true, 0, Optional.empty());
    }

    @Test
    void configUpdatesAreRecordedKeyByKeyAndJavasUpdateConfigReplacesTheWholeConfigMap() {
        f.create(true, "a");
        try (Dataset d = f.open()) {
            d.updateConfig(Map.of("k1", "v1"));
        }
        try (Dataset d = f.open()) {
            d.updateConfig(Map.of("k2", "v2"));
        }
        // (deleteConfigKeys below removes k1, which the replacement already removed: the call still commits)
        CommitDescription set = latest();
        assertThat(set.kind()).isEqualTo(OperationKind.UPDATE_CONFIG);
        assertThat(set.payload().mapUpdates()).containsExactly(new CommitDescription.MapUpdate(
                new CommitDescription.MapRef(MapTarget.CONFIG, -1), "k2", Optional.of("v2")));
        // Dataset.updateConfig(Map) is staged with replace = true ...
        assertThat(set.payload().replacedMaps()).containsExactly(new CommitDescription.MapRef(MapTarget.CONFIG, -1));
        assertThat(actions(set)).singleElement().isInstanceOfSatisfying(UpdateConfig.class, u -> assertThat(u.replace()).isTrue());
        try (Dataset d = f.open()) {
            // ... and does replace the config map: the earlier key is gone
            assertThat(d.getConfig()).doesNotContainKey("k1").containsEntry("k2", "v2");
            d.deleteConfigKeys(Set.of("k1"));
        }
        CommitDescription removed = latest();
        assertThat(removed.payload().mapUpdates()).containsExactly(new CommitDescription.MapUpdate(
                new CommitDescription.MapRef(MapTarget.CONFIG, -1), "k1", Optional.empty()));
        assertThat(removed.payload().replacedMaps()).isEmpty();
        assertThat(actions(removed)).containsExactly(new UpdateConfig(List.of(
                new UpdateConfig.ConfigUpdate(UpdateConfig.Target.CONFIG, "k1", Optional.empty())), false));
    }

    @Test
    void schemaAndFieldMetadataUpdatesAreRecordedAndAWholeMapReplacementIsJudgedAsASchemaChange() {
        f.create(true, "a");
        try (Dataset d = f.open()) {
            org.lance.operation.UpdateConfig op = org.lance.operation.UpdateConfig.builder()
                    .schemaMetadataUpdates(org.lance.operation.UpdateMap.builder().updates(Map.of("s", "1")).replace(false).build())
                    .fieldMetadataUpdates(Map.of(1, org.lance.operation.UpdateMap.builder().updates(Map.of("doc", "x")).replace(true).build()))
                    .build();
            try (SourcedTransaction tx = d.newTransactionBuilder().operation(op).build(); Dataset after = tx.commit()) {
                assertThat(after.version()).isEqualTo(2);
            }
        }
        CommitDescription c = latest();
        assertThat(c.payload().mapUpdates()).containsExactly(
                new CommitDescription.MapUpdate(new CommitDescription.MapRef(MapTarget.SCHEMA_METADATA, -1), "s", Optional.of("1")),
                new CommitDescription.MapUpdate(new CommitDescription.MapRef(MapTarget.FIELD_METADATA, 1), "doc", Optional.of("x")));
        assertThat(c.payload().replacedMaps()).containsExactly(new CommitDescription.MapRef(MapTarget.FIELD_METADATA, 1));
        assertThat(actions(c)).anyMatch(a -> a instanceof ChangeSchema)
                .anyMatch(a -> a instanceof io.palisade.fencing.action.UpdateSchemaMetadata);
    }

    @Test
    void aMergeRecordsItsNewFieldsAndTheDataFilesItGaveEachFragment() {
        f.create(true, "a", "b");
        try (Dataset d = f.open()) {
            f.append(d, "c");
        }
        try (Dataset d = f.open()) {
            d.addColumns(new SqlExpressions.Builder().withExpression("w", "v * 2").build(), Optional.empty());
        }
        CommitDescription c = latest();
        assertThat(c.kind()).isEqualTo(OperationKind.MERGE);
        assertThat(c.payload().fieldsAdded()).extracting(CommitDescription.SchemaField::name).containsExactly("w");
        assertThat(c.payload().fragmentFiles()).containsOnlyKeys(0L, 1L).allSatisfy((k, v) -> assertThat(v).hasSize(1));
        AddFields add = (AddFields) actions(c).get(0);
        assertThat(add.fragmentFiles()).containsOnlyKeys(0L, 1L);
        assertThat(add.newFields()).containsExactly(new AddFields.NewField("w", true));
        // an all-null column writes no files: nothing for a concurrently moved row to lose
        try (Dataset d = f.open()) {
            d.addColumns(List.of(new Field("z", FieldType.nullable(new ArrowType.Int(64, true)), null)));
        }
        assertThat(latest().payload().fragmentFiles()).isEmpty();
    }

    /** A DataReplacement (a column file swapped for a copy) reads back with the replaced fields. */
    @Test
    void aDataReplacementRecordsTheFieldsOfTheFilesItReplaced() throws Exception {
        f.create(true, "a", "b");
        try (Dataset d = f.open()) {
            d.addColumns(new SqlExpressions.Builder().withExpression("w", "v * 2").build(), Optional.empty());
        }
        try (Dataset d = f.open()) {
            org.lance.FragmentMetadata frag = d.getFragments().get(0).metadata();
            org.lance.fragment.DataFile w = frag.getFiles().get(1);
            assertThat(w.getFields()).containsExactly(2);
            Path data = dir.resolve("t.lance").resolve("data");
            String copy = "copy-" + w.getPath();
            java.nio.file.Files.copy(data.resolve(w.getPath()), data.resolve(copy));
            org.lance.fragment.DataFile replacement = new org.lance.fragment.DataFile(copy, w.getFields(), w.getColumnIndices(),
                    w.getFileMajorVersion(), w.getFileMinorVersion(), w.getFileSizeBytes(), null);
            org.lance.operation.DataReplacement op = org.lance.operation.DataReplacement.builder().replacements(List.of(
                    new org.lance.operation.DataReplacement.DataReplacementGroup(frag.getId(), replacement))).build();
            try (SourcedTransaction tx = d.newTransactionBuilder().operation(op).build(); Dataset after = tx.commit()) {
                assertThat(after.version()).isEqualTo(3);
            }
        }
        CommitDescription c = latest();
        assertThat(c.kind()).isEqualTo(OperationKind.DATA_REPLACEMENT);
        assertThat(c.payload().replacedFields()).containsExactly(Map.entry(0L, List.of(2)));
        assertThat(actions(c)).singleElement().isInstanceOfSatisfying(io.palisade.fencing.action.ReplaceFragmentColumns.class,
                r -> assertThat(r.fieldIds()).containsExactly(2));
        try (Dataset d = f.open()) {
            assertThat(d.countRows("w = 2")).isEqualTo(2);
        }
    }

    @Test
    void indexCommitsRecordUuidsFieldsAndCoverageAndARefreshIsARewriteOfTheSameIndex() {
        f.create(true, "a", "b");
        f.createIdIndex();
        CommitDescription built = latest();
        assertThat(built.payload().newIndices()).singleElement().satisfies(i -> {
            assertThat(i.name()).isEqualTo("id_idx");
            assertThat(i.fields()).containsExactly(0);
            assertThat(i.coverage()).hasValue(List.of(0L));
        });
        AddIndex add = (AddIndex) actions(built).get(0);
        assertThat(add.uuid()).isEqualTo(built.payload().newIndices().get(0).uuid());
        try (Dataset d = f.open()) {
            f.append(d, "c");
        }
        try (Dataset d = f.open()) {
            d.optimizeIndices(org.lance.index.OptimizeOptions.builder().build());
        }
        CommitDescription refreshed = latest();
        assertThat(refreshed.payload().removedIndices()).singleElement().satisfies(i -> assertThat(i.uuid()).isEqualTo(add.uuid()));
        assertThat(actions(refreshed)).singleElement().isInstanceOfSatisfying(RewriteIndex.class, r -> {
            assertThat(r.oldId()).isEqualTo(add.uuid());
            assertThat(r.coverage()).containsExactlyInAnyOrder(0L, 1L);
            assertThat(r.fieldIds()).containsExactly(0);
        });
    }

    @Test
    void anOverwriteRecordsItsSchemaAndConfigUpsertsAndIsAWholesaleReplacement() {
        f.create(true, "a");
        try (Dataset d = f.open()) {
            Overwrite op = Overwrite.builder().fragments(d.getFragments().stream().map(x -> x.metadata()).toList())
                    .schema(d.getSchema()).configUpsertValues(Map.of("ow", "1")).build();
            try (SourcedTransaction tx = d.newTransactionBuilder().operation(op).build(); Dataset after = tx.commit()) {
                assertThat(after.version()).isEqualTo(2);
            }
        }
        CommitDescription c = latest();
        assertThat(c.payload().mapUpdates()).containsExactly(new CommitDescription.MapUpdate(
                new CommitDescription.MapRef(MapTarget.CONFIG, -1), "ow", Optional.of("1")));
        assertThat(c.payload().schema()).extracting(CommitDescription.SchemaField::name).containsExactly("id", "v");
        assertThat(c.payload().schema().get(0).primaryKey()).isTrue();
        assertThat(actions(c)).extracting(a -> a.kind().code()).containsExactly("A2", "A8", "A1", "A16");
    }

    @Test
    void anUpsertRecordsItsUpdateModeButNotItsKeyFilter() {
        f.create(true, "a", "b");
        try (Dataset d = f.open()) {
            f.merge(d, List.of("id"), false, 9, "a", "x");
        }
        CommitDescription c = latest();
        assertThat(c.kind()).isEqualTo(OperationKind.UPDATE);
        assertThat(c.payload().updateMode()).isPresent();
        assertThat(c.payload().notVisible()).anyMatch(s -> s.contains("inserted_rows_filter"));
    }

    /** The Update fields lance-core 7.0.0's Java API lacks; a binding that adds them fails here. */
    @Test
    void javasUpdateExposesNoInsertedRowsFilterNoUpdatedOffsetsAndNoMergedGenerations() {
        List<String> methods = Arrays.stream(Update.class.getMethods()).map(Method::getName)
                .map(n -> n.toLowerCase(java.util.Locale.ROOT)).toList();
        assertThat(methods).noneMatch(n -> n.contains("filter") || n.contains("offset") || n.contains("generation")
                || n.contains("memwal"));
        assertThat(methods).contains("fieldsmodified", "updatemode", "newfragments");
    }

    /** Operations with no Java class: their transactions cannot be read (and readTransaction() would abort). */
    @Test
    void javaHasNoOperationClassForUpdateBasesMemWalStateOrClone() {
        for (String name : List.of("UpdateBases", "UpdateMemWalState", "Clone")) {
            assertThatThrownBy(() -> Class.forName("org.lance.operation." + name)).isInstanceOf(ClassNotFoundException.class);
        }
    }

    /**
     * A compaction of an indexed table commits a ReserveFragments version first, on which readTransaction()
     * aborts the JVM; decompose reads its kind from the transaction bytes and never hands it to the binding
     * (this test would kill its JVM otherwise). For every other version the kind read from the bytes is the
     * one the binding names.
     */
    @Test
    void everyVersionOfACompactedIndexedTableDecomposesWithoutTheBindingReadingAReserveFragments() {
        f.create(true, "a");
        for (String k : List.of("b", "c", "d")) {
            try (Dataset d = f.open()) {
                f.append(d, k);
            }
        }
        f.createIdIndex();
        long before = f.version();
        try (Dataset d = f.open()) {
            d.compact(CompactionOptions.builder().withTargetRowsPerFragment(100).build());
        }
        long after = f.version();
        assertThat(after).isGreaterThan(before);
        List<OperationKind> kinds = new java.util.ArrayList<>();
        for (long v = 2; v <= after; v++) {
            CommitDescription c = store.decompose("t", TableRef.main(v));
            kinds.add(c.kind());
            if (c.kind() == OperationKind.RESERVE_FRAGMENTS) {
                assertThat(c.payload().notVisible()).anyMatch(s -> s.contains("never read"));
            }
        }
        assertThat(kinds).startsWith(OperationKind.APPEND, OperationKind.APPEND, OperationKind.APPEND, OperationKind.CREATE_INDEX)
                .contains(OperationKind.REWRITE);
        System.out.println("[surface] compaction of an indexed table: versions " + kinds);
    }
}
