package io.palisade.benchmarks;

import io.palisade.benchmarks.GraphWorkload.Profile;
import io.palisade.benchmarks.GraphWorkload.Throughput;
import io.palisade.coordinator.Metrics;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

/** The harnesses' aggregation: per-phase profiles between metrics snapshots, rounds summed, percentiles. */
class GraphWorkloadTest {

    /** A snapshot whose phase means are per substrate commit, as Metrics.snapshot() reports them. */
    private static Metrics.Snapshot snapshot(long commits, long groups, double aMicros, double bMicros, double cdMicros,
                                             long writeConflicts, long retries) {
        return new Metrics.Snapshot(commits, groups, 0, writeConflicts, 0, retries, 0, 0, (double) commits / groups,
                aMicros / groups, bMicros / groups, cdMicros / groups);
    }

    @Test
    void aProfileBetweenTwoSnapshotsHoldsOnlyTheCommitsInBetween() {
        // before: 10 writes in 5 commits, 1000 us of phase B in all; after: 40 writes in 8 commits, 7000 us of phase B
        Metrics.Snapshot a = snapshot(10, 5, 500, 1_000, 250, 1, 2);
        Metrics.Snapshot b = snapshot(40, 8, 800, 7_000, 550, 4, 2);
        Profile p = Profile.between(a, b);
        assertThat(p.writes()).isEqualTo(30);
        assertThat(p.groups()).isEqualTo(3);
        assertThat(p.meanGroup()).isEqualTo(10.0);
        assertThat(p.meanPhaseAMillis()).isCloseTo(0.1, within(1e-9)); // 300 us over 3 commits
        assertThat(p.meanPhaseBMillis()).isCloseTo(2.0, within(1e-9)); // 6000 us over 3 commits
        assertThat(p.meanPhaseCDMillis()).isCloseTo(0.1, within(1e-9));
        assertThat(p.writeConflicts()).isEqualTo(3);
        assertThat(p.retries()).isZero();
    }

    @Test
    void roundsOfOneGraphSumAndTheirMeansAreWeightedByCommits() {
        Throughput r1 = new Throughput(100, 1, 10.0, new Profile(100, 10, 10_000, 50_000, 0, 0, 0));
        Throughput r2 = new Throughput(300, 0, 10.0, new Profile(300, 10, 30_000, 10_000, 0, 0, 0));
        Throughput both = r1.plus(r2);
        assertThat(both.upserts()).isEqualTo(400);
        assertThat(both.failures()).isEqualTo(1);
        assertThat(both.perSecond()).isEqualTo(20.0);
        assertThat(both.profile().meanGroup()).isEqualTo(20.0);
        assertThat(both.profile().meanPhaseAMillis()).isCloseTo(2.0, within(1e-9));
        assertThat(both.profile().meanPhaseBMillis()).isCloseTo(3.0, within(1e-9));
        assertThat(Throughput.NONE.plus(r1)).isEqualTo(r1);
    }

    @Test
    void anEmptyRunReportsZeroesNotNaN() {
        assertThat(Throughput.NONE.perSecond()).isZero();
        assertThat(Profile.NONE.meanGroup()).isZero();
        assertThat(Profile.NONE.meanPhaseBMillis()).isZero();
    }

    @Test
    void countsThatGoBackwardsAreRefused() {
        Metrics.Snapshot later = snapshot(40, 8, 0, 0, 0, 0, 0);
        Metrics.Snapshot earlier = snapshot(10, 5, 0, 0, 0, 0, 0);
        assertThatThrownBy(() -> Profile.between(later, earlier)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Throughput(-1, 0, 1, Profile.NONE)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void percentilesInterpolateBetweenTheNearestSamples() {
        CoordinatorLatencyHarness.Stats s = CoordinatorLatencyHarness.Stats.of(List.of(4.0, 1.0, 3.0, 2.0, 5.0));
        assertThat(s.median()).isEqualTo(3.0);
        assertThat(s.p90()).isCloseTo(4.6, within(1e-9));
        assertThat(s.mean()).isEqualTo(3.0);
    }

    @Test
    void harnessOptionsTakeWholeNumbersInRangeAndSayWhichOptionIsWrong() {
        assertThat(GraphWorkload.positive("--writers", "16")).isEqualTo(16);
        assertThat(GraphWorkload.atLeast("--warmup", "0", 0)).isZero();
        assertThat(GraphWorkload.positives("--brokers", "1, 3")).containsExactly(1, 3);
        assertThatThrownBy(() -> GraphWorkload.positive("--writers", "0")).hasMessage("--writers must be at least 1, not 0");
        assertThatThrownBy(() -> GraphWorkload.positive("--seconds", "ten")).hasMessage("--seconds takes a whole number, not 'ten'");
        assertThatThrownBy(() -> GraphWorkload.positives("--brokers", "1,")).hasMessage("--brokers takes a whole number, not ''");
    }

    @Test
    void settingsTakeTheCommonOptionsOverTheDefaultsAndHandTheHarnessItsOwn() {
        List<String> dirs = new java.util.ArrayList<>();
        GraphWorkload.Settings o = GraphWorkload.Settings.parse(
                new String[] {"--rows", "500", "--dir", "/tmp/x", "--seed", "7", "--warmup", "0"}, 200, 20,
                java.util.Map.of("--dir", dirs::add), "--dir PATH");
        assertThat(o.rows).isEqualTo(500);
        assertThat(o.seed).isEqualTo(7);
        assertThat(o.warmup).isZero();
        assertThat(o.iterations).isEqualTo(200); // the harness's default
        assertThat(o.writers).isEqualTo(16);
        assertThat(dirs).containsExactly("/tmp/x");
        assertThat(o.header("brokers=[3]")).startsWith("rows=500 iterations=200 warmup=0 writers=16 seconds=15 rounds=2 "
                + "brokers=[3] java=");
    }

    @Test
    void settingsRefuseAnUnknownOptionAMissingValueAndABadNumberByName() {
        assertThatThrownBy(() -> GraphWorkload.Settings.parse(new String[] {"--bogus", "1"}, 1, 0, java.util.Map.of(), "--dir PATH"))
                .hasMessageContaining("unknown option --bogus").hasMessageContaining("--dir PATH");
        assertThatThrownBy(() -> GraphWorkload.Settings.parse(new String[] {"--rows"}, 1, 0, java.util.Map.of(), ""))
                .hasMessageContaining("option --rows needs a value");
        assertThatThrownBy(() -> GraphWorkload.Settings.parse(new String[] {"--writers", "0"}, 1, 0, java.util.Map.of(), ""))
                .hasMessageContaining("--writers must be at least 1");
    }
}
