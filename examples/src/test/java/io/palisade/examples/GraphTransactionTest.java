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

/** The transaction example runs in the test command, and the README shows exactly its code. */
class GraphTransactionTest {
    @TempDir
    Path dir;

    @Test
    void theExampleCommitsTogetherRefusesWholeAndDeletesTogether() throws Exception {
        PrintStream out = System.out;
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        System.setOut(new PrintStream(buf, true, StandardCharsets.UTF_8));
        try {
            GraphTransaction.main(new String[]{dir.resolve("graph").toString()});
        } finally {
            System.setOut(out);
        }
        List<String> lines = Arrays.asList(buf.toString(StandardCharsets.UTF_8).strip().split("\n"));
        assertThat(lines).hasSize(3);
        assertThat(lines.get(0)).matches("committed 3 parts at seq \\d+");
        assertThat(lines.get(1)).isEqualTo("refused: company already holds [acme]");
        assertThat(lines.get(2)).isEqualTo("people now: 0, companies: 1");
    }

    @Test
    void theReadmeShowsTheExampleVerbatim() throws Exception {
        String source = Files.readString(Path.of("src/main/java/io/palisade/examples/GraphTransaction.java"));
        String body = source.substring(source.indexOf("        Catalog catalog = "), source.indexOf("\n    }\n}")).stripTrailing();
        String readme = Files.readString(Path.of("..", "README.md"));
        assertThat(readme).as("README.md's \"Graph transactions\" block must be GraphTransaction.main's body")
                .contains("```java\n" + body.stripIndent() + "\n```");
    }
}
