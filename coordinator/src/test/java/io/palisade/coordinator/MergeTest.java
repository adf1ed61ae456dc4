package io.palisade.coordinator;

import io.palisade.fencing.MergeConflictException;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class MergeTest extends GraphTestSupport {
    private static Map<Object, Object> ages(List<Map<String, Object>> rows) {
        return rows.stream().collect(Collectors.toMap(r -> r.get("id"), r -> String.valueOf(r.get("age"))));
    }

    @Test
    void mergeBringsInsertsUpdatesAndDeletesFromTheBranch() {
        try (Graph g = Palisade.create(dir.resolve("g"), Rows.catalog(), Options.defaults());
             VectorSchemaRoot base = Rows.people(allocator, "alice", 30, "bob", 40, "dan", 70);
             VectorSchemaRoot carol = Rows.people(allocator, "carol", 50);
             VectorSchemaRoot alice = Rows.people(allocator, "alice", 31);
             VectorSchemaRoot erin = Rows.people(allocator, "erin", 9)) {
            g.insert("main", "person", base);
            g.createBranch("dev", "main");
            g.insert("dev", "person", carol);
            g.upsert("dev", "person", alice);
            g.delete("dev", "person", List.of("dan"));
            g.insert("main", "person", erin); // a disjoint change on the target

            MergeResult m = g.merge("dev", "main");

            assertThat(m.inserted()).isEqualTo(1);
            assertThat(m.updated()).isEqualTo(1);
            assertThat(m.deleted()).isEqualTo(1);
            assertThat(ages(g.scan("main", "person"))).containsOnly(
                    Map.entry("alice", "31"), Map.entry("bob", "40"), Map.entry("carol", "50"), Map.entry("erin", "9"));
        }
    }

    @Test
    void aKeyChangedOnBothSidesIsAMergeConflictAndNothingIsMerged() {
        try (Graph g = Palisade.create(dir.resolve("g"), Rows.catalog(), Options.defaults());
             VectorSchemaRoot base = Rows.people(allocator, "alice", 30);
             VectorSchemaRoot onDev = Rows.people(allocator, "alice", 31, "zed", 1);
             VectorSchemaRoot onMain = Rows.people(allocator, "alice", 32)) {
            g.insert("main", "person", base);
            g.createBranch("dev", "main");
            g.upsert("dev", "person", onDev);
            g.upsert("main", "person", onMain);
            long before = g.state().head("main", "person").orElseThrow().version();

            assertThatThrownBy(() -> g.merge("dev", "main")).isInstanceOf(MergeConflictException.class)
                    .satisfies(e -> assertThat(((MergeConflictException) e).keys()).containsExactly("person:alice"));

            assertThat(g.state().head("main", "person").orElseThrow().version()).isEqualTo(before);
            assertThat(ages(g.scan("main", "person"))).containsOnly(Map.entry("alice", "32"));
        }
    }

    @Test
    void rowsAnOverwriteRemovedOnTheSourceAreDeletedOnTheTarget() {
        try (Graph g = Palisade.create(dir.resolve("g"), Rows.catalog(), Options.defaults());
             VectorSchemaRoot base = Rows.people(allocator, "alice", 30, "bob", 40, "dan", 70);
             VectorSchemaRoot replacement = Rows.people(allocator, "alice", 31, "zed", 1);
             VectorSchemaRoot erin = Rows.people(allocator, "erin", 9)) {
            g.insert("main", "person", base);
            g.createBranch("dev", "main");
            g.overwrite("dev", "person", replacement);
            g.insert("main", "person", erin);

            MergeResult m = g.merge("dev", "main");

            assertThat(m.inserted()).isEqualTo(1);
            assertThat(m.updated()).isEqualTo(1);
            assertThat(m.deleted()).isEqualTo(2);
            assertThat(ages(g.scan("main", "person"))).containsOnly(
                    Map.entry("alice", "31"), Map.entry("zed", "1"), Map.entry("erin", "9"));
        }
    }

    @Test
    void aKeyAnOverwriteOnTheTargetRemovedAndTheSourceChangedIsAMergeConflict() {
        try (Graph g = Palisade.create(dir.resolve("g"), Rows.catalog(), Options.defaults());
             VectorSchemaRoot base = Rows.people(allocator, "alice", 30, "bob", 40);
             VectorSchemaRoot onDev = Rows.people(allocator, "bob", 41);
             VectorSchemaRoot replacement = Rows.people(allocator, "alice", 30)) {
            g.insert("main", "person", base);
            g.createBranch("dev", "main");
            g.upsert("dev", "person", onDev);
            g.overwrite("main", "person", replacement); // removes bob on the target
            long before = g.state().head("main", "person").orElseThrow().version();

            assertThatThrownBy(() -> g.merge("dev", "main")).isInstanceOf(MergeConflictException.class)
                    .satisfies(e -> assertThat(((MergeConflictException) e).keys()).containsExactly("person:bob"));
            assertThat(g.state().head("main", "person").orElseThrow().version()).isEqualTo(before);
            assertThat(ages(g.scan("main", "person"))).containsOnly(Map.entry("alice", "30"));
        }
    }
}
