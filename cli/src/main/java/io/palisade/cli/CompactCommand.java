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

/** {@code palisade compact}: the coordinator's journaled compaction, asked for now (docs/coordinator.md "Maintenance"). */
@Command(name = "compact", mixinStandardHelpOptions = true,
        description = {"Compact a table, or every keyed table of a graph branch, now: small fragments and fragments "
                + "full of deleted rows are rewritten into fewer ones, rows unchanged. Takes the writer lease (exit 6 "
                + "while another writer holds it).",
                "Each compaction is a journaled maintenance intent (explain and audit show it), planned, judged "
                        + "against concurrent writes and verified like a write; nothing to compact commits no table "
                        + "version (no-op). Without --table, a table the branch still inherits unchanged and a "
                        + "journal-ack table are skipped and said so; named with --table they are refused (exit 5).",
                "It prints per table the version before and after, the result (committed, no-op or skipped, with "
                        + "the journaled reason), the live rows, and the fragments and deleted rows before and after. "
                        + "The default format is table; json prints one array of {branch, table, table_branch, "
                        + "version_before, version_after, result, live_rows, fragments_before, fragments_after, "
                        + "deleted_rows_before, deleted_rows_after, seq, intent, reason} objects, jsonl one per line.",
                "Old versions are not removed here: version retention does that in a running writer (README "
                        + "\"Maintenance and retention\"); palisade status shows the versions kept."},
        footer = {"%nExample:%n  palisade compact GRAPH --table person --branch main"})
final class CompactCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "GRAPH", description = "The graph directory.")
    Path graph;

    @Option(names = "--table", paramLabel = "T", description = "The table to compact (default: every keyed table of "
            + "the branch).")
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
                return "compact";
            }

            @Override
            public Receipt run(Graph g, String branch, String table) {
                return g.compact(branch, table);
            }

            @Override
            public String skips(Catalog.TableDef def) {
                return null;
            }

            @Override
            public void describe(Map<String, Object> into, TableSnapshot before, TableSnapshot after) {
                Maintenance.fragments(into, before, after);
            }
        });
    }
}
