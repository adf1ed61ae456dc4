package io.palisade.cli;

import io.palisade.coordinator.Graph;
import io.palisade.coordinator.MergeResult;
import io.palisade.heads.GraphBranch;
import io.palisade.heads.HeadsState;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

import java.nio.file.Path;
import java.util.concurrent.Callable;

@Command(name = "branch", mixinStandardHelpOptions = true,
        description = {"Graph branches: create (lazy), delete, list, merge.",
                "merge brings a branch's changes into another (a key changed on both sides: exit 3)."},
        subcommands = {BranchCommand.Create.class, BranchCommand.Delete.class, BranchCommand.ListBranches.class,
                BranchCommand.Merge.class})
final class BranchCommand implements Runnable {
    @Parameters(index = "0", paramLabel = "GRAPH")
    Path graph;

    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        throw new picocli.CommandLine.ParameterException(spec.commandLine(), "missing subcommand: create, delete, list or merge");
    }

    @Command(name = "create", mixinStandardHelpOptions = true, description = "Create graph branch NAME from --from (default main).")
    static final class Create implements Callable<Integer> {
        @ParentCommand
        BranchCommand parent;
        @Parameters(index = "0", paramLabel = "NAME")
        String name;
        @Option(names = "--from", defaultValue = "main")
        String from;

        @Override
        public Integer call() {
            try (Graph g = Cli.openForWrite(parent.graph)) {
                g.createBranch(name, from);
            }
            System.out.println("created branch " + name + " from " + from);
            return Main.OK;
        }
    }

    @Command(name = "delete", mixinStandardHelpOptions = true, description = "Delete graph branch NAME.")
    static final class Delete implements Callable<Integer> {
        @ParentCommand
        BranchCommand parent;
        @Parameters(index = "0", paramLabel = "NAME")
        String name;

        @Override
        public Integer call() {
            try (Graph g = Cli.openForWrite(parent.graph)) {
                g.deleteBranch(name);
            }
            System.out.println("deleted branch " + name);
            return Main.OK;
        }
    }

    @Command(name = "list", mixinStandardHelpOptions = true, description = "List live graph branches (read-only).")
    static final class ListBranches implements Callable<Integer> {
        @ParentCommand
        BranchCommand parent;
        @Option(names = "--json")
        boolean json;

        @Override
        public Integer call() {
            HeadsState s = Cli.currentState(parent.graph);
            java.util.List<java.util.Map<String, Object>> out = new java.util.ArrayList<>();
            for (GraphBranch b : s.branches().values()) {
                java.util.Map<String, Object> m = new java.util.LinkedHashMap<>();
                m.put("branch", b.name());
                m.put("parent", b.parent());
                m.put("from_seq", b.fromSequence());
                m.put("created_seq", b.createdAt());
                out.add(m);
            }
            if (json) {
                Cli.printJson(System.out, out);
            } else {
                for (GraphBranch b : s.branches().values()) {
                    System.out.println(b.name() + (b.parent() == null ? "" : "  (from " + b.parent() + " at seq "
                            + b.fromSequence() + ")"));
                }
            }
            return Main.OK;
        }
    }

    @Command(name = "merge", mixinStandardHelpOptions = true,
            description = {"Merge branch NAME into --into: rows inserted on NAME go in with WhenMatched Fail, updated rows",
                    "as upserts, keys deleted on NAME are deleted. A key changed on both sides since the fork is a merge",
                    "conflict (exit 3, keys named) and nothing is merged. Prints the result as one JSON line."})
    static final class Merge implements Callable<Integer> {
        @ParentCommand
        BranchCommand parent;
        @Parameters(index = "0", paramLabel = "NAME")
        String name;
        @Option(names = "--into", required = true)
        String into;

        @Override
        public Integer call() {
            Cli.requireGraph(parent.graph);
            try (Graph g = Cli.openForWrite(parent.graph)) {
                MergeResult r = g.merge(name, into);
                System.out.println(Cli.toJson(r));
            }
            return Main.OK;
        }
    }
}
