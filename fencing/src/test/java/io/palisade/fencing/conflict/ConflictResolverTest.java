package io.palisade.fencing.conflict;

import io.palisade.fencing.action.Action;
import io.palisade.fencing.action.AddFields;
import io.palisade.fencing.action.AddIndex;
import io.palisade.fencing.action.ChangeSchema;
import io.palisade.fencing.action.FragmentRef;
import io.palisade.fencing.action.InvalidateIndexCoverage;
import io.palisade.fencing.action.Manifest;
import io.palisade.fencing.action.RemoveFragments;
import io.palisade.fencing.action.RowOffsets;
import io.palisade.fencing.action.UpdateDeletionVector;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

import static io.palisade.fencing.conflict.Txns.*;
import static org.assertj.core.api.Assertions.assertThat;

class ConflictResolverTest {

    @Test
    void disjointFencedInsertsBothCommit() {
        Verdict v = ConflictResolver.check(txn("t2", 4, insert("a", "b")), List.of(won("t1", 5, insert("c", "d"))));
        assertThat(v.outcome()).isEqualTo(Verdict.Outcome.COMPATIBLE);
        assertThat(v.conflicts()).isEmpty();
    }

    @Test
    void overlappingFencedInsertsConflictNamingTheSharedKeys() {
        Verdict v = ConflictResolver.check(txn("t2", 4, insert("a", "b", "x")), List.of(won("t1", 5, insert("x", "c"))));
        assertThat(v.outcome()).isEqualTo(Verdict.Outcome.RETRYABLE_CONFLICT);
        assertThat(v.keyCollision()).isTrue();
        Conflict c = v.conflicts().get(0);
        assertThat(c.keys()).containsExactly("x");
        assertThat(c.cell()).isEqualTo("R1");
        assertThat(c.winnerId()).isEqualTo("t1");
        assertThat(v.reason()).contains("AddFragments").contains("t1@v5").contains("[x]");
    }

    @Test
    void twoUnfilteredKeyedInsertsAreNeverSilentlyCompatible() {
        assertThat(bothCommit(List.of(unfilteredInsert(3)), List.of(unfilteredInsert(2)), 4)).isFalse();
    }

    @Test
    void anUnknownKeyOverlapIsARetryableConflictButNotAProvenKeyCollision() {
        Verdict v = ConflictResolver.check(txn("t2", 4, insert("a")), List.of(won("t1", 5, unfilteredInsert(2))));
        assertThat(v.outcome()).isEqualTo(Verdict.Outcome.RETRYABLE_CONFLICT);
        assertThat(v.keyCollision()).isFalse();
        assertThat(v.conflicts().get(0).keys()).isEmpty();
        assertThat(v.reason()).contains("one side is unbounded");
    }

    @Test
    void filteredAndUnfilteredUpdatesConflictInBothCommitOrders() {
        List<Action> filtered = filteredUpdate(0, 3, "seed0");
        List<Action> unfiltered = unfilteredUpdate(1, 4);
        assertThat(bothCommit(filtered, unfiltered, 4)).as("unfiltered after filtered").isFalse();
        assertThat(bothCommit(unfiltered, filtered, 4)).as("filtered after unfiltered").isFalse();
    }

    @Test
    void filteredUpdateAndBareAppendConflictInBothCommitOrders() {
        List<Action> filtered = filteredUpdate(0, 3, "seed0");
        List<Action> bareAppend = List.of(unfilteredInsert(5));
        assertThat(bothCommit(filtered, bareAppend, 4)).as("append after filtered update").isFalse();
        assertThat(bothCommit(bareAppend, filtered, 4)).as("filtered update after append").isFalse();
    }

    @Test
    void keylessAppendsCommute() {
        assertThat(bothCommit(List.of(keylessAppend(3)), List.of(keylessAppend(4)), 1)).isTrue();
    }

    @Test
    void onlyWinnersCommittedAfterTheReadVersionAreChecked() {
        // t1 committed at version 5, before t2 read version 5: no conflict although the keys overlap
        Verdict v = ConflictResolver.check(txn("t2", 5, insert("x")), List.of(won("t1", 5, insert("x"))));
        assertThat(v.outcome()).isEqualTo(Verdict.Outcome.COMPATIBLE);
        Verdict later = ConflictResolver.check(txn("t2", 4, insert("x")), List.of(won("t1", 5, insert("x"))));
        assertThat(later.outcome()).isEqualTo(Verdict.Outcome.RETRYABLE_CONFLICT);
    }

    @Test
    void deletionsOfDisjointRowsOnOneFragmentRebaseToTheUnionAndApply() {
        Manifest base = keyedTable();
        UpdateDeletionVector mine = delete(1, Optional.empty(), 2, 3);
        UpdateDeletionVector theirs = delete(1, Optional.empty(), 7);
        Manifest latest = base.apply(List.of(theirs));

        Verdict v = ConflictResolver.check(txn("t2", base.version(), mine),
                List.of(won("t1", latest.version(), theirs)), Optional.of(latest));

        assertThat(v.outcome()).isEqualTo(Verdict.Outcome.REBASED);
        assertThat(v.rebases()).singleElement().asString().contains("R3");
        Manifest after = latest.apply(v.transaction().actions());
        assertThat(after.fragment(1).orElseThrow().deleted()).isEqualTo(RowOffsets.of(2, 3, 7));
        // the unrebased vector would resurrect row 7: the model rejects it
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> latest.apply(List.of(mine)))
                .hasMessageContaining("resurrect");
    }

    @Test
    void deletionsOfTheSameRowRetry() {
        Verdict v = ConflictResolver.check(txn("t2", 4, delete(1, Optional.empty(), 2)),
                List.of(won("t1", 5, delete(1, Optional.empty(), 2, 5))));
        assertThat(v.outcome()).isEqualTo(Verdict.Outcome.RETRYABLE_CONFLICT);
        assertThat(v.conflicts().get(0).cell()).isEqualTo("R3");
    }

    @Test
    void addIndexAbsorbsAConcurrentCoverageInvalidation() {
        Manifest base = keyedTable();
        UUID idx = UUID.nameUUIDFromBytes("idx".getBytes());
        AddIndex add = new AddIndex(idx, "age_idx", Set.of(AGE),
                Set.of(FragmentRef.id(0), FragmentRef.id(1), FragmentRef.id(2)), 1, Optional.empty());
        InvalidateIndexCoverage inv = new InvalidateIndexCoverage(Set.of(1L), Set.of(AGE));
        Manifest latest = base.apply(List.of(inv));

        Verdict v = ConflictResolver.check(txn("t2", base.version(), add), List.of(won("t1", latest.version(), inv)),
                Optional.of(latest));

        assertThat(v.outcome()).isEqualTo(Verdict.Outcome.REBASED);
        Manifest after = latest.apply(v.transaction().actions());
        assertThat(after.indices().get(idx).fragmentBitmap()).containsExactlyInAnyOrder(0L, 2L);

        // the other order converges to the same coverage: the invalidation applies to the new index
        Manifest otherOrder = base.apply(List.of(add)).apply(List.of(inv));
        assertThat(otherOrder.indices().get(idx).fragmentBitmap()).isEqualTo(after.indices().get(idx).fragmentBitmap());
    }

    @Test
    void addingTheSameFieldNameTwiceIsIncompatible() {
        AddFields a = new AddFields(List.of(new AddFields.NewField("score", true)), Map.of());
        AddFields b = new AddFields(List.of(new AddFields.NewField("score", true)), Map.of());
        Verdict v = ConflictResolver.check(txn("t2", 4, a), List.of(won("t1", 5, b)));
        assertThat(v.outcome()).isEqualTo(Verdict.Outcome.INCOMPATIBLE);
        assertThat(v.conflicts().get(0).resolution()).isEqualTo(Resolution.FAIL);
        assertThat(v.reason()).contains("score");
    }

    @Test
    void overwriteAndConcurrentInsertConflictInBothOrders() {
        List<Action> overwrite = List.of(RemoveFragments.allCurrent(), new ChangeSchema(keyedSchema()), insert("n1"));
        List<Action> append = List.of(insert("z"));
        assertThat(bothCommit(overwrite, append, 4)).isFalse();
        assertThat(bothCommit(append, overwrite, 4)).isFalse();
    }

    @Test
    void aCompatibleTransactionIsRevalidatedOnTheLatestManifest() {
        Manifest base = keyedTable();
        // masks cannot see fragments the transaction produces itself; validation on the latest manifest can
        List<Action> bad = List.of(insert("a"), new UpdateDeletionVector(new FragmentRef.ProducedBy(0, 0),
                RowOffsets.of(5), Optional.empty(), Optional.empty()));
        Manifest latest = base.apply(List.of(insert("b")));
        Verdict v = ConflictResolver.check(txn("t2", base.version(), bad), List.of(won("t1", latest.version(), insert("b"))),
                Optional.of(latest));
        assertThat(v.outcome()).isEqualTo(Verdict.Outcome.RETRYABLE_CONFLICT);
        assertThat(v.reason()).contains("names row 5");
    }

    @Test
    void keylessAppendAndPrimaryKeyInstallConflictInBothOrders() {
        List<Action> install = List.of(io.palisade.fencing.action.UpdateSchemaMetadata.installPrimaryKey(0));
        List<Action> append = List.of(keylessAppend(2));
        assertThat(bothCommit(install, append, 1)).isFalse();
        assertThat(bothCommit(append, install, 1)).isFalse();
    }

    @Test
    void conflictsAreCheckedAgainstEveryWinnerInCommitOrder() {
        Verdict v = ConflictResolver.check(txn("t3", 4, insert("a", "q")),
                List.of(won("t2", 6, insert("q")), won("t1", 5, insert("a"))));
        assertThat(v.conflicts()).extracting(Conflict::winnerId).containsExactly("t1", "t2");
        assertThat(v.conflicts()).extracting(Conflict::keys).containsExactly(List.of("a"), List.of("q"));
    }
}
