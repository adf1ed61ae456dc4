package io.palisade.coordinator;

import io.palisade.journal.RemovedRow;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** RFC-023 §12 open gate 3: duplicated historical ids refuse migrate pk, which points to the repair; after it the migration completes. */
class RepairMigrationTest {
    @TempDir
    Path dir;

    @Test
    void migratePkRefusalPointsToRepairAndAfterTheRepairTheMigrationCompletes() {
        Path root = dir.resolve("dup");
        try (LegacyGraphFixture f = LegacyGraphFixture.create(root, Rows.catalog())) {
            f.insertPeople("main", "a1", 1, "a2", 2);
            f.appendOnMain("person", List.of(Map.of("id", "a1", "age", 9L), Map.of("id", "a2", "age", 8L)));
        }
        MigrationReport refused = PkMigration.run(root, MigrationOptions.defaults());
        assertThat(refused.status()).isEqualTo(MigrationReport.Status.REFUSED);
        assertThat(refused.describe()).contains("2 duplicate id(s) [a1, a2]")
                .contains("palisade repair GRAPH --table person --duplicates keep-newest|keep-oldest");

        Repair.Report r = Repair.run(root, Repair.Request.of("person", Repair.Duplicates.KEEP_OLDEST));
        assertThat(r.status()).isEqualTo(Repair.Status.REPAIRED);
        assertThat(r.primaryKeyReinstalled()).as("a pre-fencing table gets its key from the migration").isFalse();
        assertThat(r.removed()).extracting(RemovedRow::key).containsExactly("a1", "a2");
        assertThat(r.removed()).extracting(RemovedRow::values).allSatisfy(v -> assertThat(v).containsAnyOf("\"age\":9", "\"age\":8"));

        MigrationReport done = PkMigration.run(root, MigrationOptions.defaults());
        assertThat(done.status()).as(done.describe()).isEqualTo(MigrationReport.Status.COMPLETED);
        try (Graph g = Palisade.open(root, Options.defaults())) {
            assertThat(g.scan("main", "person")).extracting(m -> m.get("id") + "=" + m.get("age"))
                    .containsExactlyInAnyOrder("a1=1", "a2=2");
        }
    }
}
