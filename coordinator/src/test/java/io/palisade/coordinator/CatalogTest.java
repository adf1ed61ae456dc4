package io.palisade.coordinator;

import io.palisade.fencing.ValidationException;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class CatalogTest {

    static final String EXAMPLE = """
            {"tables": [{"name": "person", "kind": "node", "columns": [{"name": "id", "type": "string"},
              {"name": "age", "type": "int64", "nullable": true}, {"name": "emb", "type": {"vector": "float32", "dim": 4}}]},
             {"name": "knows", "kind": "edge", "columns": [{"name": "id", "type": "string"}, {"name": "src", "type": "string"},
              {"name": "dst", "type": "string"}]},
             {"name": "log", "kind": "append-only", "columns": [{"name": "msg", "type": "string"}]}]}
            """;

    @Test
    void theIssueExampleParsesWithImpliedNonNullKeys() {
        Catalog c = Catalog.fromJson(EXAMPLE);
        assertThat(c.tables()).extracting(Catalog.TableDef::name).containsExactly("person", "knows", "log");
        Schema person = c.require("person").arrowSchema();
        assertThat(person.findField("id").isNullable()).isFalse();
        assertThat(person.findField("age").isNullable()).isTrue();
        assertThat(person.findField("emb").getType()).isEqualTo(new ArrowType.FixedSizeList(4));
        Schema knows = c.require("knows").arrowSchema();
        assertThat(knows.findField("src").isNullable()).isFalse();
        assertThat(knows.findField("dst").isNullable()).isFalse();
        assertThat(c.require("log").kind().keyed()).isFalse();
    }

    @Test
    void jsonRoundTrips() {
        Catalog c = Catalog.fromJson(EXAMPLE);
        assertThat(Catalog.fromJson(c.toJson())).isEqualTo(c);
    }

    @Test
    void mistakesAreValidationErrorsNamingTableAndColumn() {
        assertThatThrownBy(() -> Catalog.fromJson("{\"tables\": [{\"name\": \"p\", \"kind\": \"node\", \"columns\": []}]}"))
                .isInstanceOf(ValidationException.class).hasMessageContaining("'p' needs a column 'id'");
        assertThatThrownBy(() -> Catalog.fromJson("{\"tables\": [{\"name\": \"p\", \"kind\": \"node\", \"columns\": "
                + "[{\"name\": \"id\", \"type\": \"string\", \"nullable\": true}]}]}"))
                .isInstanceOf(ValidationException.class).hasMessageContaining("'id' must be non-null");
        assertThatThrownBy(() -> Catalog.fromJson("{\"tables\": [{\"name\": \"p\", \"kind\": \"node\", \"columns\": "
                + "[{\"name\": \"id\", \"type\": \"uuid\"}]}]}"))
                .isInstanceOf(ValidationException.class).hasMessageContaining("unknown type 'uuid'");
        assertThatThrownBy(() -> Catalog.fromJson("{\"tables\": [{\"name\": \"e\", \"kind\": \"edge\", \"columns\": "
                + "[{\"name\": \"id\", \"type\": \"string\"}, {\"name\": \"src\", \"type\": \"string\"}]}]}"))
                .isInstanceOf(ValidationException.class).hasMessageContaining("needs a column 'dst'");
        assertThatThrownBy(() -> Catalog.fromJson("{\"tables\": [{\"name\": \"p\", \"kind\": \"vertex\", \"columns\": []}]}"))
                .isInstanceOf(ValidationException.class).hasMessageContaining("unknown kind 'vertex'");
        assertThatThrownBy(() -> Catalog.fromJson("{not json"))
                .isInstanceOf(ValidationException.class).hasMessageContaining("not valid JSON");
        assertThatThrownBy(() -> Catalog.fromJson("{\"tables\": [{\"name\": \"a\", \"kind\": \"append-only\", \"columns\": []},"
                + "{\"name\": \"a\", \"kind\": \"append-only\", \"columns\": []}]}"))
                .isInstanceOf(ValidationException.class).hasMessageContaining("twice");
        assertThatThrownBy(() -> Catalog.fromJson("{\"tables\": [{\"name\": \"p\", \"kind\": \"node\", \"columns\": "
                + "[{\"name\": \"id\", \"type\": \"bool\"}]}]}"))
                .isInstanceOf(ValidationException.class).hasMessageContaining("must be string or int64");
    }

    @Test
    void unknownTablesAreNamedWithTheKnownOnes() {
        assertThatThrownBy(() -> Catalog.fromJson(EXAMPLE).require("people"))
                .isInstanceOf(ValidationException.class).hasMessageContaining("people").hasMessageContaining("person");
    }
}
