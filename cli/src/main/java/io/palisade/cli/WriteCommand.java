package io.palisade.cli;

import io.palisade.coordinator.Catalog;
import io.palisade.coordinator.Graph;
import io.palisade.coordinator.Receipt;
import io.palisade.coordinator.WriteOptions;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;

@Command(name = "write", mixinStandardHelpOptions = true,
        description = {"Write JSON lines to a table as one durable write and print its receipt.",
                "The input holds one row object per line (for delete, {\"id\": K} or a bare key). Every line is "
                        + "checked first (bad JSON, null or duplicate id, wrong type, unknown column: exit 5 naming the "
                        + "line); nothing is written unless every line is good. The receipt is one JSON line: "
                        + "{\"intent\":...,\"seq\":N,\"table\":...,\"branch\":...,\"version\":N,\"rows\":N}.",
                "insert is strict: an existing key exits 3 and nothing is written. On an append-only table insert "
                        + "appends.",
                "upsert writes each line as the row's whole new image: a nullable column the line leaves out is "
                        + "null afterwards, also when the key existed.",
                "update changes only the columns each line names, of rows that exist: {\"id\": K, \"age\": 41} sets "
                        + "age and keeps every other column; a column given as null becomes null. A key the table does "
                        + "not hold exits 5 naming it, and nothing is written.",
                "--transaction FILE writes several tables as one graph transaction, all or nothing: one "
                        + "{\"table\": T, \"op\": \"insert\"|\"upsert\"|\"delete\", \"row\": {...}} per line (a "
                        + "delete's row is {\"id\": K}). A bad line exits 5 naming it; a key conflict, a missing "
                        + "edge endpoint or a taken unique value exits 3; nothing of the transaction is written then. "
                        + "The receipt is {\"transaction\":...,\"seq\":N,\"branch\":...,\"parts\":[...]}. "
                        + "--idempotency-key applies to the whole transaction."},
        footer = {"%nExample:%n  palisade write GRAPH --table person --mode upsert rows.jsonl",
                "  palisade write GRAPH --transaction hire.jsonl"})
final class WriteCommand implements Callable<Integer> {
    enum Mode { insert, upsert, update, delete }

    @Parameters(index = "0", paramLabel = "GRAPH", description = "The graph directory.")
    Path graph;

    @Parameters(index = "1", arity = "0..1", paramLabel = "FILE", description = "JSON lines file, or - for stdin (default).")
    String file = "-";

    @Option(names = "--table", paramLabel = "T", description = "The table to write (or --transaction).")
    String table;

    @Option(names = "--transaction", paramLabel = "FILE", description = "A graph transaction from JSON lines (- for "
            + "stdin): writes of several tables committed together (docs/transactions.md).")
    String transaction;

    @Option(names = "--branch", defaultValue = "main", paramLabel = "B", description = "Graph branch (default: ${DEFAULT-VALUE}).")
    String branch;

    @Option(names = "--mode", defaultValue = "insert", description = "insert (strict), upsert, update (only the named columns of existing rows) or delete "
            + "(default: ${DEFAULT-VALUE}).")
    Mode mode;

    @Option(names = "--idempotency-key", paramLabel = "K", description = "Repeating a key with the same request returns "
            + "the first receipt, never a second write; the key with another request exits 10.")
    String idempotencyKey;

    @picocli.CommandLine.Mixin
    OutputFormat output = new OutputFormat();

    @Option(names = "--batch-rows", paramLabel = "N", description = "Bulk load (insert or upsert into a keyed table): one "
            + "intent committed in fenced batches of N rows, published once at the end (all or nothing; docs/bulk-load.md).")
    Integer batchRows;

    @Override
    public Integer call() throws Exception {
        Catalog catalog = Cli.catalog(graph);
        if (transaction != null) {
            return transaction(catalog);
        }
        if (table == null) {
            throw new CliException(Main.USAGE, "name the table to write with --table T, or give a transaction with "
                    + "--transaction FILE");
        }
        Catalog.TableDef def = Cli.requireTable(catalog, table, "--table");
        WriteOptions opts = idempotencyKey == null ? WriteOptions.NONE : WriteOptions.idempotencyKey(idempotencyKey);
        List<JsonLines.Row> rows = null;
        List<String> keys = null;
        Path input = file.equals("-") ? null : readable(file);
        Cli.Progress parse = new Cli.Progress("parse", input == null ? 0 : Files.size(input), "bytes");
        try (BufferedReader in = counting(open(), parse)) {
            if (mode == Mode.delete) {
                keys = JsonLines.readKeys(in, def);
                if (keys.isEmpty()) {
                    throw new CliException(Main.INVALID_INPUT, "no keys to delete in the input");
                }
            } else {
                rows = JsonLines.readRows(in, def, mode == Mode.update);
                if (rows.isEmpty()) {
                    throw new CliException(Main.INVALID_INPUT, "no rows in the input");
                }
            }
        } finally {
            parse.done();
        }
        Receipt receipt;
        int count = rows != null ? rows.size() : keys.size();
        try (Graph g = Cli.openForWrite(graph);
             AutoCloseable ticker = batchRows != null ? () -> { } : Cli.ticker("write: " + count + " "
                     + (mode == Mode.delete ? "keys" : "rows") + " to " + table + " as one intent, committing")) {
            if (mode == Mode.delete) {
                receipt = join(g.deleteAsync(branch, table, keys, opts));
            } else {
                try (BufferAllocator alloc = new RootAllocator();
                     VectorSchemaRoot root = JsonLines.toArrow(rows, def, alloc)) {
                    if (!def.kind().keyed()) {
                        if (mode != Mode.insert) {
                            throw new CliException(Main.INVALID_INPUT, "table '" + table
                                    + "' is append-only: only --mode insert (an append) is possible");
                        }
                        receipt = g.append(branch, table, root);
                    } else if (mode == Mode.update) {
                        if (batchRows != null) {
                            throw new CliException(Main.USAGE, "--batch-rows loads whole rows: it does not take --mode update");
                        }
                        receipt = g.update(branch, table, changes(rows, root), opts);
                    } else if (batchRows != null) {
                        if (batchRows <= 0) {
                            throw new CliException(Main.USAGE, "--batch-rows must be positive");
                        }
                        if (idempotencyKey != null) {
                            throw new CliException(Main.USAGE, "--idempotency-key is not supported with --batch-rows");
                        }
                        long batches = (root.getRowCount() + batchRows - 1) / batchRows;
                        // a batch journals a progress record with its keys, then one without keys once the id index
                        // covers it: count the first
                        long total = root.getRowCount();
                        try (AutoCloseable progress = Cli.journalProgress(graph, "load: batches committed", batches,
                                "batches", e -> e instanceof io.palisade.journal.JournalEvent.LoadProgress lp
                                        && lp.batchIndex() >= 0 && lp.batchKeys() != null,
                                e -> e instanceof io.palisade.journal.JournalEvent.LoadProgress lp
                                        ? lp.rows() + "/" + total + " rows" : null)) {
                            receipt = load(g, root, alloc);
                        }
                    } else if (mode == Mode.insert) {
                        receipt = g.insert(branch, table, root, opts);
                    } else {
                        receipt = g.upsert(branch, table, root, opts);
                    }
                }
            }
        }
        printReceipt(output.resolve(OutputFormat.Format.jsonl), receiptJson(receipt));
        return Main.OK;
    }

    /** {@code --transaction}: every line checked, then one graph transaction; prints its receipt. */
    private int transaction(Catalog catalog) throws Exception {
        if (table != null || !file.equals("-") || batchRows != null || mode != Mode.insert) {
            throw new CliException(Main.USAGE, "--transaction FILE names its tables and operations on each line: it "
                    + "takes no --table, FILE argument, --mode or --batch-rows");
        }
        List<JsonLines.Part> lines;
        try (BufferedReader in = transaction.equals("-") ? open() : Files.newBufferedReader(readable(transaction),
                StandardCharsets.UTF_8)) {
            lines = JsonLines.readTransaction(in, catalog);
        }
        if (lines.isEmpty()) {
            throw new CliException(Main.INVALID_INPUT, "no lines in the transaction");
        }
        // one part per table and operation, in the order they first appear
        Map<String, List<JsonLines.Part>> groups = new LinkedHashMap<>();
        for (JsonLines.Part p : lines) {
            groups.computeIfAbsent(p.table() + "\u0000" + p.op(), k -> new java.util.ArrayList<>()).add(p);
        }
        io.palisade.coordinator.TransactionReceipt receipt;
        List<VectorSchemaRoot> roots = new java.util.ArrayList<>();
        try (Graph g = Cli.openForWrite(graph);
             BufferAllocator alloc = new RootAllocator();
             AutoCloseable ticker = Cli.ticker("write: a transaction of " + lines.size() + " lines in " + groups.size()
                     + " parts, committing")) {
            try (io.palisade.coordinator.Transaction tx = g.transaction(branch)) {
                if (idempotencyKey != null) {
                    tx.idempotencyKey(idempotencyKey);
                }
                for (List<JsonLines.Part> group : groups.values()) {
                    JsonLines.Part first = group.get(0);
                    Catalog.TableDef def = catalog.require(first.table());
                    if (first.op().equals("delete")) {
                        tx.delete(def.name(), group.stream().map(p -> JsonLines.checkKey(p.row(), p.line(), def)).toList());
                        continue;
                    }
                    VectorSchemaRoot root = JsonLines.toArrow(group.stream().map(p -> new JsonLines.Row(p.line(), p.row()))
                            .toList(), def, alloc);
                    roots.add(root);
                    if (first.op().equals("insert")) {
                        tx.insert(def.name(), root);
                    } else {
                        tx.upsert(def.name(), root);
                    }
                }
                receipt = tx.commit();
            } finally {
                roots.forEach(VectorSchemaRoot::close);
            }
        }
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("transaction", receipt.transaction());
        m.put("seq", receipt.seq());
        m.put("branch", receipt.branch());
        m.put("parts", receipt.parts().stream().map(WriteCommand::receiptJson).toList());
        printReceipt(output.resolve(OutputFormat.Format.jsonl), m);
        return Main.OK;
    }

    /**
     * An update's changes: of each line, the columns it names, with their values as {@code root} (the lines in the
     * table's schema, unnamed columns null) holds them.
     */
    private static List<io.palisade.coordinator.Row> changes(List<JsonLines.Row> rows, VectorSchemaRoot root) {
        List<io.palisade.coordinator.Row> out = new java.util.ArrayList<>(rows.size());
        for (int i = 0; i < rows.size(); i++) {
            Map<String, Object> change = new java.util.LinkedHashMap<>();
            for (java.util.Iterator<String> it = rows.get(i).node().fieldNames(); it.hasNext(); ) {
                String c = it.next();
                change.put(c, io.palisade.substrate.ArrowRows.value(root.getVector(c), i));
            }
            out.add(io.palisade.coordinator.Row.of(change));
        }
        return out;
    }

    /** Streams the batch to {@link Graph#load} through an Arrow IPC reader (the load re-batches it). */
    private Receipt load(Graph g, VectorSchemaRoot root, BufferAllocator alloc) throws java.io.IOException {
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        try (org.apache.arrow.vector.ipc.ArrowStreamWriter w = new org.apache.arrow.vector.ipc.ArrowStreamWriter(root, null, bytes)) {
            w.start();
            w.writeBatch();
            w.end();
        }
        try (org.apache.arrow.vector.ipc.ArrowStreamReader r = new org.apache.arrow.vector.ipc.ArrowStreamReader(
                new java.io.ByteArrayInputStream(bytes.toByteArray()), alloc)) {
            return g.load(branch, table, r, mode == Mode.insert ? io.palisade.coordinator.LoadMode.APPEND
                    : io.palisade.coordinator.LoadMode.MERGE, batchRows);
        }
    }

    /** A receipt as one JSON line (jsonl, the default), one JSON document (json) or a one-row table. */
    static void printReceipt(OutputFormat.Format format, Map<String, Object> receipt) {
        switch (format) {
            case jsonl -> System.out.println(Cli.toJson(receipt));
            case json -> Cli.printJson(System.out, receipt);
            case table -> Tables.print(System.out, List.copyOf(receipt.keySet()),
                    List.of(receipt.values().stream().map(String::valueOf).toList()));
        }
    }

    static Map<String, Object> receiptJson(Receipt r) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("intent", r.intent());
        m.put("seq", r.seq());
        m.put("table", r.table());
        m.put("branch", r.branch());
        m.put("version", r.version());
        m.put("rows", r.rows());
        return m;
    }

    private static <T> T join(java.util.concurrent.CompletableFuture<T> f) throws Exception {
        try {
            return f.get();
        } catch (ExecutionException e) {
            if (e.getCause() instanceof Exception x) {
                throw x;
            }
            throw e;
        }
    }

    /** {@code in}, advancing {@code p} by the characters read (about the bytes of an ASCII file) and noting the lines. */
    private static BufferedReader counting(BufferedReader in, Cli.Progress p) {
        return new BufferedReader(in) {
            private long chars;
            private long lines;

            @Override
            public String readLine() throws IOException {
                String s = super.readLine();
                if (s != null) {
                    chars += s.length() + 1;
                    lines++;
                    if ((lines & 1023) == 0) {
                        p.note(lines + " rows parsed");
                        p.at(chars);
                    }
                }
                return s;
            }
        };
    }

    private BufferedReader open() throws IOException {
        if (file.equals("-")) {
            if (Cli.stdinIsTerminal()) {
                // otherwise the command seems to hang: it waits for lines nobody knows to type
                System.err.println("palisade: reading " + (mode == Mode.delete ? "keys" : "rows")
                        + " as JSON lines from the terminal; end the input with Ctrl-D, or give a FILE");
            }
            return new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        }
        return Files.newBufferedReader(readable(file), StandardCharsets.UTF_8);
    }

    /** The input file, or an invalid-input error (exit 5) naming it when it is missing or unreadable. */
    private static Path readable(String file) {
        Path p = Path.of(file);
        if (!Files.isRegularFile(p) || !Files.isReadable(p)) {
            throw new CliException(Main.INVALID_INPUT, "cannot read input file " + file
                    + (Files.exists(p) ? (Files.isDirectory(p) ? " (it is a directory)" : "") : " (no such file)"));
        }
        return p;
    }
}
