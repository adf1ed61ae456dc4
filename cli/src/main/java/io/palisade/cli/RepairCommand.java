package io.palisade.cli;

import io.palisade.coordinator.Repair;
import io.palisade.journal.RemovedRow;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

@Command(name = "repair", mixinStandardHelpOptions = true,
        description = {"Make a keyed table whose image breaks the key contract usable again (docs/recovery.md \"Repair\").",
                "It adopts the table's foreign versions and, in one journaled commit, removes the extra rows of every "
                        + "duplicated id and re-installs a stripped primary key; on a pre-fencing graph it removes the "
                        + "duplicated historical ids `migrate pk` refused. Every removed row's key and values are "
                        + "journaled (`explain GRAPH --key K` shows them).",
                "keep-newest keeps the row with the highest Lance row address (the most recently written fragment), "
                        + "keep-oldest the lowest; fail changes nothing when an id is duplicated. It takes the writer "
                        + "lease and exits 8 (foreign versions) or 5 when refused. The default format is table; json "
                        + "prints the report as one object."},
        footer = {"%nExample:%n  palisade repair GRAPH --table person --duplicates keep-newest --format json"})
final class RepairCommand implements Callable<Integer> {
    enum Policy {
        keep_newest(Repair.Duplicates.KEEP_NEWEST), keep_oldest(Repair.Duplicates.KEEP_OLDEST), fail(Repair.Duplicates.FAIL);

        final Repair.Duplicates duplicates;

        Policy(Repair.Duplicates d) {
            this.duplicates = d;
        }
    }

    @Parameters(index = "0", paramLabel = "GRAPH", description = "The graph directory.")
    Path graph;

    @Option(names = "--table", required = true, paramLabel = "T", description = "The keyed table to repair.")
    String table;

    @Option(names = "--branch", defaultValue = "main", paramLabel = "B", description = "Graph branch (default: ${DEFAULT-VALUE}).")
    String branch;

    @Option(names = "--duplicates", required = true, paramLabel = "keep-newest|keep-oldest|fail",
            converter = PolicyConverter.class, completionCandidates = PolicyNames.class, description = "Which row of a duplicated id stays: keep-newest, "
            + "keep-oldest, or fail (change nothing).")
    Policy policy;

    @picocli.CommandLine.Mixin
    OutputFormat output = new OutputFormat();

    /** The values of {@code --duplicates}, for the "did you mean" of a mistyped one. */
    static final class PolicyNames extends java.util.ArrayList<String> {
        private static final long serialVersionUID = 1L;

        PolicyNames() {
            super(java.util.Arrays.stream(Policy.values()).map(p -> p.duplicates.cliName()).toList());
        }
    }

    static final class PolicyConverter implements picocli.CommandLine.ITypeConverter<Policy> {
        @Override
        public Policy convert(String value) {
            for (Policy p : Policy.values()) {
                if (p.duplicates.cliName().equals(value)) {
                    return p;
                }
            }
            throw new picocli.CommandLine.TypeConversionException("'" + value
                    + "' is not keep-newest, keep-oldest or fail");
        }
    }

    @Override
    public Integer call() {
        boolean json = output.resolve(OutputFormat.Format.table) != OutputFormat.Format.table;
        Cli.requireGraph(graph);
        Repair.Report r = Repair.run(graph, new Repair.Request(table, branch, policy.duplicates,
                io.palisade.journal.Durability.POWER_LOSS));
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("status", r.status().name().toLowerCase(java.util.Locale.ROOT));
        m.put("intent", r.intentId());
        m.put("seq", r.seq());
        m.put("table", r.table());
        m.put("graph_branch", r.graphBranch());
        m.put("table_branch", r.tableBranch());
        m.put("journal_version", r.journalVersion());
        m.put("image_version", r.imageVersion());
        m.put("version", r.version());
        m.put("adopted_versions", r.adoptedVersions());
        m.put("primary_key_reinstalled", r.primaryKeyReinstalled());
        m.put("policy", r.policy());
        m.put("duplicated_keys", r.duplicatedKeys());
        List<Map<String, Object>> rows = new ArrayList<>();
        for (RemovedRow x : r.removed()) {
            Map<String, Object> o = new LinkedHashMap<>();
            o.put("key", x.key());
            o.put("row_address", x.rowAddress());
            o.put("kept_row_address", x.keptRowAddress());
            try {
                o.put("values", Cli.JSON.readTree(x.values()));
            } catch (java.io.IOException e) {
                o.put("values", x.values());
            }
            rows.add(o);
        }
        m.put("removed_rows", rows);
        m.put("recovered_first", r.recovered().isEmpty() ? null : r.recovered());
        if (json) {
            Cli.printJson(System.out, m);
            return Main.OK;
        }
        if (r.status() == Repair.Status.NOTHING_TO_REPAIR) {
            System.out.println("nothing to repair: table '" + table + "' on graph branch '" + branch + "' at version "
                    + r.imageVersion() + " has no duplicated id and keeps its primary key"
                    + (r.adoptedVersions().isEmpty() ? "" : "; its foreign versions pass the adoption checks: adopt them"
                    + " with `palisade recover GRAPH --adopt-foreign`"));
            return Main.OK;
        }
        System.out.println("repaired table '" + table + "' on graph branch '" + branch + "': head version "
                + r.journalVersion() + " -> " + r.version() + " (intent " + r.intentId() + ", journal seq " + r.seq() + ")");
        if (!r.adoptedVersions().isEmpty()) {
            System.out.println("  adopted foreign version(s) " + r.adoptedVersions().get(0)
                    + (r.adoptedVersions().size() > 1 ? " to " + r.adoptedVersions().get(r.adoptedVersions().size() - 1) : ""));
        }
        System.out.println("  removed " + r.removed().size() + " row(s) of " + r.duplicatedKeys() + " duplicated id(s), "
                + r.policy() + ":");
        for (RemovedRow x : r.removed()) {
            System.out.println("    '" + x.key() + "' " + x.values() + " (row address " + x.rowAddress() + "; kept "
                    + x.keptRowAddress() + ")");
        }
        if (r.primaryKeyReinstalled()) {
            System.out.println("  re-installed the primary key 'id'");
        }
        return Main.OK;
    }
}
