package io.palisade.substrate;

import io.palisade.fencing.action.ActionKind;
import io.palisade.fencing.action.RebindIndexCoverage;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A plan is compared with the versions its commit produced; anything else is a mismatch. */
class MaintenancePlanTest {
    private static final TableRef BASE = TableRef.main(7);

    private static CommitDescription rewrite(long version, List<Long> removed, List<CommitDescription.RewriteGroup> groups) {
        return new CommitDescription(TableRef.main(version), OperationKind.REWRITE, 7, Map.of(), removed, List.of(20L), List.of(),
                List.of(), Optional.empty(), List.of(), List.of(), groups, List.of());
    }

    private static CommitDescription kind(long version, OperationKind k, List<String> added, List<String> removed) {
        return new CommitDescription(TableRef.main(version), k, 7, Map.of(), List.of(), List.of(), List.of(), List.of(),
                Optional.empty(), added, removed);
    }

    @Test
    void aCompactionMatchesOnlyTheSameGroupsAndIgnoresIdReservations() {
        MaintenancePlan plan = MaintenancePlan.compaction(BASE, List.of(Set.of(1L, 2L), Set.of(3L)), Set.of(0), null);
        assertThat(plan.actions()).extracting(a -> a.kind()).containsExactly(ActionKind.REWRITE_FRAGMENTS,
                ActionKind.REWRITE_FRAGMENTS, ActionKind.REBIND_INDEX_COVERAGE);
        assertThat(((RebindIndexCoverage) plan.actions().get(2)).remap()).hasSize(3);
        CommitDescription reserve = kind(8, OperationKind.RESERVE_FRAGMENTS, List.of(), List.of());
        var same = List.of(new CommitDescription.RewriteGroup(List.of(1L, 2L), 1), new CommitDescription.RewriteGroup(List.of(3L), 1));
        assertThat(plan.mismatch(List.of(reserve, rewrite(9, List.of(1L, 2L, 3L), same)))).isEmpty();
        assertThat(plan.mismatch(List.of(rewrite(8, List.of(1L, 2L, 3L), List.of())))).isEmpty(); // groups not visible
        var other = List.of(new CommitDescription.RewriteGroup(List.of(1L), 1), new CommitDescription.RewriteGroup(List.of(2L, 3L), 1));
        assertThat(plan.mismatch(List.of(rewrite(8, List.of(1L, 2L, 3L), other)))).get().asString().contains("groups");
        assertThat(plan.mismatch(List.of(rewrite(8, List.of(1L, 2L), List.of())))).get().asString().contains("[1, 2, 3]");
        assertThat(plan.mismatch(List.of())).isPresent();
        assertThat(plan.mismatch(List.of(kind(8, OperationKind.DELETE, List.of(), List.of())))).isPresent();
        assertThatThrownBy(() -> MaintenancePlan.compaction(BASE, List.of(Set.of(1L), Set.of(1L, 2L)), Set.of(), null))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void anIndexPlanMatchesOnlyTheSameIndexAddedOrRewrittenAndAnEmptyPlanOnlyNothing() {
        MaintenancePlan build = MaintenancePlan.index(BASE, false, "ix", Set.of(1L), Set.of(0));
        MaintenancePlan rewrite = MaintenancePlan.index(BASE, true, "ix", Set.of(1L), Set.of(0));
        CommitDescription added = kind(8, OperationKind.CREATE_INDEX, List.of("ix"), List.of());
        CommitDescription replaced = kind(8, OperationKind.CREATE_INDEX, List.of("ix"), List.of("ix"));
        assertThat(build.mismatch(List.of(added))).isEmpty();
        assertThat(build.mismatch(List.of(replaced))).isPresent();
        assertThat(rewrite.mismatch(List.of(replaced))).isEmpty();
        assertThat(rewrite.mismatch(List.of(added))).isPresent();
        assertThat(rewrite.mismatch(List.of(kind(8, OperationKind.CREATE_INDEX, List.of("other"), List.of("other"))))).isPresent();
        MaintenancePlan none = MaintenancePlan.indexUpToDate(BASE, "ix", Set.of(1L), Set.of(0));
        assertThat(none.isEmpty()).isTrue();
        assertThat(none.actions()).isEmpty();
        assertThat(none.mismatch(List.of())).isEmpty();
        assertThat(none.mismatch(List.of(replaced))).isPresent();
        // the plan and a committed version are named by the same mapping
        assertThat(rewrite.actions()).extracting(a -> a.kind())
                .isEqualTo(CatalogActions.of(replaced, true, 0, Optional.empty()).stream().map(a -> a.kind()).toList());
    }
}
