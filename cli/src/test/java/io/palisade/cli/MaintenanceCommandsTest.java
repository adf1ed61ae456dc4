package io.palisade.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.palisade.coordinator.Graph;
import io.palisade.coordinator.Options;
import io.palisade.coordinator.Palisade;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code compact} and {@code optimize}: each runs the coordinator's journaled maintenance under the writer lease and
 * says per table what it did (versions before and after, committed or no-op with the journaled reason, fragments);
 * a branch's inherited table is skipped without --table and refused with it; an unknown table or branch is a usage
 * error; a held lease is exit 6.
 */
class MaintenanceCommandsTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path tmp;

    private static JsonNode only(CliRun.Result r) throws Exception {
        assertThat(r.code()).as(r.toString()).isZero();
        JsonNode all = JSON.readTree(r.out());
        assertThat(all.isArray()).as(r.toString()).isTrue();
        assertThat(all).as(r.toString()).hasSize(1);
        return all.get(0);
    }

    /** The operation the journal recorded for {@code intent}. */
    private static String operation(String graph, String intent) throws Exception {
        CliRun.Result a = CliRun.run("audit", graph, "--type", "intent_recorded", "--intent", intent);
        assertThat(a.code()).as(a.toString()).isZero();
        return JSON.readTree(a.out().strip()).get("operation").asText();
    }

    @Test
    void compactRewritesSmallFragmentsAsAJournaledIntentThenFindsNothingToDo() throws Exception {
        String graph = CliRun.graph(tmp, 4);
        JsonNode c = only(CliRun.run("compact", graph, "--json"));
        assertThat(c.get("table").asText()).isEqualTo("person");
        assertThat(c.get("branch").asText()).isEqualTo("main");
        assertThat(c.get("result").asText()).isEqualTo("committed");
        assertThat(c.get("version_after").asLong()).isGreaterThan(c.get("version_before").asLong());
        assertThat(c.get("fragments_before").asInt()).isEqualTo(4);
        assertThat(c.get("fragments_after").asInt()).isEqualTo(1);
        assertThat(c.get("live_rows").asLong()).isEqualTo(4);
        assertThat(c.get("reason").isNull()).isTrue();
        assertThat(operation(graph, c.get("intent").asText())).isEqualTo("compaction");
        assertThat(CliRun.run("scan", graph, "--table", "person").out().strip().lines()).hasSize(4);

        CliRun.Result again = CliRun.run("compact", graph, "--table", "person");
        assertThat(again.code()).as(again.toString()).isZero();
        assertThat(again.out().lines().findFirst().orElseThrow())
                .startsWith("branch").contains("version_before", "version_after", "result", "fragments_after");
        assertThat(again.out()).contains(" no-op ").contains("no-op: nothing to compact");
        JsonNode noOp = only(CliRun.run("compact", graph, "--format", "json"));
        assertThat(noOp.get("result").asText()).isEqualTo("no-op");
        assertThat(noOp.get("version_after").asLong()).isEqualTo(noOp.get("version_before").asLong())
                .isEqualTo(c.get("version_after").asLong());
        assertThat(noOp.get("reason").asText()).startsWith("no-op: nothing to compact");
    }

    @Test
    void optimizeBringsTheIndexUpToDateThenFindsItCoversEveryFragment() throws Exception {
        String graph = CliRun.graph(tmp, 3);
        CliRun.Result first = CliRun.run("optimize", graph, "--format", "jsonl");
        assertThat(first.code()).as(first.toString()).isZero();
        assertThat(first.out().strip().lines()).hasSize(1);
        JsonNode o = JSON.readTree(first.out());
        assertThat(o.get("result").asText()).isEqualTo("committed");
        assertThat(o.get("version_after").asLong()).isGreaterThan(o.get("version_before").asLong());
        assertThat(o.get("fragments").asInt()).isEqualTo(3);
        assertThat(operation(graph, o.get("intent").asText())).isEqualTo("index_maintenance");

        JsonNode again = only(CliRun.run("optimize", graph, "--table", "person", "--json"));
        assertThat(again.get("result").asText()).isEqualTo("no-op");
        assertThat(again.get("index_before").asText()).isEqualTo("present");
        assertThat(again.get("version_after").asLong()).isEqualTo(o.get("version_after").asLong());
        assertThat(again.get("reason").asText()).startsWith("no-op: the index covers every fragment");
    }

    @Test
    void aTableTheBranchInheritsIsSkippedWithoutTableAndRefusedWithIt() throws Exception {
        String graph = CliRun.graph(tmp, 2);
        assertThat(CliRun.run("branch", graph, "create", "dev").code()).isZero();
        for (String command : new String[] {"compact", "optimize"}) {
            JsonNode skipped = only(CliRun.run(command, graph, "--branch", "dev", "--json"));
            assertThat(skipped.get("result").asText()).as(command).isEqualTo("skipped");
            assertThat(skipped.get("reason").asText()).as(command).startsWith("inherited unchanged from branch 'main'");
            assertThat(skipped.get("seq").isNull()).as(command).isTrue();
            CliRun.Result named = CliRun.run(command, graph, "--branch", "dev", "--table", "person");
            assertThat(named.code()).as(named.toString()).isEqualTo(Main.INVALID_INPUT);
            assertThat(named.err()).as(named.toString()).contains("palisade: validation: graph branch 'dev' inherits")
                    .doesNotContain("Exception");
        }
    }

    @Test
    void aJournalAckTableIsCompactedByAWholeBranchCompaction() throws Exception {
        Path cat = tmp.resolve("catalog.json");
        Files.createDirectories(tmp);
        Files.writeString(cat, """
                {"tables": [{"name": "person", "kind": "node", "ack": "journal", "columns": [{"name": "id", "type": "string"}]},
                  {"name": "city", "kind": "node", "columns": [{"name": "id", "type": "string"}]}]}
                """);
        String graph = tmp.resolve("g").toString();
        assertThat(CliRun.run("init", graph, "--catalog", cat.toString()).code()).isZero();
        for (String id : new String[] {"a", "b", "c", "d", "e"}) { // each command's close folds its write: a fragment each
            assertThat(CliRun.runWithInput("{\"id\":\"" + id + "\"}\n", "write", graph, "--table", "person").code()).isZero();
        }
        CliRun.Result r = CliRun.run("compact", graph, "--format", "jsonl");
        assertThat(r.code()).as(r.toString()).isZero();
        JsonNode person = null;
        for (String line : r.out().strip().split("\n")) {
            JsonNode n = JSON.readTree(line);
            if (n.get("table").asText().equals("person")) {
                person = n;
            }
        }
        assertThat(person).as(r.toString()).isNotNull();
        assertThat(person.get("result").asText()).as(r.toString()).isEqualTo("committed");
        assertThat(person.get("fragments_after").asInt()).as(r.toString()).isLessThan(person.get("fragments_before").asInt());
        assertThat(r.out()).contains("\"table\":\"city\"");
        CliRun.Result scan = CliRun.run("scan", graph, "--table", "person", "--format", "jsonl");
        assertThat(scan.out().strip().split("\n")).as(scan.toString()).hasSize(5);
    }

    @Test
    void anUnknownTableOrBranchIsAUsageErrorNamingTheKnownOnes() throws Exception {
        String graph = CliRun.graph(tmp, 1);
        for (String command : new String[] {"compact", "optimize"}) {
            CliRun.Result t = CliRun.run(command, graph, "--table", "persn");
            assertThat(t.code()).as(t.toString()).isEqualTo(Main.USAGE);
            assertThat(t.err()).contains("--table 'persn'").contains("its tables are person");
            CliRun.Result b = CliRun.run(command, graph, "--branch", "mian");
            assertThat(b.code()).as(b.toString()).isEqualTo(Main.USAGE);
            assertThat(b.err()).contains("--branch 'mian': no such graph branch").contains("did you mean main?");
        }
    }

    @Test
    void anotherWriterHoldingTheLeaseIsExitSix() throws Exception {
        String graph = CliRun.graph(tmp, 1);
        try (Graph held = Palisade.open(Path.of(graph), Options.defaults())) {
            for (String command : new String[] {"compact", "optimize"}) {
                CliRun.Result r = CliRun.run(command, graph, "--json");
                assertThat(r.code()).as(r.toString()).isEqualTo(Main.REFUSED);
                assertThat(r.err()).contains("palisade: graph refused: ").contains("held by another writer");
                assertThat(JSON.readTree(r.out().strip()).get("error").get("kind").asText()).isEqualTo("graph_refused");
            }
        }
    }
}
