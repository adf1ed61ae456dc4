package io.palisade.substrate;

import io.palisade.fencing.GraphRefusedException;
import io.palisade.fencing.KeyConflictException;
import io.palisade.fencing.KeyFilter;
import io.palisade.fencing.ValidationException;
import io.palisade.fencing.WriteConflictException;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The {@link TableStore} contract, run against every implementation (Lance and simulated). A store
 * that passes it behaves, for everything the coordinator and recovery rely on, like Lance 7.0.0 as
 * pinned by the surface guards. Subclass and implement {@link #newStore(Path)}.
 */
public abstract class TableStoreConformance {

    @TempDir
    protected Path dir;

    protected BufferAllocator allocator;
    protected TableStore store;
    private final List<AutoCloseable> open = new ArrayList<>();

    /** A fresh, empty store rooted under {@code dir} (implementations may ignore the directory). */
    protected abstract TableStore newStore(Path dir);

    @BeforeEach
    void setUp() {
        allocator = new RootAllocator();
        store = newStore(dir);
    }

    @AfterEach
    void tearDown() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
        store.close();
        allocator.close(); // fails the test on leaked Arrow buffers
    }

    // ------------------------------------------------------------------ fixtures

    protected static final Schema NODE = new Schema(List.of(
            Field.notNullable("id", ArrowType.Utf8.INSTANCE),
            Field.nullable("name", ArrowType.Utf8.INSTANCE),
            Field.nullable("score", new ArrowType.Int(64, true))));

    protected static final Schema EDGE = new Schema(List.of(
            Field.notNullable("id", ArrowType.Utf8.INSTANCE),
            Field.nullable("src", ArrowType.Utf8.INSTANCE),
            Field.nullable("dst", ArrowType.Utf8.INSTANCE)));

    protected <T extends AutoCloseable> T track(T c) {
        open.add(c);
        return c;
    }

    /** A batch over {@code schema}; each row is given as alternating column names and values. */
    protected VectorSchemaRoot batch(Schema schema, List<Map<String, Object>> rows) {
        VectorSchemaRoot root = track(VectorSchemaRoot.create(schema, allocator));
        ArrowRows.fill(root, rows);
        return root;
    }

    protected VectorSchemaRoot nodes(String... ids) {
        return nodes(7, ids);
    }

    protected VectorSchemaRoot nodes(long score, String... ids) {
        List<Map<String, Object>> rows = new ArrayList<>();
        for (String id : ids) {
            rows.add(row("id", id, "name", "n-" + id, "score", score));
        }
        return batch(NODE, rows);
    }

    protected static Map<String, Object> row(Object... kv) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put((String) kv[i], kv[i + 1]);
        }
        return m;
    }

    protected KeyedTable keyed(String table) {
        return track(store.createKeyed(table, TableKind.NODE, NODE));
    }

    protected KeyedTable open(String table, TableRef ref) {
        return track(store.openKeyed(table, ref));
    }

    protected KeyedTable latest(String table) {
        return open(table, store.latest(table, TableRef.MAIN));
    }

    protected static List<String> ids(TableSnapshot t) {
        return t.scan().stream().map(r -> String.valueOf(r.get("id"))).sorted().toList();
    }

    protected KeyFilter keys(KeyedTable t, String... ids) {
        return KeyFilter.ofStrings(t.idFieldId(), Arrays.asList(ids));
    }

    // ------------------------------------------------------------------ creation and PK contract

    @Test
    void createdKeyedTableCarriesThePrimaryKeyFromItsFirstVersion() {
        KeyedTable t = keyed("people");
        assertThat(t.ref()).isEqualTo(TableRef.main(1));
        assertThat(t.primaryKey()).containsExactly("id");
        Field id = t.schema().findField("id");
        assertThat(id.isNullable()).isFalse();
        assertThat(KeyedSchemas.isPkField(id)).isTrue();
        assertThat(store.primaryKey("people", TableRef.main(1))).containsExactly("id");
        assertThat(t.countRows()).isZero();
        KeyedTable again = open("people", TableRef.main(1));
        assertThat(again.kind()).isEqualTo(TableKind.NODE);
    }

    @Test
    void edgeTableRecordsItsKindAndNeedsBothEndpoints() {
        assertThatThrownBy(() -> store.createKeyed("e", TableKind.EDGE, NODE)).isInstanceOf(ValidationException.class);
        assertThat(store.exists("e")).isFalse();
        track(store.createKeyed("e", TableKind.EDGE, EDGE));
        assertThat(open("e", TableRef.main(1)).kind()).isEqualTo(TableKind.EDGE);
    }

    @Test
    void keyedSchemaWithoutIdOrWithBadIdTypeIsRefused() {
        Schema noId = new Schema(List.of(Field.nullable("name", ArrowType.Utf8.INSTANCE)));
        assertThatThrownBy(() -> store.createKeyed("a", TableKind.NODE, noId)).isInstanceOf(ValidationException.class);
        Schema boolId = new Schema(List.of(Field.notNullable("id", ArrowType.Bool.INSTANCE)));
        assertThatThrownBy(() -> store.createKeyed("b", TableKind.NODE, boolId)).isInstanceOf(ValidationException.class);
        assertThat(store.exists("a")).isFalse();
        assertThat(store.exists("b")).isFalse();
    }

    @Test
    void creatingAnExistingTableIsRefused() {
        keyed("t");
        assertThatThrownBy(() -> store.createKeyed("t", TableKind.NODE, NODE)).isInstanceOf(ValidationException.class);
        assertThat(store.latest("t", TableRef.MAIN)).isEqualTo(TableRef.main(1));
    }

    @Test
    void unknownTableBranchOrVersionIsAValidationError() {
        keyed("t");
        assertThatThrownBy(() -> store.openKeyed("nope", TableRef.main(1))).isInstanceOf(ValidationException.class);
        assertThatThrownBy(() -> store.openKeyed("t", TableRef.main(99))).isInstanceOf(ValidationException.class);
        assertThatThrownBy(() -> store.latest("t", "nobranch")).isInstanceOf(ValidationException.class);
    }

    // ------------------------------------------------------------------ streaming reads

    @Test
    void aStreamingScanDeliversEveryRowOrTheKeysAskedForAndStopsAtItsLimitOrWhenTheSinkSaysSo() {
        KeyedTable t = keyed("t");
        KeyedTable at = open("t", t.insert(nodes("a", "b", "c", "d", "e"), MergePath.V2_FENCED).ref());
        List<String> all = new ArrayList<>();
        at.scan(ScanSpec.all().withBatchRows(2), r -> all.add((String) r.get("id")));
        assertThat(all).containsExactlyInAnyOrder("a", "b", "c", "d", "e");
        assertThat(all).isEqualTo(at.scan().stream().map(r -> (String) r.get("id")).toList()); // storage order

        List<String> some = new ArrayList<>();
        at.scan(ScanSpec.all().withKeys(keys(at, "b", "e", "zz")), r -> some.add((String) r.get("id")));
        assertThat(some).containsExactlyInAnyOrder("b", "e");

        List<String> limited = new ArrayList<>();
        at.scan(ScanSpec.all().withLimit(3).withBatchRows(2), r -> limited.add((String) r.get("id")));
        assertThat(limited).hasSize(3).isSubsetOf(all);

        List<String> stopped = new ArrayList<>();
        at.scan(ScanSpec.all().withBatchRows(1), r -> stopped.add((String) r.get("id")) && stopped.size() < 2);
        assertThat(stopped).hasSize(2);

        List<String> none = new ArrayList<>();
        at.scan(ScanSpec.all().withLimit(0), r -> none.add((String) r.get("id")));
        assertThat(none).isEmpty();
    }

    @Test
    void rowsNotInTheTableAreDeliveredAsGivenWithoutAFilter() {
        KeyedTable t = keyed("t");
        List<String> got = new ArrayList<>();
        t.scanRows(nodes("x", "y", "z"), ScanSpec.all().withLimit(2), r -> got.add((String) r.get("id")));
        assertThat(got).containsExactly("x", "y");
    }

    // ------------------------------------------------------------------ keyed writes

    @Test
    void strictInsertAddsRowsAndTheHandleStaysAtItsBase() {
        KeyedTable t = keyed("t");
        CommitResult r = t.insert(nodes("a", "b", "c"), MergePath.V2_FENCED);
        assertThat(r.ref()).isEqualTo(TableRef.main(2));
        assertThat(r.inserted()).isEqualTo(3);
        assertThat(r.updated()).isZero();
        assertThat(t.ref()).isEqualTo(TableRef.main(1));
        assertThat(t.countRows()).isZero();
        assertThat(ids(open("t", r.ref()))).containsExactly("a", "b", "c");
        assertThat(store.latest("t", TableRef.MAIN)).isEqualTo(r.ref());
    }

    @Test
    void strictInsertOfAnExistingKeyFailsWithoutWriting() {
        KeyedTable t = keyed("t");
        TableRef v2 = t.insert(nodes("a", "b"), MergePath.V2_FENCED).ref();
        KeyedTable at2 = open("t", v2);
        assertThatThrownBy(() -> at2.insert(nodes(9, "b", "c"), MergePath.V2_FENCED))
                .isInstanceOfSatisfying(KeyConflictException.class, e -> {
                    assertThat(e.keys()).containsExactly("b");
                    assertThat(e.conflictingKeyCount()).isEqualTo(1);
                    assertThat(e.table()).isEqualTo("t");
                    assertThat(e.retryable()).isFalse();
                });
        assertThat(store.latest("t", TableRef.MAIN)).isEqualTo(v2);
        KeyedTable after = latest("t");
        assertThat(ids(after)).containsExactly("a", "b");
        assertThat(after.scan()).allSatisfy(r -> assertThat(r.get("score")).isEqualTo(7L));
    }

    @Test
    void strictInsertNamesEveryExistingKey() {
        KeyedTable t = keyed("t");
        TableRef v2 = t.insert(nodes("a", "b", "c"), MergePath.V2_FENCED).ref();
        assertThatThrownBy(() -> open("t", v2).insert(nodes("c", "a", "d"), MergePath.V2_FENCED))
                .isInstanceOfSatisfying(KeyConflictException.class, e -> {
                    assertThat(e.keys()).containsExactlyInAnyOrder("a", "c");
                    assertThat(e.conflictingKeyCount()).isEqualTo(2);
                });
    }

    @Test
    void upsertUpdatesExistingRowsAndInsertsNewOnes() {
        KeyedTable t = keyed("t");
        TableRef v2 = t.insert(nodes(1, "a", "b"), MergePath.V2_FENCED).ref();
        CommitResult r = open("t", v2).upsert(nodes(5, "b", "c"), MergePath.V2_FENCED);
        assertThat(r.inserted()).isEqualTo(1);
        assertThat(r.updated()).isEqualTo(1);
        Map<Object, Object> score = open("t", r.ref()).scan().stream()
                .collect(Collectors.toMap(m -> m.get("id"), m -> m.get("score")));
        assertThat(score).containsExactlyInAnyOrderEntriesOf(Map.of("a", 1L, "b", 5L, "c", 5L));
    }

    @Test
    void nullOrRepeatedKeysAndWrongColumnsAreRefusedWithoutWriting() {
        KeyedTable t = keyed("t");
        VectorSchemaRoot dup = batch(NODE, List.of(row("id", "a"), row("id", "a")));
        assertThatThrownBy(() -> t.upsert(dup, MergePath.V2_FENCED)).isInstanceOf(ValidationException.class);
        Schema nullableId = new Schema(List.of(Field.nullable("id", ArrowType.Utf8.INSTANCE),
                Field.nullable("name", ArrowType.Utf8.INSTANCE), Field.nullable("score", new ArrowType.Int(64, true))));
        VectorSchemaRoot nul = batch(nullableId, List.of(row("id", "a"), row("name", "x")));
        assertThatThrownBy(() -> t.insert(nul, MergePath.V2_FENCED)).isInstanceOf(ValidationException.class);
        Schema other = new Schema(List.of(Field.notNullable("id", ArrowType.Utf8.INSTANCE)));
        VectorSchemaRoot narrow = batch(other, List.of(row("id", "z")));
        assertThatThrownBy(() -> t.insert(narrow, MergePath.V2_FENCED)).isInstanceOf(ValidationException.class);
        assertThatThrownBy(() -> t.insert(batch(NODE, List.of()), MergePath.V2_FENCED)).isInstanceOf(ValidationException.class);
        assertThat(store.latest("t", TableRef.MAIN)).isEqualTo(TableRef.main(1));
    }

    @Test
    void deleteByKeysRemovesExactlyThoseRows() {
        KeyedTable t = keyed("t");
        TableRef v2 = t.insert(nodes("a", "b", "c"), MergePath.V2_FENCED).ref();
        KeyedTable at2 = open("t", v2);
        CommitResult r = at2.delete(keys(at2, "b", "zz"));
        assertThat(r.deleted()).isEqualTo(1);
        assertThat(ids(open("t", r.ref()))).containsExactly("a", "c");
        CommitDescription d = store.decompose("t", r.ref());
        assertThat(d.kind()).isEqualTo(OperationKind.DELETE);
        assertThat(d.fragmentsUpdated()).hasSize(1);
        assertThat(d.fragmentsAdded()).isEmpty();
        assertThatThrownBy(() -> at2.delete(KeyFilter.ofStrings(at2.idFieldId(), List.of())))
                .isInstanceOf(ValidationException.class);
    }

    @Test
    void deletingEveryRowOfAFragmentRemovesTheFragment() {
        KeyedTable t = keyed("t");
        TableRef v2 = t.insert(nodes("a"), MergePath.V2_FENCED).ref();
        TableRef v3 = open("t", v2).insert(nodes("b", "c"), MergePath.V2_FENCED).ref();
        CommitDescription inserted = store.decompose("t", v3);
        KeyedTable at3 = open("t", v3);
        TableRef v4 = at3.delete(keys(at3, "b", "c")).ref();
        CommitDescription d = store.decompose("t", v4);
        assertThat(d.fragmentsRemoved()).isEqualTo(inserted.fragmentsAdded());
        assertThat(ids(open("t", v4))).containsExactly("a");
    }

    @Test
    void int64KeysAreFencedDeletedAndCountedLikeStringKeys() {
        Schema schema = new Schema(List.of(Field.notNullable("id", new ArrowType.Int(64, true)),
                Field.nullable("name", ArrowType.Utf8.INSTANCE)));
        KeyedTable t = track(store.createKeyed("nums", TableKind.NODE, schema));
        TableRef v2 = t.insert(batch(schema, List.of(row("id", 1L, "name", "a"), row("id", 2L, "name", "b"))),
                MergePath.V2_FENCED).ref();
        KeyedTable at2 = open("nums", v2);
        assertThatThrownBy(() -> at2.insert(batch(schema, List.of(row("id", 2L), row("id", 3L))), MergePath.V2_FENCED))
                .isInstanceOfSatisfying(KeyConflictException.class, e -> assertThat(e.keys()).containsExactly("2"));
        KeyFilter some = KeyFilter.ofLongs(at2.idFieldId(), 2L, 3L);
        assertThat(at2.keyCounts(some)).containsExactly(Map.entry("2", 1L));
        TableRef v3 = at2.delete(some).ref();
        assertThat(open("nums", v3).scan()).extracting(r -> r.get("id")).containsExactly(1L);
        assertThatThrownBy(() -> at2.delete(KeyFilter.ofStrings(at2.idFieldId(), List.of("2"))))
                .isInstanceOf(ValidationException.class);
    }

    // ------------------------------------------------------------------ concurrency on the v2 path

    @Test
    void concurrentStrictInsertsOfTheSameNewKeyLetExactlyOneCommit() {
        TableRef base = keyed("t").insert(nodes("a"), MergePath.V2_FENCED).ref();
        KeyedTable w1 = open("t", base);
        KeyedTable w2 = open("t", base);
        w1.insert(nodes(1, "k"), MergePath.V2_FENCED);
        assertThatThrownBy(() -> w2.insert(nodes(2, "k"), MergePath.V2_FENCED))
                .isInstanceOfSatisfying(KeyConflictException.class, e -> assertThat(e.keys()).containsExactly("k"));
        KeyedTable head = latest("t");
        assertThat(head.keyCounts(keys(head, "k"))).containsExactly(Map.entry("k", 1L));
        assertThat(head.ref().version()).isEqualTo(base.version() + 1);
    }

    @Test
    void nConcurrentThreadsInsertingOneNewKeyCommitExactlyOnce() throws Exception {
        int writers = 4;
        TableRef base = keyed("t").insert(nodes("a"), MergePath.V2_FENCED).ref();
        List<KeyedTable> handles = new ArrayList<>();
        List<VectorSchemaRoot> batches = new ArrayList<>();
        for (int i = 0; i < writers; i++) {
            handles.add(open("t", base));
            batches.add(nodes(i, "k"));
        }
        java.util.concurrent.CountDownLatch start = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(writers);
        List<java.util.concurrent.Future<String>> outcomes = new ArrayList<>();
        try {
            for (int i = 0; i < writers; i++) {
                int w = i;
                outcomes.add(pool.submit(() -> {
                    start.await();
                    try {
                        handles.get(w).insert(batches.get(w), MergePath.V2_FENCED);
                        return "ok";
                    } catch (KeyConflictException e) {
                        return "conflict " + e.keys();
                    }
                }));
            }
            start.countDown();
            List<String> results = new ArrayList<>();
            for (java.util.concurrent.Future<String> o : outcomes) {
                results.add(o.get(60, java.util.concurrent.TimeUnit.SECONDS));
            }
            assertThat(results).filteredOn("ok"::equals).hasSize(1);
            assertThat(results).filteredOn(r -> !r.equals("ok")).hasSize(writers - 1).allMatch("conflict [k]"::equals);
        } finally {
            pool.shutdownNow();
        }
        KeyedTable head = latest("t");
        assertThat(head.keyCounts(keys(head, "k"))).containsExactly(Map.entry("k", 1L));
        assertThat(head.ref().version()).isEqualTo(base.version() + 1);
    }

    @Test
    void concurrentUpsertsOfTheSameNewKeyAreARetryableWriteConflict() {
        TableRef base = keyed("t").insert(nodes("a"), MergePath.V2_FENCED).ref();
        KeyedTable w1 = open("t", base);
        KeyedTable w2 = open("t", base);
        w1.upsert(nodes(1, "k"), MergePath.V2_FENCED);
        assertThatThrownBy(() -> w2.upsert(nodes(2, "k"), MergePath.V2_FENCED))
                .isInstanceOfSatisfying(WriteConflictException.class, e -> assertThat(e.retryable()).isTrue());
        KeyedTable head = latest("t");
        assertThat(head.keyCounts(keys(head, "k"))).containsExactly(Map.entry("k", 1L));
    }

    @Test
    void concurrentInsertsOfDisjointKeysBothCommitByRebasing() {
        TableRef base = keyed("t").insert(nodes("a"), MergePath.V2_FENCED).ref();
        KeyedTable w1 = open("t", base);
        KeyedTable w2 = open("t", base);
        TableRef r1 = w1.insert(nodes("x"), MergePath.V2_FENCED).ref();
        TableRef r2 = w2.insert(nodes("y"), MergePath.V2_FENCED).ref();
        assertThat(r2.version()).isEqualTo(r1.version() + 1);
        assertThat(ids(open("t", r2))).containsExactly("a", "x", "y");
        // the stored read version is the version the commit finally landed on, not its stale base
        assertThat(store.decompose("t", r2).readVersion()).isEqualTo(r1.version());
        assertThat(store.decompose("t", r1).readVersion()).isEqualTo(base.version());
    }

    @Test
    void concurrentWritesToDifferentRowsOfOneFragmentBothCommit() {
        TableRef base = keyed("t").insert(nodes(1, "a", "b"), MergePath.V2_FENCED).ref();
        KeyedTable w1 = open("t", base);
        KeyedTable w2 = open("t", base);
        w1.delete(keys(w1, "a"));
        TableRef r2 = w2.upsert(nodes(2, "b"), MergePath.V2_FENCED).ref();
        KeyedTable head = open("t", r2);
        assertThat(head.scan()).extracting(r -> r.get("id") + "=" + r.get("score")).containsExactly("b=2");
    }

    @Test
    void concurrentUpdateAndDeleteOfTheSameRowConflict() {
        TableRef base = keyed("t").insert(nodes(1, "a", "b"), MergePath.V2_FENCED).ref();
        KeyedTable w1 = open("t", base);
        KeyedTable w2 = open("t", base);
        TableRef r1 = w1.delete(keys(w1, "a")).ref();
        assertThatThrownBy(() -> w2.upsert(nodes(2, "a"), MergePath.V2_FENCED)).isInstanceOf(WriteConflictException.class);
        assertThat(store.latest("t", TableRef.MAIN)).isEqualTo(r1);
        assertThat(ids(latest("t"))).containsExactly("b");
    }

    // ------------------------------------------------------------------ indexed path

    @Test
    void mergePathMustMatchTheIndexState() {
        KeyedTable t = keyed("t");
        assertThatThrownBy(() -> t.insert(nodes("a"), MergePath.INDEXED_UNFENCED)).isInstanceOf(ValidationException.class);
        TableRef v2 = t.insert(nodes("a"), MergePath.V2_FENCED).ref();
        TableRef v3 = open("t", v2).createIdIndex().ref();
        KeyedTable at3 = open("t", v3);
        assertThat(at3.hasIdIndex()).isTrue();
        assertThat(open("t", v2).hasIdIndex()).isFalse();
        assertThatThrownBy(() -> at3.insert(nodes("b"), MergePath.V2_FENCED)).isInstanceOf(ValidationException.class);
        assertThat(store.latest("t", TableRef.MAIN)).isEqualTo(v3);
        CommitDescription created = store.decompose("t", v3);
        assertThat(created.kind()).isEqualTo(OperationKind.CREATE_INDEX);
        assertThat(created.indicesAdded()).containsExactly(KeyedTable.ID_INDEX_NAME);
        assertThat(created.indicesRemoved()).isEmpty();
    }

    @Test
    void anIndexPlanBuildsThenRewritesThenHasNothingToDoAndCommitsExactlyThat() {
        TableRef v2 = keyed("t").insert(nodes("a"), MergePath.V2_FENCED).ref();
        MaintenancePlan build = open("t", v2).planIndexOptimize();
        assertThat(build.kind()).isEqualTo(MaintenancePlan.Kind.INDEX_BUILD);
        assertThat(build.indexName()).isEqualTo(KeyedTable.ID_INDEX_NAME);
        TableRef v3 = open("t", v2).commit(build).ref();
        assertThat(v3.version()).isEqualTo(3);
        assertThat(build.mismatch(List.of(store.decompose("t", v3)))).isEmpty();
        MaintenancePlan none = open("t", v3).planIndexOptimize();
        assertThat(none.isEmpty()).isTrue();
        assertThat(open("t", v3).commit(none).ref()).isEqualTo(v3);
        TableRef v4 = open("t", v3).insert(nodes("b"), open("t", v3).mergePath()).ref();
        MaintenancePlan rewrite = open("t", v4).planIndexOptimize();
        assertThat(rewrite.kind()).isEqualTo(MaintenancePlan.Kind.INDEX_REWRITE);
        assertThat(rewrite.indexCoverage()).hasSize(2);
        TableRef v5 = open("t", v4).commit(rewrite).ref();
        assertThat(rewrite.mismatch(List.of(store.decompose("t", v5)))).isEmpty();
        assertThat(open("t", v5).planIndexOptimize().isEmpty()).isTrue();
    }

    @Test
    void anIndexCoveringNoFragmentLeavesMergesOnTheFencedV2Path() {
        KeyedTable empty = keyed("t");
        TableRef v2 = empty.createIdIndex().ref();
        KeyedTable at2 = open("t", v2);
        assertThat(at2.hasIdIndex()).isTrue();
        assertThat(at2.mergePath()).isEqualTo(MergePath.V2_FENCED);
        assertThatThrownBy(() -> at2.insert(nodes("a"), MergePath.INDEXED_UNFENCED)).isInstanceOf(ValidationException.class);
        TableRef v3 = at2.insert(nodes("a"), MergePath.V2_FENCED).ref();
        assertThat(open("t", v3).mergePath()).isEqualTo(MergePath.V2_FENCED);
        TableRef v4 = open("t", v3).optimizeIdIndex().ref();
        KeyedTable at4 = open("t", v4);
        assertThat(at4.mergePath()).isEqualTo(MergePath.INDEXED_UNFENCED);
        TableRef v5 = at4.delete(keys(at4, "a")).ref();
        assertThat(open("t", v5).mergePath()).isEqualTo(MergePath.V2_FENCED);
    }

    @Test
    void indexedPathAttachesNoKeyFilterSoTwoStaleWritersDuplicateANewKey() {
        TableRef v2 = keyed("t").insert(nodes("a"), MergePath.V2_FENCED).ref();
        TableRef base = open("t", v2).createIdIndex().ref();
        KeyedTable w1 = open("t", base);
        KeyedTable w2 = open("t", base);
        w1.insert(nodes(1, "dup"), MergePath.INDEXED_UNFENCED);
        TableRef r2 = w2.insert(nodes(2, "dup"), MergePath.INDEXED_UNFENCED).ref();
        KeyedTable head = open("t", r2);
        assertThat(head.keyCounts(keys(head, "dup"))).containsExactly(Map.entry("dup", 2L));
    }

    @Test
    void indexedPathStillFailsAStrictInsertOfAKeyPresentAtTheBase() {
        TableRef v2 = keyed("t").insert(nodes("a"), MergePath.V2_FENCED).ref();
        TableRef v3 = open("t", v2).createIdIndex().ref();
        assertThatThrownBy(() -> open("t", v3).insert(nodes("a"), MergePath.INDEXED_UNFENCED))
                .isInstanceOfSatisfying(KeyConflictException.class, e -> assertThat(e.keys()).containsExactly("a"));
        TableRef v4 = open("t", v3).upsert(nodes(3, "a", "b"), MergePath.INDEXED_UNFENCED).ref();
        TableRef v5 = open("t", v4).optimizeIdIndex().ref();
        KeyedTable at5 = open("t", v5);
        assertThat(at5.hasIdIndex()).isTrue();
        assertThat(ids(at5)).containsExactly("a", "b");
        CommitDescription optimized = store.decompose("t", v5);
        assertThat(optimized.kind()).isEqualTo(OperationKind.CREATE_INDEX);
        assertThat(optimized.indicesAdded()).containsExactly(KeyedTable.ID_INDEX_NAME);
        assertThat(optimized.indicesRemoved()).containsExactly(KeyedTable.ID_INDEX_NAME);
    }

    // ------------------------------------------------------------------ overwrite and schema changes

    @Test
    void overwriteReplacesRowsAndKeepsTheExactPrimaryKey() {
        KeyedTable t = keyed("t");
        TableRef v2 = t.insert(nodes("a", "b"), MergePath.V2_FENCED).ref();
        KeyedTable at2 = open("t", v2);
        int idField = at2.idFieldId();
        Schema wider = new Schema(List.of(Field.nullable("id", ArrowType.Utf8.INSTANCE),
                Field.nullable("name", ArrowType.Utf8.INSTANCE), Field.nullable("extra", ArrowType.Utf8.INSTANCE)));
        TableRef v3 = at2.overwrite(batch(wider, List.of(row("id", "x", "extra", "e")))).ref();
        KeyedTable at3 = open("t", v3);
        assertThat(at3.primaryKey()).containsExactly("id");
        assertThat(at3.idFieldId()).isEqualTo(idField);
        assertThat(at3.schema().findField("id").isNullable()).isFalse();
        assertThat(at3.schema().getFields().stream().map(Field::getName)).containsExactly("id", "name", "extra");
        assertThat(ids(at3)).containsExactly("x");
        assertThat(at3.kind()).isEqualTo(TableKind.NODE);
        CommitDescription d = store.decompose("t", v3);
        assertThat(d.kind()).isEqualTo(OperationKind.OVERWRITE);
        assertThat(d.fragmentsRemoved()).isEqualTo(store.decompose("t", v2).fragmentsAdded());
    }

    @Test
    void overwriteWithoutIdIsRefused() {
        KeyedTable t = keyed("t");
        Schema noId = new Schema(List.of(Field.nullable("name", ArrowType.Utf8.INSTANCE)));
        assertThatThrownBy(() -> t.overwrite(batch(noId, List.of(row("name", "x"))))).isInstanceOf(ValidationException.class);
        Schema intId = new Schema(List.of(Field.notNullable("id", new ArrowType.Int(64, true))));
        assertThatThrownBy(() -> t.overwrite(batch(intId, List.of(row("id", 1L))))).isInstanceOf(ValidationException.class);
        assertThat(store.latest("t", TableRef.MAIN)).isEqualTo(TableRef.main(1));
    }

    @Test
    void addColumnsKeepsThePrimaryKeyAndExistingRowsReadNull() {
        KeyedTable t = keyed("t");
        TableRef v2 = t.insert(nodes("a"), MergePath.V2_FENCED).ref();
        TableRef v3 = open("t", v2).addColumns(List.of(Field.nullable("note", ArrowType.Utf8.INSTANCE))).ref();
        KeyedTable at3 = open("t", v3);
        assertThat(at3.primaryKey()).containsExactly("id");
        assertThat(at3.scan()).singleElement().satisfies(r -> {
            assertThat(r).containsKey("note");
            assertThat(r.get("note")).isNull();
        });
        CommitDescription d = store.decompose("t", v3);
        assertThat(d.kind()).isEqualTo(OperationKind.MERGE);
        assertThat(d.fieldsModified()).contains(at3.fieldId("note"));
        assertThatThrownBy(() -> at3.addColumns(List.of(Field.notNullable("hard", ArrowType.Utf8.INSTANCE))))
                .isInstanceOf(ValidationException.class);
        assertThatThrownBy(() -> at3.addColumns(List.of(Field.nullable("name", ArrowType.Utf8.INSTANCE))))
                .isInstanceOf(ValidationException.class);
    }

    @Test
    void droppingIdOrMakingItNullableIsRefusedAndOtherColumnsMayChange() {
        KeyedTable t = keyed("t");
        TableRef v2 = t.insert(nodes("a"), MergePath.V2_FENCED).ref();
        KeyedTable at2 = open("t", v2);
        assertThatThrownBy(() -> at2.dropColumns(List.of("id"))).isInstanceOf(ValidationException.class);
        assertThatThrownBy(() -> at2.makeNullable("id")).isInstanceOf(ValidationException.class);
        assertThatThrownBy(() -> at2.dropColumns(List.of("nope"))).isInstanceOf(ValidationException.class);
        assertThat(store.latest("t", TableRef.MAIN)).isEqualTo(v2);
        TableRef v3 = at2.dropColumns(List.of("name")).ref();
        KeyedTable at3 = open("t", v3);
        assertThat(at3.schema().getFields().stream().map(Field::getName)).containsExactly("id", "score");
        assertThat(at3.primaryKey()).containsExactly("id");
        assertThat(store.decompose("t", v3).kind()).isEqualTo(OperationKind.PROJECT);
        TableRef v4 = at3.makeNullable("score").ref();
        assertThat(open("t", v4).schema().findField("score").isNullable()).isTrue();
        assertThat(open("t", v4).primaryKey()).containsExactly("id");
    }

    // ------------------------------------------------------------------ keyless tables

    @Test
    void keylessTablesAppendAndKeyedTablesCannotBeOpenedForAppend() {
        Schema events = new Schema(List.of(Field.nullable("msg", ArrowType.Utf8.INSTANCE)));
        KeylessTable log = track(store.createKeyless("log", events));
        assertThat(log.primaryKey()).isEmpty();
        VectorSchemaRoot two = batch(events, List.of(row("msg", "x"), row("msg", "x")));
        TableRef v2 = log.append(two).ref();
        TableRef v3 = track(store.openKeyless("log", v2)).append(two).ref();
        assertThat(track(store.openKeyless("log", v3)).countRows()).isEqualTo(4);
        assertThat(store.decompose("log", v3).kind()).isEqualTo(OperationKind.APPEND);
        assertThatThrownBy(() -> store.openKeyed("log", v3)).isInstanceOf(GraphRefusedException.class);
        keyed("t");
        assertThatThrownBy(() -> store.openKeyless("t", TableRef.main(1))).isInstanceOf(GraphRefusedException.class);
    }

    @Test
    void keylessSchemaCarryingPrimaryKeyMetadataIsRefused() {
        Field pk = new Field("id", new FieldType(false, ArrowType.Utf8.INSTANCE, null,
                Map.of(KeyedSchemas.PK_METADATA, "true")), List.of());
        assertThatThrownBy(() -> store.createKeyless("x", new Schema(List.of(pk)))).isInstanceOf(ValidationException.class);
        assertThat(store.exists("x")).isFalse();
    }

    // ------------------------------------------------------------------ PK install

    @Test
    void pkInstallOnALegacyTableIsOneCommitCarryingTheIntentId() {
        store.createLegacyKeyed("old", TableKind.NODE, NODE);
        assertThat(store.primaryKey("old", TableRef.main(1))).isEmpty();
        assertThatThrownBy(() -> store.openKeyed("old", TableRef.main(1))).isInstanceOf(GraphRefusedException.class);
        PrimaryKeyInstall r = store.installPrimaryKey("old", TableRef.main(1), "intent-42");
        assertThat(r.outcome()).isEqualTo(PrimaryKeyInstall.Outcome.INSTALLED);
        assertThat(r.ref()).isEqualTo(TableRef.main(2));
        assertThat(store.primaryKey("old", r.ref())).containsExactly("id");
        CommitDescription d = store.decompose("old", r.ref());
        assertThat(d.kind()).isEqualTo(OperationKind.UPDATE_CONFIG);
        assertThat(d.properties()).containsEntry(TableStore.INTENT_ID_PROPERTY, "intent-42");
        assertThat(d.readVersion()).isEqualTo(1);
        assertThat(d.legacyOperations()).singleElement().satisfies(op -> {
            assertThat(op.name()).isEqualTo("UpdateConfig");
            assertThat(op.properties()).containsEntry(TableStore.INTENT_ID_PROPERTY, "intent-42");
        });
        KeyedTable installed = open("old", r.ref());
        assertThat(installed.primaryKey()).containsExactly("id");
        assertThat(d.fieldsModified()).containsExactly(installed.idFieldId());
        assertThat(d.fragmentsAdded()).isEmpty();
        assertThat(d.fragmentsUpdated()).isEmpty();
    }

    @Test
    void pkInstallWhenTheSamePrimaryKeyIsPresentIsANoOp() {
        keyed("t");
        PrimaryKeyInstall r = store.installPrimaryKey("t", TableRef.main(1), "intent-1");
        assertThat(r.outcome()).isEqualTo(PrimaryKeyInstall.Outcome.ALREADY_PRESENT);
        assertThat(r.ref()).isEqualTo(TableRef.main(1));
        assertThat(store.latest("t", TableRef.MAIN)).isEqualTo(TableRef.main(1));
        store.createLegacyKeyed("old", TableKind.NODE, NODE);
        TableRef installed = store.installPrimaryKey("old", TableRef.main(1), "i").ref();
        assertThat(store.installPrimaryKey("old", installed, "i").outcome()).isEqualTo(PrimaryKeyInstall.Outcome.ALREADY_PRESENT);
        assertThat(store.listVersions("old", TableRef.MAIN)).hasSize(2);
    }

    @Test
    void concurrentPkInstallsFromOneBaseInstallOnceAndTheRetryIsANoOp() {
        store.createLegacyKeyed("old", TableKind.NODE, NODE);
        PrimaryKeyInstall first = store.installPrimaryKey("old", TableRef.main(1), "i-1");
        assertThat(first.outcome()).isEqualTo(PrimaryKeyInstall.Outcome.INSTALLED);
        assertThatThrownBy(() -> store.installPrimaryKey("old", TableRef.main(1), "i-2"))
                .isInstanceOf(WriteConflictException.class);
        assertThat(store.latest("old", TableRef.MAIN)).isEqualTo(first.ref());
        PrimaryKeyInstall retry = store.installPrimaryKey("old", store.latest("old", TableRef.MAIN), "i-2");
        assertThat(retry.outcome()).isEqualTo(PrimaryKeyInstall.Outcome.ALREADY_PRESENT);
        assertThat(store.decompose("old", first.ref()).properties()).containsEntry(TableStore.INTENT_ID_PROPERTY, "i-1");
    }

    @Test
    void pkInstallOnAKeylessTableIsRefused() {
        Schema s = new Schema(List.of(Field.notNullable("id", ArrowType.Utf8.INSTANCE)));
        track(store.createKeyless("log", s));
        assertThatThrownBy(() -> store.installPrimaryKey("log", TableRef.main(1), "i")).isInstanceOf(ValidationException.class);
        assertThat(store.latest("log", TableRef.MAIN)).isEqualTo(TableRef.main(1));
    }

    // ------------------------------------------------------------------ branches and versions

    @Test
    void forkAtAnExactVersionIsolatesTheBranches() {
        KeyedTable t = keyed("t");
        TableRef v2 = t.insert(nodes("a"), MergePath.V2_FENCED).ref();
        TableRef v3 = open("t", v2).insert(nodes("b"), MergePath.V2_FENCED).ref();
        TableRef f = store.forkBranch("t", v2, "feature");
        assertThat(f).isEqualTo(new TableRef("feature", v2.version()));
        KeyedTable onF = open("t", f);
        assertThat(ids(onF)).containsExactly("a");
        assertThat(onF.primaryKey()).containsExactly("id");
        TableRef f3 = onF.insert(nodes("c"), MergePath.V2_FENCED).ref();
        assertThat(f3.branch()).isEqualTo("feature");
        assertThat(ids(open("t", f3))).containsExactly("a", "c");
        assertThat(store.latest("t", TableRef.MAIN)).isEqualTo(v3);
        assertThat(ids(latest("t"))).containsExactly("a", "b");
        assertThat(store.listBranches("t")).containsExactly("main", "feature");
        assertThat(store.latest("t", "feature")).isEqualTo(f3);
        assertThat(store.decompose("t", f3).kind()).isEqualTo(OperationKind.UPDATE);
        assertThatThrownBy(() -> store.forkBranch("t", v3, "feature")).isInstanceOf(ValidationException.class);
        assertThatThrownBy(() -> store.forkBranch("t", TableRef.main(42), "other")).isInstanceOf(ValidationException.class);
    }

    @Test
    void forkingFromAnIndexedBranchRebuildsTheIdIndexOnTheNewBranch() {
        KeyedTable t = keyed("t");
        TableRef v2 = t.insert(nodes("a"), MergePath.V2_FENCED).ref();
        TableRef v3 = open("t", v2).createIdIndex().ref();
        TableRef b1 = store.forkBranch("t", v3, "b1");
        assertThat(b1).isEqualTo(new TableRef("b1", 3));
        TableRef b1v4 = open("t", b1).insert(nodes("k"), MergePath.INDEXED_UNFENCED).ref();
        TableRef shared = store.forkBranch("t", b1, "fromShared");
        assertThat(shared).isEqualTo(new TableRef("fromShared", 3));
        TableRef b2 = store.forkBranch("t", b1v4, "b2");
        assertThat(b2).isEqualTo(new TableRef("b2", 5));
        CommitDescription rebuild = store.decompose("t", b2);
        assertThat(rebuild.kind()).isEqualTo(OperationKind.CREATE_INDEX);
        assertThat(rebuild.indicesAdded()).containsExactly(KeyedTable.ID_INDEX_NAME);
        KeyedTable onB2 = open("t", b2);
        assertThat(onB2.hasIdIndex()).isTrue();
        assertThat(ids(onB2)).containsExactly("a", "k");
        assertThat(ids(open("t", onB2.insert(nodes("z"), MergePath.INDEXED_UNFENCED).ref()))).containsExactly("a", "k", "z");
    }

    @Test
    void pkInstallOnABranchLeavesMainUntouched() {
        store.createLegacyKeyed("old", TableKind.NODE, NODE);
        TableRef f = store.forkBranch("old", TableRef.main(1), "mig");
        PrimaryKeyInstall r = store.installPrimaryKey("old", f, "i-9");
        assertThat(r.ref().branch()).isEqualTo("mig");
        assertThat(store.primaryKey("old", r.ref())).containsExactly("id");
        assertThat(store.primaryKey("old", store.latest("old", TableRef.MAIN))).isEmpty();
        assertThat(store.decompose("old", r.ref()).properties()).containsEntry(TableStore.INTENT_ID_PROPERTY, "i-9");
    }

    @Test
    void listVersionsIsAscendingWithRowCounts() {
        KeyedTable t = keyed("t");
        TableRef v2 = t.insert(nodes("a", "b"), MergePath.V2_FENCED).ref();
        open("t", v2).insert(nodes("c"), MergePath.V2_FENCED);
        List<VersionInfo> vs = store.listVersions("t", TableRef.MAIN);
        assertThat(vs).extracting(v -> v.ref().version()).containsExactly(1L, 2L, 3L);
        assertThat(vs).extracting(VersionInfo::totalRows).containsExactly(0L, 2L, 3L);
    }

    // ------------------------------------------------------------------ decomposition

    @Test
    void insertDecomposesIntoAnUpdateAddingOneFragment() {
        KeyedTable t = keyed("t");
        TableRef v2 = t.insert(nodes("a", "b"), MergePath.V2_FENCED).ref();
        CommitDescription d = store.decompose("t", v2);
        assertThat(d.ref()).isEqualTo(v2);
        assertThat(d.kind()).isEqualTo(OperationKind.UPDATE);
        assertThat(d.readVersion()).isEqualTo(1);
        assertThat(d.fragmentsAdded()).hasSize(1);
        assertThat(d.fragmentsRemoved()).isEmpty();
        assertThat(d.fragmentsUpdated()).isEmpty();
        assertThat(d.legacyOperations()).singleElement()
                .satisfies(op -> assertThat(op.fragmentsTouched()).isEqualTo(d.fragmentsAdded()));
        CommitDescription created = store.decompose("t", TableRef.main(1));
        assertThat(created.kind()).isEqualTo(OperationKind.OVERWRITE);
        assertThat(created.readVersion()).isZero();
    }

    @Test
    void upsertOfAnExistingKeyUpdatesTheFragmentHoldingIt() {
        KeyedTable t = keyed("t");
        TableRef v2 = t.insert(nodes("a", "b"), MergePath.V2_FENCED).ref();
        List<Long> first = store.decompose("t", v2).fragmentsAdded();
        TableRef v3 = open("t", v2).upsert(nodes(9, "a"), MergePath.V2_FENCED).ref();
        CommitDescription d = store.decompose("t", v3);
        assertThat(d.kind()).isEqualTo(OperationKind.UPDATE);
        assertThat(d.fragmentsUpdated()).isEqualTo(first);
        assertThat(d.fragmentsAdded()).hasSize(1).doesNotContainAnyElementsOf(first);
        assertThat(d.fragmentsRemoved()).isEmpty();
    }
}
