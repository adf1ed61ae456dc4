package io.palisade.coordinator;

import io.palisade.coordinator.internal.GraphFormat;
import io.palisade.journal.TableHead;
import io.palisade.substrate.KeyedTable;
import io.palisade.substrate.TableRef;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** RFC-023 §9 on a migrated graph: later rewrites keep the exact PK {@code [id]}. */
class PkPreservationTest {

    @TempDir
    Path dir;

    private static List<String> pkAtHead(Graph g, String branch, String table) {
        TableHead h = g.state().head(branch, table).orElseThrow();
        return g.engine().context().store().primaryKey(table, new TableRef(h.tableBranch(), h.version()));
    }

    @Test
    void overwriteAddColumnDropColumnAndBranchForkKeepTheExactPkAfterMigration() {
        Path root = LegacyGraphFixture.standard(dir.resolve("g"));
        assertThat(PkMigration.run(root, MigrationOptions.defaults()).status()).isEqualTo(MigrationReport.Status.COMPLETED);
        try (Graph g = Palisade.open(root, Options.defaults().withIndexedMerge(false));
             BufferAllocator a = new RootAllocator();
             VectorSchemaRoot replacement = Rows.people(a, "o1", 1, "o2", 2);
             VectorSchemaRoot more = Rows.people(a, "n1", 3)) {
            long before = g.state().head("dev", "person").orElseThrow().version();
            g.overwrite("dev", "person", replacement);
            assertThat(g.state().head("dev", "person").orElseThrow().version()).isGreaterThan(before);
            assertThat(pkAtHead(g, "dev", "person")).containsExactly("id");
            assertThat(g.scan("dev", "person")).extracting(r -> r.get("id")).containsExactlyInAnyOrder("o1", "o2");

            g.createBranch("later", "feature");
            g.insert("later", "person", more); // first write forks a table branch from feature's annotated image
            TableHead later = g.state().head("later", "person").orElseThrow();
            assertThat(later.tableBranch()).isNotEqualTo(g.state().head("feature", "person").orElseThrow().tableBranch());
            assertThat(pkAtHead(g, "later", "person")).containsExactly("id");

            g.addColumns("person", List.of(new Catalog.ColumnDef("nick", Catalog.ColumnType.Scalar.STRING, true)));
            assertThat(pkAtHead(g, "main", "person")).containsExactly("id");

            TableHead main = g.state().head("main", "knows").orElseThrow();
            try (KeyedTable t = g.engine().context().store().openKeyed("knows", new TableRef(main.tableBranch(), main.version()))) {
                TableRef dropped = t.dropColumns(List.of("dst")).ref();
                assertThat(g.engine().context().store().primaryKey("knows", dropped)).containsExactly("id");
            }
        }
    }

    @Test
    void aNewGraphHasThePkBeforeAnyDataIsAccepted() {
        Path root = dir.resolve("fresh");
        try (Graph g = Palisade.create(root, Rows.catalog(), Options.defaults())) {
            assertThat(GraphFormat.read(root)).contains(5);
            assertThat(g.engine().context().store().primaryKey("person", TableRef.main(1))).containsExactly("id");
            assertThat(g.engine().context().store().primaryKey("knows", TableRef.main(1))).containsExactly("id");
            assertThat(g.engine().context().store().primaryKey("log", TableRef.main(1))).isEmpty();
        }
    }
}
