package io.palisade.fencing.conflict;

import io.palisade.fencing.action.Action;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.statistics.Statistics;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** RFC-023 §5.3 as properties: whether two transactions may both commit never depends on commit order. */
class SymmetryProperties {

    @Provide
    Arbitrary<Action> action() {
        return ActionArbitraries.anyAction();
    }

    @Provide
    Arbitrary<List<Action>> transaction() {
        return ActionArbitraries.transactions();
    }

    @Property(tries = 3000)
    void twoActionsMayBothCommitInEitherOrderOrInNeither(@ForAll("action") Action a, @ForAll("action") Action b) {
        boolean bAfterA = Txns.bothCommit(List.of(a), List.of(b), 10);
        boolean aAfterB = Txns.bothCommit(List.of(b), List.of(a), 10);
        assertThat(bAfterA).as("%s after %s vs the reverse", b, a).isEqualTo(aAfterB);
        Statistics.collect(bAfterA ? "both commit" : "conflict");
        Statistics.coverage(c -> {
            c.check("both commit").percentage(p -> p > 5);
            c.check("conflict").percentage(p -> p > 5);
        });
    }

    @Property(tries = 2000)
    void twoTransactionsMayBothCommitInEitherOrderOrInNeither(@ForAll("transaction") List<Action> a,
                                                             @ForAll("transaction") List<Action> b) {
        assertThat(Txns.bothCommit(a, b, 10)).isEqualTo(Txns.bothCommit(b, a, 10));
    }

    @Property(tries = 2000)
    void payloadMasksStayWithinTheKindFootprint(@ForAll("action") Action a) {
        assertThat(a.reads().kinds()).isSubsetOf(a.kind().readKinds());
        assertThat(a.writes().kinds()).isSubsetOf(a.kind().writeKinds());
    }

    @Property(tries = 2000)
    void compatibleCellsNeverSeeTouchingMasks(@ForAll("action") Action a, @ForAll("action") Action b) {
        if (ConflictMatrix.cell(a.kind(), b.kind()) instanceof Cell.Compatible) {
            assertThat(io.palisade.fencing.action.ResourceMask.contacts(a, b))
                    .as("C cell %s×%s", a.kind().code(), b.kind().code())
                    .isEmpty();
        }
    }
}
