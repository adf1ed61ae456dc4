package io.palisade.coordinator;

import io.palisade.fencing.ValidationException;
import io.palisade.substrate.TableRef;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class SchemaAndOverwriteTest extends GraphTestSupport {
    @Test
    void overwriteReplacesEveryRowAndKeepsThePrimaryKey() {
        try (Graph g = Palisade.create(dir.resolve("g"), Rows.catalog(), Options.defaults());
             VectorSchemaRoot a = Rows.people(allocator, "alice", 30, "bob", 40);
             VectorSchemaRoot b = Rows.people(allocator, "zoe", 1);
             VectorSchemaRoot dup = Rows.people(allocator, "q", 1, "q", 2)) {
            g.insert("main", "person", a);
            g.overwrite("main", "person", b);
            assertThat(g.scan("main", "person")).extracting(r -> r.get("id")).containsExactly("zoe");
            var head = g.state().head("main", "person").orElseThrow();
            assertThat(g.engine().context().store().primaryKey("person", new TableRef(head.tableBranch(), head.version()))).containsExactly("id");
            assertThatThrownBy(() -> g.overwrite("main", "person", dup)).isInstanceOf(ValidationException.class)
                    .hasMessageContaining("duplicate key 'q'");
            assertThat(g.scan("main", "person")).extracting(r -> r.get("id")).containsExactly("zoe");
        }
    }

    @Test
    void addColumnsUpdatesTheCatalogAndSurvivesReopen() {
        Path p = dir.resolve("g");
        try (Graph g = Palisade.create(p, Rows.catalog(), Options.defaults());
             VectorSchemaRoot a = Rows.people(allocator, "alice", 30)) {
            g.insert("main", "person", a);
            g.addColumns("person", List.of(new Catalog.ColumnDef("nick", Catalog.ColumnType.Scalar.STRING, true)));
            assertThat(g.catalog().require("person").column("nick")).isPresent();
            assertThat(g.scan("main", "person").get(0)).containsEntry("nick", null);
            assertThatThrownBy(() -> g.addColumns("person", List.of(new Catalog.ColumnDef("age",
                    Catalog.ColumnType.Scalar.INT64, true)))).isInstanceOf(ValidationException.class);
            assertThatThrownBy(() -> g.addColumns("person", List.of(new Catalog.ColumnDef("must",
                    Catalog.ColumnType.Scalar.INT64, false)))).isInstanceOf(ValidationException.class)
                    .hasMessageContaining("nullable");
        }
        try (Graph g = Palisade.open(p, Options.defaults())) {
            assertThat(g.catalog().require("person").column("nick")).isPresent();
            var head = g.state().head("main", "person").orElseThrow();
            assertThat(g.engine().context().store().primaryKey("person", new TableRef(head.tableBranch(), head.version()))).containsExactly("id");
        }
    }

    private VectorSchemaRoot withNick(Graph g, String id, long age, String nick) {
        VectorSchemaRoot root = VectorSchemaRoot.create(g.catalog().require("person").arrowSchema(), allocator);
        java.util.Map<String, Object> row = new java.util.LinkedHashMap<>();
        row.put("id", id);
        row.put("age", age);
        row.put("nick", nick);
        io.palisade.substrate.ArrowRows.fill(root, List.of(row));
        return root;
    }

    @Test
    void aBranchCreatedBeforeAColumnWasAddedTakesBatchesWithTheColumnNullAndRefusesValuesInIt() {
        try (Graph g = Palisade.create(dir.resolve("g"), Rows.catalog(), Options.defaults());
             VectorSchemaRoot a = Rows.people(allocator, "alice", 30)) {
            g.insert("main", "person", a);
            g.createBranch("dev", "main");
            g.addColumns("person", List.of(new Catalog.ColumnDef("nick", Catalog.ColumnType.Scalar.STRING, true)));
            try (VectorSchemaRoot bob = withNick(g, "bob", 40, null);
                 VectorSchemaRoot carl = withNick(g, "carl", 50, "c");
                 VectorSchemaRoot dora = withNick(g, "dora", 60, "d")) {
                g.insert("dev", "person", bob); // the branch's table has no 'nick'; an all-null one is dropped
                assertThatThrownBy(() -> g.upsert("dev", "person", carl)).isInstanceOf(ValidationException.class)
                        .hasMessageContaining("'nick'").hasMessageContaining("only nulls");
                g.insert("main", "person", dora);
            }
            assertThat(g.scan("dev", "person")).extracting(r -> r.get("id")).containsExactlyInAnyOrder("alice", "bob");
            assertThat(g.scan("dev", "person")).allSatisfy(r -> assertThat(r).doesNotContainKey("nick"));
            assertThat(g.scan("main", "person")).extracting(r -> r.get("id")).containsExactlyInAnyOrder("alice", "dora");
            assertThat(g.scan("main", "person")).filteredOn(r -> r.get("id").equals("dora"))
                    .singleElement().satisfies(r -> assertThat(r).containsEntry("nick", "d"));
        }
    }
}
