package io.palisade.substrate.surface;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lance.Dataset;
import org.lance.FragmentMetadata;
import org.lance.SourcedTransaction;
import org.lance.WriteParams;
import org.lance.merge.MergeInsertParams;
import org.lance.merge.MergeInsertResult;
import org.lance.operation.UpdateConfig;
import org.lance.operation.UpdateMap;
import org.apache.arrow.c.ArrowArrayStream;

import java.lang.reflect.Method;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * RFC-023 §11.1 surface guards, pinned against {@code org.lance:lance-core:7.0.0}: one test per
 * statement, each asserting what Lance does here. Where Lance differs from the RFC's statement the
 * test pins the observed behaviour and {@code docs/lance-surface.md} records the difference; such
 * tests are named for what is observed. A Lance upgrade that changes any of them must fail here first.
 *
 * <p>"Filtered" = merge-insert ON exactly the PK {@code [id]} without an index (v2 path, which
 * attaches an inserted-rows key filter). "Unfiltered" = merge-insert ON {@code [id, v]} (mismatched
 * ON set: no filter). Races use two {@link Dataset} handles opened at the same read version and
 * {@code conflictRetries = 0}.
 */
class LanceSurfaceGuardTest {

    private static final List<String> PK_ON = List.of("id");
    private static final List<String> MISMATCHED_ON = List.of("id", "v");

    @TempDir
    Path dir;

    private LanceFixture f;

    @BeforeEach
    void setUp() {
        f = new LanceFixture(dir);
    }

    @AfterEach
    void tearDown() {
        f.close();
    }

    private static boolean retryableConflict(Throwable e) {
        return String.valueOf(e.getMessage()).toLowerCase(Locale.ROOT).contains("too many concurrent writers");
    }

    // ------------------------------------------------------------------ v2 path, exact PK ON set

    @Test
    void exactPkOnSetV2PathRejectsAConcurrentSameKeyInsert() {
        f.create(true, "a");
        try (Dataset w1 = f.open(); Dataset w2 = f.open()) {
            f.merge(w1, PK_ON, true, 1, "k");
            assertThatThrownBy(() -> f.merge(w2, PK_ON, true, 2, "k"))
                    .isInstanceOf(RuntimeException.class)
                    .satisfies(e -> assertThat(retryableConflict(e)).isTrue());
        }
        assertThat(f.count("k")).isEqualTo(1);
        assertThat(f.version()).isEqualTo(2);
    }

    @Test
    void exactPkOnSetV2PathRejectsAConcurrentSameKeyUpsert() {
        f.create(true, "a");
        try (Dataset w1 = f.open(); Dataset w2 = f.open()) {
            f.merge(w1, PK_ON, false, 1, "k");
            assertThatThrownBy(() -> f.merge(w2, PK_ON, false, 2, "k"))
                    .satisfies(e -> assertThat(retryableConflict(e)).isTrue());
        }
        assertThat(f.count("k")).isEqualTo(1);
    }

    @Test
    void exactPkOnSetV2PathRebasesADisjointInsert() {
        f.create(true, "a");
        try (Dataset w1 = f.open(); Dataset w2 = f.open()) {
            assertThat(f.merge(w1, PK_ON, true, 1, "x")).isEqualTo(2);
            assertThat(f.merge(w2, PK_ON, true, 2, "y")).isEqualTo(3);
        }
        assertThat(f.count("x")).isEqualTo(1);
        assertThat(f.count("y")).isEqualTo(1);
        try (Dataset d = f.open()) {
            // the stored transaction records the version it rebased onto, not its stale read version
            assertThat(d.readTransaction()).hasValueSatisfying(t -> assertThat(t.readVersion()).isEqualTo(2));
        }
    }

    @Test
    void whenMatchedFailReportsAnExistingMatchWithoutWriting() {
        f.create(true, "a", "b");
        try (Dataset d = f.open()) {
            assertThatThrownBy(() -> f.merge(d, PK_ON, true, 9, "b", "z"))
                    .isInstanceOf(RuntimeException.class)
                    .hasMessageContaining("found matching row with key values: id = \"b\"");
        }
        assertThat(f.version()).isEqualTo(1);
        assertThat(f.count("z")).isZero();
        assertThat(f.countValue("b", 1)).isEqualTo(1);
    }

    @Test
    void mergeInsertReturnsANewDatasetAndLeavesTheSourceHandleAtItsVersion() {
        f.create(true, "a");
        try (Dataset d = f.open(); ArrowArrayStream s = f.stream(LanceFixture.schema(true), 1, "b")) {
            MergeInsertResult r = d.mergeInsert(new MergeInsertParams(PK_ON).withMatchedFail(), s);
            try (Dataset after = r.dataset()) {
                assertThat(after).isNotSameAs(d);
                assertThat(after.version()).isEqualTo(2);
                assertThat(d.version()).isEqualTo(1);
            }
        }
    }

    // ------------------------------------------------------------------ no fence without the exact PK

    @Test
    void mismatchedOnSetGetsNoKeyFencingSoStaleWritersDuplicateAKey() {
        f.create(true, "a");
        try (Dataset w1 = f.open(); Dataset w2 = f.open()) {
            f.merge(w1, MISMATCHED_ON, true, 5, "k");
            assertThat(f.merge(w2, MISMATCHED_ON, true, 5, "k")).isEqualTo(3);
        }
        assertThat(f.count("k")).isEqualTo(2);
    }

    @Test
    void withoutPkMetadataAnOnIdMergeGetsNoKeyFencing() {
        f.create(false, "a");
        try (Dataset w1 = f.open(); Dataset w2 = f.open()) {
            f.merge(w1, PK_ON, true, 1, "k");
            assertThat(f.merge(w2, PK_ON, true, 2, "k")).isEqualTo(3);
        }
        assertThat(f.count("k")).isEqualTo(2);
    }

    // ------------------------------------------------------------------ indexed path

    @Test
    void indexedPathLetsTwoStaleWritersBothInsertTheSameNewKey() {
        f.create(true, "a");
        f.createIdIndex();
        try (Dataset w1 = f.open(); Dataset w2 = f.open()) {
            f.merge(w1, PK_ON, true, 1, "dup");
            assertThat(f.merge(w2, PK_ON, true, 2, "dup")).isEqualTo(w1.version() + 2);
        }
        assertThat(f.count("dup")).isEqualTo(2);
    }

    @Test
    void indexedPathTurnsWhenMatchedFailIntoAnUpdate() {
        f.create(true, "a", "b");
        f.createIdIndex();
        try (Dataset d = f.open(); ArrowArrayStream s = f.stream(LanceFixture.schema(true), 9, "a", "n")) {
            MergeInsertResult r = d.mergeInsert(new MergeInsertParams(PK_ON).withMatchedFail().withConflictRetries(0), s);
            r.dataset().close();
            assertThat(r.stats().numUpdatedRows()).isEqualTo(1);
            assertThat(r.stats().numInsertedRows()).isEqualTo(1);
        }
        assertThat(f.countValue("a", 9)).isEqualTo(1);
        assertThat(f.count("a")).isEqualTo(1);
    }

    /**
     * Lance takes the indexed (unfenced) path only when the index on {@code id} covers at least one
     * fragment of the base: an index built on an empty table, or whose covered fragments were all
     * removed, leaves merges on the fenced v2 path; a partly deleted covered fragment keeps the
     * indexed path. (Found by the differential test; DESIGN §9 says only "with a BTREE index".)
     */
    @Test
    void indexedPathIsTakenOnlyWhenTheIndexCoversAFragment() {
        f.create(true);
        f.createIdIndex(); // index over no fragment
        assertThat(staleSameKeyRaceDuplicates("k1")).isFalse();
        try (Dataset d = f.open()) {
            f.merge(d, PK_ON, true, 1, "a");
            f.merge(d, PK_ON, true, 1, "b"); // stale on purpose: disjoint keys rebase
        }
        try (Dataset d = f.open()) {
            d.optimizeIndices(org.lance.index.OptimizeOptions.builder().build()); // index now covers a's and b's fragments
        }
        assertThat(staleSameKeyRaceDuplicates("k2")).isTrue();
        try (Dataset d = f.open()) {
            d.delete("id IN ('a', 'b', 'k1', 'k2')"); // every covered fragment removed
        }
        assertThat(staleSameKeyRaceDuplicates("k3")).isFalse();
    }

    /** Two writers at the same version insert {@code key}: whether both committed (no key filter). */
    private boolean staleSameKeyRaceDuplicates(String key) {
        try (Dataset w1 = f.open(); Dataset w2 = f.open()) {
            f.merge(w1, PK_ON, true, 1, key);
            try {
                f.merge(w2, PK_ON, true, 2, key);
            } catch (RuntimeException e) {
                assertThat(retryableConflict(e)).as("second writer's failure %s", e).isTrue();
                assertThat(f.count(key)).isEqualTo(1);
                return false;
            }
        }
        assertThat(f.count(key)).isEqualTo(2);
        return true;
    }

    /** Merge-insert UpdateAll of {@code ids} from the stale handle {@code d} with a by-source {@code DeleteIf "false"}. */
    private MergeInsertResult mergeDeleteIfFalse(Dataset d, long value, String... ids) {
        MergeInsertParams p = new MergeInsertParams(PK_ON).withConflictRetries(0).withMatchedUpdateAll()
                .withNotMatchedBySourceDeleteIf("false");
        try (ArrowArrayStream s = f.stream(LanceFixture.schema(true), value, ids)) {
            return d.mergeInsert(p, s);
        }
    }

    /**
     * The switch Palisade's large merges rely on (the scan plan, {@code MergeCost}): with an index on {@code id}
     * covering the table, a by-source {@code DeleteIf "false"} makes Lance take the v2 plan, which attaches the
     * inserted-rows key filter: of two stale writers inserting the same new key, the second is rejected, where the
     * indexed plan lets both commit ({@link #indexedPathLetsTwoStaleWritersBothInsertTheSameNewKey}).
     */
    @Test
    void deleteIfFalseTakesTheV2PathWithTheIndexPresentAndCarriesTheKeyFilter() {
        f.create(true, "a", "b");
        f.createIdIndex();
        try (Dataset w1 = f.open(); Dataset w2 = f.open()) {
            mergeDeleteIfFalse(w1, 1, "dup").dataset().close();
            assertThatThrownBy(() -> mergeDeleteIfFalse(w2, 2, "dup").dataset().close())
                    .satisfies(e -> assertThat(retryableConflict(e)).as("second writer's failure %s", e).isTrue());
        }
        assertThat(f.count("dup")).isEqualTo(1);
    }

    @Test
    void deleteIfFalseKeepsWhenMatchedFailOnTheV2Path() {
        f.create(true, "a", "b");
        f.createIdIndex();
        try (Dataset d = f.open(); ArrowArrayStream s = f.stream(LanceFixture.schema(true), 9, "a", "n")) {
            MergeInsertParams p = new MergeInsertParams(PK_ON).withConflictRetries(0).withMatchedFail()
                    .withNotMatchedBySourceDeleteIf("false");
            assertThatThrownBy(() -> d.mergeInsert(p, s).dataset().close()).isInstanceOf(RuntimeException.class)
                    .satisfies(e -> assertThat(io.palisade.substrate.lance.LanceErrorsProbe.isMatchedFail(e))
                            .as("Lance's matched-fail error, as Palisade recognises it: %s", e).isTrue());
        }
        assertThat(f.count("n")).as("nothing inserted").isZero();
        assertThat(f.countValue("a", 9)).as("nothing updated").isZero();
    }

    @Test
    void deleteIfFalseDeletesNothingAndUpdatesAndInsertsAsUpdateAll() {
        f.create(true, "a", "b", "c");
        f.createIdIndex();
        try (Dataset d = f.open()) {
            MergeInsertResult r = mergeDeleteIfFalse(d, 9, "b", "n");
            r.dataset().close();
            assertThat(r.stats().numDeletedRows()).isZero();
            assertThat(r.stats().numUpdatedRows()).isEqualTo(1);
            assertThat(r.stats().numInsertedRows()).isEqualTo(1);
        }
        try (Dataset d = f.open()) {
            assertThat(d.countRows()).isEqualTo(4);
        }
        assertThat(f.countValue("b", 9)).isEqualTo(1);
        assertThat(f.countValue("n", 9)).isEqualTo(1);
        assertThat(f.count("a")).isEqualTo(1);
        assertThat(f.count("c")).isEqualTo(1);
    }

    @Test
    void javaMergeInsertParamsOfferNoSwitchToDisableTheIndexedPath() {
        List<String> methods = Arrays.stream(MergeInsertParams.class.getMethods()).map(Method::getName)
                .map(n -> n.toLowerCase(Locale.ROOT)).toList();
        assertThat(methods).noneMatch(n -> n.contains("index"));
    }

    // ------------------------------------------------------------------ mixed filtered/unfiltered

    @Test
    void unfilteredUpdateCommittedFirstMakesAStaleFilteredUpdateRetry() {
        f.create(true, "a");
        try (Dataset w1 = f.open(); Dataset w2 = f.open()) {
            f.merge(w1, MISMATCHED_ON, true, 5, "x");
            assertThatThrownBy(() -> f.merge(w2, PK_ON, true, 5, "y"))
                    .satisfies(e -> assertThat(retryableConflict(e)).isTrue());
        }
        assertThat(f.count("y")).isZero();
    }

    /** RFC-023 §5.3 requires a retry here; Lance 7.0.0 rebases (the directional asymmetry of §2.2). */
    @Test
    void filteredUpdateCommittedFirstLetsAStaleUnfilteredUpdateRebase() {
        f.create(true, "a");
        try (Dataset w1 = f.open(); Dataset w2 = f.open()) {
            f.merge(w1, PK_ON, true, 5, "k");
            assertThat(f.merge(w2, MISMATCHED_ON, true, 6, "k")).isEqualTo(3);
        }
        assertThat(f.count("k")).isEqualTo(2);
    }

    @Test
    void bareAppendCommittedFirstMakesAStaleFilteredUpdateRetry() {
        f.create(true, "a");
        try (Dataset w1 = f.open(); Dataset w2 = f.open()) {
            f.append(w1, "x");
            assertThatThrownBy(() -> f.merge(w2, PK_ON, true, 5, "y"))
                    .satisfies(e -> assertThat(retryableConflict(e)).isTrue());
        }
        assertThat(f.count("y")).isZero();
    }

    /** RFC-023 §5.3 requires a retry here; Lance 7.0.0 lets the Append commit, even for the same key. */
    @Test
    void filteredUpdateCommittedFirstLetsAStaleBareAppendOfTheSameKeyCommit() {
        f.create(true, "a");
        try (Dataset w1 = f.open(); Dataset w2 = f.open()) {
            f.merge(w1, PK_ON, true, 5, "k");
            assertThat(f.append(w2, "k")).isEqualTo(3);
        }
        assertThat(f.count("k")).isEqualTo(2);
    }

    // ------------------------------------------------------------------ rebase over foreign commits

    /**
     * No commit option refuses a stale read version: a transaction read at version 1, committed with
     * {@code CommitBuilder.maxRetries(0)} after another writer's Append made version 2, is rebased and committed as
     * version 3. Palisade therefore detects the absorption afterwards (achieved != base + 1, docs/lance-surface.md
     * "Rebase over foreign commits") instead of preventing it.
     */
    @Test
    void maxRetriesZeroStillRebasesAStaleCompatibleTransaction() {
        f.create(true, "a");
        try (Dataset stale = f.open(); Dataset other = f.open()) {
            assertThat(f.append(other, "x")).isEqualTo(2);
            List<FragmentMetadata> frags;
            try (org.apache.arrow.c.ArrowArrayStream st = f.stream(stale.getSchema(), 3, "y")) {
                frags = org.lance.Fragment.write().datasetUri(stale.uri()).allocator(f.allocator).data(st)
                        .writeParams(new org.lance.WriteParams.Builder().build()).execute();
            }
            try (org.lance.Transaction tx = new org.lance.Transaction.Builder().readVersion(stale.version())
                    .operation(org.lance.operation.Append.builder().fragments(frags).build()).build();
                 Dataset after = new org.lance.CommitBuilder(stale).maxRetries(0).execute(tx)) {
                assertThat(after.version()).as("rebased over the other writer's version 2").isEqualTo(3);
            }
        }
        assertThat(f.count("x")).isEqualTo(1);
        assertThat(f.count("y")).isEqualTo(1);
    }

    /** A stale index build (CreateIndex) is compatible with another writer's Append: Lance rebases it, no error. */
    @Test
    void aStaleIndexBuildRebasesOverAnotherWritersAppend() {
        f.create(true, "a", "b");
        try (Dataset stale = f.open(); Dataset other = f.open()) {
            assertThat(f.append(other, "x")).isEqualTo(2);
            stale.createIndex(org.lance.index.IndexOptions.builder(List.of("id"), org.lance.index.IndexType.BTREE,
                            org.lance.index.IndexParams.builder().setScalarIndexParams(
                                    org.lance.index.scalar.ScalarIndexParams.create("btree", "{}")).build())
                    .withIndexName("id_idx").build());
            assertThat(stale.version()).as("committed as latest + 1, not base + 1").isEqualTo(3);
        }
    }

    // ------------------------------------------------------------------ PK metadata permanence

    @Test
    void pkMetadataCannotBeChangedOnceInstalled() {
        f.create(true, "a");
        try (Dataset d = f.open()) {
            UpdateConfig change = UpdateConfig.builder().fieldMetadataUpdates(Map.of(0,
                    UpdateMap.builder().updates(Map.of(LanceFixture.PK, "false")).replace(false).build())).build();
            assertThatThrownBy(() -> commit(d, change))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("cannot be changed once set");
        }
        assertThat(f.version()).isEqualTo(1);
    }

    @Test
    void pkMetadataCannotBeRemovedByReplacingFieldMetadata() {
        f.create(true, "a");
        try (Dataset d = f.open()) {
            UpdateConfig remove = UpdateConfig.builder().fieldMetadataUpdates(Map.of(0,
                    UpdateMap.builder().updates(Map.of()).replace(true).build())).build();
            assertThatThrownBy(() -> commit(d, remove))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("cannot be changed once set");
        }
        try (Dataset d = f.open()) {
            assertThat(d.getLanceSchema().getUnenforcedPrimaryKey()).extracting(x -> x.getName()).containsExactly("id");
        }
    }

    @Test
    void pkInstallAsUpdateConfigCarriesItsTransactionProperties() {
        f.create(false, "a");
        try (Dataset d = f.open()) {
            UpdateConfig install = UpdateConfig.builder().fieldMetadataUpdates(Map.of(0,
                    UpdateMap.builder().updates(Map.of(LanceFixture.PK, "true")).replace(false).build())).build();
            try (SourcedTransaction tx = d.newTransactionBuilder().operation(install)
                    .transactionProperties(Map.of("palisade.intent-id", "i-1")).build(); Dataset after = tx.commit()) {
                assertThat(after.version()).isEqualTo(2);
            }
        }
        try (Dataset d = f.open()) {
            assertThat(d.getLanceSchema().getUnenforcedPrimaryKey()).extracting(x -> x.getName()).containsExactly("id");
            assertThat(d.readTransaction()).hasValueSatisfying(t -> {
                assertThat(t.operation().name()).isEqualTo("UpdateConfig");
                assertThat(t.transactionProperties()).hasValue(Map.of("palisade.intent-id", "i-1"));
            });
        }
    }

    /** RFC-023 §9 wants the PK permanent; Lance 7.0.0 lets a column drop remove it (Palisade refuses). */
    @Test
    void droppingTheIdColumnRemovesThePrimaryKey() {
        f.create(true, "a");
        try (Dataset d = f.open()) {
            d.dropColumns(List.of("id"));
        }
        try (Dataset d = f.open()) {
            assertThat(d.getLanceSchema().getUnenforcedPrimaryKey()).isEmpty();
            assertThat(d.getSchema().getFields()).extracting(x -> x.getName()).containsExactly("v");
        }
    }

    /** RFC-023 §9 wants overwrite to keep the PK; Lance 7.0.0 takes the new schema as given (Palisade re-applies it). */
    @Test
    void overwriteWithASchemaWithoutPkMetadataRemovesThePrimaryKeyAndRestartsFragmentIds() {
        f.create(true, "a");
        try (ArrowArrayStream s = f.stream(LanceFixture.schema(false), 1, "x");
             Dataset o = Dataset.write().allocator(f.allocator).stream(s).uri(f.uri)
                     .mode(WriteParams.WriteMode.OVERWRITE).execute()) {
            assertThat(o.getLanceSchema().getUnenforcedPrimaryKey()).isEmpty();
            assertThat(o.getFragments()).extracting(x -> x.getId()).containsExactly(0);
        }
    }

    /**
     * DESIGN §9 says {@code createBranch(name, Ref)} forks at an exact version. Observed: only when it is
     * called on a dataset checked out on the source branch. Called on main's dataset with
     * {@code Ref.ofBranch("b1", 2)} it records parent b1 but copies <em>main</em>@2.
     */
    @Test
    void createBranchCopiesTheCallingDatasetsBranch() {
        f.create(true, "a");
        try (Dataset m = f.open()) {
            f.merge(m, PK_ON, true, 1, "onMain"); // main@2
        }
        try (Dataset root = f.open(); Dataset b1 = root.createBranch("b1", org.lance.Ref.ofMain(1))) {
            f.merge(b1, PK_ON, true, 1, "onB1"); // b1@2
        }
        try (Dataset root = f.open()) {
            try (Dataset wrong = root.createBranch("fromMainHandle", org.lance.Ref.ofBranch("b1", 2))) {
                assertThat(wrong.countRows("id = 'onMain'")).isEqualTo(1);
                assertThat(wrong.countRows("id = 'onB1'")).isZero();
            }
            assertThat(root.branches().list()).filteredOn(b -> b.getName().equals("fromMainHandle"))
                    .singleElement().satisfies(b -> assertThat(b.getParentBranch()).hasValue("b1"));
            try (Dataset b1 = root.checkout(org.lance.Ref.ofBranch("b1", 2));
                 Dataset right = b1.createBranch("fromB1Handle", org.lance.Ref.ofBranch("b1", 2))) {
                assertThat(right.countRows("id = 'onB1'")).isEqualTo(1);
                assertThat(right.countRows("id = 'onMain'")).isZero();
            }
        }
    }

    /**
     * A branch forked from an indexed version of main can use the inherited index. But forking a
     * second branch, through the first branch's dataset, at a version the first branch still shares
     * with main (its fork version) makes Lance look for the inherited index files under the first
     * branch's {@code tree/<branch>/_indices}: every indexed merge on the new branch fails with an IO
     * error. Forking the same state from main works.
     */
    @Test
    void forkingASharedStateThroughABranchLosesIndexFiles() {
        f.create(true, "a");
        f.createIdIndex(); // main@2
        try (Dataset root = f.open(); Dataset b1 = root.createBranch("b1", org.lance.Ref.ofMain(2))) {
            assertThat(f.merge(b1, PK_ON, true, 1, "k")).isEqualTo(3);
        }
        try (Dataset root = f.open(); Dataset b1 = root.checkout(org.lance.Ref.ofBranch("b1", 2));
             Dataset viaBranch = b1.createBranch("viaB1", org.lance.Ref.ofBranch("b1", 2))) {
            assertThatThrownBy(() -> f.merge(viaBranch, PK_ON, true, 1, "x"))
                    .hasMessageContaining("tree/b1/_indices").hasMessageContaining("not found");
        }
        try (Dataset root = f.open(); Dataset viaMain = root.createBranch("viaMain", org.lance.Ref.ofMain(2))) {
            assertThat(f.merge(viaMain, PK_ON, true, 1, "x")).isEqualTo(3);
        }
    }

    /**
     * Index files a branch inherited from main are looked up under that branch's directory by a branch
     * forked from it: an indexed merge on the second-level branch fails with an IO error. Rebuilding
     * the index on the new branch ({@code replace = true}) makes it usable. The Lance store therefore
     * rebuilds the id index when it forks from a branch other than main.
     */
    @Test
    void indexFilesInheritedThroughABranchAreLostOnTheNextFork() {
        f.create(true, "a");
        f.createIdIndex(); // main@2
        try (Dataset root = f.open(); Dataset b1 = root.createBranch("b1", org.lance.Ref.ofMain(2))) {
            assertThat(f.merge(b1, PK_ON, true, 1, "k")).isEqualTo(3); // b1@3, b1's own state
        }
        try (Dataset root = f.open(); Dataset b1 = root.checkout(org.lance.Ref.ofBranch("b1", 3));
             Dataset b2 = b1.createBranch("b2", org.lance.Ref.ofBranch("b1", 3))) {
            assertThatThrownBy(() -> f.merge(b2, PK_ON, true, 1, "x"))
                    .hasMessageContaining("tree/b1/_indices").hasMessageContaining("not found");
            b2.createIndex(org.lance.index.IndexOptions.builder(List.of("id"), org.lance.index.IndexType.BTREE,
                            org.lance.index.IndexParams.builder().setScalarIndexParams(
                                    org.lance.index.scalar.ScalarIndexParams.create("btree", "{}")).build())
                    .withIndexName("id_idx").replace(true).build());
        }
        try (Dataset root = f.open(); Dataset b2 = root.checkout(org.lance.Ref.ofBranch("b2"))) {
            assertThat(b2.version()).isEqualTo(4);
            assertThat(f.merge(b2, PK_ON, true, 1, "x")).isEqualTo(5);
            assertThat(b2.countRows("id = 'k'")).isEqualTo(1);
        }
    }

    /** DESIGN §9: branch diffs cannot come from Lance's delta API; they come from the journal's key filters. */
    @Test
    void datasetDeltaHasNoNativeImplementation() {
        f.create(true, "a");
        try (Dataset w = f.open()) {
            f.merge(w, PK_ON, true, 1, "b");
        }
        try (Dataset d = f.open(); org.lance.delta.DatasetDelta delta = d.delta(1)) {
            // building the delta is pure Java; its first native call is missing from the 7.0.0 natives
            assertThatThrownBy(delta::listTransactions).isInstanceOf(UnsatisfiedLinkError.class)
                    .hasMessageContaining("nativeListTransactions");
        }
    }

    private static void commit(Dataset d, UpdateConfig op) {
        try (SourcedTransaction tx = d.newTransactionBuilder().operation(op).build(); Dataset after = tx.commit()) {
            assertThat(after.version()).isGreaterThan(d.version());
        }
    }
}
