package io.palisade.fencing.conflict;

import io.palisade.fencing.action.*;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

import static io.palisade.fencing.conflict.Txns.*;
import static org.assertj.core.api.Assertions.assertThat;

class ConflictMatrixTest {

    /** For each rule, a pair of actions on which it fires, and the resolution it must give. */
    record Example(Action a, Action b, Resolution expected) {
    }

    static final UUID I0 = UUID.nameUUIDFromBytes("i0".getBytes());

    static Map<Rule, Example> examples() {
        Map<Rule, Example> m = new EnumMap<>(Rule.class);
        ReplaceFragmentColumns ageOf1 = new ReplaceFragmentColumns(FragmentRef.id(1), Set.of(AGE),
                List.of(new DataFile("age.lance", Set.of(AGE))), Optional.of(RowOffsets.of(2)));
        m.put(Rule.KEY_FILTER, new Example(insert("a", "b"), insert("b"), Resolution.RETRY));
        m.put(Rule.FRAGMENT_OVERLAP, new Example(RemoveFragments.ids(1L), RemoveFragments.ids(1L, 2L), Resolution.RETRY));
        m.put(Rule.DELETION_MERGE, new Example(delete(1, Optional.empty(), 2), delete(1, Optional.empty(), 3), Resolution.REBASE));
        m.put(Rule.DELETE_VS_COLUMN_REWRITE, new Example(delete(1, Optional.empty(), 2), ageOf1, Resolution.RETRY));
        m.put(Rule.KEYS_VS_DELETE, new Example(insert("k"), delete(0, Optional.of(keys("k")), 1), Resolution.RETRY));
        m.put(Rule.FIELD_DEPENDENCY, new Example(new DropFields(Set.of(AGE)), ageOf1, Resolution.RETRY));
        m.put(Rule.NEW_FIELDS_NEED_DATA, new Example(insert("a"), new AddFields(List.of(new AddFields.NewField("score", false)),
                Map.of(0L, "s0", 1L, "s1", 2L, "s2")), Resolution.RETRY));
        m.put(Rule.PRIMARY_KEY_CHANGE, new Example(keylessAppend(1), UpdateSchemaMetadata.installPrimaryKey(0), Resolution.RETRY));
        m.put(Rule.INDEX_COVERAGE, new Example(ageOf1, new AddIndex(I0, "age", Set.of(AGE),
                Set.of(FragmentRef.id(1)), 1, Optional.empty()), Resolution.RETRY));
        m.put(Rule.COLUMN_OVERLAP, new Example(ageOf1, ageOf1, Resolution.RETRY));
        m.put(Rule.FIELD_NAME_CLASH, new Example(new AddFields(List.of(new AddFields.NewField("x", true)), Map.of()),
                new AddFields(List.of(new AddFields.NewField("x", true)), Map.of()), Resolution.FAIL));
        m.put(Rule.KEYED_MAP_UPDATES, new Example(
                new UpdateConfig(List.of(UpdateConfig.ConfigUpdate.set(UpdateConfig.Target.CONFIG, "c1", "a")), false),
                new UpdateConfig(List.of(UpdateConfig.ConfigUpdate.set(UpdateConfig.Target.CONFIG, "c1", "b")), false),
                Resolution.RETRY));
        m.put(Rule.INDEX_IDENTITY, new Example(new RemoveIndex(I0), new RemoveIndex(I0), Resolution.RETRY));
        m.put(Rule.COVERAGE_ABSORBED, new Example(new AddIndex(I0, "age", Set.of(AGE), Set.of(FragmentRef.id(1)), 1,
                Optional.empty()), new InvalidateIndexCoverage(Set.of(1L), Set.of(AGE)), Resolution.REBASE));
        m.put(Rule.COVERAGE_REMAP, new Example(
                new RebindIndexCoverage(List.of(new Remap(1, FragmentRef.id(5))), Set.of(AGE)),
                new RebindIndexCoverage(List.of(new Remap(1, FragmentRef.id(6))), Set.of(AGE)), Resolution.RETRY));
        m.put(Rule.BASE_IDENTITY, new Example(new AddBases(List.of(new BasePath(1, "b", "/p"))),
                new AddBases(List.of(new BasePath(2, "b", "/q"))), Resolution.FAIL));
        m.put(Rule.MERGED_GENERATIONS, new Example(new UpdateMergedGenerations(Map.of("s1", 2L)),
                new UpdateMergedGenerations(Map.of("s1", 3L)), Resolution.RETRY));
        return m;
    }

    @Test
    void everyOrderedPairHasACellAndTheMatrixIsSymmetric() {
        for (ActionKind a : ActionKind.values()) {
            for (ActionKind b : ActionKind.values()) {
                assertThat(ConflictMatrix.cell(a, b)).as("%s×%s", a.code(), b.code()).isNotNull()
                        .isEqualTo(ConflictMatrix.cell(b, a));
            }
        }
    }

    @Test
    void compatibleCellsAreExactlyThePairsWithDisjointFootprints() {
        List<String> wrong = new ArrayList<>();
        for (ActionKind a : ActionKind.values()) {
            for (ActionKind b : ActionKind.values()) {
                boolean compatible = ConflictMatrix.cell(a, b) instanceof Cell.Compatible;
                if (compatible == a.mayInterfere(b)) {
                    wrong.add(a.code() + "×" + b.code() + (compatible ? " is C but the footprints overlap"
                            : " is " + ConflictMatrix.cell(a, b).symbol() + " but the footprints are disjoint"));
                }
            }
        }
        assertThat(wrong).isEmpty();
    }

    @Test
    void everyRuleIsUsedByACellAndHasAnExample() {
        Set<Rule> used = EnumSet.noneOf(Rule.class);
        for (ActionKind a : ActionKind.values()) {
            for (ActionKind b : ActionKind.values()) {
                if (ConflictMatrix.cell(a, b) instanceof Cell.Ruled r) {
                    used.add(r.rule());
                }
            }
        }
        assertThat(used).containsExactlyInAnyOrder(Rule.values());
        assertThat(examples().keySet()).containsExactlyInAnyOrder(Rule.values());
    }

    @ParameterizedTest
    @EnumSource(Rule.class)
    void everyRuleFiresInBothCommitOrders(Rule rule) {
        Example e = examples().get(rule);
        assertThat(ConflictMatrix.cell(e.a().kind(), e.b().kind())).isEqualTo(new Cell.Ruled(rule));
        for (List<Action> order : List.of(List.of(e.a(), e.b()), List.of(e.b(), e.a()))) {
            Verdict v = ConflictResolver.check(txn("current", 4, order.get(0)), List.of(won("winner", 5, order.get(1))));
            if (e.expected() == Resolution.REBASE) {
                assertThat(v.outcome()).as("%s: %s after %s", rule, order.get(0), order.get(1)).isEqualTo(Verdict.Outcome.REBASED);
                assertThat(v.rebases()).anyMatch(r -> r.contains(rule.code()));
            } else {
                assertThat(v.conflicts()).as("%s: %s after %s", rule, order.get(0), order.get(1))
                        .anyMatch(c -> c.cell().equals(rule.code()) && c.resolution() == e.expected());
                assertThat(v.outcome()).isEqualTo(e.expected() == Resolution.FAIL
                        ? Verdict.Outcome.INCOMPATIBLE : Verdict.Outcome.RETRYABLE_CONFLICT);
            }
        }
    }

    @Test
    void everyConflictingCellConflictsInBothOrdersWhateverThePayloads() {
        int checked = 0;
        for (ActionKind a : ActionKind.values()) {
            for (ActionKind b : ActionKind.values()) {
                if (ConflictMatrix.cell(a, b) instanceof Cell.Conflicting) {
                    assertThat(bothCommit(List.of(sample(a)), List.of(sample(b)), 4)).as("%s×%s", a.code(), b.code()).isFalse();
                    checked++;
                }
            }
        }
        assertThat(checked).isGreaterThan(0);
    }

    @Test
    void compatibleCellsCommitWhateverThePayloads() {
        for (ActionKind a : ActionKind.values()) {
            for (ActionKind b : ActionKind.values()) {
                if (ConflictMatrix.cell(a, b) instanceof Cell.Compatible) {
                    assertThat(bothCommit(List.of(sample(a)), List.of(sample(b)), 4)).as("%s×%s", a.code(), b.code()).isTrue();
                }
            }
        }
    }

    /** One canonical payload per kind, all touching fragment 1 / field AGE / index i0 where they can. */
    static Action sample(ActionKind k) {
        return switch (k) {
            case ADD_FRAGMENTS -> insert("k1");
            case REMOVE_FRAGMENTS -> RemoveFragments.ids(1L);
            case UPDATE_DELETION_VECTOR -> delete(1, Optional.empty(), 2);
            case REPLACE_FRAGMENT_COLUMNS -> new ReplaceFragmentColumns(FragmentRef.id(1), Set.of(AGE),
                    List.of(new DataFile("a", Set.of(AGE))), Optional.empty());
            case REWRITE_FRAGMENTS -> new RewriteFragments(Set.of(1L), List.of(rows(10)), true);
            case ADD_FIELDS -> new AddFields(List.of(new AddFields.NewField("score", false)), Map.of(1L, "s"));
            case DROP_FIELDS -> new DropFields(Set.of(AGE));
            case CHANGE_SCHEMA -> new ChangeSchema(keyedSchema());
            case UPDATE_SCHEMA_METADATA -> new UpdateSchemaMetadata(List.of(
                    UpdateSchemaMetadata.MetadataUpdate.set(AGE, "unit", "years")));
            case ADD_INDEX -> new AddIndex(I0, "age", Set.of(AGE), Set.of(FragmentRef.id(1)), 1, Optional.empty());
            case REMOVE_INDEX -> new RemoveIndex(I0);
            case REWRITE_INDEX -> new RewriteIndex(I0, UUID.nameUUIDFromBytes("i9".getBytes()), 2, Set.of(1L), Set.of(AGE));
            case INVALIDATE_INDEX_COVERAGE -> new InvalidateIndexCoverage(Set.of(1L), Set.of(AGE));
            case REBIND_INDEX_COVERAGE -> new RebindIndexCoverage(List.of(new Remap(1, FragmentRef.id(7))), Set.of(AGE));
            case REGISTER_FRAG_REUSE -> new RegisterFragReuse(I0, List.of(new Remap(1, FragmentRef.id(7))));
            case UPDATE_CONFIG -> new UpdateConfig(List.of(UpdateConfig.ConfigUpdate.set(UpdateConfig.Target.CONFIG, "c", "v")), false);
            case RESERVE_FRAGMENT_IDS -> new ReserveFragmentIds(2);
            case ADD_BASES -> new AddBases(List.of(new BasePath(1, "b", "/p")));
            case UPDATE_MERGED_GENERATIONS -> new UpdateMergedGenerations(Map.of("s1", 2L));
        };
    }
}
