package io.palisade.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code palisade init} with a catalog the strict parser refuses: exit 5, the parser's words, no graph directory. */
class InitCatalogTest {
    @TempDir
    Path tmp;

    @Test
    void aRefusedCatalogIsAValidationErrorAndLeavesNoGraph() throws Exception {
        Map<String, String> refusals = Map.of(
                CliRun.CATALOG.replace("\"nullable\": true", "\"nulable\": true"),
                "table 'person', column 'age': unknown key \"nulable\"; known keys are name, type, nullable "
                        + "(did you mean nullable?)",
                "{\"tables\": [\n  {\"name\": x}]}",
                "catalog is not valid JSON at line 2, column 12: unrecognized token 'x'",
                "{\"tables\": []}",
                "the catalog declares no tables; a graph needs at least one");
        for (Map.Entry<String, String> r : refusals.entrySet()) {
            Path catalog = Files.writeString(tmp.resolve("catalog.json"), r.getKey());
            CliRun.Result init = CliRun.run("init", tmp.resolve("g").toString(), "--catalog", catalog.toString());
            assertThat(init.code()).as(init.toString()).isEqualTo(Main.INVALID_INPUT).isEqualTo(5);
            assertThat(init.err()).as(init.toString()).startsWith("palisade: validation: " + r.getValue())
                    .contains("(nothing written)");
            try (Stream<Path> left = Files.list(tmp)) {
                assertThat(left.map(p -> p.getFileName().toString())).as("no graph, no staging directory: " + init)
                        .containsOnly("catalog.json");
            }
        }
    }
}
