package io.palisade.cli;

import io.palisade.coordinator.Catalog;
import io.palisade.fencing.ValidationException;
import io.palisade.heads.HeadsState;
import io.palisade.journal.TableHead;
import io.palisade.substrate.TableRef;
import io.palisade.substrate.TableSnapshot;
import io.palisade.substrate.lance.LanceTableStore;
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
        description = "Print every row of a table at its published head on a branch (or as of a journal sequence). Read-only.")
final class ScanCommand implements Callable<Integer> {
    enum Format { jsonl, table }

    @Parameters(index = "0", paramLabel = "GRAPH")
    Path graph;

    @Option(names = "--table", required = true)
    String table;

    @Option(names = "--branch", defaultValue = "main")
    String branch;

    @Option(names = "--at-seq", paramLabel = "N", description = "The table as of journal sequence N.")
    Long atSeq;

    @Option(names = "--format", defaultValue = "jsonl", description = "jsonl or table (default: ${DEFAULT-VALUE}).")
    Format format;

    @Override
    public Integer call() {
        Catalog catalog = Cli.catalog(graph);
        Catalog.TableDef def = catalog.require(table);
        HeadsState s = atSeq == null ? Cli.currentState(graph) : Cli.replayer(graph).headsAt(atSeq);
        if (atSeq == null) {
            Cli.warnForeign(graph); // the rows printed are the head's; say when the table holds more
        }
        TableHead head = s.head(branch, table).orElseThrow(() -> new ValidationException("table '" + table
                + "' has no head on branch '" + branch + "'" + (atSeq == null ? "" : " at sequence " + atSeq)));
        List<Map<String, Object>> rows;
        try (LanceTableStore store = new LanceTableStore(Cli.tablesDir(graph).toString(), java.util.Map.of(), false) /* read-only */) {
            TableRef ref = new TableRef(head.tableBranch(), head.version());
            try (TableSnapshot t = def.kind().keyed() ? store.openKeyed(table, ref) : store.openKeyless(table, ref)) {
                rows = t.scan();
            } catch (io.palisade.fencing.TableCorruptedException e) {
                // name the graph branch and the intents that wrote the damaged version (the journal knows them)
                throw e.withJournal(branch, io.palisade.recovery.PublishedHeads.intentsOf(() -> Cli.reader(graph), s,
                        branch, table));
            }
        }
        List<Map<String, Object>> plain = new ArrayList<>();
        for (Map<String, Object> r : rows) {
            Map<String, Object> m = new LinkedHashMap<>();
            r.forEach((k, v) -> m.put(k, Cli.plain(v)));
            plain.add(m);
        }
        if (def.kind().keyed()) {
            plain.sort((a, b) -> String.valueOf(a.get("id")).compareTo(String.valueOf(b.get("id"))));
        }
        if (format == Format.jsonl) {
            StringBuilder sb = new StringBuilder();
            for (Map<String, Object> m : plain) {
                sb.append(Cli.toJson(m)).append('\n');
            }
            System.out.print(sb);
        } else {
            List<String> cols = def.columns().stream().map(Catalog.ColumnDef::name).toList();
            List<List<String>> cells = new ArrayList<>();
            for (Map<String, Object> m : plain) {
                cells.add(cols.stream().map(c -> String.valueOf(m.get(c))).toList());
            }
            Tables.print(System.out, cols, cells);
            System.out.println("(" + plain.size() + " rows; " + table + " on " + branch + " = " + head.tableBranch()
                    + "@" + head.version() + ")");
        }
        return Main.OK;
    }
}
