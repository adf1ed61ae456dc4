package io.palisade.recovery;

import io.palisade.heads.HeadsState;
import io.palisade.heads.OpenIntent;
import io.palisade.journal.TableHead;
import io.palisade.substrate.TableStore;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The open intents of one (graph branch, table). One substrate commit is in flight per table, so the intents of a
 * group are one commit's intents and the versions past their expected base are that commit's effect; the first
 * intent's recorded transition and base speak for the group.
 *
 * <p>Invariants: {@code intents} is non-empty, all of one graph branch and table, in the state's order;
 * {@code key} identifies the (graph branch, table).
 */
record OpenGroup(String key, List<OpenIntent> intents) {
    OpenGroup {
        intents = List.copyOf(intents);
    }

    /** The open intents of {@code state}, grouped per (graph branch, table), in the order of each group's first intent. */
    static List<OpenGroup> of(HeadsState state) {
        Map<String, List<OpenIntent>> groups = new LinkedHashMap<>();
        for (OpenIntent o : state.openIntents()) {
            groups.computeIfAbsent(o.graphBranch() + "\u0000" + o.table(), k -> new ArrayList<>()).add(o);
        }
        return groups.entrySet().stream().map(e -> new OpenGroup(e.getKey(), e.getValue())).toList();
    }

    OpenIntent first() {
        return intents.get(0);
    }

    String graphBranch() {
        return first().graphBranch();
    }

    String table() {
        return first().table();
    }

    /** The table branch the group's commit writes to. */
    String tableBranch() {
        return first().recorded().intendedTransition().to().tableBranch();
    }

    /** The version of the table branch the group's commit was based on. */
    long base() {
        return first().recorded().expectedBase().version();
    }

    /** Whether the group's write forked its table branch (its first write on a graph branch that inherited the table). */
    boolean forked() {
        return !tableBranch().equals(first().recorded().expectedBase().tableBranch());
    }

    /**
     * The version the group's Lance commit is made on: {@link #base()}, or one above it when the write forked its table
     * branch through another branch, which rebuilds the {@code id} index on the fork in one CreateIndex version of its
     * own ({@code TableStore.forkBranch}). That version is the fork's, not the write's effect: a write interrupted
     * after it never ran. Another kind of version there is left to the caller's rules.
     */
    long writeBase(TableStore store) {
        long base = base();
        if (!forked() || !store.exists(table())) {
            return base;
        }
        return store.forkWriteBase(table(), tableBranch(), base);
    }

    /** Whether every intent's head is published (only its completion is missing). */
    boolean published() {
        return intents.stream().allMatch(o -> o.publishedHead() != null);
    }

    List<String> intentIds() {
        return intents.stream().map(OpenIntent::intentId).toList();
    }

    /** The head the graph branch pins for the table, else the one the group's transition starts from. */
    TableHead head(HeadsState state) {
        return state.head(graphBranch(), table()).orElse(first().recorded().intendedTransition().from());
    }
}
