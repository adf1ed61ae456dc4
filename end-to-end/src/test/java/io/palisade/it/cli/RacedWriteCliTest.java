package io.palisade.it.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Foreign commits through the real launcher: a write that races a foreign Lance commit (injected with
 * {@code -Dpalisade.fault.substrate-commit=foreign-commit}) exits 8, is not acknowledged (no receipt), says so
 * in one line without a stack trace, and the graph is refused — exit 8 again — until an operator adopts.
 */
class RacedWriteCliTest {
    @TempDir
    Path tmp;

    @Test
    void aWriteThatRacesAForeignCommitExitsEightWithoutAReceiptAndTheGraphStaysRefused() throws Exception {
        Path cat = tmp.resolve("catalog.json");
        Files.writeString(cat, CliEndToEndTest.CATALOG);
        String graph = tmp.resolve("g").toString();
        assertThat(Launcher.run("init", graph, "--catalog", cat.toString()).code()).isZero();
        assertThat(Launcher.withInput("{\"id\":\"alice\",\"age\":30}\n", "write", graph, "--table", "person").code()).isZero();

        Launcher.Result raced = Launcher.withInputAndJavaOpts("-Dpalisade.fault.substrate-commit=foreign-commit",
                "{\"id\":\"bob\",\"age\":40}\n", "write", graph, "--table", "person", "--mode", "upsert");
        assertThat(raced.code()).as(raced.toString()).isEqualTo(8);
        assertThat(raced.out()).as("no receipt").isBlank();
        assertThat(raced.err().strip().split("\n")).hasSize(1);
        assertThat(raced.err()).contains("palisade: foreign commit: write not").contains("table 'person'")
                .contains("--adopt-foreign").doesNotContain("\tat ").doesNotContain("TableRef[");

        Launcher.Result refused = Launcher.withInput("{\"id\":\"carol\"}\n", "write", graph, "--table", "person");
        assertThat(refused.code()).as(refused.toString()).isEqualTo(8);
        assertThat(refused.err()).contains("foreign commit").contains("--adopt-foreign");
        Launcher.Result json = Launcher.run("recover", graph, "--json");
        assertThat(json.code()).as(json.toString()).isEqualTo(8);
        Launcher.Result explain = Launcher.run("explain", graph, "--key", "bob");
        assertThat(explain.code()).as(explain.toString()).isZero();
        assertThat(explain.out()).contains("FOREIGN_COMMIT");
    }
}
