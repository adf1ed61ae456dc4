package io.palisade.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** Graph transactions through {@code palisade write --transaction} (docs/transactions.md). */
class TransactionCliTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path tmp;

    private String graph() throws Exception {
        Path cat = tmp.resolve("catalog.json");
        Files.writeString(cat, """
                {"tables": [
                  {"name": "person", "kind": "node", "unique": ["email"], "columns": [{"name": "id", "type": "string"},
                    {"name": "email", "type": "string", "nullable": true}]},
                  {"name": "company", "kind": "node", "ack": "journal", "columns": [{"name": "id", "type": "string"}]},
                  {"name": "works_at", "kind": "edge", "ack": "journal", "src": "person", "dst": "company", "columns": [
                    {"name": "id", "type": "string"}, {"name": "src", "type": "string"}, {"name": "dst", "type": "string"}]}]}
                """);
        String graph = tmp.resolve("g").toString();
        CliRun.Result init = CliRun.run("init", graph, "--catalog", cat.toString());
        assertThat(init.code()).as(init.toString()).isZero();
        return graph;
    }

    private static long rows(String graph, String table) {
        String out = CliRun.run("scan", graph, "--table", table).out().strip();
        return out.isEmpty() ? 0 : out.split("\n").length;
    }

    private static final String HIRE = """
            {"table": "person", "op": "insert", "row": {"id": "alice", "email": "a@x"}}
            {"table": "company", "op": "insert", "row": {"id": "acme"}}
            {"table": "works_at", "op": "insert", "row": {"id": "e1", "src": "alice", "dst": "acme"}}
            """;

    @Test
    void aTransactionFileWritesEveryTableTogetherAndExplainShowsItAsOneUnit() throws Exception {
        String graph = graph();
        Path file = tmp.resolve("hire.jsonl");
        Files.writeString(file, HIRE);
        CliRun.Result w = CliRun.run("write", graph, "--transaction", file.toString());
        assertThat(w.code()).as(w.toString()).isZero();
        JsonNode receipt = JSON.readTree(w.out());
        assertThat(receipt.get("transaction").asText()).startsWith("t-");
        assertThat(receipt.get("parts")).hasSize(3);
        long seq = receipt.get("seq").asLong();
        for (JsonNode p : receipt.get("parts")) {
            assertThat(p.get("seq").asLong()).isEqualTo(seq);
        }
        assertThat(rows(graph, "person")).isEqualTo(1);
        assertThat(rows(graph, "company")).isEqualTo(1);
        assertThat(rows(graph, "works_at")).isEqualTo(1);

        String intent = receipt.get("parts").get(2).get("intent").asText();
        CliRun.Result explain = CliRun.run("explain", graph, intent);
        assertThat(explain.code()).as(explain.toString()).isZero();
        assertThat(explain.out()).contains("transaction: " + receipt.get("transaction").asText())
                .contains("person/").contains("company/").contains("works_at/" + intent);
        CliRun.Result journal = CliRun.run("audit", graph, "--type", "transaction_committed", "--format", "jsonl");
        assertThat(journal.out().lines().filter(l -> l.contains("transaction_committed")).count()).as(journal.toString())
                .isEqualTo(1);

        // from stdin too; a node deleted together with its edge
        CliRun.Result del = CliRun.runWithInput("""
                {"table": "works_at", "op": "delete", "row": {"id": "e1"}}
                {"table": "company", "op": "delete", "row": {"id": "acme"}}
                """, "write", graph, "--transaction", "-");
        assertThat(del.code()).as(del.toString()).isZero();
        assertThat(rows(graph, "company")).isZero();
        assertThat(rows(graph, "works_at")).isZero();

        // the report counts each transaction once, beside the commits of its parts
        Path html = tmp.resolve("report.html");
        CliRun.Result report = CliRun.run("report", graph, "--html", html.toString());
        assertThat(report.code()).as(report.toString()).isZero();
        assertThat(report.err() + report.out()).contains("(2 graph transactions)");
        String page = Files.readString(html);
        assertThat(page).contains("id=\"count-transaction\">2 transactions, 5 parts<");
    }

    @Test
    void aBadLineWritesNothingAndNamesTheLine() throws Exception {
        String graph = graph();
        CliRun.Result bad = CliRun.runWithInput(HIRE + "{\"table\": \"works_at\", \"op\": \"insert\", \"row\": "
                + "{\"id\": \"e2\", \"src\": 7, \"dst\": \"acme\"}}\n", "write", graph, "--transaction", "-");
        assertThat(bad.code()).as(bad.toString()).isEqualTo(Main.INVALID_INPUT);
        assertThat(bad.err()).contains("line 4").contains("works_at").doesNotContain("Exception");
        CliRun.Result op = CliRun.runWithInput("{\"table\": \"person\", \"op\": \"merge\", \"row\": {\"id\": \"x\"}}\n",
                "write", graph, "--transaction", "-", "--json");
        assertThat(op.code()).as(op.toString()).isEqualTo(Main.INVALID_INPUT);
        JsonNode error = JSON.readTree(op.out().isBlank() ? op.err() : op.out()).get("error");
        assertThat(error.get("code").asInt()).isEqualTo(Main.INVALID_INPUT);
        assertThat(error.get("message").asText()).contains("line 1").contains("\"op\" must be");
        CliRun.Result twice = CliRun.runWithInput(HIRE + "{\"table\": \"person\", \"op\": \"upsert\", \"row\": "
                + "{\"id\": \"alice\"}}\n", "write", graph, "--transaction", "-");
        assertThat(twice.code()).as(twice.toString()).isEqualTo(Main.INVALID_INPUT);
        assertThat(twice.err()).contains("line 4").contains("first at line 1");
        CliRun.Result both = CliRun.runWithInput(HIRE, "write", graph, "--transaction", "-", "--table", "person");
        assertThat(both.code()).as(both.toString()).isEqualTo(Main.USAGE);
        assertThat(rows(graph, "person")).isZero();
        assertThat(rows(graph, "company")).isZero();
        assertThat(rows(graph, "works_at")).isZero();
    }

    @Test
    void aTransactionBreakingAnEndpointOrAUniqueValueExitsWithTheConflictCodeAndWritesNothing() throws Exception {
        String graph = graph();
        CliRun.Result first = CliRun.runWithInput(HIRE, "write", graph, "--transaction", "-");
        assertThat(first.code()).as(first.toString()).isZero();
        CliRun.Result dangling = CliRun.runWithInput("""
                {"table": "person", "op": "insert", "row": {"id": "bob", "email": "b@x"}}
                {"table": "works_at", "op": "insert", "row": {"id": "e2", "src": "bob", "dst": "initech"}}
                """, "write", graph, "--transaction", "-");
        assertThat(dangling.code()).as(dangling.toString()).isEqualTo(Main.KEY_CONFLICT);
        assertThat(dangling.err()).contains("endpoint conflict").contains("initech").doesNotContain("\tat ");
        CliRun.Result taken = CliRun.runWithInput("""
                {"table": "person", "op": "insert", "row": {"id": "bob", "email": "a@x"}}
                {"table": "works_at", "op": "insert", "row": {"id": "e2", "src": "bob", "dst": "acme"}}
                """, "write", graph, "--transaction", "-", "--json");
        assertThat(taken.code()).as(taken.toString()).isEqualTo(Main.KEY_CONFLICT);
        assertThat(taken.out().isBlank() ? taken.err() : taken.out()).contains("unique_conflict").contains("a@x");
        assertThat(rows(graph, "person")).isEqualTo(1);
        assertThat(rows(graph, "works_at")).isEqualTo(1);
    }

    @Test
    void aTransactionRepeatedWithItsIdempotencyKeyPrintsTheFirstReceiptAndWritesNothing() throws Exception {
        String graph = graph();
        CliRun.Result first = CliRun.runWithInput(HIRE, "write", graph, "--transaction", "-", "--idempotency-key", "k1");
        assertThat(first.code()).as(first.toString()).isZero();
        CliRun.Result again = CliRun.runWithInput(HIRE, "write", graph, "--transaction", "-", "--idempotency-key", "k1");
        assertThat(again.code()).as(again.toString()).isZero();
        JsonNode a = JSON.readTree(first.out());
        JsonNode b = JSON.readTree(again.out());
        assertThat(b.get("transaction")).isEqualTo(a.get("transaction"));
        assertThat(b.get("seq")).isEqualTo(a.get("seq"));
        for (int i = 0; i < 3; i++) {
            assertThat(b.get("parts").get(i).get("intent")).isEqualTo(a.get("parts").get(i).get("intent"));
        }
        CliRun.Result other = CliRun.runWithInput("""
                {"table": "person", "op": "insert", "row": {"id": "bob", "email": "b@x"}}
                """, "write", graph, "--transaction", "-", "--idempotency-key", "k1", "--json");
        assertThat(other.code()).as(other.toString()).isEqualTo(Main.IDEMPOTENCY_MISMATCH);
        assertThat(other.out().isBlank() ? other.err() : other.out()).contains("k1").doesNotContain("Exception");
        assertThat(rows(graph, "person")).isEqualTo(1);
        CliRun.Result transactions = CliRun.run("audit", graph, "--type", "transaction_committed", "--format", "jsonl");
        assertThat(transactions.out().lines().filter(l -> l.contains("transaction_committed")).count())
                .as(transactions.toString()).isEqualTo(1);
    }

    @Test
    void aTransactionTornBeforeItsCommitPointIsToldAsOneByRecoverAndExplain() throws Exception {
        String graph = graph();
        Path file = tmp.resolve("hire.jsonl");
        Files.writeString(file, HIRE);
        // a writer killed (like SIGKILL) with the transaction's parts durable and its commit point not
        List<String> cmd = io.palisade.journal.ChildJava.command();
        cmd.addAll(List.of("-Xmx512m", "-Dchronicle.analytics.disable=true", "-Dpalisade.crash.at=transaction-torn:1",
                "-cp", System.getProperty("java.class.path"), Main.class.getName(), "write", graph, "--transaction",
                file.toString()));
        Process child = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(tmp.resolve("child.out").toFile())
                .start();
        assertThat(child.waitFor(300, TimeUnit.SECONDS)).as("the child reached its crash point").isTrue();
        assertThat(child.exitValue()).as(Files.readString(tmp.resolve("child.out")))
                .isEqualTo(io.palisade.heads.PhaseCrashPoints.HALT_STATUS);

        CliRun.Result dry = CliRun.run("recover", graph, "--dry-run", "--format", "json");
        assertThat(dry.code()).as(dry.toString()).isZero();
        JsonNode open = JSON.readTree(dry.out()).get("open_transactions");
        assertThat(open).hasSize(1);
        JsonNode tx = open.get(0);
        assertThat(tx.get("outcome").asText()).startsWith("absent: torn before its commit point");
        assertThat(tx.get("parts")).hasSize(3);
        List<String> tables = new java.util.ArrayList<>();
        tx.get("parts").forEach(p -> {
            tables.add(p.get("table").asText());
            assertThat(p.get("kind").asText()).isEqualTo("NO_EFFECT_ABORTED");
        });
        assertThat(tables).containsExactly("person", "company", "works_at");
        CliRun.Result text = CliRun.run("recover", graph, "--dry-run");
        assertThat(text.out()).contains("transaction " + tx.get("transaction").asText() + " on main, 3 parts (person ");

        CliRun.Result real = CliRun.run("recover", graph, "--json");
        assertThat(real.code()).as(real.toString()).isZero();
        JsonNode done = JSON.readTree(real.out()).get("open_transactions");
        assertThat(done).hasSize(1);
        assertThat(done.get(0).get("transaction")).isEqualTo(tx.get("transaction"));
        assertThat(done.get(0).get("outcome")).isEqualTo(tx.get("outcome"));
        assertThat(rows(graph, "person")).isZero();
        assertThat(rows(graph, "works_at")).isZero();

        String part = tx.get("parts").get(2).get("intent").asText();
        CliRun.Result explain = CliRun.run("explain", graph, part);
        assertThat(explain.out()).as(explain.toString()).contains("transaction: " + tx.get("transaction").asText()
                + ", never committed").contains("ABORTED");
        CliRun.Result after = CliRun.run("recover", graph, "--dry-run", "--format", "json");
        assertThat(JSON.readTree(after.out()).get("open_transactions")).isEmpty();
    }
}
