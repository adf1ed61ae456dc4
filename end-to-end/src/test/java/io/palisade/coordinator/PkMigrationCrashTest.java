package io.palisade.coordinator;

import io.palisade.coordinator.internal.CrashPoints;
import io.palisade.coordinator.internal.GraphFormat;
import io.palisade.coordinator.internal.MigrationClaim;
import io.palisade.fencing.GraphRefusedException;
import io.palisade.heads.HeadsReplayer;
import io.palisade.heads.HeadsState;
import io.palisade.heads.Pin;
import io.palisade.journal.TableHead;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The migration crash matrix (RFC-023 §11.3): a child JVM runs the migration on the standard
 * pre-fencing fixture and halts (like SIGKILL: no hooks, no flushing) at one crash point; the parent
 * then checks that normal opens refuse the partially migrated graph, resumes the migration, and checks
 * the result equals an uninterrupted migration's: same heads on every branch, rows unchanged.
 */
class PkMigrationCrashTest {

    @TempDir
    static Path shared;

    static Map<String, String> cleanHeads;
    static Map<String, String> rows;

    @BeforeAll
    static void uninterruptedMigration() {
        Path root = LegacyGraphFixture.standard(shared.resolve("clean"));
        rows = LegacyGraphFixture.digests(root);
        assertThat(PkMigration.run(root, MigrationOptions.defaults()).status()).isEqualTo(MigrationReport.Status.COMPLETED);
        cleanHeads = heads(root);
    }

    static Map<String, String> heads(Path root) {
        HeadsState s = HeadsReplayer.of(root.resolve("_palisade")).replay().state();
        Map<String, String> out = new TreeMap<>();
        for (String b : s.branches().keySet()) {
            for (Map.Entry<String, Pin> e : s.pins(b).entrySet()) {
                TableHead h = e.getValue().head();
                out.put(b + "/" + e.getKey(), h.tableBranch() + "@" + h.version() + (e.getValue().owned() ? "" : " lazy"));
            }
        }
        return out;
    }

    static int runChild(Path root, String crashAt) throws Exception {
        List<String> cmd = ChildJvm.command("384m", crashAt, MigrationChild.class, root.toString());
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true)
                .redirectOutput(root.resolveSibling(root.getFileName() + ".child.log").toFile()).start();
        assertThat(p.waitFor(180, TimeUnit.SECONDS)).as("child finished").isTrue();
        return p.exitValue();
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "migration-after-claim",
            "migration-after-plan",
            "migration-after-fork-commit",      // native fork done, not journaled
            "migration-after-fork",
            "migration-after-pk-commit",        // owned unit: PK committed on main, not journaled
            "migration-after-pk-commit:4",      // a lazy unit's PK committed on its fork, not journaled
            "migration-after-install",
            "migration-after-install:5",
            "migration-after-publish",          // publish + completion digest (one record)
            "migration-after-publish:6",
            "migration-after-verify",
            "migration-after-verify:3",
            "migration-after-stamp-journaled",
            "migration-after-stamp"})
    void crashAfterEachStepResumesToTheSameResultWithoutDataChange(String crashAt, @TempDir Path dir) throws Exception {
        Path root = LegacyGraphFixture.standard(dir.resolve("g"));
        assertThat(LegacyGraphFixture.digests(root)).isEqualTo(rows);

        assertThat(runChild(root, crashAt)).as("child halted at " + crashAt).isEqualTo(CrashPoints.HALT_STATUS);

        boolean stamped = crashAt.equals("migration-after-stamp");
        if (!stamped) {
            assertThat(GraphFormat.read(root)).contains(4);
            assertThat(Files.exists(MigrationClaim.file(root))).as("claim left behind").isTrue();
            assertThatThrownBy(() -> Palisade.open(root, Options.defaults())).isInstanceOf(GraphRefusedException.class)
                    .hasMessageContaining("partially migrated");
        }
        String staleToken = MigrationClaim.read(root).map(MigrationClaim::ownerToken).orElse(null);

        MigrationReport r = PkMigration.run(root, MigrationOptions.defaults());

        assertThat(r.status()).isIn(MigrationReport.Status.COMPLETED, MigrationReport.Status.ALREADY_FENCING);
        if (!stamped) {
            assertThat(r.resumed()).isTrue();
            assertThat(r.ownerToken()).isNotEqualTo(staleToken);
            assertThat(r.classifications()).isNotEmpty();
        }
        if (crashAt.startsWith("migration-after-fork-commit")) {
            assertThat(r.classifications()).anyMatch(c -> c.contains("adopted the exact fork"));
        }
        if (crashAt.startsWith("migration-after-pk-commit")) {
            assertThat(r.classifications()).anyMatch(c -> c.contains("adopted the PK install"));
        }
        assertThat(GraphFormat.read(root)).contains(5);
        assertThat(Files.exists(MigrationClaim.file(root))).isFalse();
        assertThat(heads(root)).isEqualTo(cleanHeads);
        assertThat(LegacyGraphFixture.digests(root)).isEqualTo(rows);
        PkMigrationTest.assertEveryPinAnnotatedAndOwned(root);
        try (Graph g = Palisade.open(root, Options.defaults())) {
            assertThat(PkMigrationTest.scannedDigests(g)).isEqualTo(rows);
        }
    }
}
