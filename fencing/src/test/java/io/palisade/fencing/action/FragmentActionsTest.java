package io.palisade.fencing.action;

import io.palisade.fencing.KeyFilter;
import io.palisade.fencing.ValidationException;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Optional;
import java.util.Set;

import static io.palisade.fencing.action.Fixtures.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A1 AddFragments, A2 RemoveFragments, A3 UpdateDeletionVector, A4 ReplaceFragmentColumns, A5 RewriteFragments, A17 ReserveFragmentIds. */
class FragmentActionsTest {

    private static void assertInvalid(Manifest m, Action a, String messagePart) {
        assertThatThrownBy(() -> m.apply(List.of(a)))
                .isExactlyInstanceOf(ValidationException.class)
                .hasMessageContaining(messagePart);
    }

    // ------------------------------------------------------------------ A1 AddFragments

    @Test
    void fencedInsertAddsAFragmentBoundFromTheCounters() {
        Manifest m = apply(keyedWith(2), insert(10, 11, 12));
        Fragment f = m.fragment(1).orElseThrow();
        assertThat(f.physicalRows()).isEqualTo(3);
        assertThat(f.rowIdBase()).isEqualTo(2);
        assertThat(f.deleted()).isEqualTo(RowOffsets.NONE);
        assertThat(f.fieldIds()).containsExactlyInAnyOrder(ID, NAME, AGE);
        assertThat(m.nextFragmentId()).isEqualTo(2);
        assertThat(m.nextRowId()).isEqualTo(5);
    }

    @Test
    void keyedAppendCannotBeExpressed() {
        assertInvalid(keyedWith(1), append(3), "keyed Append cannot be expressed");
    }

    @Test
    void keylessAppendOnKeylessTableIsAllowed() {
        Manifest m = apply(keylessWith(1), append(4));
        assertThat(m.fragmentIds()).containsExactly(0L, 1L);
        assertThat(m.liveRows()).isEqualTo(5);
    }

    @Test
    void keyFilterMustBeOverThePrimaryKey() {
        AddFragments overName = new AddFragments(List.of(template(1)), KeyScope.exact(KeyFilter.ofLongs(NAME, 1)));
        assertInvalid(keyedWith(1), overName, "primary key is [0]");
        assertInvalid(keylessWith(1), insert(1), "primary key is []");
    }

    @Test
    void unknownKeysAreOnlyMeaningfulOnAKeyedTable() {
        AddFragments unknown = new AddFragments(List.of(template(2)), KeyScope.UNKNOWN);
        assertThat(apply(keyedWith(1), unknown).fragmentIds()).containsExactly(0L, 1L);
        assertInvalid(keylessWith(1), unknown, "unknown keys on a keyless table");
    }

    @Test
    void templateMustOnlyWriteKnownFields() {
        AddFragments bad = new AddFragments(List.of(new FragmentTemplate(1, List.of(file(ID, 9)))), KeyScope.exact(keys(5)));
        assertInvalid(keyedWith(1), bad, "unknown field 9");
    }

    @Test
    void preservedRowSourcesMustExist() {
        AddFragments moved = new AddFragments(List.of(template(1)), KeyScope.exact(keys(0)), Set.of(0L));
        assertThat(apply(keyedWith(1), moved).fragmentIds()).containsExactly(0L, 1L);
        AddFragments dangling = new AddFragments(List.of(template(1)), KeyScope.exact(keys(0)), Set.of(5L));
        assertInvalid(keyedWith(1), dangling, "source fragment 5 does not exist");
    }

    @Test
    void keyFilterRidesOnTheWriteMask() {
        assertThat(insert(1, 2).writes().scope(ResourceKind.KEYS)).contains(new Scope.Keys(keys(1, 2)));
        assertThat(new AddFragments(List.of(template(1)), KeyScope.UNKNOWN).writes().scope(ResourceKind.KEYS))
                .contains(Scope.ALL);
        assertThat(append(1).writes().scope(ResourceKind.KEYS)).isEmpty();
        assertThat(insert(1).reads().scope(ResourceKind.PRIMARY_KEY)).isPresent();
        // a keyless append depends on the key contract too: a concurrent PK install must conflict with it
        assertThat(append(1).reads().scope(ResourceKind.PRIMARY_KEY)).isPresent();
    }

    // ------------------------------------------------------------------ A2 RemoveFragments

    @Test
    void removeByIdDropsOnlyTheNamedFragmentsAndNeverRewindsCounters() {
        Manifest m = apply(keyedWith(1, 2, 3), RemoveFragments.ids(0L, 2L));
        assertThat(m.fragmentIds()).containsExactly(1L);
        assertThat(m.nextFragmentId()).isEqualTo(3);
        assertThat(m.nextRowId()).isEqualTo(6);
        assertThat(apply(m, insert(99)).fragmentIds()).containsExactly(1L, 3L);
    }

    @Test
    void removeAllCurrentDropsEveryFragment() {
        Manifest m = apply(keyedWith(1, 2), RemoveFragments.allCurrent());
        assertThat(m.fragments()).isEmpty();
        assertThat(m.nextFragmentId()).isEqualTo(2);
        assertThat(RemoveFragments.allCurrent().reads().scope(ResourceKind.FRAGMENTS)).contains(Scope.ALL);
    }

    @Test
    void removingAMissingFragmentIsRejected() {
        assertInvalid(keyedWith(1), RemoveFragments.ids(0L, 7L), "cannot remove fragment 7");
    }

    // ------------------------------------------------------------------ A3 UpdateDeletionVector

    @Test
    void deletionVectorMarksRowsDeleted() {
        Manifest m = apply(keyedWith(4), delete(0, RowOffsets.of(1, 3)));
        assertThat(m.fragment(0).orElseThrow().deleted()).isEqualTo(RowOffsets.of(1, 3));
        assertThat(m.liveRows()).isEqualTo(2);
        Manifest more = apply(m, delete(0, RowOffsets.of(0, 1, 3)));
        assertThat(more.liveRows()).isEqualTo(1);
    }

    @Test
    void deletionVectorThatWouldResurrectRowsIsRejected() {
        Manifest m = apply(keyedWith(4), delete(0, RowOffsets.of(1, 3)));
        assertInvalid(m, delete(0, RowOffsets.of(1, 2)), "would resurrect deleted rows");
        assertInvalid(m, delete(0, RowOffsets.NONE), "would resurrect deleted rows");
    }

    @Test
    void deletionVectorBeyondThePhysicalRowsIsRejected() {
        assertInvalid(keyedWith(4), delete(0, RowOffsets.of(0, 4)), "names row 4 but the fragment has 4 rows");
    }

    @Test
    void deletionVectorOfAMissingFragmentIsRejected() {
        assertInvalid(keyedWith(1), delete(3, RowOffsets.of(0)), "fragment 3, which does not exist");
    }

    @Test
    void deletionVectorRebasedOnAWinnerOnTheSameFragmentIsTheUnion() {
        Manifest base = keyedWith(4);
        UpdateDeletionVector winner = delete(0, RowOffsets.of(1));
        UpdateDeletionVector loser = delete(0, RowOffsets.of(2));
        Manifest afterWinner = apply(base, winner);
        // the stale loser would resurrect the winner's row
        assertInvalid(afterWinner, loser, "resurrect");

        Action rebased = loser.rebase(winner);
        assertThat(rebased).isInstanceOf(UpdateDeletionVector.class);
        assertThat(((UpdateDeletionVector) rebased).deleted()).isEqualTo(RowOffsets.of(1, 2));
        assertThat(((UpdateDeletionVector) rebased).affectedRows()).contains(RowOffsets.of(2));
        assertThat(apply(afterWinner, rebased).fragment(0).orElseThrow().deleted()).isEqualTo(RowOffsets.of(1, 2));
    }

    @Test
    void deletionVectorIsNotRebasedOverOtherFragmentsOrActions() {
        UpdateDeletionVector mine = delete(0, RowOffsets.of(2));
        assertThat(mine.rebase(delete(1, RowOffsets.of(0)))).isSameAs(mine);
        assertThat(mine.rebase(insert(5))).isSameAs(mine);
    }

    @Test
    void deletionVectorCanTargetAFragmentProducedEarlierInTheTransaction() {
        Manifest m = keyedWith(1).apply(List.of(insert(5, 6, 7),
                new UpdateDeletionVector(new FragmentRef.ProducedBy(0, 0), RowOffsets.of(2), Optional.empty(), Optional.empty())));
        assertThat(m.fragment(1).orElseThrow().deleted()).isEqualTo(RowOffsets.of(2));
    }

    @Test
    void deleteWithAffectedKeysWritesThoseKeys() {
        UpdateDeletionVector d = new UpdateDeletionVector(new FragmentRef.Id(0), RowOffsets.of(0), Optional.of(RowOffsets.of(0)),
                Optional.of(keys(0)));
        assertThat(d.writes().scope(ResourceKind.KEYS)).contains(new Scope.Keys(keys(0)));
        assertThat(delete(0, RowOffsets.of(0)).writes().scope(ResourceKind.KEYS)).isEmpty();
    }

    // ------------------------------------------------------------------ A4 ReplaceFragmentColumns

    @Test
    void replacingColumnsSwapsTheFieldsDataFiles() {
        DataFile newAge = file(AGE);
        Manifest m = apply(keyedWith(2),
                new ReplaceFragmentColumns(new FragmentRef.Id(0), Set.of(AGE), List.of(newAge), Optional.of(RowOffsets.of(1))));
        List<DataFile> files = m.fragment(0).orElseThrow().files();
        assertThat(files).hasSize(2);
        assertThat(files.get(0).fieldIds()).containsExactlyInAnyOrder(ID, NAME);
        assertThat(files.get(1)).isEqualTo(newAge);
        assertThat(m.fragment(0).orElseThrow().fieldIds()).containsExactlyInAnyOrder(ID, NAME, AGE);
    }

    @Test
    void replacementFilesMustHoldExactlyTheReplacedFields() {
        assertInvalid(keyedWith(1), new ReplaceFragmentColumns(new FragmentRef.Id(0), Set.of(AGE, NAME), List.of(file(AGE)),
                Optional.empty()), "new files hold fields");
        assertInvalid(keyedWith(1), new ReplaceFragmentColumns(new FragmentRef.Id(0), Set.of(AGE), List.of(file(AGE, NAME)),
                Optional.empty()), "new files hold fields");
    }

    @Test
    void replacingColumnsOfMissingFragmentOrFieldIsRejected() {
        assertInvalid(keyedWith(1), new ReplaceFragmentColumns(new FragmentRef.Id(4), Set.of(AGE), List.of(file(AGE)),
                Optional.empty()), "fragment 4");
        assertInvalid(keyedWith(1), new ReplaceFragmentColumns(new FragmentRef.Id(0), Set.of(8), List.of(file(8)),
                Optional.empty()), "unknown field 8");
    }

    // ------------------------------------------------------------------ A5 RewriteFragments

    @Test
    void compactionSplicesOldFragmentsOutAndNewOnesIn() {
        Manifest base = apply(keyedWith(3, 2, 1), delete(0, RowOffsets.of(1)));
        Manifest m = apply(base, new RewriteFragments(Set.of(0L, 1L), List.of(template(4)), false));
        assertThat(m.fragmentIds()).containsExactly(2L, 3L);
        Fragment compacted = m.fragment(3).orElseThrow();
        assertThat(compacted.physicalRows()).isEqualTo(4);
        assertThat(compacted.rowIdBase()).isEqualTo(6);
        assertThat(m.nextRowId()).isEqualTo(10);
        assertThat(m.liveRows()).isEqualTo(base.liveRows());
    }

    @Test
    void compactionPreservingRowIdsKeepsTheOldRowIdBase() {
        Manifest base = keyedWith(1, 2, 3);
        Manifest m = apply(base, new RewriteFragments(Set.of(1L, 2L), List.of(template(2), template(3)), true));
        assertThat(m.fragmentIds()).containsExactly(0L, 3L, 4L);
        assertThat(m.fragment(3).orElseThrow().rowIdBase()).isEqualTo(1);
        assertThat(m.fragment(4).orElseThrow().rowIdBase()).isEqualTo(3);
        assertThat(m.nextRowId()).isEqualTo(base.nextRowId());
    }

    @Test
    void rewriteThatIsNotDataEquivalentIsRejected() {
        Manifest base = apply(keyedWith(3, 2), delete(0, RowOffsets.of(0)));
        assertInvalid(base, new RewriteFragments(Set.of(0L, 1L), List.of(template(5)), false), "not data-equivalent");
        assertThat(apply(base, new RewriteFragments(Set.of(0L, 1L), List.of(template(4)), false)).liveRows()).isEqualTo(4);
    }

    @Test
    void rewriteOfAMissingFragmentIsRejected() {
        assertInvalid(keyedWith(3), new RewriteFragments(Set.of(0L, 9L), List.of(template(3)), false),
                "cannot rewrite fragment 9");
    }

    // ------------------------------------------------------------------ A17 ReserveFragmentIds

    @Test
    void reservationAdvancesTheFragmentIdCounter() {
        Manifest m = apply(keyedWith(1), new ReserveFragmentIds(5));
        assertThat(m.nextFragmentId()).isEqualTo(6);
        assertThat(m.fragmentIds()).containsExactly(0L);
        assertThat(apply(m, insert(9)).fragmentIds()).containsExactly(0L, 6L);
    }

    @Test
    void reservingNoIdsIsRejected() {
        assertInvalid(keyedWith(1), new ReserveFragmentIds(0), "at least one fragment id");
        assertInvalid(keyedWith(1), new ReserveFragmentIds(-2), "at least one fragment id");
    }
}
