package io.palisade.cli;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/** Runs the palisade command in-process with captured streams, and builds small graphs for tests. */
final class CliRun {
    static final String CATALOG = """
            {"tables": [{"name": "person", "kind": "node", "columns": [{"name": "id", "type": "string"},
              {"name": "age", "type": "int64", "nullable": true}]}]}""";

    private CliRun() {
    }

    record Result(int code, String out, String err) {
        @Override
        public String toString() {
            return "exit " + code + "\nstdout: " + out + "\nstderr: " + err;
        }
    }

    static synchronized Result run(String... args) {
        return runWithInput("", args);
    }

    static synchronized Result runWithInput(String stdin, String... args) {
        PrintStream out = System.out;
        PrintStream err = System.err;
        InputStream in = System.in;
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        ByteArrayOutputStream e = new ByteArrayOutputStream();
        int code;
        try {
            System.setOut(new PrintStream(o, true, StandardCharsets.UTF_8));
            System.setErr(new PrintStream(e, true, StandardCharsets.UTF_8));
            System.setIn(new ByteArrayInputStream(stdin.getBytes(StandardCharsets.UTF_8)));
            code = Main.run(args);
        } finally {
            System.setOut(out);
            System.setErr(err);
            System.setIn(in);
        }
        return new Result(code, o.toString(StandardCharsets.UTF_8), e.toString(StandardCharsets.UTF_8));
    }

    /** A graph with a person table and {@code writes} one-row inserts (alice0, alice1, ...). */
    static String graph(Path tmp, int writes) throws Exception {
        Files.createDirectories(tmp);
        Path cat = tmp.resolve("catalog.json");
        Files.writeString(cat, CATALOG);
        String graph = tmp.resolve("g").toString();
        Result init = run("init", graph, "--catalog", cat.toString());
        assertThat(init.code()).as(init.toString()).isZero();
        for (int i = 0; i < writes; i++) {
            Result w = runWithInput("{\"id\":\"alice" + i + "\",\"age\":" + (30 + i) + "}\n", "write", graph, "--table",
                    "person", "--mode", "insert");
            assertThat(w.code()).as(w.toString()).isZero();
        }
        return graph;
    }
}
