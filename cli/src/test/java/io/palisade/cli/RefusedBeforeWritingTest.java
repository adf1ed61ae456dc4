package io.palisade.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A command refused for what it asks (not for the state of a write it made) journals nothing: it is refused from the
 * files before it takes the writer lease, whose session would add a {@code writer_started} record and a segment.
 */
class RefusedBeforeWritingTest {
    @TempDir
    Path tmp;

    @Test
    void refusedBranchCommandsJournalNothingAndOpenNoSegment() throws Exception {
        Path cat = tmp.resolve("catalog.json");
        Files.writeString(cat, """
                {"tables": [{"name": "person", "kind": "node", "columns": [{"name": "id", "type": "string"}]}]}
                """);
        String graph = tmp.resolve("g").toString();
        assertThat(CliRun.run("init", graph, "--catalog", cat.toString()).code()).isZero();
        assertThat(CliRun.run("branch", graph, "create", "dev").code()).isZero();
        long end = end(graph);
        long segments = segments(graph);

        String[][] refused = {
                {"branch", graph, "delete", "main"},
                {"branch", graph, "delete", "nope"},
                {"branch", graph, "create", "dev"},
                {"branch", graph, "create", "x", "--from", "nope"},
                {"branch", graph, "create", "bad name"},
                {"branch", graph, "merge", "dev", "--into", "dev"},
                {"branch", graph, "merge", "main", "--into", "dev"},
                {"branch", graph, "merge", "nope", "--into", "main"},
        };
        for (String[] args : refused) {
            CliRun.Result r = CliRun.run(args);
            assertThat(r.code()).as(String.join(" ", args) + "\n" + r).isEqualTo(Main.INVALID_INPUT);
            assertThat(r.err()).as(String.join(" ", args)).contains("(nothing written)");
        }
        assertThat(end(graph)).as("records after the refused commands").isEqualTo(end);
        assertThat(segments(graph)).as("journal segments after the refused commands").isEqualTo(segments);
    }

    private static long end(String graph) {
        try (var r = Cli.reader(Path.of(graph))) {
            return r.endSequence();
        }
    }

    private static long segments(String graph) throws Exception {
        try (Stream<Path> s = Files.list(Path.of(graph, "_palisade", "journal"))) {
            return s.filter(p -> p.getFileName().toString().endsWith(".ready")).count();
        }
    }
}
