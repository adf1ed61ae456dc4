package io.palisade.benchmarks;

import io.palisade.coordinator.Graph;
import io.palisade.coordinator.Options;
import io.palisade.coordinator.Palisade;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The soak harness's structure and disk accounting: windows, CSV lines, versions and bytes counted (no speeds). */
class SoakHarnessTest {

    @TempDir
    Path dir;

    @Test
    void theDiskWalkCountsFilesBytesManifestsAndBytesPerTopLevelEntry() throws IOException {
        Path t = dir.resolve("t.lance");
        write(t.resolve("_versions/1.manifest"), 10);
        write(t.resolve("_versions/2.manifest"), 20);
        write(t.resolve("_transactions/0-x.txn"), 7);
        write(t.resolve("data/a.lance"), 100);
        write(t.resolve("_indices/u/page_data.lance"), 5);
        write(t.resolve("_indices/u/nested/_versions/3.manifest"), 1); // a manifest of a nested dataset counts too
        write(t.resolve("top.bin"), 3);
        DiskUsage d = DiskUsage.of(t);
        assertThat(d.files()).isEqualTo(7);
        assertThat(d.bytes()).isEqualTo(146);
        assertThat(d.manifests()).isEqualTo(3);
        assertThat(d.bytesUnder("_versions")).isEqualTo(30);
        assertThat(d.bytesUnder("_indices")).isEqualTo(6);
        assertThat(d.bytesUnder("data")).isEqualTo(100);
        assertThat(d.bytesUnder(DiskUsage.TOP_LEVEL_FILES)).isEqualTo(3);
        assertThat(d.bytesUnder("_deletions")).isZero();
        assertThat(DiskUsage.of(dir.resolve("absent"))).isEqualTo(DiskUsage.EMPTY);
        assertThat(DiskUsage.allocatedBytes(dir.resolve("absent"))).isZero();
        assertThat(DiskUsage.allocatedBytes(t)).isPositive(); // du's blocks: at least one per non-empty file
    }

    @Test
    void aShortRunPrintsOneRowPerWindowAndCountsTheTablesVersionsAndBytes() throws Exception {
        Path csv = dir.resolve("soak.csv");
        Path graph = dir.resolve("graph");
        SoakHarness.Config config = new SoakHarness.Config("table", 2_000, 2, 6, 2, 2, csv);
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        SoakHarness.Result r = new SoakHarness(config, new PrintStream(printed, true, StandardCharsets.UTF_8)).run(graph);

        List<SoakWindow> w = r.windows();
        assertThat(w).extracting(SoakWindow::endSeconds).containsExactly(2, 4, 6);
        assertThat(w).extracting(SoakWindow::startSeconds).containsExactly(0, 2, 4);
        assertThat(w).allSatisfy(x -> {
            assertThat(x.failures()).isZero();
            assertThat(x.liveBytes()).isEqualTo(2_000L * SoakHarness.ROW_VALUE_BYTES);
            // the walk reads the head first, then the directory: the head's versions are on disk, but for those
            // version retention removed (it always keeps the newest maxVersions)
            assertThat(x.table().manifests()).isGreaterThanOrEqualTo(
                    Math.min(x.headVersion(), io.palisade.coordinator.Retention.DEFAULTS.maxVersions()));
            assertThat(x.table().bytes()).isEqualTo(x.table().bytesByTop().values().stream().mapToLong(Long::longValue).sum());
            assertThat(x.table().bytesUnder(SoakWindow.DATA)).isPositive();
            assertThat(x.journalBytes()).isPositive();
            assertThat(x.journalAllocated()).isPositive().isLessThanOrEqualTo(x.palisadeAllocated());
            assertThat(x.heapAfterGc()).isPositive();
        });
        assertThat(w).extracting(SoakWindow::headVersion).isSorted();
        assertThat(w.get(2).headVersion()).isGreaterThan(w.get(0).headVersion());
        assertThat(w.stream().mapToLong(SoakWindow::writes).sum()).isPositive();

        String out = printed.toString(StandardCharsets.UTF_8);
        assertThat(out.lines().filter(l -> l.matches("\\| \\d+ \\|.*"))).hasSize(3);
        assertThat(out).contains(SoakWindow.header()).contains("throughput ratio").contains("reopen: close");
        List<String> lines = Files.readAllLines(csv);
        assertThat(lines).hasSize(4).first().isEqualTo(SoakWindow.csvHeader());
        assertThat(lines).extracting(l -> l.split(",", -1).length).containsOnly(SoakWindow.csvHeader().split(",").length);
        assertThat(lines.get(3)).startsWith("3,4,6,");

        SoakSummary s = r.summary();
        assertThat(s.first()).isSameAs(w.get(1)); // the first window starting at or after the 2-s warm-up
        assertThat(s.last()).isSameAs(w.get(2));
        assertThat(s.reopen().found()).isEqualTo(3);

        // after the run (and the one upsert after reopening) every version of the table that version retention kept is
        // one manifest on disk: all of them until it removes those past the newest maxVersions
        Path versions = SoakHarness.tableDir(graph).resolve(DiskUsage.VERSIONS);
        long manifests;
        try (Stream<Path> files = Files.list(versions)) {
            manifests = files.filter(p -> p.toString().endsWith(DiskUsage.MANIFEST_SUFFIX)).count();
        }
        long bytes;
        try (Stream<Path> files = Files.walk(SoakHarness.tableDir(graph))) {
            bytes = files.filter(Files::isRegularFile).mapToLong(p -> p.toFile().length()).sum();
        }
        DiskUsage end = DiskUsage.of(SoakHarness.tableDir(graph));
        assertThat(end.manifests()).isEqualTo(manifests);
        assertThat(end.bytes()).isEqualTo(bytes);
        try (Graph g = Palisade.open(graph, Options.defaults())) {
            long head = g.state().head("main", SoakHarness.TABLE).orElseThrow().version();
            assertThat(end.manifests()).isBetween(
                    Math.min(head, io.palisade.coordinator.Retention.DEFAULTS.maxVersions()), head);
        }
    }

    @Test
    void settingsAreCheckedByName() {
        assertThatThrownBy(() -> new SoakHarness.Config("lance", 10, 1, 6, 2, 0, null)).hasMessageContaining("--ack");
        assertThatThrownBy(() -> new SoakHarness.Config("table", 10, 1, 6, 8, 0, null))
                .hasMessageContaining("--window-seconds");
    }

    private static void write(Path file, int bytes) throws IOException {
        Files.createDirectories(file.getParent());
        Files.write(file, new byte[bytes]);
    }
}
