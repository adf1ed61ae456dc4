package io.palisade.recovery;

import io.palisade.heads.HeadsState;
import io.palisade.heads.Pin;
import io.palisade.journal.TableHead;
import io.palisade.substrate.DamagedVersion;
import io.palisade.substrate.TableStore;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * What the tables hold above the journal's heads that no journaled intent explains, found before recovery journals
 * anything (refusing must not leave half a recovery in the journal).
 *
 * <ul>
 *   <li>{@code orphans}: torn versions right above a head a graph branch owns, with no open intent on that (graph
 *       branch, table) and nothing complete between: a torn commit, never acknowledged, which the run sets aside;</li>
 *   <li>{@code foreign}: complete versions above such a head (the torn ones above them are set aside once those are
 *       adopted), then the versions above an interrupted write's base that the write cannot have made
 *       ({@link RacedWrites}).</li>
 * </ul>
 */
record UnexplainedVersions(List<Torn> orphans, List<Foreign> foreign) {

    /** Torn versions above an owned head that no open intent explains, ascending. */
    record Torn(String graphBranch, String table, List<DamagedVersion> versions) {
    }

    static UnexplainedVersions find(RecoveryEffects effects, HeadsState state, TableStore store, List<OpenGroup> groups) {
        List<Torn> orphans = new ArrayList<>();
        List<Foreign> foreign = aboveOwnedHeads(state, store, orphans);
        foreign.addAll(RacedWrites.find(effects, state, store, groups));
        return new UnexplainedVersions(List.copyOf(orphans), List.copyOf(foreign));
    }

    boolean isEmpty() {
        return orphans.isEmpty() && foreign.isEmpty();
    }

    private static List<Foreign> aboveOwnedHeads(HeadsState state, TableStore store, List<Torn> orphans) {
        List<String> explained = state.openIntents().stream().map(o -> o.graphBranch() + "/" + o.table()).toList();
        List<Foreign> out = new ArrayList<>();
        for (String branch : state.branches().keySet()) {
            for (Map.Entry<String, Pin> e : state.pins(branch).entrySet()) {
                if (!e.getValue().owned() || explained.contains(branch + "/" + e.getKey())) {
                    continue;
                }
                TableHead head = e.getValue().head();
                List<DamagedVersion> torn = store.tornVersions(e.getKey(), head.tableBranch(), head.version());
                if (!torn.isEmpty() && torn.get(0).ref().version() == head.version() + 1) {
                    // nothing complete above the head: a torn commit, never acknowledged; set aside by the run
                    orphans.add(new Torn(branch, e.getKey(), torn));
                    continue;
                }
                if (!store.exists(e.getKey()) || !store.listBranches(e.getKey()).contains(head.tableBranch())) {
                    continue;
                }
                // complete versions below torn ones are foreign; the torn ones are set aside once those are adopted
                long latest = torn.isEmpty() ? store.latest(e.getKey(), head.tableBranch()).version()
                        : torn.get(0).ref().version() - 1;
                if (latest > head.version()) {
                    out.add(new Foreign(branch, e.getKey(), head, latest, "table '" + e.getKey() + "' (graph branch '"
                            + branch + "', table branch '" + head.tableBranch() + "') is at version " + latest
                            + " but the journal's head is version " + head.version() + "; no intent explains "
                            + Foreign.versionsAbove(store, e.getKey(), head.tableBranch(), head.version())));
                }
            }
        }
        return out;
    }
}
