package io.palisade.fencing.action;

import io.palisade.fencing.ValidationException;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

import static io.palisade.fencing.action.Fixtures.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The manifest model and its transaction driver: versions, late binding, symbolic references, immutability. */
class ManifestTest {

    @Test
    void emptyManifestStartsAtVersionOneWithCountersAboveTheSchema() {
        Manifest m = Manifest.empty(KEYED);
        assertThat(m.version()).isEqualTo(1);
        assertThat(m.fragments()).isEmpty();
        assertThat(m.nextFragmentId()).isZero();
        assertThat(m.nextRowId()).isZero();
        assertThat(m.nextFieldId()).isEqualTo(3);
        assertThat(m.liveRows()).isZero();
        assertThat(m.schema().primaryKeyFieldIds()).containsExactly(ID);
        assertThat(Manifest.empty(KEYLESS).schema().keyed()).isFalse();
    }

    @Test
    void oneTransactionAdvancesTheVersionByExactlyOne() {
        Manifest base = Manifest.empty(KEYED);
        Manifest after = base.apply(List.of(insert(1, 2), insert(3), new ReserveFragmentIds(2)));
        assertThat(after.version()).isEqualTo(2);
        assertThat(after.apply(List.of()).version()).isEqualTo(3);
    }

    @Test
    void fragmentsAddedInSequenceGetConsecutiveIdsAndRowRanges() {
        Manifest m = Manifest.empty(KEYED).apply(List.of(insert(10, 11, 12), insert(20, 21)));
        assertThat(m.fragmentIds()).containsExactly(0L, 1L);
        Fragment first = m.fragment(0).orElseThrow();
        Fragment second = m.fragment(1).orElseThrow();
        assertThat(first.physicalRows()).isEqualTo(3);
        assertThat(first.rowIdBase()).isZero();
        assertThat(second.physicalRows()).isEqualTo(2);
        assertThat(second.rowIdBase()).isEqualTo(3);
        assertThat(m.nextFragmentId()).isEqualTo(2);
        assertThat(m.nextRowId()).isEqualTo(5);
        assertThat(m.liveRows()).isEqualTo(5);

        // the next transaction binds from the counters it finds, never reusing an id
        Manifest next = m.apply(List.of(RemoveFragments.ids(1L), insert(30)));
        assertThat(next.fragmentIds()).containsExactly(0L, 2L);
        assertThat(next.fragment(2).orElseThrow().rowIdBase()).isEqualTo(5);
    }

    @Test
    void oneAddFragmentsWithSeveralTemplatesBindsEachInOrder() {
        AddFragments two = new AddFragments(List.of(template(4), template(6)), KeyScope.exact(keys(1, 2, 3, 4, 5, 6, 7, 8, 9, 10)));
        Manifest m = keyedWith(2).apply(List.of(two));
        assertThat(m.fragmentIds()).containsExactly(0L, 1L, 2L);
        assertThat(m.fragment(1).orElseThrow().rowIdBase()).isEqualTo(2);
        assertThat(m.fragment(2).orElseThrow().rowIdBase()).isEqualTo(6);
        assertThat(m.nextRowId()).isEqualTo(12);
    }

    @Test
    void producedByReferenceResolvesToTheFragmentAnEarlierActionProduced() {
        Manifest base = keyedWith(2, 2);
        Manifest m = base.apply(List.of(
                insert(100, 101),
                index(uuid(1), "by_name", Set.of(NAME), Set.of(new FragmentRef.ProducedBy(0, 0), new FragmentRef.Id(0)))));
        assertThat(m.indices().get(uuid(1)).fragmentBitmap()).containsExactlyInAnyOrder(2L, 0L);
    }

    @Test
    void producedByNamesTheOutputByPosition() {
        AddFragments two = new AddFragments(List.of(template(1), template(1)), KeyScope.exact(keys(1, 2)));
        Manifest m = Manifest.empty(KEYED).apply(List.of(two,
                index(uuid(1), "second", Set.of(NAME), Set.of(new FragmentRef.ProducedBy(0, 1)))));
        assertThat(m.indices().get(uuid(1)).fragmentBitmap()).containsExactly(1L);
    }

    @Test
    void forwardReferenceIsRejected() {
        Manifest base = keyedWith(1);
        assertThatThrownBy(() -> base.apply(List.of(
                index(uuid(1), "i", Set.of(NAME), Set.of(new FragmentRef.ProducedBy(1, 0))),
                insert(50))))
                .isExactlyInstanceOf(ValidationException.class)
                .hasMessageContaining("action 0 (AddIndex)")
                .hasMessageContaining("points at action 1");
    }

    @Test
    void selfReferenceIsRejected() {
        assertThatThrownBy(() -> keyedWith(1).apply(List.of(
                new UpdateDeletionVector(new FragmentRef.ProducedBy(0, 0), RowOffsets.NONE, Optional.empty(), Optional.empty()))))
                .isExactlyInstanceOf(ValidationException.class)
                .hasMessageContaining("not before action 0");
    }

    @Test
    void danglingReferenceToAMissingOutputIsRejected() {
        assertThatThrownBy(() -> keyedWith(1).apply(List.of(insert(9),
                index(uuid(1), "i", Set.of(NAME), Set.of(new FragmentRef.ProducedBy(0, 1))))))
                .isExactlyInstanceOf(ValidationException.class)
                .hasMessageContaining("produced 1 fragments");
        assertThatThrownBy(() -> keyedWith(1).apply(List.of(new ReserveFragmentIds(1),
                index(uuid(1), "i", Set.of(NAME), Set.of(new FragmentRef.ProducedBy(0, 0))))))
                .isExactlyInstanceOf(ValidationException.class)
                .hasMessageContaining("produced 0 fragments");
    }

    @Test
    void negativeReferencesCannotBeBuilt() {
        assertThatThrownBy(() -> new FragmentRef.Id(-1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new FragmentRef.ProducedBy(-1, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new FragmentRef.ProducedBy(0, -1)).isInstanceOf(IllegalArgumentException.class);
        assertThat(new FragmentRef.Id(4).existingId()).hasValue(4);
        assertThat(new FragmentRef.ProducedBy(0, 0).existingId()).isEmpty();
    }

    @Test
    void invalidActionIsReportedWithItsIndexAndKind() {
        Manifest base = keyedWith(1);
        assertThatThrownBy(() -> base.apply(List.of(insert(5), RemoveFragments.ids(42L))))
                .isExactlyInstanceOf(ValidationException.class)
                .hasMessageContaining("action 1 (RemoveFragments) is invalid")
                .hasMessageContaining("42");
    }

    @Test
    void laterActionsValidateAgainstTheWorkingManifest() {
        // action 1 deletes from the fragment action 0 created; action 2 removes a fragment action 1 can no longer see
        Manifest m = keyedWith(2).apply(List.of(insert(7, 8, 9), delete(1, RowOffsets.of(0))));
        assertThat(m.fragment(1).orElseThrow().liveRows()).isEqualTo(2);
        assertThatThrownBy(() -> keyedWith(2).apply(List.of(RemoveFragments.ids(0L), delete(0, RowOffsets.of(0)))))
                .isExactlyInstanceOf(ValidationException.class)
                .hasMessageContaining("action 1 (UpdateDeletionVector)");
    }

    @Test
    void applyNeverChangesTheInputManifest() {
        Manifest base = keyedWith(3, 2).apply(List.of(
                index(uuid(1), "by_name", Set.of(NAME), ids(0, 1)),
                new UpdateConfig(List.of(UpdateConfig.ConfigUpdate.set(UpdateConfig.Target.CONFIG, "k", "v")), false)));
        String before = base.toString();
        Manifest copy = new Manifest(base.version(), base.schema(), new TreeMap<>(base.fragments()), base.indices(),
                base.config(), base.tableMetadata(), base.nextFragmentId(), base.nextRowId(), base.nextFieldId(),
                base.bases(), base.fragReuse(), base.mergedGenerations());

        Manifest after = base.apply(ActionCatalogTest.oneOfEachKind());

        assertThat(after).isNotEqualTo(base);
        assertThat(base.toString()).isEqualTo(before);
        assertThat(base).isEqualTo(copy);
        // and a failing transaction leaves it untouched too
        assertThatThrownBy(() -> base.apply(List.of(delete(0, RowOffsets.of(0)), RemoveFragments.ids(77L))))
                .isInstanceOf(ValidationException.class);
        assertThat(base.toString()).isEqualTo(before);
    }

    @Test
    void manifestCollectionsAreUnmodifiable() {
        Manifest m = keyedWith(1);
        assertThatThrownBy(() -> m.fragments().clear()).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> m.indices().clear()).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> m.config().clear()).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> m.bases().clear()).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> m.mergedGenerations().clear()).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> m.schema().fields().clear()).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> m.fragment(0).orElseThrow().files().clear()).isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void countersMustStayAboveWhatTheyNumber() {
        Manifest m = keyedWith(1);
        assertThatThrownBy(() -> new Manifest(1, KEYED, m.fragments(), Map.of(), Map.of(), Map.of(), 0, 1, 3,
                List.of(), Optional.empty(), Map.of())).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Manifest(1, KEYED, new TreeMap<>(), Map.of(), Map.of(), Map.of(), 0, 0, 2,
                List.of(), Optional.empty(), Map.of())).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void schemaRejectsDuplicateFieldIdsAndNames() {
        assertThatThrownBy(() -> new Schema(List.of(Field.of(0, "a", true), Field.of(0, "b", true)), Map.of()))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Schema(List.of(Field.of(0, "a", true), Field.of(1, "a", true)), Map.of()))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
