package io.palisade.recovery;

import io.palisade.heads.HeadsState;
import io.palisade.heads.Pin;
import io.palisade.journal.TableHead;
import io.palisade.substrate.DamagedVersion;
import io.palisade.substrate.TableStore;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;

/**
 * Pending foreign versions as the read-only tools see them: a table branch a graph branch owns
 * whose newest complete version is above the published head, with no open intent on that (graph branch,
 * table) to explain it. The same rule recovery applies before it refuses a graph, found without the writer
 * lease and without journaling anything.
 *
 * <p>Race with a live writer: a Palisade commit journals its intent before Lance moves the table (phase A
 * before B). {@link #find(Supplier, TableStore)} therefore replays the journal a second time <em>after</em>
 * reading the tables' versions, and keeps only what that second replay still cannot explain; so a write in
 * flight while a tool reads is never reported as foreign.
 */
public final class ForeignVersions {

    /**
     * One table branch with versions no journaled write explains.
     *
     * @param journalVersion the published head's version
     * @param latestVersion  the table branch's newest complete version
     * @param versions       the foreign versions, ascending
     */
    public record Pending(String graphBranch, String table, String tableBranch, long journalVersion, long latestVersion,
                          List<Long> versions) {
        public Pending {
            versions = List.copyOf(versions);
        }

        /** One line for a person reading a tool's stderr. */
        public String warning() {
            String vs = versions.size() == 1 ? "version " + versions.get(0)
                    : "versions " + versions.get(0) + " to " + versions.get(versions.size() - 1);
            return "table '" + table + "' (graph branch '" + graphBranch + "', table branch '" + tableBranch
                    + "') has foreign " + vs + " above the journal's head version " + journalVersion
                    + ": no journaled write explains " + (versions.size() == 1 ? "it" : "them")
                    + "; what this tool shows is the head, and writes are refused until an operator adopts or repairs"
                    + " (docs/recovery.md \"Foreign commits\")";
        }
    }

    private ForeignVersions() {
    }

    /** Pending foreign versions, stable against a writer committing meanwhile (see the class comment). */
    public static List<Pending> find(Supplier<HeadsState> replay, TableStore store) {
        List<Pending> first = find(replay.get(), store);
        if (first.isEmpty()) {
            return first;
        }
        HeadsState again = replay.get();
        Set<String> open = openIntentTables(again);
        List<Pending> out = new ArrayList<>();
        for (Pending p : first) {
            Optional<TableHead> h = again.head(p.graphBranch(), p.table());
            if (h.isPresent() && !open.contains(p.graphBranch() + "/" + p.table())
                    && h.get().tableBranch().equals(p.tableBranch()) && h.get().version() == p.journalVersion()) {
                out.add(p);
            }
        }
        return out;
    }

    /** Pending foreign versions over one folded state. */
    public static List<Pending> find(HeadsState state, TableStore store) {
        Set<String> open = openIntentTables(state);
        List<Pending> out = new ArrayList<>();
        for (String branch : state.branches().keySet()) {
            for (Map.Entry<String, Pin> e : state.pins(branch).entrySet()) {
                String table = e.getKey();
                if (!e.getValue().owned() || open.contains(branch + "/" + table)) {
                    continue;
                }
                TableHead head = e.getValue().head();
                try {
                    if (!store.exists(table) || !store.listBranches(table).contains(head.tableBranch())) {
                        continue;
                    }
                    List<DamagedVersion> torn = store.tornVersions(table, head.tableBranch(), head.version());
                    long latest = torn.isEmpty() ? store.latest(table, head.tableBranch()).version()
                            : torn.get(0).ref().version() - 1;
                    if (latest > head.version()) {
                        List<Long> versions = new ArrayList<>();
                        for (long v = head.version() + 1; v <= latest; v++) {
                            versions.add(v);
                        }
                        out.add(new Pending(branch, table, head.tableBranch(), head.version(), latest, versions));
                    }
                } catch (RuntimeException ex) {
                    // a read-only tool's warning must not fail the tool: damage is reported by its own checks
                }
            }
        }
        return out;
    }

    private static Set<String> openIntentTables(HeadsState state) {
        Set<String> out = new java.util.HashSet<>();
        state.openIntents().forEach(o -> out.add(o.graphBranch() + "/" + o.table()));
        return out;
    }
}
