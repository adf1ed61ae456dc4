package io.palisade.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.palisade.coordinator.Catalog;
import io.palisade.coordinator.Graph;
import io.palisade.coordinator.Options;
import io.palisade.coordinator.Palisade;
import io.palisade.coordinator.Row;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code palisade scan} streams: --where filters through Lance (on a journal-ack table the unfolded writes too, which
 * override the folded rows), --limit stops the read, a bad expression is a usage error in plain words, and a table far
 * larger than the heap scans in it.
 */
class ScanTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path tmp;

    /** id → age of the jsonl rows of {@code r}. */
    private static Map<String, Long> ages(CliRun.Result r) throws Exception {
        assertThat(r.code()).as(r.toString()).isZero();
        Map<String, Long> out = new TreeMap<>();
        for (String line : r.out().split("\n")) {
            if (!line.isBlank()) {
                JsonNode n = JSON.readTree(line);
                assertThat(out.put(n.get("id").asText(), n.get("age").isNull() ? null : n.get("age").asLong()))
                        .as("id %s printed once", n.get("id").asText()).isNull();
            }
        }
        return out;
    }

    private String tenPeople() throws Exception {
        String graph = CliRun.graph(tmp, 0);
        StringBuilder in = new StringBuilder();
        for (int i = 0; i < 10; i++) {
            in.append("{\"id\":\"p").append(i).append("\",\"age\":").append(30 + i).append("}\n");
        }
        CliRun.Result w = CliRun.runWithInput(in.toString(), "write", graph, "--table", "person", "--mode", "insert");
        assertThat(w.code()).as(w.toString()).isZero();
        return graph;
    }

    @Test
    void whereSelectsTheRowsItMatchesAndLimitStopsAtNRows() throws Exception {
        String graph = tenPeople();
        assertThat(ages(CliRun.run("scan", graph, "--table", "person", "--where", "age >= 37")))
                .isEqualTo(Map.of("p7", 37L, "p8", 38L, "p9", 39L));
        assertThat(ages(CliRun.run("scan", graph, "--table", "person", "--where", "id IN ('p1', 'p3') OR age = 39")))
                .containsOnlyKeys("p1", "p3", "p9");
        assertThat(ages(CliRun.run("scan", graph, "--table", "person", "--where", "age > 99"))).isEmpty();

        Map<String, Long> three = ages(CliRun.run("scan", graph, "--table", "person", "--limit", "3"));
        assertThat(three).hasSize(3);
        Map<String, Long> two = ages(CliRun.run("scan", graph, "--table", "person", "--where", "age < 35", "--limit", "2"));
        assertThat(two).hasSize(2).allSatisfy((id, age) -> assertThat(age).isLessThan(35));
        // with --key: the keys asked for that the expression selects
        assertThat(ages(CliRun.run("scan", graph, "--table", "person", "--key", "p1,p8,nobody", "--where", "age > 35")))
                .containsOnlyKeys("p8");

        CliRun.Result json = CliRun.run("scan", graph, "--table", "person", "--where", "age >= 38", "--format", "json");
        assertThat(json.code()).as(json.toString()).isZero();
        assertThat(JSON.readTree(json.out())).hasSize(2);
        CliRun.Result none = CliRun.run("scan", graph, "--table", "person", "--where", "age > 99", "--format", "json");
        assertThat(none.out().strip()).isEqualTo("[]");
        CliRun.Result table = CliRun.run("scan", graph, "--table", "person", "--limit", "4", "--format", "table");
        assertThat(table.code()).as(table.toString()).isZero();
        assertThat(table.out()).contains("(4 rows; person on main").contains("age");
    }

    @Test
    void anExpressionTheTableCannotEvaluateIsAUsageErrorNamingIt() throws Exception {
        String graph = tenPeople();
        String[][] cases = {
                {"age >", "does not parse"},
                {"height > 3", "the table has no column height (its columns are id, age)"},
                {"age = 'old'", "cannot be compared with a column of type Int64"},
                {"42", "not a condition"},
        };
        for (String[] c : cases) {
            CliRun.Result r = CliRun.run("scan", graph, "--table", "person", "--where", c[0]);
            assertThat(r.code()).as(r.toString()).isEqualTo(Main.USAGE);
            assertThat(r.err()).as(r.toString()).startsWith("palisade: usage: --where: the filter '" + c[0] + "'")
                    .contains("table 'person'").contains(c[1]).doesNotContain("Exception").doesNotContain(".rs:")
                    .doesNotContain("Invalid user input").doesNotContain("\tat ");
            assertThat(r.err().strip().lines()).hasSize(1);
            assertThat(r.out()).isEmpty();
            CliRun.Result j = CliRun.run("scan", graph, "--table", "person", "--where", c[0], "--json");
            assertThat(j.code()).isEqualTo(Main.USAGE);
            JsonNode err = JSON.readTree(j.out().strip()).get("error");
            assertThat(err.get("code").asInt()).isEqualTo(Main.USAGE);
            assertThat(err.get("kind").asText()).isEqualTo("usage");
            assertThat(err.get("message").asText()).contains("'" + c[0] + "'");
        }
    }

    @Test
    void onAJournalAckTableTheUnfoldedWritesOverrideTheFoldedRowsAndTheFilterSelectsAmongThem() throws Exception {
        Path cat = tmp.resolve("catalog.json");
        Files.writeString(cat, """
                {"tables": [{"name": "person", "kind": "node", "ack": "journal", "columns": [{"name": "id", "type": "string"},
                  {"name": "age", "type": "int64", "nullable": true}]}]}
                """);
        String graph = tmp.resolve("g").toString();
        assertThat(CliRun.run("init", graph, "--catalog", cat.toString()).code()).isZero();
        // folded: the write command's graph folds when it closes
        CliRun.Result w = CliRun.runWithInput("{\"id\":\"a\",\"age\":10}\n{\"id\":\"b\",\"age\":20}\n{\"id\":\"c\",\"age\":30}\n"
                + "{\"id\":\"d\",\"age\":40}\n", "write", graph, "--table", "person", "--mode", "insert");
        assertThat(w.code()).as(w.toString()).isZero();
        long folded = JSON.readTree(w.out()).get("seq").asLong();
        // unfolded: a graph that folds only on close, held open while the CLI reads the files
        Options noFold = Options.defaults().withFolding(3_600_000L, 1_000_000, 1L << 30);
        try (Graph g = Palisade.open(Path.of(graph), noFold)) {
            g.upsert("main", "person", List.of(Row.of("id", "a", "age", 50L), Row.of("id", "b", "age", 5L)));
            g.delete("main", "person", List.of("c"));
            g.insert("main", "person", List.of(Row.of("id", "e", "age", 60L)));
            assertThat(g.state().foldMark("main", "person").unfolded()).isEqualTo(3);

            assertThat(ages(CliRun.run("scan", graph, "--table", "person")))
                    .isEqualTo(Map.of("a", 50L, "b", 5L, "d", 40L, "e", 60L));
            // b's folded row (20) matches, its current one (5) does not; a's folded row (10) does not, its current one does
            assertThat(ages(CliRun.run("scan", graph, "--table", "person", "--where", "age >= 20")))
                    .isEqualTo(Map.of("a", 50L, "d", 40L, "e", 60L));
            assertThat(ages(CliRun.run("scan", graph, "--table", "person", "--where", "age < 15")))
                    .isEqualTo(Map.of("b", 5L));
            assertThat(ages(CliRun.run("scan", graph, "--table", "person", "--where", "age = 30"))).as("c is deleted")
                    .isEmpty();
            assertThat(ages(CliRun.run("scan", graph, "--table", "person", "--where", "age >= 20", "--limit", "2")))
                    .hasSize(2).containsAnyOf(Map.entry("a", 50L), Map.entry("e", 60L), Map.entry("d", 40L))
                    .doesNotContainKey("b");
            assertThat(ages(CliRun.run("scan", graph, "--table", "person", "--key", "a,b,c", "--where", "age > 1")))
                    .isEqualTo(Map.of("a", 50L, "b", 5L));
            // the table as of the folded write: no unfolded write yet
            assertThat(ages(CliRun.run("scan", graph, "--table", "person", "--at", Long.toString(folded), "--where",
                    "age >= 20"))).isEqualTo(Map.of("b", 20L, "c", 30L, "d", 40L));
            CliRun.Result bad = CliRun.run("scan", graph, "--table", "person", "--where", "age >");
            assertThat(bad.code()).as(bad.toString()).isEqualTo(Main.USAGE);
        }
    }

    /**
     * A table of 40,000 rows of about 1 KB each (some 40 MB as text, more as rows in memory) scanned by a child JVM whose
     * heap is 48 MB: a scan that held the table, or its output, runs out of memory (the scan that loaded every row into
     * a list did).
     */
    @Test
    void aTableFarLargerThanTheHeapScansInIt() throws Exception {
        Path cat = tmp.resolve("catalog.json");
        Files.writeString(cat, """
                {"tables": [{"name": "doc", "kind": "node", "columns": [{"name": "id", "type": "string"},
                  {"name": "body", "type": "string", "nullable": true}]}]}
                """);
        String graph = tmp.resolve("big").toString();
        assertThat(CliRun.run("init", graph, "--catalog", cat.toString()).code()).isZero();
        int rows = 40_000;
        String filler = "x".repeat(1000);
        try (Graph g = Palisade.open(Path.of(graph), Options.defaults())) {
            for (int from = 0; from < rows; from += 10_000) {
                List<Row> batch = new ArrayList<>();
                for (int i = from; i < from + 10_000; i++) {
                    batch.add(Row.of("id", "d" + i, "body", i + filler));
                }
                g.insert("main", "doc", batch);
            }
        }
        List<String> cmd = new ArrayList<>();
        cmd.add(ProcessHandle.current().info().command().orElse("java"));
        for (String a : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            if (!a.startsWith("-Xmx") && !a.startsWith("-Xms") && !a.startsWith("-javaagent") && !a.startsWith("-agentlib")
                    && !a.startsWith("-XX:MaxRAM")) {
                cmd.add(a);
            }
        }
        cmd.addAll(List.of("-Xmx48m", "-cp", System.getProperty("java.class.path"), "io.palisade.cli.Main",
                "scan", graph, "--table", "doc"));
        Process p = new ProcessBuilder(cmd).redirectError(tmp.resolve("child.err").toFile()).start();
        long lines = 0;
        String last = null;
        try (BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            for (String l = out.readLine(); l != null; l = out.readLine()) {
                lines++;
                last = l;
            }
        }
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
        String err = Files.readString(tmp.resolve("child.err"));
        assertThat(p.exitValue()).as(err).isZero();
        assertThat(err).doesNotContain("OutOfMemoryError");
        assertThat(lines).isEqualTo(rows);
        assertThat(JSON.readTree(last).get("body").asText()).endsWith(filler);
    }
}
