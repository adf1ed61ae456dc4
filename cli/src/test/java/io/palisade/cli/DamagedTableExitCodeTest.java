package io.palisade.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A published head whose files a power cut emptied is corruption: exit 7 naming the file, the version and
 * the intent that wrote it, from the reading tools, recovery and {@code audit verify} alike; never exit 5.
 */
class DamagedTableExitCodeTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String CATALOG = """
            {"tables": [{"name": "person", "kind": "node", "columns": [{"name": "id", "type": "string"},
              {"name": "age", "type": "int64", "nullable": true}]}]}""";

    @TempDir
    Path tmp;

    @Test
    void aZeroLengthPublishedManifestExitsSevenNamingTheFileTheVersionAndTheIntent() throws Exception {
        Path cat = tmp.resolve("catalog.json");
        Files.writeString(cat, CATALOG);
        String graph = tmp.resolve("g").toString();
        assertThat(CliRun.run("init", graph, "--catalog", cat.toString()).code()).isZero();
        Path rows = tmp.resolve("rows.jsonl");
        Files.writeString(rows, "{\"id\":\"alice\",\"age\":30}\n");
        CliRun.Result write = CliRun.run("write", graph, "--table", "person", "--mode", "insert", rows.toString());
        assertThat(write.code()).as(write.err()).isZero();
        JsonNode receipt = JSON.readTree(write.out().strip());
        String intent = receipt.get("intent").asText();
        long version = receipt.get("version").asLong();
        Path manifest = tmp.resolve("g/tables/person.lance/_versions").resolve(Long.toUnsignedString(~version) + ".manifest");
        assertThat(manifest).exists();
        assertThat(CliRun.run("audit", "verify", graph).code()).isZero();

        Files.write(manifest, new byte[0]); // the power cut

        CliRun.Result scan = CliRun.run("scan", graph, "--table", "person");
        assertThat(scan.code()).as(scan.err()).isEqualTo(7);
        assertThat(scan.err()).contains("palisade: table corrupted: ", "person", "version " + version, manifest.toString(),
                intent).doesNotContain("invalid input");

        CliRun.Result verify = CliRun.run("audit", "verify", graph);
        assertThat(verify.code()).as(verify.err()).isEqualTo(7);
        assertThat(verify.err()).contains("palisade: table corrupted: journal verified", manifest.toString(), "zero-length", intent);
        CliRun.Result verifyJson = CliRun.run("audit", "verify", graph, "--json");
        assertThat(verifyJson.code()).isEqualTo(7);
        JsonNode v = JSON.readTree(verifyJson.out().strip());
        assertThat(v.get("ok").asBoolean()).isTrue();
        assertThat(v.get("tables_ok").asBoolean()).isFalse();
        assertThat(v.get("damaged_tables").get(0).get("version").asLong()).isEqualTo(version);
        assertThat(v.get("damaged_tables").get(0).get("intents").get(0).asText()).isEqualTo(intent);

        CliRun.Result recover = CliRun.run("recover", graph, "--json");
        assertThat(recover.code()).as(recover.err()).isEqualTo(7);
        JsonNode error = JSON.readTree(recover.out().strip()).get("error");
        assertThat(error.get("code").asInt()).isEqualTo(7);
        assertThat(error.get("kind").asText()).isEqualTo("table_corrupted");
        assertThat(error.get("retryable").asBoolean()).isFalse();
        assertThat(error.get("table").asText()).isEqualTo("person");
        assertThat(error.get("graph_branch").asText()).isEqualTo("main");
        assertThat(error.get("version").asLong()).isEqualTo(version);
        assertThat(error.get("files").get(0).asText()).startsWith(manifest.toString());
        assertThat(error.get("intents").get(0).asText()).isEqualTo(intent);

        CliRun.Result write2 = CliRun.run("write", graph, "--table", "person", "--mode", "upsert", rows.toString());
        assertThat(write2.code()).as(write2.err()).isEqualTo(7);
        try (Stream<Path> s = Files.list(manifest.getParent())) {
            assertThat(s.filter(p -> p.toString().endsWith(".manifest")).count()).isEqualTo(version); // nothing written
        }
    }
}
