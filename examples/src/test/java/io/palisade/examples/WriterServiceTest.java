package io.palisade.examples;

import io.palisade.coordinator.Graph;
import io.palisade.coordinator.Options;
import io.palisade.coordinator.Palisade;
import io.palisade.coordinator.Row;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The example runs in the test command, and the README shows exactly its code. */
class WriterServiceTest {
    @TempDir
    Path dir;

    @Test
    void theExampleServiceRunsAndDoesWhatItSays() throws Exception {
        Path graph = dir.resolve("graph");
        PrintStream out = System.out;
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        System.setOut(new PrintStream(buf, true, StandardCharsets.UTF_8));
        try {
            WriterService.main(new String[]{graph.toString()});
        } finally {
            System.setOut(out);
        }
        List<String> lines = Arrays.asList(buf.toString(StandardCharsets.UTF_8).strip().split("\n"));
        assertThat(lines.stream().filter(l -> l.contains("inserted alice"))).hasSize(1);
        assertThat(lines.stream().filter(l -> l.contains(" lost: key conflict on table 'person'"))).hasSize(1);
        String age = lines.stream().filter(l -> l.startsWith("alice is ")).findFirst().orElseThrow().substring(9);
        assertThat(age).isIn("31", "32");
        assertThat(lines).contains("merged dev into main: 1 inserted, 1 updated");
        try (Graph g = Palisade.open(graph, Options.defaults())) {
            Map<String, Row> now = g.get("main", "person", List.of("alice", "bob"));
            assertThat(now.get("alice").int64("age")).isEqualTo(40L);
            assertThat(now.get("bob").int64("age")).isEqualTo(25L);
        }
    }

    @Test
    void theReadmeJavaSectionIsTheExampleVerbatim() throws Exception {
        String source = Files.readString(Path.of("src/main/java/io/palisade/examples/WriterService.java"));
        String fromImports = source.substring(source.indexOf("\nimport ") + 1).stripTrailing();
        String readme = Files.readString(Path.of("..", "README.md"));
        assertThat(readme).as("README.md's \"Use it from Java\" block must be WriterService.java from its imports on")
                .contains("```java\n" + fromImports + "\n```");
    }
}
