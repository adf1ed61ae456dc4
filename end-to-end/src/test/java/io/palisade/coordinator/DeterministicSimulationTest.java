package io.palisade.coordinator;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The deterministic simulation ({@link Simulation}; docs/recovery.md): many seeds per run, each
 * a seeded interleaving of writers, conflicts, faults and crashes over the in-memory substrate, with the
 * crash invariants checked after every recovery.
 *
 * <p>{@code -Dpalisade.sim.seeds=N} runs N seeds (default {@value #DEFAULT_SEEDS}) starting at
 * {@code -Dpalisade.sim.first-seed} (default 1); {@code -Dpalisade.sim.seed=S} replays the single seed S.
 * A failing seed is printed with the command that replays it.
 */
class DeterministicSimulationTest {
    static final int DEFAULT_SEEDS = 600;

    private static Path work;

    @BeforeAll
    static void workDir() throws IOException {
        Path shm = Path.of("/dev/shm");
        Path base = Files.isDirectory(shm) && Files.isWritable(shm) ? shm : Path.of(System.getProperty("java.io.tmpdir"));
        work = Files.createTempDirectory(base, "palisade-sim-");
    }

    @AfterAll
    static void cleanUp() {
        Simulation.deleteTree(work);
    }

    @Test
    void everySeedKeepsEveryCrashInvariant() {
        String one = System.getProperty("palisade.sim.seed", "");
        long first = one.isEmpty() ? Long.getLong("palisade.sim.first-seed", 1L) : Long.parseLong(one);
        int seeds = one.isEmpty() ? Integer.getInteger("palisade.sim.seeds", DEFAULT_SEEDS) : 1;
        int threadsBefore = Thread.activeCount();
        Map<String, Long> total = new TreeMap<>();
        java.lang.management.ThreadMXBean mx = java.lang.management.ManagementFactory.getThreadMXBean();
        long cpu0 = mx.getCurrentThreadCpuTime();
        long t0 = System.nanoTime();
        for (long seed = first; seed < first + seeds; seed++) {
            Simulation.Result r;
            try {
                r = Simulation.run(seed, work);
            } catch (Throwable e) {
                String replay = "mvn -B -o verify -pl end-to-end -am -Dtest=DeterministicSimulationTest#everySeedKeepsEveryCrashInvariant "
                        + "-Dsurefire.failIfNoSpecifiedTests=false -Dpalisade.sim.seed=" + seed;
                System.out.println("[sim] FAILED seed " + seed + ": " + e + "\n[sim] replay: " + replay);
                throw new AssertionError("deterministic simulation failed at seed " + seed + " (replay: " + replay + "): "
                        + e.getMessage(), e);
            }
            r.counters().forEach((k, v) -> total.merge(k, v, Long::sum));
        }
        long millis = (System.nanoTime() - t0) / 1_000_000;
        long cpuMillis = (mx.getCurrentThreadCpuTime() - cpu0) / 1_000_000;
        String summary = "[sim] seeds=" + seeds + " (from " + first + ") in " + millis + " ms (" + cpuMillis
                + " ms CPU on the test thread): ops=" + total.getOrDefault("ops-submitted", 0L)
                + " acked=" + total.getOrDefault("ops-acked", 0L) + " crashes=" + total.getOrDefault("crashes", 0L)
                + " recoveries=" + total.getOrDefault("recoveries", 0L) + " invariant-checks="
                + total.getOrDefault("invariant-checks", 0L) + " " + total.entrySet().stream()
                .filter(e -> !e.getKey().startsWith("check:")).map(e -> e.getKey() + "=" + e.getValue())
                .collect(Collectors.joining(" ", "{", "}"))
                + " checks-by-invariant=" + total.entrySet().stream().filter(e -> e.getKey().startsWith("check:"))
                .map(e -> e.getKey().substring(6) + "=" + e.getValue()).collect(Collectors.joining(" ", "{", "}"));
        System.out.println(summary);
        writeSummary(summary);
        // nothing leaks a thread per seed (no committer threads; journals closed)
        assertThat(Thread.activeCount()).isLessThanOrEqualTo(threadsBefore + 4);
        if (seeds >= 200) {
            // the schedule really reaches what it is meant to exercise
            assertThat(total.getOrDefault("crashes", 0L)).isPositive();
            assertThat(total.getOrDefault("crashes-in-recovery", 0L)).isPositive();
            assertThat(total.getOrDefault("recovered-EFFECT_ROLLED_FORWARD", 0L)).isPositive();
            assertThat(total.getOrDefault("recovered-NO_EFFECT_ABORTED", 0L)).isPositive();
            assertThat(total.getOrDefault("key-conflicts", 0L)).isPositive();
            assertThat(total.getOrDefault("write-conflicts", 0L)).isPositive();
            assertThat(total.getOrDefault("commits-of-unknown-outcome", 0L)).isPositive();
            assertThat(total.getOrDefault("merges", 0L)).isPositive();
            assertThat(total.getOrDefault("merge-conflicts", 0L)).isPositive();
            assertThat(total.getOrDefault("unacked-applied", 0L)).isPositive();
            assertThat(total.getOrDefault("unacked-absent", 0L)).isPositive();
            assertThat(total.getOrDefault("fold-checks-with-unfolded", 0L)).isPositive();
            assertThat(total.getOrDefault("check:6-folded-equals-model", 0L)).isPositive();
            for (String point : Set.of("after-intent", "after-fork", "after-substrate-commit", "before-publish",
                    "after-publish", "checkpoint-after-temp", "checkpoint-after-rename", "after-journal-ack",
                    "after-fold-intent", "after-fold-commit", "before-fold-publish", "after-fold-publish")) {
                assertThat(total.getOrDefault("crashes@" + point, 0L)).as("crashes at " + point).isPositive();
            }
        }
    }

    @Test
    void aSeedReplaysExactly() {
        for (long seed : new long[]{7, 42, 1234}) {
            Simulation.Result a = Simulation.run(seed, work);
            Simulation.Result b = Simulation.run(seed, work);
            assertThat(b.trace()).isEqualTo(a.trace());
            assertThat(b.counters()).isEqualTo(a.counters());
        }
        assertThat(Simulation.run(8, work).trace()).isNotEqualTo(Simulation.run(7, work).trace());
    }

    private static void writeSummary(String summary) {
        try {
            Path target = Path.of("target");
            if (Files.isDirectory(target)) {
                Files.writeString(target.resolve("deterministic-simulation.txt"), summary + "\n");
            }
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
