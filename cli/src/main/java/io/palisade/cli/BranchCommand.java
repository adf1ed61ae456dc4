package io.palisade.cli;

import io.palisade.coordinator.Graph;
import io.palisade.coordinator.BranchRequests;
import io.palisade.coordinator.MergeResult;
import io.palisade.heads.GraphBranch;
import io.palisade.heads.HeadsState;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

@Command(name = "branch", mixinStandardHelpOptions = true,
        description = {"Create, delete, list and merge graph branches.",
                "A new branch is lazy: it shares its parent's table heads until it writes. Merging brings one "
                        + "branch's changes into another; a key changed on both sides is a merge conflict (exit 3)."},
        footer = {"%nExample:%n  palisade branch GRAPH create dev --from main"},
        subcommands = {BranchCommand.Create.class, BranchCommand.Delete.class, BranchCommand.ListBranches.class,
                BranchCommand.Merge.class})
final class BranchCommand implements Runnable {
    @Parameters(index = "0", arity = "0..1", paramLabel = "GRAPH",
            description = "The graph directory (before the subcommand: branch GRAPH create NAME).")
    Path graph;

    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        if (graph == null) {
            throw new picocli.CommandLine.ParameterException(spec.commandLine(), "missing required parameter 'GRAPH' "
                    + "and a subcommand: palisade branch GRAPH create|delete|list|merge ...");
        }
        throw new picocli.CommandLine.ParameterException(spec.commandLine(), "missing subcommand: create, delete, list or merge");
    }

    /** The graph named before the subcommand; a usage error without it. */
    Path graph(picocli.CommandLine.Model.CommandSpec sub) {
        if (graph == null) {
            throw new picocli.CommandLine.ParameterException(sub.commandLine(), "missing required parameter 'GRAPH' "
                    + "(it comes before the subcommand: palisade branch GRAPH " + sub.name() + " ...)");
        }
        return graph;
    }

    @Command(name = "create", mixinStandardHelpOptions = true,
            description = {"Create graph branch NAME from another branch (default main).",
                    "Takes the writer lease."},
            footer = {"%nExample:%n  palisade branch GRAPH create dev --from main"})
    static final class Create implements Callable<Integer> {
        @ParentCommand
        BranchCommand parent;
        @picocli.CommandLine.Spec
        picocli.CommandLine.Model.CommandSpec spec;
        @Parameters(index = "0", paramLabel = "NAME", description = "The new branch's name.")
        String name;
        @Option(names = "--from", defaultValue = "main", paramLabel = "B",
                description = "The branch it starts from (default: ${DEFAULT-VALUE}).")
        String from;

        @Override
        public Integer call() {
            Path graph = parent.graph(spec);
            // refused from the files first: taking the lease for a refused request would journal a writer session
            BranchRequests.checkCreate(Cli.currentState(graph), name, from);
            try (Graph g = Cli.openForWrite(graph)) {
                g.createBranch(name, from);
            }
            System.out.println("created branch " + name + " from " + from);
            return Main.OK;
        }
    }

    @Command(name = "delete", mixinStandardHelpOptions = true,
            description = {"Delete graph branch NAME.", "Its table branches keep its history, so once it has written "
                    + "a table its name is not given to a new branch.", "Takes the writer lease."},
            footer = {"%nExample:%n  palisade branch GRAPH delete dev"})
    static final class Delete implements Callable<Integer> {
        @ParentCommand
        BranchCommand parent;
        @picocli.CommandLine.Spec
        picocli.CommandLine.Model.CommandSpec spec;
        @Parameters(index = "0", paramLabel = "NAME", description = "The branch to delete.")
        String name;

        @Override
        public Integer call() {
            Path graph = parent.graph(spec);
            BranchRequests.checkDelete(Cli.currentState(graph), name);
            try (Graph g = Cli.openForWrite(graph)) {
                g.deleteBranch(name);
            }
            System.out.println("deleted branch " + name);
            return Main.OK;
        }
    }

    @Command(name = "list", mixinStandardHelpOptions = true,
            description = {"List the live graph branches. Read-only.",
                    "The default format is table; json prints one array of {branch, parent, from_seq, created_seq} "
                            + "objects (the table's columns), jsonl one object per line."},
            footer = {"%nExample:%n  palisade branch GRAPH list --format json"})
    static final class ListBranches implements Callable<Integer>, ReadOnly {
        @ParentCommand
        BranchCommand parent;
        @picocli.CommandLine.Spec
        picocli.CommandLine.Model.CommandSpec spec;
        @picocli.CommandLine.Mixin
        OutputFormat output = new OutputFormat();

        @Override
        public Integer call() {
            OutputFormat.Format format = output.resolve(OutputFormat.Format.table);
            HeadsState s = Cli.currentState(parent.graph(spec));
            List<Map<String, Object>> out = new ArrayList<>();
            for (GraphBranch b : s.branches().values()) {
                if (!s.branchLive(b.name())) {
                    continue;
                }
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("branch", b.name());
                m.put("parent", b.parent());
                m.put("from_seq", b.fromSequence());
                m.put("created_seq", b.createdAt());
                out.add(m);
            }
            switch (format) {
                case json -> Cli.printJson(System.out, out);
                case jsonl -> out.forEach(m -> System.out.println(Cli.toJson(m)));
                case table -> {
                    List<String> header = List.of("branch", "parent", "from_seq", "created_seq");
                    List<List<String>> rows = new ArrayList<>();
                    for (Map<String, Object> m : out) {
                        rows.add(header.stream().map(h -> m.get(h) == null ? "-" : String.valueOf(m.get(h))).toList());
                    }
                    Tables.print(System.out, header, rows);
                }
            }
            return Main.OK;
        }
    }

    @Command(name = "merge", mixinStandardHelpOptions = true,
            description = {"Merge branch NAME into another branch and print the result: one JSON line (the default, "
                    + "jsonl), one JSON document (json) or a summary and a table of the receipts (table).",
                    "Rows inserted on NAME go in as strict inserts, updated rows as upserts, and keys deleted on NAME "
                            + "are deleted. A key changed on both sides since the fork is a merge conflict (exit 3, "
                            + "keys named) and nothing is merged. Takes the writer lease."},
            footer = {"%nExample:%n  palisade branch GRAPH merge dev --into main"})
    static final class Merge implements Callable<Integer> {
        @ParentCommand
        BranchCommand parent;
        @picocli.CommandLine.Spec
        picocli.CommandLine.Model.CommandSpec spec;
        @Parameters(index = "0", paramLabel = "NAME", description = "The branch whose changes are merged.")
        String name;
        @Option(names = "--into", required = true, paramLabel = "B", description = "The branch that receives them.")
        String into;
        @picocli.CommandLine.Mixin
        OutputFormat output = new OutputFormat();

        @Override
        public Integer call() {
            Path graph = parent.graph(spec);
            Cli.requireGraph(graph);
            BranchRequests.checkMerge(Cli.currentState(graph), name, into);
            try (Graph g = Cli.openForWrite(graph)) {
                MergeResult r = g.merge(name, into);
                OutputFormat.Format format = output.resolve(OutputFormat.Format.jsonl);
                switch (format) {
                    case jsonl -> System.out.println(Cli.toJson(r));
                    case json -> Cli.printJson(System.out, r);
                    case table -> {
                        System.out.println("merged " + r.source() + " into " + r.target() + ": " + r.inserted()
                                + " inserted, " + r.updated() + " updated, " + r.deleted() + " deleted");
                        List<List<String>> rows = new ArrayList<>();
                        for (io.palisade.coordinator.Receipt rc : r.receipts()) {
                            rows.add(WriteCommand.receiptJson(rc).values().stream().map(String::valueOf).toList());
                        }
                        if (!rows.isEmpty()) {
                            Tables.print(System.out, List.of("intent", "seq", "table", "branch", "version", "rows"), rows);
                        }
                    }
                }
            }
            return Main.OK;
        }
    }
}
