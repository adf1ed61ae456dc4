package io.palisade.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A catalog.json edited by hand is corruption: {@code audit verify}, the read-only commands that load the catalog and
 * the writer's open exit 7 naming the difference; the journal's {@code catalog_recorded} is shown in plain words.
 */
class CatalogCorruptedExitCodeTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String CATALOG = """
            {"tables": [{"name": "person", "kind": "node", "columns": [{"name": "id", "type": "string"},
              {"name": "age", "type": "int64", "nullable": true}]},
             {"name": "works_at", "kind": "edge", "columns": [{"name": "id", "type": "string"},
              {"name": "src", "type": "string"}, {"name": "dst", "type": "string"}]}]}""";

    @TempDir
    Path tmp;

    @Test
    void anEdgeTableEditedIntoANodeTableExitsSevenNamingTheDifference() throws Exception {
        Path cat = tmp.resolve("catalog.json");
        Files.writeString(cat, CATALOG);
        String graph = tmp.resolve("g").toString();
        assertThat(CliRun.run("init", graph, "--catalog", cat.toString()).code()).isZero();
        CliRun.Result ok = CliRun.run("audit", "verify", graph);
        assertThat(ok.code()).as(ok.err()).isZero();
        assertThat(ok.out()).contains("catalog verified: catalog.json is the catalog the journal recorded at seq 1");
        CliRun.Result audit = CliRun.run("audit", graph, "--type", "catalog_recorded", "--format", "table");
        assertThat(audit.code()).as(audit.err()).isZero();
        assertThat(audit.out()).contains("catalog_recorded", "reason=graph created",
                "tables=person:node(2 columns),works_at:edge(3 columns)");

        Path stored = tmp.resolve("g/_palisade/catalog.json");
        String text = Files.readString(stored);
        Files.writeString(stored, text.replace("\"kind\" : \"edge\"", "\"kind\" : \"node\""));

        CliRun.Result verify = CliRun.run("audit", "verify", graph);
        assertThat(verify.code()).as(verify.err()).isEqualTo(7);
        assertThat(verify.err()).startsWith("palisade: catalog corrupted: journal verified, but catalog ")
                .contains("table 'works_at': kind is node, the journal recorded edge", "at sequence 1")
                .doesNotContain("\tat ", "Exception");
        CliRun.Result verifyJson = CliRun.run("audit", "verify", graph, "--json");
        assertThat(verifyJson.code()).isEqualTo(7);
        JsonNode v = JSON.readTree(verifyJson.out().strip().split("\n")[0]);
        assertThat(v.get("ok").asBoolean()).isTrue();
        assertThat(v.get("catalog_ok").asBoolean()).isFalse();
        assertThat(v.get("catalog_recorded_at_seq").asLong()).isEqualTo(1);
        assertThat(v.get("catalog_differences").get(0).asText())
                .isEqualTo("table 'works_at': kind is node, the journal recorded edge");

        CliRun.Result scan = CliRun.run("scan", graph, "--table", "person");
        assertThat(scan.code()).as(scan.err()).isEqualTo(7);
        assertThat(scan.err()).contains("palisade: catalog corrupted: ", "table 'works_at': kind is node");

        Path rows = tmp.resolve("rows.jsonl");
        Files.writeString(rows, "{\"id\":\"alice\",\"age\":30}\n");
        CliRun.Result write = CliRun.run("write", graph, "--table", "person", "--mode", "insert", rows.toString(), "--json");
        assertThat(write.code()).as(write.err()).isEqualTo(7);
        JsonNode error = JSON.readTree(write.out().strip()).get("error");
        assertThat(error.get("kind").asText()).isEqualTo("catalog_corrupted");
        assertThat(error.get("recorded_at_seq").asLong()).isEqualTo(1);
        assertThat(error.get("differences").get(0).asText())
                .isEqualTo("table 'works_at': kind is node, the journal recorded edge");

        Files.writeString(stored, text); // the edit undone
        assertThat(CliRun.run("audit", "verify", graph).code()).isZero();
        assertThat(CliRun.run("write", graph, "--table", "person", "--mode", "insert", rows.toString()).code()).isZero();
    }

    @Test
    void explainShowsTheCatalogAnAddColumnsWriteRecorded() throws Exception {
        Path cat = tmp.resolve("catalog.json");
        Files.writeString(cat, CATALOG);
        Path graph = tmp.resolve("g");
        assertThat(CliRun.run("init", graph.toString(), "--catalog", cat.toString()).code()).isZero();
        String intent;
        try (io.palisade.coordinator.Graph g = io.palisade.coordinator.Palisade.open(graph,
                io.palisade.coordinator.Options.defaults())) {
            intent = g.addColumns("person", java.util.List.of(new io.palisade.coordinator.Catalog.ColumnDef("email",
                    io.palisade.coordinator.Catalog.ColumnType.Scalar.STRING, true))).intent();
        }
        CliRun.Result explain = CliRun.run("explain", graph.toString(), intent);
        assertThat(explain.code()).as(explain.err()).isZero();
        assertThat(explain.out()).contains("catalog recorded: columns added to table 'person': email (SHA-256 ");
        CliRun.Result verify = CliRun.run("audit", "verify", graph.toString());
        assertThat(verify.code()).as(verify.err()).isZero();
        CliRun.Result scan = CliRun.run("scan", graph.toString(), "--table", "person");
        assertThat(scan.code()).as(scan.err()).isZero();
    }
}
