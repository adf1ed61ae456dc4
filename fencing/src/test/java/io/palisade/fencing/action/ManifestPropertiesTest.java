package io.palisade.fencing.action;

import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.SourceDSL;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;

import static io.palisade.fencing.action.Fixtures.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.booleans;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;

/** Manifest invariants under random valid transactions, and order independence of rebases and criteria. */
class ManifestPropertiesTest {

    private static int nextKey = 1_000_000;

    /** A random action valid on {@code m}, chosen from the fragment-shaping part of the catalog. */
    private static Action randomAction(Manifest m, Random rnd) {
        List<Long> ids = m.fragmentIds();
        int pick = ids.isEmpty() ? 0 : rnd.nextInt(6);
        switch (pick) {
            case 1 -> {
                long id = ids.get(rnd.nextInt(ids.size()));
                Fragment f = m.fragment(id).orElseThrow();
                RowOffsets more = f.deleted();
                if (f.physicalRows() > 0) {
                    more = more.union(RowOffsets.of(rnd.nextInt((int) f.physicalRows())));
                }
                return delete(id, more);
            }
            case 2 -> {
                return RemoveFragments.ids(ids.get(rnd.nextInt(ids.size())));
            }
            case 3 -> {
                Set<Long> old = new HashSet<>();
                for (Long id : ids) {
                    if (rnd.nextBoolean()) {
                        old.add(id);
                    }
                }
                long live = old.stream().mapToLong(id -> m.fragment(id).orElseThrow().liveRows()).sum();
                long first = live / 2;
                return new RewriteFragments(old, List.of(template(first), template(live - first)), false);
            }
            case 4 -> {
                return new ReserveFragmentIds(1 + rnd.nextInt(3));
            }
            default -> {
                int rows = rnd.nextInt(5);
                long[] k = new long[rows];
                for (int i = 0; i < rows; i++) {
                    k[i] = nextKey++;
                }
                return insert(k);
            }
        }
    }

    /** Every subset of {@code 0..n-1}, each equally likely; shrinks towards the empty set. */
    private static Gen<Set<Integer>> subsetsOf(int n) {
        return lists().of(booleans().all()).ofSize(n).map(in -> {
            Set<Integer> out = new HashSet<>();
            for (int i = 0; i < n; i++) {
                if (in.get(i)) {
                    out.add(i);
                }
            }
            return out;
        });
    }

    @Test
    void randomTransactionsKeepIdsUniqueAndCountersAhead() {
        qt().withExamples(200).forAll(SourceDSL.longs().all(), integers().between(1, 30))
                .checkAssert(ManifestPropertiesTest::randomTransactionsKeepIdsUniqueAndCountersAhead);
    }

    private static void randomTransactionsKeepIdsUniqueAndCountersAhead(long seed, int steps) {
        Random rnd = new Random(seed);
        Manifest m = Manifest.empty(KEYED);
        for (int s = 0; s < steps; s++) {
            Manifest before = m;
            String snapshot = before.toString();
            Action a = randomAction(m, rnd);
            m = before.apply(List.of(a));

            assertThat(before.toString()).as("input manifest unchanged by %s", a).isEqualTo(snapshot);
            assertThat(m.version()).isEqualTo(before.version() + 1);
            assertThat(m.nextFragmentId()).isGreaterThanOrEqualTo(before.nextFragmentId());
            assertThat(m.nextRowId()).isGreaterThanOrEqualTo(before.nextRowId());
            if (!(a instanceof RemoveFragments)) {
                assertThat(m.liveRows()).as("live rows after %s", a)
                        .isEqualTo(before.liveRows() + (a instanceof AddFragments add
                                ? add.fragments().stream().mapToLong(FragmentTemplate::physicalRows).sum()
                                : 0) - (a instanceof UpdateDeletionVector ? before.liveRows() - m.liveRows() : 0));
            }
            // every fragment keeps an id below the counter and a row-id range of its own
            List<Fragment> frags = new ArrayList<>(m.fragments().values());
            for (Fragment f : frags) {
                assertThat(f.id()).isLessThan(m.nextFragmentId());
                assertThat(f.rowIdBase() + f.physicalRows()).isLessThanOrEqualTo(m.nextRowId());
            }
            for (int i = 0; i < frags.size(); i++) {
                for (int j = i + 1; j < frags.size(); j++) {
                    Fragment x = frags.get(i);
                    Fragment y = frags.get(j);
                    boolean disjoint = x.rowIdBase() + x.physicalRows() <= y.rowIdBase()
                            || y.rowIdBase() + y.physicalRows() <= x.rowIdBase();
                    assertThat(disjoint).as("row ids of %s and %s", x, y).isTrue();
                }
            }
            // ids handed out are never handed out again
            for (long id : m.fragmentIds()) {
                if (!before.fragments().containsKey(id)) {
                    assertThat(id).isGreaterThanOrEqualTo(before.nextFragmentId());
                }
            }
        }
    }

    @Test
    void concurrentDeletionsMergeToTheSameVectorInEitherCommitOrder() {
        qt().withExamples(300).forAll(subsetsOf(10), subsetsOf(10))
                .checkAssert(ManifestPropertiesTest::concurrentDeletionsMergeToTheSameVectorInEitherCommitOrder);
    }

    private static void concurrentDeletionsMergeToTheSameVectorInEitherCommitOrder(Set<Integer> a, Set<Integer> b) {
        Manifest base = keyedWith(10);
        UpdateDeletionVector da = delete(0, RowOffsets.of(a.stream().mapToInt(Integer::intValue).toArray()));
        UpdateDeletionVector db = delete(0, RowOffsets.of(b.stream().mapToInt(Integer::intValue).toArray()));
        Manifest aFirst = apply(apply(base, da), db.rebase(da));
        Manifest bFirst = apply(apply(base, db), da.rebase(db));
        Set<Integer> union = new HashSet<>(a);
        union.addAll(b);
        RowOffsets expected = RowOffsets.of(union.stream().mapToInt(Integer::intValue).toArray());
        assertThat(aFirst.fragment(0).orElseThrow().deleted()).isEqualTo(expected);
        assertThat(bFirst.fragments()).isEqualTo(aFirst.fragments());
        assertThat(aFirst.liveRows()).isEqualTo(10 - union.size());
    }

    @Test
    void rebasedAddIndexNeverCoversAnInvalidatedFragment() {
        qt().withExamples(300).forAll(subsetsOf(6), subsetsOf(6))
                .checkAssert(ManifestPropertiesTest::rebasedAddIndexNeverCoversAnInvalidatedFragment);
    }

    private static void rebasedAddIndexNeverCoversAnInvalidatedFragment(Set<Integer> covered, Set<Integer> invalidated) {
        Manifest base = keyedWith(1, 1, 1, 1, 1, 1);
        Set<FragmentRef> refs = new HashSet<>();
        covered.forEach(c -> refs.add(new FragmentRef.Id(c)));
        Set<Long> inv = new HashSet<>();
        invalidated.forEach(i -> inv.add((long) i));
        InvalidateIndexCoverage winner = new InvalidateIndexCoverage(inv, Set.of(NAME));
        AddIndex mine = index(uuid(1), "by_name", Set.of(NAME), refs);

        Manifest rebasedAfterWinner = apply(apply(base, winner), mine.rebase(winner));
        Manifest winnerAfterMine = apply(apply(base, mine), winner);
        // the rebase makes the loser's result equal to the result of the other commit order
        assertThat(rebasedAfterWinner.indices()).isEqualTo(winnerAfterMine.indices());
        assertThat(java.util.Collections.disjoint(rebasedAfterWinner.indices().get(uuid(1)).fragmentBitmap(), inv)).isTrue();
    }

    @Test
    void invalidationsCommute() {
        qt().withExamples(200).forAll(subsetsOf(4), subsetsOf(3), subsetsOf(4), subsetsOf(3))
                .checkAssert(ManifestPropertiesTest::invalidationsCommute);
    }

    private static void invalidationsCommute(Set<Integer> fragsA, Set<Integer> fieldsA, Set<Integer> fragsB,
                                             Set<Integer> fieldsB) {
        Manifest base = keyedWith(1, 1, 1, 1).apply(List.of(
                index(uuid(1), "by_name", Set.of(NAME), ids(0, 1, 2, 3)),
                index(uuid(2), "by_age", Set.of(AGE), ids(0, 1, 2, 3)),
                index(uuid(3), "by_both", Set.of(NAME, AGE), ids(0, 2))));
        InvalidateIndexCoverage a = new InvalidateIndexCoverage(longs(fragsA), fieldsA);
        InvalidateIndexCoverage b = new InvalidateIndexCoverage(longs(fragsB), fieldsB);
        assertThat(base.apply(List.of(a, b)).indices()).isEqualTo(base.apply(List.of(b, a)).indices());
    }

    private static Set<Long> longs(Set<Integer> ints) {
        Set<Long> out = new HashSet<>();
        ints.forEach(i -> out.add((long) i));
        return out;
    }
}
