package io.palisade.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/** What {@code write} says about an input it cannot read: a clear invalid-input error, never an internal one. */
class WriteInputTest {
    @TempDir
    Path tmp;

    @Test
    void aWriteFromAMissingFileIsInvalidInputNamingTheFile() throws Exception {
        Path cat = tmp.resolve("catalog.json");
        Files.writeString(cat, """
                {"tables": [{"name": "person", "kind": "node", "columns": [{"name": "id", "type": "string"}]}]}
                """);
        String graph = tmp.resolve("g").toString();
        assertThat(CliRun.run("init", graph, "--catalog", cat.toString()).code()).isZero();
        String missing = tmp.resolve("missing.jsonl").toString();
        CliRun.Result r = CliRun.run("write", graph, "--table", "person", missing);
        assertThat(r.code()).as(r.toString()).isEqualTo(Main.INVALID_INPUT);
        assertThat(r.err()).contains("cannot read input file " + missing + " (no such file)")
                .doesNotContain("internal error").doesNotContain("Exception");
        CliRun.Result dir = CliRun.run("write", graph, "--table", "person", tmp.toString());
        assertThat(dir.code()).as(dir.toString()).isEqualTo(Main.INVALID_INPUT);
        assertThat(dir.err()).contains("(it is a directory)");
    }

    @Test
    void badJsonAndAnUnknownTableAreSaidInPlainWordsAndWriteNothing() throws Exception {
        Path cat = tmp.resolve("catalog.json");
        Files.writeString(cat, """
                {"tables": [{"name": "person", "kind": "node", "columns": [{"name": "id", "type": "string"},
                  {"name": "age", "type": "int64", "nullable": true}]}]}
                """);
        String graph = tmp.resolve("g").toString();
        assertThat(CliRun.run("init", graph, "--catalog", cat.toString()).code()).isZero();
        long before = end(graph);

        CliRun.Result torn = CliRun.runWithInput("{\"id\": \"a\", \"age\": \n", "write", graph, "--table", "person");
        assertThat(torn.code()).as(torn.toString()).isEqualTo(Main.INVALID_INPUT);
        assertThat(torn.err()).contains("line 1").contains("bad JSON at column ").contains("end of input")
                .doesNotContain("Source").doesNotContain("REDACTED").doesNotContain("Feature");

        CliRun.Result bare = CliRun.runWithInput("nobody\n", "write", graph, "--table", "person", "--mode", "delete");
        assertThat(bare.code()).as(bare.toString()).isEqualTo(Main.INVALID_INPUT);
        assertThat(bare.err()).contains("line 1").contains("in double quotes: \"nobody\"")
                .doesNotContain("JSON String, Number");

        // an unknown table is a usage error, as it is for scan, with the nearest name
        CliRun.Result table = CliRun.runWithInput("{\"id\": \"a\"}\n", "write", graph, "--table", "persn");
        assertThat(table.code()).as(table.toString()).isEqualTo(Main.USAGE);
        assertThat(table.err()).contains("--table 'persn': the graph has no such table (did you mean person?)");
        assertThat(CliRun.run("scan", graph, "--table", "persn").code()).isEqualTo(Main.USAGE);

        assertThat(end(graph)).as("nothing journaled").isEqualTo(before);
    }

    @Test
    void scanByKeyPrintsOnlyThoseRowsAndAnUpsertWritesTheWholeRow() throws Exception {
        Path cat = tmp.resolve("catalog.json");
        Files.writeString(cat, """
                {"tables": [{"name": "person", "kind": "node", "columns": [{"name": "id", "type": "string"},
                  {"name": "name", "type": "string", "nullable": true}, {"name": "age", "type": "int64", "nullable": true}]}]}
                """);
        String graph = tmp.resolve("g").toString();
        assertThat(CliRun.run("init", graph, "--catalog", cat.toString()).code()).isZero();
        assertThat(CliRun.runWithInput("{\"id\":\"alice\",\"name\":\"Alice\",\"age\":30}\n{\"id\":\"bob\",\"age\":40}\n",
                "write", graph, "--table", "person").code()).isZero();
        // the documented rule: an upsert's omitted nullable column is null afterwards
        assertThat(CliRun.runWithInput("{\"id\":\"alice\",\"age\":31}\n", "write", graph, "--table", "person",
                "--mode", "upsert").code()).isZero();

        CliRun.Result one = CliRun.run("scan", graph, "--table", "person", "--key", "alice,nobody");
        assertThat(one.code()).as(one.toString()).isZero();
        assertThat(one.out().strip()).isEqualTo("{\"id\":\"alice\",\"name\":null,\"age\":31}");
        CliRun.Result two = CliRun.run("scan", graph, "--table", "person", "--key", "bob", "--key", "alice");
        assertThat(two.out().strip().split("\n")).hasSize(2);
        assertThat(CliRun.run("scan", graph, "--table", "person", "--key", "nobody").out()).isBlank();
    }

    @Test
    void anUpdateChangesOnlyTheNamedColumnsOfExistingRows() throws Exception {
        Path cat = tmp.resolve("catalog.json");
        Files.writeString(cat, """
                {"tables": [{"name": "person", "kind": "node", "ack": "journal", "columns": [{"name": "id", "type": "string"},
                  {"name": "name", "type": "string", "nullable": true}, {"name": "age", "type": "int64", "nullable": true},
                  {"name": "city", "type": "string", "nullable": false}]}]}
                """);
        String graph = tmp.resolve("g").toString();
        assertThat(CliRun.run("init", graph, "--catalog", cat.toString()).code()).isZero();
        assertThat(CliRun.runWithInput("{\"id\":\"alice\",\"name\":\"Alice\",\"age\":30,\"city\":\"Oslo\"}\n",
                "write", graph, "--table", "person").code()).isZero();

        CliRun.Result up = CliRun.runWithInput("{\"id\":\"alice\",\"age\":31}\n", "write", graph, "--table", "person",
                "--mode", "update");
        assertThat(up.code()).as(up.toString()).isZero();
        assertThat(up.out()).contains("\"rows\":1");
        assertThat(CliRun.run("scan", graph, "--table", "person", "--key", "alice").out().strip())
                .isEqualTo("{\"id\":\"alice\",\"name\":\"Alice\",\"age\":31,\"city\":\"Oslo\"}");
        assertThat(CliRun.run("explain", graph, "--table", "person", "--key", "alice").out()).contains("update");

        long before = intents(graph);
        // a key the table does not hold: the whole update is refused, naming it
        CliRun.Result absent = CliRun.runWithInput("{\"id\":\"alice\",\"age\":32}\n{\"id\":\"zed\",\"age\":1}\n",
                "write", graph, "--table", "person", "--mode", "update");
        assertThat(absent.code()).as(absent.toString()).isEqualTo(Main.INVALID_INPUT);
        assertThat(absent.err()).contains("1 key is not in the table [zed]").doesNotContain("Exception");
        // a non-null column may be left out of an update, not set to null
        CliRun.Result nulled = CliRun.runWithInput("{\"id\":\"alice\",\"city\":null}\n", "write", graph, "--table",
                "person", "--mode", "update");
        assertThat(nulled.code()).as(nulled.toString()).isEqualTo(Main.INVALID_INPUT);
        assertThat(nulled.err()).contains("line 1").contains("'city' is non-null but null");
        CliRun.Result noId = CliRun.runWithInput("{\"age\":3}\n", "write", graph, "--table", "person", "--mode", "update");
        assertThat(noId.code()).as(noId.toString()).isEqualTo(Main.INVALID_INPUT);
        assertThat(noId.err()).contains("line 1").contains("missing id");
        assertThat(intents(graph)).as("no intent journaled").isEqualTo(before);
        assertThat(CliRun.run("scan", graph, "--table", "person", "--key", "alice").out()).contains("\"age\":31");
    }

    private static long intents(String graph) {
        long n = 0;
        try (var r = Cli.reader(Path.of(graph)); var c = r.read(0)) {
            for (var rec = c.poll(); rec != null; rec = c.poll()) {
                if (rec.event() instanceof io.palisade.journal.JournalEvent.IntentRecorded) {
                    n++;
                }
            }
        }
        return n;
    }

    private static long end(String graph) {
        try (var r = Cli.reader(Path.of(graph))) {
            return r.endSequence();
        }
    }
}
