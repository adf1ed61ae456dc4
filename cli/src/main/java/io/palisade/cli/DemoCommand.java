package io.palisade.cli;

import io.palisade.fencing.KeyFilter;
import io.palisade.fencing.action.AddFragments;
import io.palisade.fencing.action.DataFile;
import io.palisade.fencing.action.FragmentTemplate;
import io.palisade.fencing.action.KeyScope;
import io.palisade.fencing.conflict.CommittedTransaction;
import io.palisade.fencing.conflict.ConflictResolver;
import io.palisade.fencing.conflict.Transaction;
import io.palisade.fencing.conflict.Verdict;
import picocli.CommandLine.Command;

import java.io.PrintStream;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;

/** {@code palisade demo}: the fencing rules at work (the full graph demo arrives with the coordinator). */
@Command(name = "demo", description = "Show the fencing rules at work on concurrent inserts.")
final class DemoCommand implements Callable<Integer> {

    @Override
    public Integer call() {
        PrintStream out = System.out;
        out.println("Palisade fencing demo: two writers read table 'person' at version 7 and insert concurrently.");
        out.println();
        race(out, "disjoint keys", List.of("alice", "bob"), List.of("carol", "dave"));
        race(out, "one shared key", List.of("alice", "bob"), List.of("bob", "erin"));
        race(out, "an unfiltered (bare) append", List.of("alice"), null);
        out.println("Exact key filters: disjoint keys never conflict, shared keys always do, and an insert whose");
        out.println("keys are unknown conflicts with every keyed writer, whichever commits first.");
        out.println("The full matrix: docs/conflict-matrix.md");
        return 0;
    }

    private static void race(PrintStream out, String title, List<String> first, List<String> second) {
        Transaction loser = new Transaction("writer-2", 7, List.of(add(second)));
        CommittedTransaction winner = new CommittedTransaction("writer-1", 8, List.of(add(first)));
        Verdict v = ConflictResolver.check(loser, List.of(winner));
        out.println("-- " + title + ": writer-1 inserts " + first + " and commits; writer-2 inserts "
                + (second == null ? "rows without a key filter" : second));
        out.println("   verdict for writer-2: " + v.outcome() + (v.mayCommit() ? "" : " — " + v.reason()));
        if (v.keyCollision()) {
            out.println("   a strict insert reports KeyConflict for keys " + v.conflicts().get(0).keys());
        }
        out.println();
    }

    private static AddFragments add(List<String> keys) {
        FragmentTemplate rows = new FragmentTemplate(keys == null ? 1 : keys.size(),
                List.of(new DataFile("rows.lance", Set.of(0, 1))));
        return new AddFragments(List.of(rows), keys == null ? KeyScope.UNKNOWN : KeyScope.exact(KeyFilter.ofStrings(0, keys)));
    }
}
