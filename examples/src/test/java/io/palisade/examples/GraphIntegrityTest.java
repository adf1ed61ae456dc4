package io.palisade.examples;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The integrity example runs in the test command, and the README shows exactly its code. */
class GraphIntegrityTest {
    @TempDir
    Path dir;

    @Test
    void theExampleRefusesTheThreeBrokenWritesAndDeletesInOrder() throws Exception {
        PrintStream out = System.out;
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        System.setOut(new PrintStream(buf, true, StandardCharsets.UTF_8));
        try {
            GraphIntegrity.main(new String[]{dir.resolve("graph").toString()});
        } finally {
            System.setOut(out);
        }
        List<String> lines = Arrays.asList(buf.toString(StandardCharsets.UTF_8).strip().split("\n"));
        assertThat(lines).hasSize(4);
        assertThat(lines.get(0)).startsWith("refused: endpoint conflict: table 'works_at'").contains("[bob]");
        assertThat(lines.get(1)).isEqualTo("refused: email alice@example.com is held by alice");
        assertThat(lines.get(2)).isEqualTo("refused: alice still has edges [works_at/w1 (src)]");
        assertThat(lines.get(3)).isEqualTo("people now: 0");
    }

    @Test
    void theReadmeShowsTheExampleVerbatim() throws Exception {
        String source = Files.readString(Path.of("src/main/java/io/palisade/examples/GraphIntegrity.java"));
        String body = source.substring(source.indexOf("        Catalog catalog = "), source.indexOf("\n    }\n}")).stripTrailing();
        String readme = Files.readString(Path.of("..", "README.md"));
        assertThat(readme).as("README.md's \"Edges and unique columns\" block must be GraphIntegrity.main's body")
                .contains("```java\n" + body.stripIndent() + "\n```");
    }
}
