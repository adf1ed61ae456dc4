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

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

@Command(name = "scan", mixinStandardHelpOptions = true,
        description = {"Print every row of a table at its published head on a graph branch, now or at a past point of the journal. Read-only.",
                "The default format is jsonl (one row object per line, keyed tables sorted by id); json prints one "
                        + "array; table prints aligned columns."},
        footer = {"%nExample:%n  palisade scan GRAPH --table person --branch dev --at '-1h' --format table"})
final class ScanCommand implements Callable<Integer>, ReadOnly {
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

    @picocli.CommandLine.Mixin
    OutputFormat output = new OutputFormat();

    @Override
    public Integer call() {
        OutputFormat.Format format = output.resolve(OutputFormat.Format.jsonl);
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
        io.palisade.fencing.KeyFilter filter = null;
        if (keys != null) {
            try {
                filter = def.keyFilter(keys);
            } catch (io.palisade.fencing.ValidationException e) {
                throw new CliException(Main.USAGE, "--key: " + e.getMessage());
            }
        }
        List<Map<String, Object>> rows = rows(graph, catalog, def, s, branch, head, filter);
        List<Map<String, Object>> plain = new ArrayList<>();
        for (Map<String, Object> r : rows) {
            Map<String, Object> m = new LinkedHashMap<>();
            r.forEach((k, v) -> m.put(k, Cli.plain(v)));
            plain.add(m);
        }
        if (def.kind().keyed()) {
            plain.sort((a, b) -> String.valueOf(a.get("id")).compareTo(String.valueOf(b.get("id"))));
        }
        if (format == OutputFormat.Format.json) {
            Cli.printJson(System.out, plain);
        } else if (format == OutputFormat.Format.jsonl) {
            StringBuilder sb = new StringBuilder();
            for (Map<String, Object> m : plain) {
                sb.append(Cli.toJson(m)).append('\n');
            }
            System.out.print(sb);
        } else {
            List<String> cols = def.columns().stream().map(Catalog.ColumnDef::name).toList();
            List<List<String>> cells = new ArrayList<>();
            for (Map<String, Object> m : plain) {
                cells.add(def.columns().stream().map(c -> cell(c, m.get(c.name()))).toList());
            }
            Tables.print(System.out, cols, cells);
            System.out.println("(" + plain.size() + " rows; " + table + " on " + branch + " = " + head.tableBranch()
                    + "@" + head.version() + ")");
        }
        return Main.OK;
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
     * The rows of {@code def} on {@code branch} at {@code head} of state {@code s}, as every read through Palisade sees
     * them: the table version's rows with, for a journal-ack table, the acknowledged writes not yet folded into it
     * overlaid (docs/journal-ack.md). {@code explain} reads a key's current value through here too.
     */
    static List<Map<String, Object>> rows(Path graph, Catalog catalog, Catalog.TableDef def, HeadsState s, String branch,
                                          TableHead head) {
        return rows(graph, catalog, def, s, branch, head, null);
    }

    /** {@link #rows(Path, Catalog, Catalog.TableDef, HeadsState, String, TableHead)}, only of {@code keys} when not null. */
    static List<Map<String, Object>> rows(Path graph, Catalog catalog, Catalog.TableDef def, HeadsState s, String branch,
                                          TableHead head, io.palisade.fencing.KeyFilter keys) {
        String table = def.name();
        List<Map<String, Object>> rows;
        try (TableStore store = Cli.tables(graph).open(false) /* read-only */) {
            TableRef ref = new TableRef(head.tableBranch(), head.version());
            try (TableSnapshot t = def.kind().keyed() ? store.openKeyed(table, ref) : store.openKeyless(table, ref)) {
                rows = keys == null ? t.scan() : t.rowsWithKeys(keys);
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
        // a journal-ack table: the acknowledged writes not yet folded into it are part of the graph
        rows = io.palisade.coordinator.UnfoldedReads.overlay(Cli.palisadeDir(graph), catalog, s, s.lastSequence(), branch,
                table, rows);
        if (keys != null) {
            java.util.Set<String> wanted = new java.util.HashSet<>(keys.keys());
            rows = rows.stream().filter(r -> wanted.contains(String.valueOf(r.get("id")))).toList();
        }
        return rows;
    }
}
