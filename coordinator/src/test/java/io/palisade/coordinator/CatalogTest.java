package io.palisade.coordinator;

import io.palisade.fencing.ValidationException;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

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

    @Test
    void unknownKeysAreRefusedAtEveryLevelWithTheKnownOnesAndTheClosest() {
        assertThatThrownBy(() -> Catalog.fromJson("{\"tables\": [], \"table\": []}"))
                .isInstanceOf(ValidationException.class)
                .hasMessage("catalog: unknown key \"table\"; known keys are tables (did you mean tables?)");
        assertThatThrownBy(() -> Catalog.fromJson(EXAMPLE.replace("\"kind\": \"node\"", "\"kind\": \"node\", \"acks\": \"journal\"")))
                .isInstanceOf(ValidationException.class)
                .hasMessage("table 'person': unknown key \"acks\"; known keys are name, kind, ack, src, dst, unique, on_endpoint_delete, columns (did you mean ack?)");
        assertThatThrownBy(() -> Catalog.fromJson(EXAMPLE.replace("\"nullable\": true", "\"nulable\": true")))
                .isInstanceOf(ValidationException.class)
                .hasMessage("table 'person', column 'age': unknown key \"nulable\"; known keys are name, type, nullable "
                        + "(did you mean nullable?)");
        assertThatThrownBy(() -> Catalog.fromJson(EXAMPLE.replace("\"dim\": 4", "\"dims\": 4")))
                .isInstanceOf(ValidationException.class)
                .hasMessage("table 'person', column 'emb', type: unknown key \"dims\"; known keys are vector, dim "
                        + "(did you mean dim?)");
        assertThatThrownBy(() -> Catalog.fromJson(EXAMPLE.replace("\"dim\": 4", "\"dimension\": 4")))
                .isInstanceOf(ValidationException.class)
                .hasMessage("table 'person', column 'emb', type: unknown key \"dimension\"; known keys are vector, dim "
                        + "(did you mean dim?)");
    }

    @Test
    void anUnknownKeyFarFromEveryKnownOneGetsNoSuggestionAndAnUnnamedElementIsNamedByItsPlace() {
        assertThatThrownBy(() -> Catalog.fromJson(EXAMPLE.replace("{\"name\": \"msg\"", "{\"comment\": \"x\", \"name\": \"msg\"")))
                .isInstanceOf(ValidationException.class)
                .hasMessage("table 'log', column 'msg': unknown key \"comment\"; known keys are name, type, nullable");
        assertThatThrownBy(() -> Catalog.fromJson("{\"tables\": [{\"Name\": \"p\", \"kind\": \"node\", \"columns\": []}]}"))
                .isInstanceOf(ValidationException.class)
                .hasMessage("tables[0]: unknown key \"Name\"; known keys are name, kind, ack, src, dst, unique, on_endpoint_delete, columns (did you mean name?)");
        assertThatThrownBy(() -> Catalog.fromJson("{\"tables\": [{\"name\": \"p\", \"kind\": \"node\", \"columns\": "
                + "[{\"name\": \"id\", \"type\": \"string\"}, {\"nmae\": \"x\", \"type\": \"string\"}]}]}"))
                .isInstanceOf(ValidationException.class)
                .hasMessage("table 'p', columns[1]: unknown key \"nmae\"; known keys are name, type, nullable (did you mean name?)");
        assertThatThrownBy(() -> Catalog.fromJson("{\"tables\": [\"person\"]}"))
                .isInstanceOf(ValidationException.class).hasMessage("tables[0] must be a JSON object, not \"person\"");
    }

    @Test
    void nullableMustBeABooleanAndDimAPositiveInteger() {
        assertThatThrownBy(() -> Catalog.fromJson(EXAMPLE.replace("\"nullable\": true", "\"nullable\": \"yes\"")))
                .isInstanceOf(ValidationException.class)
                .hasMessage("table 'person', column 'age': \"nullable\" must be true or false, not \"yes\"");
        for (String dim : new String[] {"4.5", "\"4\"", "0", "-1"}) {
            assertThatThrownBy(() -> Catalog.fromJson(EXAMPLE.replace("\"dim\": 4", "\"dim\": " + dim)))
                    .as(dim).isInstanceOf(ValidationException.class)
                    .hasMessageStartingWith("table 'person': column 'emb' has an unsupported type");
        }
    }

    @Test
    void malformedJsonIsReportedAtItsLineAndColumnInPlainWords() {
        assertThatThrownBy(() -> Catalog.fromJson("{\"tables\": [\n  {\"name\": x}]}"))
                .isInstanceOf(ValidationException.class).hasMessage("catalog is not valid JSON at line 2, column 12: "
                        + "unrecognized token 'x': expected a string, number, array, object, true, false or null");
        assertThatThrownBy(() -> Catalog.fromJson("{\"tables\": [\n}"))
                .isInstanceOf(ValidationException.class).hasMessage("catalog is not valid JSON at line 2, column 1: "
                        + "unexpected close marker '}': expected ']' (for Array starting at line 1, column 12)");
        assertThatThrownBy(() -> Catalog.fromJson("{\"tables\": [\n"))
                .isInstanceOf(ValidationException.class).hasMessage("catalog is not valid JSON at line 2, column 1: "
                        + "unexpected end of input: expected close marker for Array (start marker at line 1, column 12)");
        assertThatThrownBy(() -> Catalog.fromJson("{\"tables\": [{\"name\": \"a\", \"name\": \"b\"}]}"))
                .isInstanceOf(ValidationException.class)
                .hasMessage("catalog is not valid JSON at line 1, column 33: duplicate key 'name'");
        assertThatThrownBy(() -> Catalog.fromJson(EXAMPLE + "\n{}"))
                .isInstanceOf(ValidationException.class)
                .hasMessage("catalog is not valid JSON at line 7, column 1: more JSON after the end of the catalog");
    }

    @Test
    void noSyntaxErrorShowsTheParsersInternals() {
        for (String json : new String[] {"{not json", "{\"tables\": [1,]}", "{'tables': []}", "{\"tables\": [] // c\n}",
                "{\"tables\": \"unterminated", "{\"tables\" []}", "{\"tables\": [],}", "{\"tables\": tru}",
                "{\"tables\": 01}", "{\"tables\": \"a\nb\"}", "{\"tables\": []} x", "[1 2]"}) {
            assertThatThrownBy(() -> Catalog.fromJson(json)).as(json).isInstanceOf(ValidationException.class)
                    .hasMessageMatching("catalog is not valid JSON at line \\d+, column \\d+: [a-z].*")
                    .message().doesNotContain("Source", "REDACTED", "Feature", "code ", "`", "JSON String", "valid value");
        }
    }

    @Test
    void aGraphIsNotCreatedFromACatalogWithNoTables(@TempDir Path tmp) throws IOException {
        Catalog none = Catalog.fromJson("{\"tables\": []}"); // still readable: a graph made so before still opens
        assertThatThrownBy(() -> Palisade.create(tmp.resolve("g"), none, Options.defaults()))
                .isInstanceOf(ValidationException.class)
                .hasMessage("the catalog declares no tables; a graph needs at least one");
        try (Stream<Path> left = Files.list(tmp)) {
            assertThat(left).as("nothing written, no staging directory either").isEmpty();
        }
    }

    @Test
    void theReadmesCatalogReferenceListsExactlyTheKeysTheParserKnowsAndItsExampleParses() throws IOException {
        String readme = Files.readString(Path.of("..", "README.md"));
        int start = readme.indexOf("\n## Catalog reference\n");
        assertThat(start).as("README.md has a \"Catalog reference\" section").isNotNegative();
        int end = readme.indexOf("\n## ", start + 1);
        String section = readme.substring(start, end < 0 ? readme.length() : end);
        Matcher example = Pattern.compile("```json\n(.*?)```", Pattern.DOTALL).matcher(section);
        assertThat(example.find()).as("the section has a JSON example").isTrue();
        assertThat(Catalog.fromJson(example.group(1)).tables()).as("the section's example parses").hasSize(3);
        Map<String, List<String>> documented = new LinkedHashMap<>();
        String level = null;
        for (String line : section.split("\n")) {
            if (line.startsWith("### ")) {
                level = line.substring(4);
                documented.put(level, new ArrayList<>());
            } else if (level != null && line.startsWith("| `")) {
                documented.get(level).add(line.substring(3, line.indexOf('`', 3)));
            }
        }
        assertThat(documented).as("README.md \"Catalog reference\": one table per level, one row per key").isEqualTo(Map.of(
                "The catalog object", Catalog.CATALOG_KEYS, "A table", Catalog.TABLE_KEYS,
                "A column", Catalog.COLUMN_KEYS, "A vector type", Catalog.VECTOR_KEYS));
    }
}
