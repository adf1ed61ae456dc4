package io.palisade.cli;

import io.palisade.coordinator.Catalog;
import io.palisade.coordinator.Graph;
import io.palisade.coordinator.Receipt;
import io.palisade.substrate.TableSnapshot;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.Callable;

/** {@code palisade optimize}: the coordinator's journaled index maintenance, asked for now. */
@Command(name = "optimize", mixinStandardHelpOptions = true,
        description = {"Bring the index on id of a keyed table, or of every keyed table of a graph branch, up to "
                + "date now: built when absent, rewritten when fragments written since are not covered. Takes the "
                + "writer lease (exit 6 while another writer holds it).",
                "Each is a journaled maintenance intent (explain and audit show it), planned, judged against "
                        + "concurrent writes and verified like a write; an index that covers every fragment commits "
                        + "no table version (no-op). Without --table, a table the branch still inherits unchanged is "
                        + "skipped and said so; named with --table it is refused, as is an append-only table (exit 5).",
                "It prints per table the version before and after, the result (committed, no-op or skipped, with "
                        + "the journaled reason), the live rows, the fragments and whether an index on id existed "
                        + "before. The default format is table; json prints one array of {branch, table, table_branch, "
                        + "version_before, version_after, result, live_rows, fragments, index_before, seq, intent, "
                        + "reason} objects, jsonl one per line."},
        footer = {"%nExample:%n  palisade optimize GRAPH --table person"})
final class OptimizeCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "GRAPH", description = "The graph directory.")
    Path graph;

    @Option(names = "--table", paramLabel = "T", description = "The keyed table whose index to bring up to date "
            + "(default: every keyed table of the branch).")
    String table;

    @Option(names = "--branch", defaultValue = "main", paramLabel = "B",
            description = "Graph branch (default: ${DEFAULT-VALUE}).")
    String branch;

    @picocli.CommandLine.Mixin
    OutputFormat output = new OutputFormat();

    @Override
    public Integer call() {
        return Maintenance.run(graph, branch, table, output.resolve(OutputFormat.Format.table), new Maintenance.Operation() {
            @Override
            public String verb() {
                return "optimize";
            }

            @Override
            public Receipt run(Graph g, String branch, String table) {
                return g.optimizeIndex(branch, table);
            }

            @Override
            public String skips(Catalog.TableDef def) {
                return null;
            }

            @Override
            public void describe(Map<String, Object> into, TableSnapshot before, TableSnapshot after) {
                into.put("fragments", before.fragmentStats(Maintenance.TARGET).fragments());
                into.put("index_before", before.hasIdIndex() ? "present" : "absent");
            }
        });
    }
}
