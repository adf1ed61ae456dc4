package io.palisade.fencing.action;

import io.palisade.fencing.ValidationException;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Optional;
import java.util.Set;

import static io.palisade.fencing.action.Fixtures.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A10 AddIndex, A11 RemoveIndex, A12 RewriteIndex, A13 InvalidateIndexCoverage, A14 RebindIndexCoverage,
 * A15 RegisterFragReuse.
 */
class IndexActionsTest {

    private static void assertInvalid(Manifest m, Action a, String messagePart) {
        assertThatThrownBy(() -> m.apply(List.of(a)))
                .isExactlyInstanceOf(ValidationException.class)
                .hasMessageContaining(messagePart);
    }

    /** Three fragments (ids 0..2), an index on name over all of them and one on age over 0 and 1. */
    private static Manifest indexed() {
        return keyedWith(2, 2, 2).apply(List.of(
                index(uuid(1), "by_name", Set.of(NAME), ids(0, 1, 2)),
                index(uuid(2), "by_age", Set.of(AGE), ids(0, 1))));
    }

    private static Set<Long> coverage(Manifest m, int uuid) {
        return m.indices().get(uuid(uuid)).fragmentBitmap();
    }

    // ------------------------------------------------------------------ A10 AddIndex

    @Test
    void addedIndexCoversTheNamedFragments() {
        Manifest m = indexed();
        IndexMetadata i = m.indices().get(uuid(1));
        assertThat(i.name()).isEqualTo("by_name");
        assertThat(i.fieldIds()).containsExactly(NAME);
        assertThat(i.fragmentBitmap()).containsExactlyInAnyOrder(0L, 1L, 2L);
        assertThat(i.version()).isEqualTo(1);
    }

    @Test
    void indexWithADuplicateNameOrUuidIsRejected() {
        assertInvalid(indexed(), index(uuid(7), "by_name", Set.of(AGE), ids(0)), "index 'by_name'");
        assertInvalid(indexed(), index(uuid(1), "other", Set.of(AGE), ids(0)), "already exists");
    }

    @Test
    void indexReplacingAnotherTakesItsPlace() {
        AddIndex replacement = new AddIndex(uuid(5), "by_name", Set.of(NAME), ids(0), 2, Optional.of(uuid(1)));
        Manifest m = apply(indexed(), replacement);
        assertThat(m.indices()).doesNotContainKey(uuid(1)).containsKey(uuid(5));
        assertThat(coverage(m, 5)).containsExactly(0L);
        assertInvalid(indexed(), new AddIndex(uuid(5), "x", Set.of(NAME), ids(0), 2, Optional.of(uuid(9))),
                "replaces index " + uuid(9) + ", which does not exist");
    }

    @Test
    void indexOverAnUnknownFieldOrMissingFragmentIsRejected() {
        assertInvalid(indexed(), index(uuid(7), "x", Set.of(9), ids(0)), "unknown field 9");
        assertInvalid(indexed(), index(uuid(7), "x", Set.of(NAME), ids(0, 8)), "covers fragment 8");
    }

    @Test
    void addIndexRebasedOverAnInvalidationDropsTheInvalidatedFragments() {
        AddIndex mine = new AddIndex(uuid(7), "by_age2", Set.of(AGE, NAME),
                Set.of(new FragmentRef.Id(0), new FragmentRef.Id(1), new FragmentRef.Id(2), new FragmentRef.ProducedBy(0, 0)),
                1, Optional.empty());
        Action rebased = mine.rebase(new InvalidateIndexCoverage(Set.of(1L, 2L, 9L), Set.of(AGE)));
        assertThat(((AddIndex) rebased).coverage())
                .containsExactlyInAnyOrder(new FragmentRef.Id(0), new FragmentRef.ProducedBy(0, 0));
        assertThat(((AddIndex) rebased).uuid()).isEqualTo(uuid(7));
    }

    @Test
    void addIndexIsNotRebasedOverInvalidationsOfOtherFields() {
        AddIndex mine = index(uuid(7), "x", Set.of(AGE), ids(0, 1));
        assertThat(mine.rebase(new InvalidateIndexCoverage(Set.of(0L), Set.of(NAME)))).isEqualTo(mine);
        assertThat(mine.rebase(RemoveFragments.allCurrent())).isSameAs(mine);
    }

    @Test
    void addIndexDropsFragmentsRemovedByIdFromItsCoverage() {
        AddIndex mine = index(uuid(7), "x", Set.of(AGE), ids(0, 1));
        assertThat(mine.rebase(RemoveFragments.ids(0L))).isEqualTo(index(uuid(7), "x", Set.of(AGE), ids(1)));
        RewriteIndex rw = new RewriteIndex(uuid(7), uuid(8), 1, Set.of(0L, 1L), Set.of(AGE));
        assertThat(rw.rebase(RemoveFragments.ids(1L, 5L))).isEqualTo(new RewriteIndex(uuid(7), uuid(8), 1, Set.of(0L), Set.of(AGE)));
    }

    @Test
    void rebasedAddIndexAppliesAfterTheWinner() {
        Manifest base = keyedWith(1, 1);
        InvalidateIndexCoverage winner = new InvalidateIndexCoverage(Set.of(1L), Set.of(AGE));
        AddIndex mine = index(uuid(7), "by_age", Set.of(AGE), ids(0, 1));
        Manifest m = apply(apply(base, winner), mine.rebase(winner));
        assertThat(coverage(m, 7)).containsExactly(0L);
    }

    // ------------------------------------------------------------------ A11 RemoveIndex

    @Test
    void removedIndexIsGone() {
        Manifest m = apply(indexed(), new RemoveIndex(uuid(2)));
        assertThat(m.indices().keySet()).containsExactly(uuid(1));
    }

    @Test
    void removingAMissingIndexIsRejected() {
        assertInvalid(indexed(), new RemoveIndex(uuid(9)), "cannot remove index " + uuid(9));
    }

    // ------------------------------------------------------------------ A12 RewriteIndex

    @Test
    void rewrittenIndexReplacesTheOldEntryKeepingItsName() {
        Manifest m = apply(indexed(), new RewriteIndex(uuid(2), uuid(20), 3, Set.of(1L), Set.of(AGE)));
        assertThat(m.indices()).doesNotContainKey(uuid(2));
        IndexMetadata i = m.indices().get(uuid(20));
        assertThat(i.name()).isEqualTo("by_age");
        assertThat(i.version()).isEqualTo(3);
        assertThat(i.fragmentBitmap()).containsExactly(1L);
    }

    @Test
    void rewriteOfAMissingOrDifferentIndexIsRejected() {
        assertInvalid(indexed(), new RewriteIndex(uuid(9), uuid(20), 3, Set.of(1L), Set.of(AGE)), "cannot rewrite index");
        assertInvalid(indexed(), new RewriteIndex(uuid(2), uuid(20), 3, Set.of(1L), Set.of(NAME)), "is over fields");
        assertInvalid(indexed(), new RewriteIndex(uuid(2), uuid(20), 3, Set.of(1L, 6L), Set.of(AGE)), "covers fragment 6");
    }

    @Test
    void rewriteOntoAnotherExistingIndexIdIsRejected() {
        assertInvalid(indexed(), new RewriteIndex(uuid(2), uuid(1), 3, Set.of(1L), Set.of(AGE)), "already exists");
    }

    @Test
    void rewriteIndexRebasedOverAnInvalidationDropsTheInvalidatedFragments() {
        RewriteIndex mine = new RewriteIndex(uuid(2), uuid(20), 3, Set.of(0L, 1L), Set.of(AGE));
        RewriteIndex rebased = (RewriteIndex) mine.rebase(new InvalidateIndexCoverage(Set.of(1L), Set.of(AGE, NAME)));
        assertThat(rebased.coverage()).containsExactly(0L);
        assertThat(rebased.newId()).isEqualTo(uuid(20));
        assertThat(mine.rebase(new InvalidateIndexCoverage(Set.of(1L), Set.of(NAME)))).isEqualTo(mine);
    }

    // ------------------------------------------------------------------ A13 InvalidateIndexCoverage

    @Test
    void invalidationShrinksEveryIndexOverTheFields() {
        Manifest m = apply(indexed(), new InvalidateIndexCoverage(Set.of(1L, 2L), Set.of(AGE)));
        assertThat(coverage(m, 2)).containsExactly(0L);
        assertThat(coverage(m, 1)).containsExactlyInAnyOrder(0L, 1L, 2L);
        Manifest both = apply(indexed(), new InvalidateIndexCoverage(Set.of(0L), Set.of(AGE, NAME)));
        assertThat(coverage(both, 1)).containsExactlyInAnyOrder(1L, 2L);
        assertThat(coverage(both, 2)).containsExactly(1L);
    }

    @Test
    void invalidationIsACriterionThatMayMatchNothing() {
        Manifest base = indexed();
        Manifest m = apply(base, new InvalidateIndexCoverage(Set.of(42L), Set.of(99)));
        assertThat(m.indices()).isEqualTo(base.indices());
        assertThat(new InvalidateIndexCoverage(Set.of(1L), Set.of(AGE)).reads()).isEqualTo(ResourceMask.NONE);
    }

    @Test
    void invalidationsCommuteWithEachOther() {
        InvalidateIndexCoverage a = new InvalidateIndexCoverage(Set.of(0L), Set.of(AGE));
        InvalidateIndexCoverage b = new InvalidateIndexCoverage(Set.of(1L, 2L), Set.of(NAME, AGE));
        assertThat(indexed().apply(List.of(a, b)).indices()).isEqualTo(indexed().apply(List.of(b, a)).indices());
    }

    // ------------------------------------------------------------------ A14 RebindIndexCoverage

    @Test
    void rebindSwapsCompactedFragmentsInIndicesOverPreservedFields() {
        // compact fragment 0 into a new fragment (3) and rebind indices over name only
        Manifest m = indexed().apply(List.of(
                new RewriteFragments(Set.of(0L), List.of(template(2)), true),
                new RebindIndexCoverage(List.of(new Remap(0, new FragmentRef.ProducedBy(0, 0))), Set.of(NAME))));
        assertThat(coverage(m, 1)).containsExactlyInAnyOrder(1L, 2L, 3L);
        // by_age is over a field the rewrite did not preserve: left alone
        assertThat(coverage(m, 2)).containsExactlyInAnyOrder(0L, 1L);
    }

    @Test
    void indexCoveringOnlyPartOfARemapGroupLosesTheGroup() {
        // fragments 1 and 2 compact into one new fragment; by_age covers 1 but not 2
        Manifest m = indexed().apply(List.of(
                new RewriteFragments(Set.of(1L, 2L), List.of(template(4)), true),
                new RebindIndexCoverage(List.of(new Remap(1, new FragmentRef.ProducedBy(0, 0)),
                        new Remap(2, new FragmentRef.ProducedBy(0, 0))), Set.of(NAME, AGE))));
        // by_name covered the whole group: rebound
        assertThat(coverage(m, 1)).containsExactlyInAnyOrder(0L, 3L);
        // by_age covered only fragment 1 of the group: it cannot claim fragment 3
        assertThat(coverage(m, 2)).containsExactly(0L);
    }

    @Test
    void rebindOfASplitFragmentCoversEveryPart() {
        Manifest m = indexed().apply(List.of(
                new RewriteFragments(Set.of(2L), List.of(template(1), template(1)), true),
                new RebindIndexCoverage(List.of(new Remap(2, new FragmentRef.ProducedBy(0, 0)),
                        new Remap(2, new FragmentRef.ProducedBy(0, 1))), Set.of(NAME))));
        assertThat(coverage(m, 1)).containsExactlyInAnyOrder(0L, 1L, 3L, 4L);
    }

    @Test
    void rebindWithADanglingReferenceIsRejected() {
        assertInvalid(indexed(), new RebindIndexCoverage(List.of(new Remap(0, new FragmentRef.ProducedBy(0, 0))), Set.of(NAME)),
                "not before action 0");
        assertThatThrownBy(() -> indexed().apply(List.of(new ReserveFragmentIds(1),
                new RebindIndexCoverage(List.of(new Remap(0, new FragmentRef.ProducedBy(0, 0))), Set.of(NAME)))))
                .isExactlyInstanceOf(ValidationException.class)
                .hasMessageContaining("produced 0 fragments");
    }

    // ------------------------------------------------------------------ A15 RegisterFragReuse

    @Test
    void fragReuseIndexIsASingletonReplacedByEachRegistration() {
        Manifest first = indexed().apply(List.of(
                new RewriteFragments(Set.of(0L), List.of(template(2)), true),
                new RegisterFragReuse(uuid(30), List.of(new Remap(0, new FragmentRef.ProducedBy(0, 0))))));
        assertThat(first.fragReuse()).isPresent();
        assertThat(first.fragReuse().orElseThrow().index()).isEqualTo(uuid(30));
        assertThat(first.fragReuse().orElseThrow().entries()).containsExactly(new Remap(0, new FragmentRef.ProducedBy(0, 0)));

        Manifest second = apply(first, new RegisterFragReuse(uuid(31), List.of(new Remap(1, new FragmentRef.Id(3)))));
        assertThat(second.fragReuse().orElseThrow().index()).isEqualTo(uuid(31));
        assertThat(second.fragReuse().orElseThrow().entries()).hasSize(1);
    }

    @Test
    void fragReuseWithAForwardReferenceIsRejected() {
        assertThatThrownBy(() -> indexed().apply(List.of(
                new RegisterFragReuse(uuid(30), List.of(new Remap(0, new FragmentRef.ProducedBy(1, 0)))),
                new RewriteFragments(Set.of(0L), List.of(template(2)), true))))
                .isExactlyInstanceOf(ValidationException.class)
                .hasMessageContaining("action 0 (RegisterFragReuse)")
                .hasMessageContaining("points at action 1");
    }
}
