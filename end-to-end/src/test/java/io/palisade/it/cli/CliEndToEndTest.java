package io.palisade.it.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.ipc.ArrowFileReader;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static io.palisade.it.cli.Launcher.run;
import static io.palisade.it.cli.Launcher.withInput;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every implemented command and exit code. Each exit code, every kind of write (insert, upsert, delete, append,
 * branch create, fork, merge) and the lease and follow cases go through the real launcher, each in its own process;
 * the reading tools and repeated writes run the same {@code Main} in this JVM ({@link #inProcess}), which spares a JVM
 * start per command (docs/benchmarks.md "Suite times").
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class CliEndToEndTest {
    static final String CATALOG = """
            {"tables": [{"name": "person", "kind": "node", "columns": [{"name": "id", "type": "string"},
              {"name": "age", "type": "int64", "nullable": true}, {"name": "score", "type": "float64", "nullable": true}]},
             {"name": "log", "kind": "append-only", "columns": [{"name": "msg", "type": "string"}]}]}""";
    static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    static Path tmp;
    String graph;
    JsonNode firstReceipt;

    @BeforeAll
    void init() throws Exception {
        Path cat = tmp.resolve("catalog.json");
        Files.writeString(cat, CATALOG);
        graph = tmp.resolve("g").toString();
        Launcher.Result r = run("init", graph, "--catalog", cat.toString());
        assertThat(r.code()).as(r.toString()).isZero();
        assertThat(r.out()).contains("person");
    }

    private static final Object IN_PROCESS = new Object();

    /**
     * {@code palisade ARGS} in this JVM: {@code Main.run} with stdin, stdout and stderr swapped for the call's. The
     * logging configuration {@code Main} sets for its own JVM is put back afterwards (this JVM's logger was set up
     * first), so the other suites in this JVM keep theirs.
     */
    static Launcher.Result inProcessWithInput(String stdin, String... args) {
        org.slf4j.LoggerFactory.getLogger(CliEndToEndTest.class).debug("in-process: {}", (Object) args);
        synchronized (IN_PROCESS) {
            java.io.PrintStream out = System.out;
            java.io.PrintStream err = System.err;
            java.io.InputStream in = System.in;
            java.util.Properties saved = (java.util.Properties) System.getProperties().clone();
            java.io.ByteArrayOutputStream o = new java.io.ByteArrayOutputStream();
            java.io.ByteArrayOutputStream e = new java.io.ByteArrayOutputStream();
            int code;
            try {
                System.setOut(new java.io.PrintStream(o, true, StandardCharsets.UTF_8));
                System.setErr(new java.io.PrintStream(e, true, StandardCharsets.UTF_8));
                System.setIn(new java.io.ByteArrayInputStream((stdin == null ? "" : stdin).getBytes(StandardCharsets.UTF_8)));
                code = io.palisade.cli.Main.run(args);
            } finally {
                System.setOut(out);
                System.setErr(err);
                System.setIn(in);
                System.setProperties(saved);
            }
            return new Launcher.Result(code, o.toString(StandardCharsets.UTF_8), e.toString(StandardCharsets.UTF_8));
        }
    }

    static Launcher.Result inProcess(String... args) {
        return inProcessWithInput(null, args);
    }

    /** The person rows, sorted by id here: scan prints them in storage order, which it does not promise to be by id. */
    private List<JsonNode> scan() throws Exception {
        Launcher.Result r = inProcess("scan", graph, "--table", "person");
        assertThat(r.code()).as(r.toString()).isZero();
        List<JsonNode> rows = new ArrayList<>();
        for (String l : r.out().split("\n")) {
            if (!l.isBlank()) {
                rows.add(JSON.readTree(l));
            }
        }
        rows.sort(java.util.Comparator.comparing(n -> n.get("id").asText()));
        return rows;
    }

    @Test
    @Order(1)
    void insertPrintsOneJsonReceiptAndScanShowsTheRows() throws Exception {
        Launcher.Result r = withInput("{\"id\":\"alice\",\"age\":30,\"score\":1.5}\n{\"id\":\"bob\",\"age\":40}\n",
                "write", graph, "--table", "person", "--mode", "insert", "-");
        assertThat(r.code()).as(r.toString()).isZero();
        String[] lines = r.out().strip().split("\n");
        assertThat(lines).hasSize(1);
        firstReceipt = JSON.readTree(lines[0]);
        assertThat(firstReceipt.get("intent").asText()).startsWith("i-");
        assertThat(firstReceipt.get("seq").asLong()).isPositive();
        assertThat(firstReceipt.get("table").asText()).isEqualTo("person");
        assertThat(firstReceipt.get("branch").asText()).isEqualTo("main");
        assertThat(firstReceipt.get("version").asLong()).isPositive();
        assertThat(firstReceipt.get("rows").asLong()).isEqualTo(2);
        List<JsonNode> rows = scan();
        assertThat(rows).extracting(n -> n.get("id").asText()).containsExactly("alice", "bob");
        assertThat(rows.get(0).get("age").asLong()).isEqualTo(30);

        Launcher.Result t = inProcess("scan", graph, "--table", "person", "--format", "table");
        assertThat(t.code()).isZero();
        assertThat(t.out()).contains("alice").contains("(2 rows");
    }

    @Test
    @Order(2)
    void malformedLinesExitFiveNamingTheLineAndWriteNothing() throws Exception {
        String good = "{\"id\":\"carol\",\"age\":1}\n";
        String[][] cases = {
                {good + "{\"id\": \"dave\", \n", "line 2", "bad JSON"},
                {good + "{\"id\":null,\"age\":3}\n", "line 2", "null or missing id"},
                {good + "{\"id\":\"carol\"}\n", "line 2", "duplicate id 'carol' (first at line 1)"},
                {good + "{\"id\":\"erin\",\"age\":\"old\"}\n", "line 2", "column 'age' expects int64"},
                {good + "{\"id\":\"erin\",\"colour\":\"red\"}\n", "line 2", "unknown column 'colour'"},
        };
        for (String[] c : cases) {
            Launcher.Result r = c == cases[0] ? withInput(c[0], "write", graph, "--table", "person")
                    : inProcessWithInput(c[0], "write", graph, "--table", "person");
            assertThat(r.code()).as(r.toString()).isEqualTo(5);
            assertThat(r.err()).as(r.toString()).contains(c[1]).contains(c[2]).contains("person").doesNotContain("\tat ");
            assertThat(r.err().strip().split("\n")).as("one line on stderr").hasSize(1);
            assertThat(r.out()).isEmpty();
        }
        assertThat(scan()).extracting(n -> n.get("id").asText()).containsExactly("alice", "bob");
    }

    @Test
    @Order(3)
    void strictInsertOfAnExistingKeyExitsThreeAndNeverUpdates() throws Exception {
        Launcher.Result r = withInput("{\"id\":\"alice\",\"age\":99}\n", "write", graph, "--table", "person", "--mode", "insert");
        assertThat(r.code()).as(r.toString()).isEqualTo(3);
        assertThat(r.err()).contains("person").contains("alice").doesNotContain("\tat ");
        assertThat(scan().get(0).get("age").asLong()).isEqualTo(30);
    }

    @Test
    @Order(4)
    void upsertDeleteAppendAndIdempotencyKey() throws Exception {
        Launcher.Result up = withInput("{\"id\":\"alice\",\"age\":31}\n{\"id\":\"frank\",\"age\":5}\n", "write", graph,
                "--table", "person", "--mode", "upsert", "--idempotency-key", "req-1");
        assertThat(up.code()).as(up.toString()).isZero();
        // the same request again (its rows in another order) gets the first receipt
        Launcher.Result again = inProcessWithInput("{\"id\":\"frank\",\"age\":5}\n{\"id\":\"alice\",\"age\":31}\n", "write",
                graph, "--table", "person", "--mode", "upsert", "--idempotency-key", "req-1");
        assertThat(again.code()).as(again.toString()).isZero();
        assertThat(JSON.readTree(again.out()).get("intent").asText()).isEqualTo(JSON.readTree(up.out()).get("intent").asText());
        // another request with the key is refused, naming the write the key belongs to
        Launcher.Result other = inProcessWithInput("{\"id\":\"alice\",\"age\":32}\n", "write", graph, "--table", "person",
                "--mode", "upsert", "--idempotency-key", "req-1");
        assertThat(other.code()).as(other.toString()).isEqualTo(10);
        assertThat(other.err()).startsWith("palisade: idempotency mismatch: ")
                .contains(JSON.readTree(up.out()).get("intent").asText()).doesNotContain("Exception");
        Launcher.Result del = withInput("{\"id\":\"bob\"}\n", "write", graph, "--table", "person", "--mode", "delete");
        assertThat(del.code()).as(del.toString()).isZero();
        List<JsonNode> rows = scan();
        assertThat(rows).extracting(n -> n.get("id").asText()).containsExactly("alice", "frank");
        assertThat(rows.get(0).get("age").asLong()).isEqualTo(31);
        Launcher.Result app = inProcessWithInput("{\"msg\":\"hello\"}\n", "write", graph, "--table", "log");
        assertThat(app.code()).as(app.toString()).isZero();
    }

    @Test
    @Order(5)
    void usageErrorsExitTwo() {
        assertThat(run("frobnicate").code()).isEqualTo(2);
        Launcher.Result r = inProcess("write", graph);
        assertThat(r.code()).isEqualTo(2);
        assertThat(r.err()).contains("--table");
        assertThat(inProcess("replay", graph).code()).isEqualTo(2);
        Launcher.Result help = inProcess("--help");
        assertThat(help.code()).isZero();
        assertThat(help.out()).contains("Exit codes").contains("7").contains("journal, table or catalog files corrupted");
    }

    @Test
    @Order(6)
    void headsAuditReplayExplainAndExports() throws Exception {
        Launcher.Result h = inProcess("heads", graph, "--json");
        assertThat(h.code()).as(h.toString()).isZero();
        JsonNode heads = JSON.readTree(h.out());
        assertThat(heads.isArray()).isTrue();
        JsonNode person = null;
        for (JsonNode n : heads) {
            if (n.get("table").asText().equals("person")) {
                person = n;
            }
        }
        assertThat(person).isNotNull();
        assertThat(person.get("branch").asText()).isEqualTo("main");
        assertThat(person.get("table_branch").asText()).isEqualTo("main");
        assertThat(person.get("version").asLong()).isGreaterThan(firstReceipt.get("version").asLong());
        Launcher.Result old = inProcess("heads", graph, "--json", "--at-seq", firstReceipt.get("seq").asText());
        assertThat(old.code()).as(old.toString()).isZero();
        assertThat(old.out()).contains("\"version\":" + firstReceipt.get("version").asLong());

        Launcher.Result past = inProcess("scan", graph, "--table", "person", "--at-seq", firstReceipt.get("seq").asText());
        assertThat(past.code()).as(past.toString()).isZero();
        assertThat(past.out()).contains("\"id\":\"bob\"").contains("\"age\":30").doesNotContain("frank");
        Launcher.Result now = inProcess("heads", graph, "--json", "--branch", "main", "--at-time", java.time.Instant.now().toString());
        assertThat(now.code()).as(now.toString()).isZero();
        // the heads now also say which versions no journaled write explains; a past query does not
        for (JsonNode entry : heads) {
            assertThat(entry.get("foreign_versions")).isEmpty();
            ((com.fasterxml.jackson.databind.node.ObjectNode) entry).remove("foreign_versions");
        }
        assertThat(JSON.readTree(now.out())).isEqualTo(heads);

        Launcher.Result a = inProcess("audit", graph, "--format", "jsonl");
        assertThat(a.code()).as(a.toString()).isZero();
        String[] events = a.out().strip().split("\n");
        for (String e : events) {
            JsonNode n = JSON.readTree(e);
            assertThat(n.has("seq") && n.has("time") && n.has("type")).as(e).isTrue();
        }
        Launcher.Result conflicts = inProcess("audit", graph, "--type", "intent_completed", "--key", "alice");
        assertThat(conflicts.code()).isZero();
        assertThat(conflicts.out()).contains("KEY_CONFLICT").doesNotContain("intent_recorded");
        assertThat(inProcess("audit", graph, "--format", "table", "--intent", firstReceipt.get("intent").asText()).out())
                .contains("intent_recorded").contains("table_committed").contains("intent_completed");

        Process follow = Launcher.start("audit", graph, "--follow", "--type", "intent_completed");
        try (BufferedReader fin = new BufferedReader(new InputStreamReader(follow.getInputStream(), StandardCharsets.UTF_8))) {
            assertThat(JSON.readTree(fin.readLine()).get("type").asText()).isEqualTo("intent_completed");
            assertThat(follow.isAlive()).as("--follow keeps running at the journal end").isTrue();
        } finally {
            follow.destroy();
            follow.waitFor(30, TimeUnit.SECONDS);
        }

        Launcher.Result ex = inProcess("explain", graph, firstReceipt.get("intent").asText());
        assertThat(ex.code()).as(ex.toString()).isZero();
        assertThat(ex.out()).contains("intent recorded").contains("substrate commit").contains("head published")
                .contains("COMMITTED");
        Launcher.Result key = inProcess("explain", graph, "--key", "alice", "--table", "person");
        assertThat(key.code()).as(key.toString()).isZero();
        assertThat(key.out()).contains("KEY_CONFLICT").contains("COMMITTED");
        assertThat(inProcess("explain", graph, "i-no-such-intent").code()).isEqualTo(5);

        Launcher.Result rp = inProcess("replay", graph, "--to-seq", firstReceipt.get("seq").asText(), "--json");
        assertThat(rp.code()).as(rp.toString()).isZero();
        JsonNode state = JSON.readTree(rp.out());
        assertThat(state.get("sequence").asLong()).isEqualTo(firstReceipt.get("seq").asLong());
        assertThat(state.get("open_intents").size()).isZero();
        assertThat(state.get("heads").size()).isEqualTo(2);

        Path jsonl = tmp.resolve("audit.jsonl");
        assertThat(inProcess("audit", "export", graph, "--format", "jsonl", "--out", jsonl.toString()).code()).isZero();
        assertThat(Files.readAllLines(jsonl)).hasSize(events.length);
        Path arrow = tmp.resolve("audit.arrow");
        Launcher.Result ar = inProcess("audit", "export", graph, "--format", "arrow", "--out", arrow.toString());
        assertThat(ar.code()).as(ar.toString()).isZero();
        long rows = 0;
        try (RootAllocator alloc = new RootAllocator();
             java.io.FileInputStream in = new java.io.FileInputStream(arrow.toFile());
             ArrowFileReader reader = new ArrowFileReader(in.getChannel(), alloc)) {
            assertThat(reader.getVectorSchemaRoot().getSchema().getFields()).extracting(f -> f.getName())
                    .contains("seq", "time", "type", "json");
            while (reader.loadNextBatch()) {
                rows += reader.getVectorSchemaRoot().getRowCount();
            }
        }
        assertThat(rows).isEqualTo(events.length);
    }

    @Test
    @Order(7)
    void branchesCreateListWriteMergeAndMergeConflict() throws Exception {
        assertThat(run("branch", graph, "create", "dev").code()).isZero();
        Launcher.Result l = inProcess("branch", graph, "list");
        assertThat(l.out()).contains("dev").contains("main");
        Launcher.Result w = withInput("{\"id\":\"zed\"}\n", "write", graph, "--table", "person", "--branch", "dev");
        assertThat(w.code()).as(w.toString()).isZero();
        Launcher.Result s = inProcess("scan", graph, "--table", "person", "--branch", "dev");
        assertThat(s.out()).contains("zed");
        assertThat(scan()).extracting(n -> n.get("id").asText()).doesNotContain("zed");
        Launcher.Result m = run("branch", graph, "merge", "dev", "--into", "main");
        assertThat(m.code()).as(m.toString()).isZero();
        JsonNode merged = JSON.readTree(m.out());
        assertThat(merged.get("inserted").asLong()).isEqualTo(1);
        assertThat(scan()).extracting(n -> n.get("id").asText()).contains("zed");

        // a key changed on both sides since the fork: exit 3, keys named, nothing merged
        assertThat(inProcess("branch", graph, "create", "dev2").code()).isZero();
        assertThat(inProcessWithInput("{\"id\":\"zed\",\"age\":1}\n", "write", graph, "--table", "person", "--branch", "dev2",
                "--mode", "upsert").code()).isZero();
        assertThat(inProcessWithInput("{\"id\":\"zed\",\"age\":2}\n", "write", graph, "--table", "person", "--mode", "upsert")
                .code()).isZero();
        Launcher.Result c = run("branch", graph, "merge", "dev2", "--into", "main");
        assertThat(c.code()).as(c.toString()).isEqualTo(3);
        assertThat(c.err()).contains("zed").doesNotContain("\tat ");
        assertThat(scan()).filteredOn(n -> n.get("id").asText().equals("zed"))
                .extracting(n -> n.get("age").asLong()).containsExactly(2L);
        assertThat(inProcess("branch", graph, "delete", "dev").code()).isZero();
        assertThat(inProcess("branch", graph, "delete", "dev2").code()).isZero();
    }

    @Test
    @Order(7)
    void aRetryableWriteConflictExitsFourAndWritesNothing() throws Exception {
        int before = scan().size();
        Launcher.Result r = Launcher.withInputAndJavaOpts("-Dpalisade.fault.substrate-commit=write-conflict",
                "{\"id\":\"wanda\",\"age\":3}\n", "write", graph, "--table", "person", "--mode", "upsert");
        assertThat(r.code()).as(r.toString()).isEqualTo(4);
        assertThat(r.err()).contains("write conflict").doesNotContain("\tat ");
        assertThat(scan()).hasSize(before).extracting(n -> n.get("id").asText()).doesNotContain("wanda");
        Launcher.Result ok = inProcessWithInput("{\"id\":\"wanda\",\"age\":3}\n", "write", graph, "--table", "person",
                "--mode", "upsert");
        assertThat(ok.code()).as(ok.toString()).isZero();
    }

    @Test
    @Order(8)
    void aHeldLeaseRefusesASecondWriterWhileReadingToolsStillWork() throws Exception {
        Process holder = Launcher.start("hold", graph, "--seconds", "120");
        try {
            BufferedReader in = new BufferedReader(new InputStreamReader(holder.getInputStream(), StandardCharsets.UTF_8));
            String line = in.readLine();
            assertThat(line).as("the holder opened the graph").startsWith("holding");
            Launcher.Result w = withInput("{\"id\":\"gina\"}\n", "write", graph, "--table", "person");
            assertThat(w.code()).as(w.toString()).isEqualTo(6);
            assertThat(w.err()).contains("held by another writer").doesNotContain("\tat ");
            assertThat(inProcess("branch", graph, "create", "x").code()).isEqualTo(6);
            for (String[] args : new String[][]{{"heads", graph}, {"audit", "verify", graph},
                    {"scan", graph, "--table", "person"}, {"explain", graph, "--key", "alice"}}) {
                Launcher.Result r = inProcess(args);
                assertThat(r.code()).as(String.join(" ", args) + "\n" + r).isZero();
            }
        } finally {
            holder.destroy();
            holder.waitFor(30, TimeUnit.SECONDS);
        }
    }

    @Test
    @Order(9)
    void recoverReportsAndMigratePkOnAFencingGraphIsANoOp() throws Exception {
        Launcher.Result r = run("recover", graph, "--json");
        assertThat(r.code()).as(r.toString()).isZero();
        JsonNode rep = JSON.readTree(r.out());
        assertThat(rep.has("classifications")).isTrue();
        assertThat(rep.get("heads_digest").asText()).isNotEmpty();
        Launcher.Result m = inProcess("migrate", "pk", graph);
        assertThat(m.code()).as(m.toString()).isZero();
        assertThat(m.out()).contains("ALREADY_FENCING");
    }

    @Test
    @Order(10)
    void aTamperedJournalByteFailsVerificationWithExitSevenNamingTheSequence() throws Exception {
        Launcher.Result v = inProcess("audit", "verify", graph);
        assertThat(v.code()).as(v.toString()).isZero();
        // the intent id of the first write appears first in its IntentRecorded record, mid-segment
        Launcher.Result rec = inProcess("audit", graph, "--type", "intent_recorded", "--intent", firstReceipt.get("intent").asText());
        long seq = JSON.readTree(rec.out().strip().split("\n")[0]).get("seq").asLong();
        byte[] needle = firstReceipt.get("intent").asText().getBytes(StandardCharsets.UTF_8);
        Path hit = null;
        long at = -1;
        try (Stream<Path> files = Files.walk(Path.of(graph, "_palisade", "journal"))) {
            for (Path f : files.filter(Files::isRegularFile).sorted().toList()) {
                byte[] b = Files.readAllBytes(f);
                int i = indexOf(b, needle);
                if (i >= 0) {
                    hit = f;
                    at = i + 4;
                    break;
                }
            }
        }
        assertThat(hit).as("journal file holding the intent").isNotNull();
        try (RandomAccessFile f = new RandomAccessFile(hit.toFile(), "rw")) {
            f.seek(at);
            int b = f.read();
            f.seek(at);
            f.write(b ^ 0x01);
        }
        Launcher.Result bad = run("audit", "verify", graph);
        assertThat(bad.code()).as(bad.toString()).isEqualTo(7);
        assertThat(bad.err()).contains("sequence " + seq).doesNotContain("\tat ");
        assertThat(inProcess("audit", graph).code()).isEqualTo(7);
    }

    private static int indexOf(byte[] hay, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= hay.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (hay[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }

    @Test
    @Order(11)
    void journalAckWritesAfterAFoldPrintOnlyTheirReceipt() throws Exception {
        Path cat = tmp.resolve("journal-ack.json");
        Files.writeString(cat, """
                {"tables": [{"name": "person", "kind": "node", "ack": "journal", "columns": [{"name": "id", "type": "string"},
                  {"name": "age", "type": "int64", "nullable": true}]}]}""");
        String g = tmp.resolve("ja").toString();
        assertThat(inProcess("init", g, "--catalog", cat.toString()).code()).isZero();
        // each launch folds at close, so the second one opens a table carrying Lance's MemWAL index
        for (String row : List.of("{\"id\":\"a\",\"age\":1}\n", "{\"id\":\"b\",\"age\":2}\n")) {
            Launcher.Result w = withInput(row, "write", g, "--table", "person");
            assertThat(w.code()).as(w.toString()).isZero();
            assertThat(w.err()).as(w.toString()).isEmpty();
        }
    }

    @Test
    @Order(12)
    void writeWithATerminalOnStandardInputSaysItWaitsForLines() throws Exception {
        Path script = Path.of("/usr/bin/script"); // util-linux: runs the command on a pseudo-terminal
        if (!Files.isExecutable(script)) {
            System.err.println("SKIPPED writeWithATerminalOnStandardInputSaysItWaitsForLines: /usr/bin/script "
                    + "(Debian package bsdutils) is missing, so no pseudo-terminal can be given to palisade write");
            org.junit.jupiter.api.Assumptions.abort("/usr/bin/script (Debian package bsdutils) is missing");
        }
        Launcher.requireBuilt();
        Process p = Launcher.builder(List.of(script.toString(), "-q", "-e", "-c",
                        Launcher.BIN + " write " + graph + " --table person", "/dev/null"))
                .redirectErrorStream(true).start();
        // Ctrl-D at the start of a line: end of input on the terminal, whenever palisade reads it
        p.getOutputStream().write(4);
        p.getOutputStream().flush();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).as(out).isTrue();
        assertThat(out).contains("reading rows as JSON lines from the terminal; end the input with Ctrl-D")
                .contains("no rows in the input");
        assertThat(p.exitValue()).as(out).isEqualTo(5);
    }

    @Test
    @Order(13)
    void aCatalogEditedByHandExitsSevenNamingTheDifferenceUntilTheEditIsUndone() throws Exception {
        Path cat = tmp.resolve("graph-catalog.json");
        Files.writeString(cat, """
                {"tables": [{"name": "person", "kind": "node", "columns": [{"name": "id", "type": "string"}]},
                 {"name": "works_at", "kind": "edge", "columns": [{"name": "id", "type": "string"},
                  {"name": "src", "type": "string"}, {"name": "dst", "type": "string"},
                  {"name": "since", "type": "int64", "nullable": true}]}]}""");
        String g = tmp.resolve("cat").toString();
        assertThat(inProcess("init", g, "--catalog", cat.toString()).code()).isZero();
        Path stored = Path.of(g, "_palisade", "catalog.json");
        String original = Files.readString(stored);
        Files.writeString(stored, original.replace("\"kind\" : \"edge\"", "\"kind\" : \"node\"")
                .replace("\"type\" : \"int64\"", "\"type\" : \"string\""));

        Launcher.Result verify = run("audit", "verify", g);
        assertThat(verify.code()).as(verify.toString()).isEqualTo(7);
        assertThat(verify.err()).contains("palisade: catalog corrupted: journal verified, but catalog",
                "table 'works_at': kind is node, the journal recorded edge",
                "table 'works_at': column 'since' is string, the journal recorded int64").doesNotContain("\tat ");
        Launcher.Result write = withInput("{\"id\":\"p1\"}\n", "write", g, "--table", "person");
        assertThat(write.code()).as(write.toString()).isEqualTo(7);
        assertThat(write.err()).contains("catalog corrupted", "kind is node, the journal recorded edge");

        Files.writeString(stored, original);
        assertThat(run("audit", "verify", g).code()).isZero();
        Launcher.Result ok = withInput("{\"id\":\"p1\"}\n", "write", g, "--table", "person");
        assertThat(ok.code()).as(ok.toString()).isZero();
    }
}
