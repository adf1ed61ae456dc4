package io.palisade.it.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.palisade.substrate.lance.ForeignLanceWriter;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static io.palisade.it.cli.Launcher.run;
import static io.palisade.it.cli.Launcher.withInput;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Foreign commits through the real launcher: a raw Lance client appends a duplicate id behind the graph's back; the
 * read-only tools warn about it without the lease, writes and recovery exit 8 with a JSON error, and the
 * refused adoption names the duplicated key.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ForeignCommitCliTest {
    static final String CATALOG = """
            {"tables": [{"name": "person", "kind": "node", "columns": [{"name": "id", "type": "string"},
              {"name": "age", "type": "int64", "nullable": true}]}]}""";
    static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    static Path tmp;
    String graph;
    long head;
    long foreign;

    @BeforeAll
    void init() throws Exception {
        Path cat = tmp.resolve("catalog.json");
        Files.writeString(cat, CATALOG);
        graph = tmp.resolve("g").toString();
        assertThat(run("init", graph, "--catalog", cat.toString()).code()).isZero();
        Launcher.Result w = withInput("{\"id\": \"alice\", \"age\": 30}\n{\"id\": \"bob\", \"age\": 40}\n",
                "write", graph, "--table", "person", "--mode", "insert");
        assertThat(w.code()).as(w.toString()).isZero();
        head = JSON.readTree(w.out()).get("version").asLong();
    }

    @Test
    @Order(1)
    void readOnlyToolsSayNothingWhileEveryVersionIsExplained() throws Exception {
        Launcher.Result h = run("heads", graph, "--json");
        assertThat(h.code()).as(h.toString()).isZero();
        assertThat(h.err()).doesNotContain("warning");
        assertThat(JSON.readTree(h.out()).get(0).get("foreign_versions")).isEmpty();
    }

    @Test
    @Order(2)
    void readOnlyToolsWarnOnStderrAndReportForeignVersionsInJson() throws Exception {
        try (ForeignLanceWriter w = new ForeignLanceWriter(Path.of(graph), "person")) {
            foreign = w.append("alice", 99L);
        }
        assertThat(foreign).isEqualTo(head + 1);
        String warning = "palisade: warning: table 'person' (graph branch 'main', table branch 'main') has foreign "
                + "version " + foreign + " above the journal's head version " + head;

        Launcher.Result h = run("heads", graph, "--json");
        assertThat(h.code()).as(h.toString()).isZero();
        assertThat(warningLines(h.err())).singleElement().asString().startsWith(warning);
        JsonNode entry = JSON.readTree(h.out()).get(0);
        assertThat(entry.get("version").asLong()).isEqualTo(head);
        assertThat(entry.get("foreign_versions")).extracting(JsonNode::asLong).containsExactly(foreign);

        Launcher.Result s = run("scan", graph, "--table", "person");
        assertThat(s.code()).as(s.toString()).isZero();
        assertThat(warningLines(s.err())).singleElement().asString().startsWith(warning);
        assertThat(s.out().strip().split("\n")).hasSize(2); // the head's rows: alice once, bob

        Launcher.Result v = run("audit", "verify", graph, "--json");
        assertThat(v.code()).as(v.toString()).isZero();
        assertThat(warningLines(v.err())).singleElement().asString().startsWith(warning);
        JsonNode f = JSON.readTree(v.out()).get("foreign_versions").get(0);
        assertThat(f.get("table").asText()).isEqualTo("person");
        assertThat(f.get("graph_branch").asText()).isEqualTo("main");
        assertThat(f.get("table_branch").asText()).isEqualTo("main");
        assertThat(f.get("journal_version").asLong()).isEqualTo(head);
        assertThat(f.get("versions")).extracting(JsonNode::asLong).containsExactly(foreign);
    }

    @Test
    @Order(3)
    void aWriteAndRecoverExitEightAndRecoverJsonPrintsTheError() throws Exception {
        Launcher.Result w = withInput("{\"id\": \"carol\"}\n", "write", graph, "--table", "person", "--mode", "insert");
        assertThat(w.code()).as(w.toString()).isEqualTo(8);
        assertThat(w.err()).contains("table 'person'").contains("version " + foreign);

        Launcher.Result r = run("recover", graph, "--json");
        assertThat(r.code()).as(r.toString()).isEqualTo(8);
        JsonNode err = JSON.readTree(r.out()).get("error");
        assertThat(err.get("code").asInt()).isEqualTo(8);
        assertThat(err.get("situation").asText()).isEqualTo("pending");
        assertThat(err.get("foreign_versions")).extracting(JsonNode::asLong).containsExactly(foreign);
        assertThat(r.err().strip().split("\n")).hasSize(1);
        assertThat(r.err()).startsWith("palisade: foreign commit: ").doesNotContain("foreign commit: foreign commit")
                .doesNotContain("Palisade.open").doesNotContain("[ref=");
    }

    @Test
    @Order(4)
    void aRefusedAdoptionExitsEightNamingTheDuplicatedKeyAndPublishesNothing() throws Exception {
        long end = JSON.readTree(run("audit", "verify", graph, "--json").out()).get("end_sequence").asLong();
        Launcher.Result r = run("recover", graph, "--adopt-foreign", "--json");
        assertThat(r.code()).as(r.toString()).isEqualTo(8);
        JsonNode err = JSON.readTree(r.out()).get("error");
        assertThat(err.get("situation").asText()).isEqualTo("adoption_refused");
        assertThat(err.get("duplicate_keys")).extracting(JsonNode::asText).containsExactly("alice");
        assertThat(err.get("message").asText()).contains("'alice' (2 rows)").contains("Nothing was published");
        assertThat(r.err()).doesNotContain("Palisade.open").doesNotContain("[ref=").doesNotContain("VersionInfo");
        // nothing but the refused session's WriterStarted was journaled; the head did not move
        assertThat(JSON.readTree(run("audit", "verify", graph, "--json").out()).get("end_sequence").asLong())
                .isEqualTo(end + 1);
        assertThat(JSON.readTree(run("heads", graph, "--json").out()).get(0).get("version").asLong()).isEqualTo(head);
    }

    @Test
    @Order(5)
    void theRepairAdoptsRemovesTheExtraRowTellsTheStoryAndTheGraphTakesWritesAgain() throws Exception {
        Launcher.Result r = run("repair", graph, "--table", "person", "--duplicates", "keep-newest", "--json");
        assertThat(r.code()).as(r.toString()).isZero();
        JsonNode rep = JSON.readTree(r.out());
        assertThat(rep.get("status").asText()).as(r.out()).isEqualTo("repaired");
        assertThat(rep.get("duplicated_keys").asLong()).isEqualTo(1);
        assertThat(rep.get("removed_rows")).hasSize(1);
        assertThat(rep.get("removed_rows").get(0).get("key").asText()).isEqualTo("alice");
        assertThat(rep.get("adopted_versions")).isNotEmpty();
        // the removed row's story is in the journal
        Launcher.Result ex = run("explain", graph, "--key", "alice");
        assertThat(ex.code()).as(ex.toString()).isZero();
        assertThat(ex.out()).containsIgnoringCase("removed").contains("alice");
        // one alice, the graph opens and takes writes; nothing foreign pending
        List<String> alices = new ArrayList<>();
        for (String l : run("scan", graph, "--table", "person").out().split("\n")) {
            if (!l.isBlank() && JSON.readTree(l).get("id").asText().equals("alice")) {
                alices.add(l);
            }
        }
        assertThat(alices).hasSize(1);
        Launcher.Result w = withInput("{\"id\": \"carol\", \"age\": 5}\n", "write", graph, "--table", "person");
        assertThat(w.code()).as(w.toString()).isZero();
        Launcher.Result h = run("heads", graph, "--json");
        assertThat(h.err()).doesNotContain("warning");
        assertThat(JSON.readTree(h.out()).get(0).get("foreign_versions")).isEmpty();
    }

    private static List<String> warningLines(String err) {
        List<String> out = new ArrayList<>();
        for (String l : err.split("\n")) {
            if (l.startsWith("palisade: warning:")) {
                out.add(l);
            }
        }
        return out;
    }
}
