package io.palisade.fencing.conflict;

import io.palisade.fencing.action.*;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

import static io.palisade.fencing.conflict.Txns.*;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The rule revisions (docs/conflict-resolution.md "Revisions from the Lance peer suite"):
 * each is checked in both commit orders, with a neighbouring case that must keep its old answer.
 */
class RuleRevisionsTest {

    private static final UUID I0 = UUID.nameUUIDFromBytes("i0".getBytes());
    private static final UUID I1 = UUID.nameUUIDFromBytes("i1".getBytes());

    private static boolean compatibleInBothOrders(List<Action> x, List<Action> y) {
        boolean xy = bothCommit(x, y, 4);
        boolean yx = bothCommit(y, x, 4);
        assertThat(xy).as("symmetry").isEqualTo(yx);
        return xy;
    }

    /** An Update that moves rows of {@code fragment} into a new fragment (Lance's Update with new fragments). */
    private static List<Action> updateMovingRowsOf(long fragment) {
        return List.of(delete(fragment, Optional.empty(), 3),
                new AddFragments(List.of(rows(1)), KeyScope.UNKNOWN, Set.of(fragment)));
    }

    private static AddFields nullableColumnWithValuesFor(Long... fragments) {
        Map<Long, String> files = new java.util.HashMap<>();
        for (Long f : fragments) {
            files.put(f, "w-" + f + ".lance");
        }
        return new AddFields(List.of(new AddFields.NewField("w", true)), files);
    }

    @Test
    void aMergeWritingValuesForAFragmentConflictsWithAnUpdateMovingRowsOutOfIt() {
        assertThat(compatibleInBothOrders(List.of(nullableColumnWithValuesFor(0L, 1L, 2L)), updateMovingRowsOf(1))).isFalse();
        Verdict v = ConflictResolver.check(txn("merge", 4, nullableColumnWithValuesFor(1L)),
                List.of(won("update", 5, updateMovingRowsOf(1))));
        assertThat(v.conflicts()).anyMatch(c -> c.cell().equals("R7") && c.reason().contains("moved"));
    }

    @Test
    void aMergeStillCommutesWithUpdatesOfOtherFragmentsWithFreshAppendsAndWhenItWritesNoValues() {
        assertThat(compatibleInBothOrders(List.of(nullableColumnWithValuesFor(0L, 2L)), updateMovingRowsOf(1))).isTrue();
        assertThat(compatibleInBothOrders(List.of(nullableColumnWithValuesFor(0L, 1L, 2L)), List.of(insert("new")))).isTrue();
        // an all-null column (no data files) leaves moved rows reading null, which is what they hold
        assertThat(compatibleInBothOrders(List.of(nullableColumnWithValuesFor()), updateMovingRowsOf(1))).isTrue();
    }

    @Test
    void anIndexAbsorbsARemovalOfFragmentsByIdAndBothOrdersConvergeOnOneCoverage() {
        AddIndex index = new AddIndex(I0, "age", Set.of(AGE), Set.of(FragmentRef.id(0), FragmentRef.id(1)), 1, Optional.empty());
        RemoveFragments remove = RemoveFragments.ids(1L);
        assertThat(compatibleInBothOrders(List.of(index), List.of(remove))).isTrue();
        Manifest base = keyedTable();
        Verdict indexSecond = ConflictResolver.check(txn("index", base.version(), index),
                List.of(won("remove", base.version() + 1, remove)), Optional.of(base.apply(List.of(remove))));
        assertThat(indexSecond.outcome()).isEqualTo(Verdict.Outcome.REBASED);
        Manifest a = base.apply(List.of(remove)).apply(indexSecond.transaction().actions());
        Verdict removeSecond = ConflictResolver.check(txn("remove", base.version(), remove),
                List.of(won("index", base.version() + 1, index)), Optional.of(base.apply(List.of(index))));
        assertThat(removeSecond.mayCommit()).isTrue();
        Manifest b = base.apply(List.of(index)).apply(removeSecond.transaction().actions());
        assertThat(a.indices().get(I0).fragmentBitmap()).isEqualTo(Set.of(0L)).isEqualTo(b.indices().get(I0).fragmentBitmap());
    }

    @Test
    void anIndexStillConflictsWithAnOverwriteAndWithAColumnRewriteItCovers() {
        AddIndex index = new AddIndex(I0, "age", Set.of(AGE), Set.of(FragmentRef.id(1)), 1, Optional.empty());
        assertThat(compatibleInBothOrders(List.of(index), List.of(RemoveFragments.allCurrent(), insert("x")))).isFalse();
        ReplaceFragmentColumns ageOf1 = new ReplaceFragmentColumns(FragmentRef.id(1), Set.of(AGE),
                List.of(new DataFile("age.lance", Set.of(AGE))), Optional.empty());
        assertThat(compatibleInBothOrders(List.of(index), List.of(ageOf1))).isFalse();
    }

    @Test
    void twoOverwritesCommuteWhateverKeysTheyHoldButAnOverwriteAndAnInsertDoNot() {
        List<Action> first = List.of(RemoveFragments.allCurrent(), insert("a", "b"));
        List<Action> second = List.of(RemoveFragments.allCurrent(), insert("b", "c"));
        assertThat(compatibleInBothOrders(first, second)).isTrue();
        assertThat(compatibleInBothOrders(first, List.of(insert("z")))).isFalse();
        // their config updates are still judged
        UpdateConfig k1 = new UpdateConfig(List.of(UpdateConfig.ConfigUpdate.set(UpdateConfig.Target.CONFIG, "k", "1")), false);
        UpdateConfig k2 = new UpdateConfig(List.of(UpdateConfig.ConfigUpdate.set(UpdateConfig.Target.CONFIG, "k", "2")), false);
        assertThat(compatibleInBothOrders(List.of(RemoveFragments.allCurrent(), insert("a"), k1),
                List.of(RemoveFragments.allCurrent(), insert("a"), k2))).isFalse();
    }

    @Test
    void twoRemovalsOfOneConfigKeyCommuteButARemovalAndASetDoNot() {
        UpdateConfig removeK = new UpdateConfig(List.of(new UpdateConfig.ConfigUpdate(UpdateConfig.Target.CONFIG, "k", Optional.empty())), false);
        UpdateConfig setK = new UpdateConfig(List.of(UpdateConfig.ConfigUpdate.set(UpdateConfig.Target.CONFIG, "k", "v")), false);
        UpdateConfig removeKInTableMetadata = new UpdateConfig(List.of(
                new UpdateConfig.ConfigUpdate(UpdateConfig.Target.TABLE_METADATA, "k", Optional.empty())), false);
        assertThat(compatibleInBothOrders(List.of(removeK), List.of(removeK))).isTrue();
        assertThat(compatibleInBothOrders(List.of(removeK), List.of(setK))).isFalse();
        assertThat(compatibleInBothOrders(List.of(removeK), List.of(removeKInTableMetadata))).isTrue();
        assertThat(compatibleInBothOrders(List.of(removeK), List.of(new UpdateConfig(List.of(), true)))).isFalse();
        UpdateSchemaMetadata dropS = new UpdateSchemaMetadata(List.of(UpdateSchemaMetadata.MetadataUpdate.remove(-1, "s")));
        UpdateSchemaMetadata setS = new UpdateSchemaMetadata(List.of(UpdateSchemaMetadata.MetadataUpdate.set(-1, "s", "1")));
        assertThat(compatibleInBothOrders(List.of(dropS), List.of(dropS))).isTrue();
        assertThat(compatibleInBothOrders(List.of(dropS), List.of(setS))).isFalse();
    }

    @Test
    void anIdenticalIndexCommitMadeTwiceCommutesButTwoDifferentRewritesOfOneIndexDoNot() {
        RewriteIndex same = new RewriteIndex(I0, I0, 1, Set.of(0L, 1L), Set.of(AGE));
        assertThat(compatibleInBothOrders(List.of(same), List.of(same))).isTrue();
        assertThat(compatibleInBothOrders(List.of(same), List.of(new RewriteIndex(I0, I1, 1, Set.of(0L, 1L), Set.of(AGE))))).isFalse();
        assertThat(compatibleInBothOrders(List.of(new RemoveIndex(I0)), List.of(new RemoveIndex(I0)))).isFalse();
    }

    @Test
    void basesWithoutANameOrWithIdZeroDoNotClashOnThemButAPathAlwaysIdentifiesABase() {
        AddBases unnamed1 = new AddBases(List.of(new BasePath(1, null, "s3://b1")));
        AddBases unnamed2 = new AddBases(List.of(new BasePath(2, null, "s3://b2")));
        assertThat(compatibleInBothOrders(List.of(unnamed1), List.of(unnamed2))).isTrue();
        AddBases zero1 = new AddBases(List.of(new BasePath(0, "one", "s3://b1")));
        AddBases zero2 = new AddBases(List.of(new BasePath(0, "two", "s3://b2")));
        assertThat(compatibleInBothOrders(List.of(zero1), List.of(zero2))).isTrue();
        assertThat(compatibleInBothOrders(List.of(zero1), List.of(new AddBases(List.of(new BasePath(0, "three", "s3://b1")))))).isFalse();
        assertThat(compatibleInBothOrders(List.of(new AddBases(List.of(new BasePath(7, "a", "p")))),
                List.of(new AddBases(List.of(new BasePath(7, "b", "q")))))).isFalse();
        assertThat(unnamed1.newBases().get(0).givenName()).isEmpty();
        assertThat(io.palisade.fencing.action.ActionCodec.decode(io.palisade.fencing.action.ActionCodec.encode(List.of(unnamed1))))
                .containsExactly(unnamed1);
    }
}
