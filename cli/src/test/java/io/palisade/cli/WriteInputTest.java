package io.palisade.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/** What {@code write} says about an input it cannot read: a clear invalid-input error, never an internal one. */
class WriteInputTest {
    @TempDir
    Path tmp;

    @Test
    void aWriteFromAMissingFileIsInvalidInputNamingTheFile() throws Exception {
        Path cat = tmp.resolve("catalog.json");
        Files.writeString(cat, """
                {"tables": [{"name": "person", "kind": "node", "columns": [{"name": "id", "type": "string"}]}]}
                """);
        String graph = tmp.resolve("g").toString();
        assertThat(CliRun.run("init", graph, "--catalog", cat.toString()).code()).isZero();
        String missing = tmp.resolve("missing.jsonl").toString();
        CliRun.Result r = CliRun.run("write", graph, "--table", "person", missing);
        assertThat(r.code()).as(r.toString()).isEqualTo(Main.INVALID_INPUT);
        assertThat(r.err()).contains("cannot read input file " + missing + " (no such file)")
                .doesNotContain("internal error").doesNotContain("Exception");
        CliRun.Result dir = CliRun.run("write", graph, "--table", "person", tmp.toString());
        assertThat(dir.code()).as(dir.toString()).isEqualTo(Main.INVALID_INPUT);
        assertThat(dir.err()).contains("(it is a directory)");
    }
}
