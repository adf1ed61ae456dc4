package io.palisade.fencing.conflict;

import io.palisade.fencing.action.Action;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;

/** RFC-023 §5.3 as properties: whether two transactions may both commit never depends on commit order. */
class SymmetryProperties {

    @Test
    void twoActionsMayBothCommitInEitherOrderOrInNeither() {
        AtomicInteger bothCommit = new AtomicInteger();
        AtomicInteger conflict = new AtomicInteger();
        qt().withExamples(3000).forAll(ActionGens.anyAction(), ActionGens.anyAction()).checkAssert((a, b) -> {
            boolean bAfterA = Txns.bothCommit(List.of(a), List.of(b), 10);
            boolean aAfterB = Txns.bothCommit(List.of(b), List.of(a), 10);
            assertThat(bAfterA).as("%s after %s vs the reverse", b, a).isEqualTo(aAfterB);
            (bAfterA ? bothCommit : conflict).incrementAndGet();
        });
        // coverage: the random pairs exercise both outcomes, so the symmetry above is not vacuous.
        // QuickTheories draws 3000 examples but evaluates a pair drawn twice only once (about 2% here).
        int total = bothCommit.get() + conflict.get();
        assertThat(total).as("distinct pairs evaluated").isGreaterThan(3000 / 2);
        assertThat(100.0 * bothCommit.get() / total).as("%% of pairs that both commit").isGreaterThan(5);
        assertThat(100.0 * conflict.get() / total).as("%% of pairs that conflict").isGreaterThan(5);
    }

    @Test
    void twoTransactionsMayBothCommitInEitherOrderOrInNeither() {
        qt().withExamples(2000).forAll(ActionGens.transactions(), ActionGens.transactions())
                .checkAssert((a, b) -> assertThat(Txns.bothCommit(a, b, 10)).isEqualTo(Txns.bothCommit(b, a, 10)));
    }

    @Test
    void payloadMasksStayWithinTheKindFootprint() {
        qt().withExamples(2000).forAll(ActionGens.anyAction()).checkAssert(a -> {
            assertThat(a.reads().kinds()).isSubsetOf(a.kind().readKinds());
            assertThat(a.writes().kinds()).isSubsetOf(a.kind().writeKinds());
        });
    }

    @Test
    void compatibleCellsNeverSeeTouchingMasks() {
        qt().withExamples(2000).forAll(ActionGens.anyAction(), ActionGens.anyAction()).checkAssert((a, b) -> {
            if (ConflictMatrix.cell(a.kind(), b.kind()) instanceof Cell.Compatible) {
                assertThat(io.palisade.fencing.action.ResourceMask.contacts(a, b))
                        .as("C cell %s×%s", a.kind().code(), b.kind().code())
                        .isEmpty();
            }
        });
    }
}
