package io.palisade.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/** A journal-ack table through the CLI (docs/journal-ack.md): init, write, scan, heads, audit. */
class JournalAckCliTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path tmp;

    @Test
    void writesAreReadBackAndHeadsSaysWhatIsUnfolded() throws Exception {
        String graph = journalAckGraph();
        CliRun.Result w = CliRun.runWithInput("{\"id\":\"a\",\"age\":1}\n{\"id\":\"b\",\"age\":2}\n", "write", graph,
                "--table", "person", "--mode", "insert");
        assertThat(w.code()).as(w.toString()).isZero();
        // a strict insert of a key acknowledged from the journal is a key conflict (exit 3), and writes nothing
        CliRun.Result again = CliRun.runWithInput("{\"id\":\"a\",\"age\":9}\n", "write", graph, "--table", "person",
                "--mode", "insert");
        assertThat(again.code()).as(again.toString()).isEqualTo(Main.KEY_CONFLICT);

        CliRun.Result scan = CliRun.run("scan", graph, "--table", "person");
        assertThat(scan.code()).as(scan.toString()).isZero();
        assertThat(scan.out().strip().split("\n")).hasSize(2);
        assertThat(scan.out()).contains("\"id\":\"a\"").contains("\"age\":1").contains("\"id\":\"b\"");

        JsonNode heads = JSON.readTree(CliRun.run("heads", graph, "--json").out());
        JsonNode person = heads.get(0);
        assertThat(person.get("ack").asText()).isEqualTo("journal");
        // the write command's graph closed after the write: closing folds, so nothing is left unfolded
        assertThat(person.get("unfolded").asLong()).isZero();
        assertThat(person.get("folded_through").asLong()).isPositive();
        assertThat(person.get("fold_lag_ms").asLong()).isZero();

        CliRun.Result audit = CliRun.run("audit", graph, "--type", "write_journaled", "--format", "jsonl");
        assertThat(audit.code()).as(audit.toString()).isZero();
        assertThat(audit.out().strip().split("\n")).hasSize(1); // the write, its rows and its acknowledgement: one record
        JsonNode written = JSON.readTree(audit.out().strip());
        assertThat(written.get("row_count").asInt()).isEqualTo(2);
        assertThat(written.get("operation").asText()).isIn("insert", "upsert");
        assertThat(written.get("key_filter").get("keys")).hasSize(2);
        assertThat(CliRun.run("audit", graph, "--type", "rows_recorded,intent_completed", "--format", "jsonl").out())
                .doesNotContain("JOURNALED").doesNotContain("rows_recorded");
        assertThat(CliRun.run("audit", graph, "--type", "fold_planned", "--format", "jsonl").out()).contains("\"writes\":1");

        // explain shows the acknowledgement and the fold as separate steps of the write
        String intent = written.get("intent_id").asText();
        CliRun.Result explain = CliRun.run("explain", graph, intent);
        assertThat(explain.code()).as(explain.toString()).isZero();
        assertThat(explain.out()).contains("rows journaled: 2 row(s)").contains("acknowledged from the journal (JOURNALED)")
                .contains("fold planned").contains("folded into the table").contains("outcome: JOURNALED, folded");
        assertThat(explain.out().indexOf("acknowledged from the journal")).isLessThan(explain.out().indexOf("folded into"));
    }

    @Test
    void headsAsOfAPointBetweenAnAcknowledgementAndItsFoldSaysTheLagIsUnknown() throws Exception {
        String graph = journalAckGraph();
        CliRun.Result w = CliRun.runWithInput("{\"id\":\"a\",\"age\":1}\n", "write", graph, "--table", "person",
                "--mode", "upsert");
        assertThat(w.code()).as(w.toString()).isZero();
        long acked = JSON.readTree(w.out()).get("seq").asLong(); // the acknowledgement; the fold comes after it
        for (String format : new String[] {"table", "json"}) {
            CliRun.Result at = CliRun.run("heads", graph, "--at", Long.toString(acked), "--format", format);
            assertThat(at.code()).as(at.toString()).isZero();
            assertThat(at.err()).doesNotContain("internal error");
            if (format.equals("json")) {
                JsonNode person = JSON.readTree(at.out()).get(0);
                assertThat(person.get("unfolded").asLong()).isEqualTo(1);
                assertThat(person.get("fold_lag_ms").isNull()).isTrue();
            }
        }
    }

    /** A new graph whose one table, {@code person} ({@code id}, nullable {@code age}), is journal-ack. */
    private String journalAckGraph() throws Exception {
        Path cat = tmp.resolve("catalog.json");
        Files.writeString(cat, """
                {"tables": [{"name": "person", "kind": "node", "ack": "journal", "columns": [{"name": "id", "type": "string"},
                  {"name": "age", "type": "int64", "nullable": true}]}]}
                """);
        String graph = tmp.resolve("g").toString();
        assertThat(CliRun.run("init", graph, "--catalog", cat.toString()).code()).isZero();
        return graph;
    }
}
