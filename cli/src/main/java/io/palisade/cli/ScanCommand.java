package io.palisade.cli;

import io.palisade.coordinator.Catalog;
import io.palisade.heads.HeadsState;
import io.palisade.journal.TableHead;
import io.palisade.substrate.TableRef;
import io.palisade.substrate.TableSnapshot;
import io.palisade.substrate.TableStore;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import io.palisade.substrate.InvalidFilterException;
import io.palisade.substrate.RowSink;
import io.palisade.substrate.ScanSpec;

import java.io.BufferedOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

@Command(name = "scan", mixinStandardHelpOptions = true,
        description = {"Print the rows of a table at its published head on a graph branch, now or at a past point of the "
                + "journal: every row, those a --where expression selects, or those of --key; at most --limit. Read-only.",
                "The rows stream: the scan holds one batch of rows, not the table, whatever its size. They come in "
                        + "storage order (not sorted): the table's rows as Lance stores them, then, on a journal-ack "
                        + "table, the rows its unfolded writes changed or added, in the order they were acknowledged.",
                "The default format is jsonl (one row object per line); json prints one array; table prints aligned "
                        + "columns, " + ScanCommand.PAGE_ROWS + " rows per page (each page aligned on its own, "
                        + "with its header)."},
        footer = {"%nExample:%n  palisade scan GRAPH --table person --branch dev --at '-1h' --format table",
                "  palisade scan GRAPH --table person --where \"age >= 30 AND name LIKE 'a%%'\" --limit 10"})
final class ScanCommand implements Callable<Integer>, ReadOnly {
    /** The rows the table format aligns together: it holds at most this many rows. */
    static final int PAGE_ROWS = 1000;

    @Parameters(index = "0", paramLabel = "GRAPH", description = "The graph directory.")
    Path graph;

    @Option(names = "--table", required = true, paramLabel = "T", description = "The table to print.")
    String table;

    @Option(names = "--branch", defaultValue = "main", paramLabel = "B", description = "The graph branch (default: ${DEFAULT-VALUE}).")
    String branch;

    @Option(names = {"--at", "--at-seq", "--at-time"}, paramLabel = "POINT",
            description = "The table as of this journal point: a sequence, an ISO-8601 time (zone-less is UTC), a "
                    + "relative time (-10m, 2h ago) or 'last N' (before the last N records). --at-seq and --at-time "
                    + "are older names of this option.")
    String at;

    @Option(names = "--key", paramLabel = "K", split = ",",
            description = "Only the rows with these keys (repeatable or comma-separated; a keyed table): a point lookup "
                    + "instead of a scan of the table. A key the table does not hold prints nothing.")
    List<String> keys;

    @Option(names = "--where", paramLabel = "EXPR",
            description = "Only the rows this filter expression selects: Lance's SQL over the table's columns, e.g. "
                    + "\"age >= 30 AND name LIKE 'a%%'\" (text in single quotes; =, <>, <, >, AND, OR, NOT, IN, LIKE, "
                    + "IS NULL). On a journal-ack table it selects among the current rows, the unfolded writes "
                    + "included. An expression the table cannot evaluate is a usage error (exit 2).")
    String where;

    @Option(names = "--limit", paramLabel = "N",
            description = "At most N rows (N >= 1): the scan stops reading once N rows are printed.")
    Long limit;

    @picocli.CommandLine.Mixin
    OutputFormat output = new OutputFormat();

    @Override
    public Integer call() {
        OutputFormat.Format format = output.resolve(OutputFormat.Format.jsonl);
        if (where != null && where.isBlank()) {
            throw new CliException(Main.USAGE, "--where: give a filter expression, e.g. \"age > 30\"");
        }
        if (limit != null && limit < 1) {
            throw new CliException(Main.USAGE, "--limit: give a number of rows, at least 1, not " + limit);
        }
        Catalog catalog = Cli.catalog(graph);
        Catalog.TableDef def = Cli.requireTable(catalog, table, "--table");
        Seek.Point point = Seek.parse(at, "--at");
        Long atSeq = point == null ? null : new Seek.Span(Cli.reader(graph)).point(point, "--at");
        HeadsState s = atSeq == null ? Cli.currentState(graph) : Cli.replayer(graph).headsAt(atSeq);
        Cli.requireBranch(s, branch, "--branch");
        if (atSeq == null) {
            Cli.warnForeign(graph); // the rows printed are the head's; say when the table holds more
        }
        TableHead head = s.head(branch, table).orElseThrow(() -> new CliException(Main.USAGE, "table '" + table
                + "' has no head on graph branch '" + branch + "'" + (atSeq == null ? "" : " at sequence " + atSeq)
                + " (it was not created yet)"));
        if (keys != null && !def.kind().keyed()) {
            throw new CliException(Main.USAGE, "--key: table '" + table + "' is append-only and has no key");
        }
        ScanSpec spec = ScanSpec.all().withFilter(where).withLimit(limit == null ? ScanSpec.NO_LIMIT : limit);
        if (keys != null) {
            try {
                spec = spec.withKeys(def.keyFilter(keys));
            } catch (io.palisade.fencing.ValidationException e) {
                throw new CliException(Main.USAGE, "--key: " + e.getMessage());
            }
        }
        // stdout buffered here, flushed once at the end (and before an error is reported): not a write per row
        PrintStream out = new PrintStream(new BufferedOutputStream(System.out, 1 << 16), false, StandardCharsets.UTF_8);
        Printer printer = switch (format) {
            case jsonl -> new Jsonl(out);
            case json -> new JsonArray(out);
            case table -> new Paged(out, def);
        };
        try {
            rows(graph, catalog, def, s, branch, head, spec, row -> {
                Map<String, Object> m = new LinkedHashMap<>();
                row.forEach((k, v) -> m.put(k, Cli.plain(v)));
                printer.row(m);
                return true;
            });
        } catch (InvalidFilterException e) {
            out.flush();
            throw new CliException(Main.USAGE, "--where: " + e.getMessage());
        } catch (RuntimeException e) {
            out.flush();
            throw e;
        }
        printer.end();
        if (format == OutputFormat.Format.table) {
            out.println("(" + printer.count() + " rows; " + table + " on " + branch + " = " + head.tableBranch() + "@"
                    + head.version() + (where == null ? "" : "; where " + where) + ")");
        }
        out.flush();
        return Main.OK;
    }

    /** Prints rows as they come. */
    private abstract static class Printer {
        final PrintStream out;
        long count;

        Printer(PrintStream out) {
            this.out = out;
        }

        void row(Map<String, Object> m) {
            count++;
            print(m);
        }

        abstract void print(Map<String, Object> m);

        void end() {
        }

        long count() {
            return count;
        }
    }

    /** One JSON object a line. */
    private static final class Jsonl extends Printer {
        Jsonl(PrintStream out) {
            super(out);
        }

        @Override
        void print(Map<String, Object> m) {
            out.print(Cli.toJson(m));
            out.print('\n');
        }
    }

    /** One JSON array, its elements printed as they come. */
    private static final class JsonArray extends Printer {
        JsonArray(PrintStream out) {
            super(out);
        }

        @Override
        void print(Map<String, Object> m) {
            out.print(count == 1 ? "[" : ",");
            out.print(Cli.toJson(m));
        }

        @Override
        void end() {
            out.println(count == 0 ? "[]" : "]");
            Main.jsonPrinted = true;
        }
    }

    /** Aligned columns, a page of at most {@link #PAGE_ROWS} rows at a time (an empty table prints its header). */
    private static final class Paged extends Printer {
        private final Catalog.TableDef def;
        private final List<List<String>> page = new ArrayList<>();
        private int pages;

        Paged(PrintStream out, Catalog.TableDef def) {
            super(out);
            this.def = def;
        }

        @Override
        void print(Map<String, Object> m) {
            page.add(def.columns().stream().map(c -> cell(c, m.get(c.name()))).toList());
            if (page.size() == PAGE_ROWS) {
                flushPage();
            }
        }

        private void flushPage() {
            if (pages > 0) {
                out.println();
            }
            Tables.print(out, def.columns().stream().map(Catalog.ColumnDef::name).toList(), page);
            page.clear();
            pages++;
        }

        @Override
        void end() {
            if (!page.isEmpty() || pages == 0) {
                flushPage();
            }
        }
    }

    /**
     * A value as the table format shows it: a timestamp (stored as UTC epoch microseconds, which json and jsonl print)
     * as an ISO-8601 instant, anything else as its JSON text.
     */
    static String cell(Catalog.ColumnDef c, Object v) {
        if (v instanceof Number n && c.type() == Catalog.ColumnType.Scalar.TIMESTAMP) {
            long micros = n.longValue();
            return java.time.Instant.ofEpochSecond(Math.floorDiv(micros, 1_000_000L),
                    Math.floorMod(micros, 1_000_000L) * 1_000L).toString();
        }
        return String.valueOf(v);
    }

    /**
     * Streams the rows of {@code def} on {@code branch} at {@code head} of state {@code s} that {@code spec} selects to
     * {@code sink}, as every read through Palisade sees them (docs/journal-ack.md "Reads"): for a journal-ack table,
     * the acknowledged writes not yet folded (as of {@code s}) override the table version's rows. The table's rows
     * stream, those of keys the unfolded writes touch left out; then the rows live after those writes, filtered by the
     * same expression through the same engine ({@link io.palisade.coordinator.UnfoldedReads.Tail#scan}). The limit
     * counts the rows delivered. {@code explain} reads a key's current value through here too.
     */
    static void rows(Path graph, Catalog catalog, Catalog.TableDef def, HeadsState s, String branch, TableHead head,
                     ScanSpec spec, RowSink sink) {
        String table = def.name();
        long[] left = {spec.limit()};
        RowSink counted = row -> {
            left[0]--;
            return sink.accept(row) && left[0] > 0;
        };
        if (spec.limit() == 0) {
            return;
        }
        try (TableStore store = Cli.tables(graph).open(false) /* read-only */;
             io.palisade.coordinator.UnfoldedReads.Tail tail = io.palisade.coordinator.UnfoldedReads.tail(
                     Cli.palisadeDir(graph), catalog, s, s.lastSequence(), branch, table)) {
            TableRef ref = new TableRef(head.tableBranch(), head.version());
            try (TableSnapshot t = def.kind().keyed() ? store.openKeyed(table, ref) : store.openKeyless(table, ref)) {
                // at most keyCount() rows of the table are left out for the tail: Lance need not read past that
                ScanSpec folded = tail.isEmpty() || !spec.limited() ? spec
                        : spec.withLimit(spec.limit() > Long.MAX_VALUE - tail.keyCount() ? ScanSpec.NO_LIMIT
                        : spec.limit() + tail.keyCount());
                boolean[] more = {true};
                t.scan(folded, row -> {
                    if (!tail.isEmpty() && tail.touches(String.valueOf(row.get("id")))) {
                        return true; // an unfolded write holds its current value (or deleted it)
                    }
                    more[0] = counted.accept(row);
                    return more[0];
                });
                if (more[0] && !tail.isEmpty()) {
                    tail.scan(t, spec.withLimit(left[0]), counted);
                }
            } catch (io.palisade.fencing.TableCorruptedException e) {
                // a fork point whose files version retention removed is not damage: exit 2, naming the rule
                java.util.Optional<io.palisade.fencing.VersionExpiredException> removed =
                        io.palisade.coordinator.RetainedVersions.removed(Cli.palisadeDir(graph), store, table, ref, e);
                if (removed.isPresent()) {
                    throw removed.get();
                }
                // name the graph branch and the intents that wrote the damaged version (the journal knows them)
                throw e.withJournal(branch, io.palisade.recovery.PublishedHeads.intentsOf(() -> Cli.reader(graph), s,
                        branch, table));
            }
        }
    }
}
