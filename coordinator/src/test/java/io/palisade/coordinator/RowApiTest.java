package io.palisade.coordinator;

import io.palisade.fencing.KeyConflictException;
import io.palisade.fencing.ValidationException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Writing and reading without Arrow plumbing ({@link Row}, {@link Graph#get}, {@link Graph#rows}). */
class RowApiTest {
    @TempDir
    Path dir;

    @Test
    void rowsGoInAndComeBackTypedByKey() {
        try (Graph g = Palisade.create(dir.resolve("g"), Rows.catalog(), Options.defaults())) {
            Receipt r = g.insert("main", "person", List.of(Row.of("id", "alice", "age", 30), Row.of("id", "bob")));
            assertThat(r.rows()).isEqualTo(2);
            g.upsert("main", "person", List.of(Row.of(Map.of("id", "bob", "age", 41L))));
            g.upsert("main", "person", List.of(Row.fromJson("{\"id\": \"carol\", \"age\": 7}")));
            assertThat(g.get("main", "person", List.of("carol")).get("carol").asMap())
                    .isEqualTo(Map.of("id", "carol", "age", 7L));
            g.delete("main", "person", List.of("carol"));
            Map<String, Row> got = g.get("main", "person", List.of("alice", "bob", "nobody"));
            assertThat(got.keySet()).containsExactlyInAnyOrder("alice", "bob");
            assertThat(got.get("alice").int64("age")).isEqualTo(30L);
            assertThat(got.get("bob").int64("age")).isEqualTo(41L);
            assertThat(got.get("bob").id()).isEqualTo("bob");
            assertThat(g.rows("main", "person")).extracting(Row::id).containsExactlyInAnyOrder("alice", "bob");
            g.appendRows("main", "log", List.of(Row.of("msg", "hello")));
            assertThat(g.rows("main", "log")).extracting(x -> x.string("msg")).containsExactly("hello");
            assertThatThrownBy(() -> g.insert("main", "person", List.of(Row.of("id", "alice"))))
                    .isInstanceOf(KeyConflictException.class);
        }
    }

    @Test
    void anUnknownColumnOrAWrongTypeIsAValidationErrorAndWritesNothing() {
        try (Graph g = Palisade.create(dir.resolve("g"), Rows.catalog(), Options.defaults())) {
            long before = g.state().head("main", "person").orElseThrow().version();
            assertThatThrownBy(() -> g.insert("main", "person", List.of(Row.of("id", "a", "agee", 3))))
                    .isInstanceOf(ValidationException.class).hasMessageContaining("no column 'agee'")
                    .hasMessageContaining("columns: id, age");
            assertThatThrownBy(() -> g.insert("main", "person", List.of(Row.of("id", "a", "age", "three"))))
                    .isInstanceOf(ValidationException.class).hasMessageContaining("age");
            assertThatThrownBy(() -> Row.of("id")).isInstanceOf(ValidationException.class);
            assertThatThrownBy(() -> Row.fromJson("[1]")).isInstanceOf(ValidationException.class);
            assertThatThrownBy(() -> Row.fromJson("{\"id\": {\"x\": 1}}")).isInstanceOf(ValidationException.class)
                    .hasMessageContaining("column 'id'");
            assertThatThrownBy(() -> Row.fromJson("{oops")).isInstanceOf(ValidationException.class).hasMessageContaining("not JSON");
            assertThatThrownBy(() -> Row.of("id", "a", "id", "b")).isInstanceOf(ValidationException.class)
                    .hasMessageContaining("given twice");
            assertThat(g.state().head("main", "person").orElseThrow().version()).isEqualTo(before);
            assertThatThrownBy(() -> g.get("main", "log", List.of("x"))).isInstanceOf(ValidationException.class);
        }
    }
}
