package io.palisade.benchmarks;

import io.palisade.coordinator.Compaction;
import io.palisade.coordinator.Options;
import io.palisade.coordinator.Retention;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The soak harness, short, in the test suite: closed-loop single-row upserts for a couple of minutes under the
 * default compaction and a tight version retention, asserting that history stops growing (versions kept, table
 * files and bytes, heap after GC) rather than how fast the machine is. Its windows are printed, so a CI log shows the
 * trend. The full-size runs and their numbers are in docs/benchmarks.md.
 */
class ShortSoakTest {
    /** Versions kept: at most 48 by count, removals every 8 commits. */
    private static final Retention RETENTION = Retention.DEFAULTS.withVersions(8, 48).withExpireEvery(8);

    @TempDir
    Path dir;

    private SoakHarness.Result run(String ack, int seconds) throws Exception {
        SoakHarness.Config config = new SoakHarness.Config(ack, 5_000, 4, seconds, 15, 30, dir.resolve(ack + ".csv"));
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        Options options = Options.defaults().withRetention(RETENTION)
                .withCompaction(Compaction.DEFAULTS.withCheckEvery(4));
        SoakHarness.Result r = new SoakHarness(config, new PrintStream(printed, true, StandardCharsets.UTF_8), options)
                .run(dir.resolve(ack));
        System.out.println(printed.toString(StandardCharsets.UTF_8));
        return r;
    }

    @Test
    void aTableAckGraphsVersionsFilesBytesAndHeapLevelOff() throws Exception {
        levelsOff(run("table", 105), 3);
    }

    /**
     * A journal-ack table: its folds add a fragment a second, which its compactions (index remap deferred, then the
     * index rebuilt) and the version retention take back.
     */
    @Test
    void aJournalAckGraphsVersionsFilesBytesAndHeapLevelOff() throws Exception {
        levelsOff(run("journal", 105), 1);
    }

    /**
     * Asserts the trend of {@code r}: no failure; versions kept under the count bound in every counted window while the
     * head moved on by more than {@code turnovers} times that bound; table files, bytes and heap after GC at the end
     * within twice the first counted window's (plus slack); every key read back after the reopen.
     */
    private static void levelsOff(SoakHarness.Result r, int turnovers) {
        List<SoakWindow> counted = r.windows().stream().filter(w -> w.startSeconds() >= 30).toList();
        assertThat(counted).hasSizeGreaterThanOrEqualTo(4);
        long writes = r.windows().stream().mapToLong(SoakWindow::writes).sum();
        assertThat(writes).as("writes acknowledged").isGreaterThan(1_000);
        assertThat(r.windows()).allSatisfy(w -> assertThat(w.failures()).isZero());
        SoakWindow first = r.summary().first();
        SoakWindow last = r.summary().last();
        // the count bound, the commits between two removals, and the versions a compaction commits at once
        assertThat(counted).allSatisfy(w -> assertThat(w.table().manifests()).as("versions kept at %d s", w.endSeconds())
                .isLessThanOrEqualTo(RETENTION.maxVersions() + RETENTION.expireEvery() + 8));
        // the head moved on by far more versions than are kept: old ones were removed, not merely never written
        assertThat(last.headVersion()).isGreaterThan((long) turnovers * (RETENTION.maxVersions() + RETENTION.expireEvery()));
        assertThat(last.table().files()).as("table files").isLessThanOrEqualTo(2 * first.table().files() + 64);
        assertThat(last.table().bytes()).as("table bytes").isLessThanOrEqualTo(2 * first.table().bytes() + (4L << 20));
        assertThat(last.heapAfterGc()).as("heap after GC").isLessThanOrEqualTo(2 * first.heapAfterGc() + (64L << 20));
        assertThat(r.summary().reopen().found()).isEqualTo(r.summary().reopen().keys());
    }
}
