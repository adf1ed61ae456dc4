package io.palisade.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/** Edge endpoints and unique columns through the CLI (docs/integrity.md): conflicts exit 3 and write nothing. */
class IntegrityCliTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path tmp;

    private String graph() throws Exception {
        Path cat = tmp.resolve("catalog.json");
        Files.writeString(cat, """
                {"tables": [
                  {"name": "person", "kind": "node", "unique": ["email"], "columns": [{"name": "id", "type": "string"},
                    {"name": "email", "type": "string", "nullable": true}]},
                  {"name": "works_with", "kind": "edge", "ack": "journal", "src": "person", "dst": "person", "columns": [
                    {"name": "id", "type": "string"}, {"name": "src", "type": "string"}, {"name": "dst", "type": "string"}]}]}
                """);
        String graph = tmp.resolve("g").toString();
        CliRun.Result init = CliRun.run("init", graph, "--catalog", cat.toString());
        assertThat(init.code()).as(init.toString()).isZero();
        return graph;
    }

    private static long rows(String graph, String table) {
        String out = CliRun.run("scan", graph, "--table", table).out().strip();
        return out.isEmpty() ? 0 : out.split("\n").length;
    }

    @Test
    void aDanglingEdgeAUniqueValueTakenTwiceAndANodeWithEdgesExitWithTheConflictCodeAndWriteNothing() throws Exception {
        String graph = graph();
        CliRun.Result people = CliRun.runWithInput("{\"id\":\"a\",\"email\":\"a@x\"}\n{\"id\":\"b\"}\n", "write", graph,
                "--table", "person", "--mode", "insert");
        assertThat(people.code()).as(people.toString()).isZero();

        CliRun.Result dangling = CliRun.runWithInput("{\"id\":\"e1\",\"src\":\"a\",\"dst\":\"b\"}\n"
                + "{\"id\":\"e2\",\"src\":\"a\",\"dst\":\"zed\"}\n", "write", graph, "--table", "works_with", "--mode", "insert");
        assertThat(dangling.code()).as(dangling.toString()).isEqualTo(Main.KEY_CONFLICT);
        assertThat(dangling.err()).contains("palisade: endpoint conflict: table").contains("[zed]").contains("works_with/e2")
                .doesNotContain("Exception").doesNotContain("\tat ");
        assertThat(rows(graph, "works_with")).isZero();

        CliRun.Result taken = CliRun.runWithInput("{\"id\":\"b\",\"email\":\"a@x\"}\n", "write", graph,
                "--table", "person", "--mode", "upsert", "--json");
        assertThat(taken.code()).as(taken.toString()).isEqualTo(Main.KEY_CONFLICT);
        JsonNode error = JSON.readTree(taken.out().isBlank() ? taken.err() : taken.out());
        assertThat(error.toString()).contains("unique_conflict").contains("a@x");

        CliRun.Result edge = CliRun.runWithInput("{\"id\":\"e1\",\"src\":\"a\",\"dst\":\"b\"}\n", "write", graph,
                "--table", "works_with", "--mode", "insert");
        assertThat(edge.code()).as(edge.toString()).isZero();
        CliRun.Result delete = CliRun.runWithInput("{\"id\":\"b\"}\n", "write", graph, "--table", "person", "--mode", "delete");
        assertThat(delete.code()).as(delete.toString()).isEqualTo(Main.KEY_CONFLICT);
        assertThat(delete.err()).contains("works_with/e1 (dst)");
        assertThat(rows(graph, "person")).isEqualTo(2);
        assertThat(rows(graph, "works_with")).isEqualTo(1);

        // the journal explains each refusal as a conflict
        CliRun.Result audit = CliRun.run("audit", graph, "--type", "intent_completed", "--format", "jsonl");
        assertThat(audit.out().lines().filter(l -> l.contains("INTEGRITY_CONFLICT")).count()).isEqualTo(3);
    }
}
