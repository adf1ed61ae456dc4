package io.palisade.recovery;

import io.palisade.fencing.TableCorruptedException;
import io.palisade.heads.IntentPhase;
import io.palisade.heads.OpenIntent;
import io.palisade.substrate.DamagedVersion;
import io.palisade.substrate.TableStore;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The torn versions above each open group's base, found before anything is journaled and before any group is
 * classified (a torn newest version of main hides every branch's latest version from Lance). A group whose head is
 * published is skipped: its version is checked with the published heads ({@link PublishedHeads}).
 *
 * <p>A torn version that a journaled {@code TableCommitted} names is not set aside: Lance returned from that commit,
 * so it is corruption ({@link TableCorruptedException}), thrown before anything is journaled.
 */
final class TornGroups {

    private TornGroups() {
    }

    /** The torn versions (ascending) of every group that has some, by {@link OpenGroup#key()}. */
    static Map<String, List<DamagedVersion>> find(List<OpenGroup> groups, TableStore store) {
        Map<String, List<DamagedVersion>> tornByGroup = new LinkedHashMap<>();
        for (OpenGroup g : groups) {
            if (g.published()) {
                continue; // published: its version is checked with the heads
            }
            List<DamagedVersion> torn = store.tornVersions(g.table(), g.tableBranch(), g.base());
            if (!torn.isEmpty()) {
                refuseIfCommitted(g.intents(), torn);
                tornByGroup.put(g.key(), torn);
            }
        }
        return tornByGroup;
    }

    /**
     * A torn version whose TableCommitted is journaled: Lance returned from that commit, yet its files are gone
     * (a store that did not sync its commit). The journal says it happened; it cannot be set aside silently.
     */
    private static void refuseIfCommitted(List<OpenIntent> group, List<DamagedVersion> torn) {
        for (OpenIntent o : group) {
            if (o.phase() != IntentPhase.TABLE_COMMITTED) {
                continue;
            }
            for (DamagedVersion v : torn) {
                if (v.ref().version() <= o.committedVersion()) {
                    throw new TableCorruptedException(o.table(), o.graphBranch(), v.ref().branch(), v.ref().version(),
                            v.damaged(), group.stream().map(OpenIntent::intentId).toList(),
                            v.reason() + ", though the journal records the commit that made it (TableCommitted)", null);
                }
            }
        }
    }
}
