package io.palisade.recovery;

import io.palisade.heads.HeadsState;
import io.palisade.heads.IntentPhase;
import io.palisade.journal.LogicalOperation;
import io.palisade.substrate.DamagedVersion;
import io.palisade.substrate.TableRef;
import io.palisade.substrate.TableStore;

import java.util.ArrayList;
import java.util.List;

/**
 * Foreign versions above an interrupted write's base. An open write group (no TableCommitted journaled, not a bulk
 * load) whose table branch holds more than one effective version above its base: one interrupted commit makes one
 * version (a compaction: one, after Lance's own ReserveFragments), so the others are foreign — Lance may have rebased
 * the write over them, or they came after it. One version above the base that the write's keys show is not (only)
 * the write's ({@link WriteKeys}) is foreign too. Rolling forward would publish them as the write's effect; they are
 * refused like any foreign version.
 *
 * <p>Every {@link Foreign} found here has {@code openIntents} set: when adopted, the group rolls forward to it.
 */
final class RacedWrites {

    private RacedWrites() {
    }

    static List<Foreign> find(RecoveryEffects effects, HeadsState state, TableStore store, List<OpenGroup> groups) {
        List<Foreign> out = new ArrayList<>();
        for (OpenGroup group : groups) {
            if (group.intents().stream().anyMatch(o -> o.phase() != IntentPhase.RECORDED)) {
                continue; // a TableCommitted names the version, or the head is published
            }
            String table = group.table();
            String tableBranch = group.tableBranch();
            if (!store.exists(table) || !store.listBranches(table).contains(tableBranch)) {
                continue;
            }
            long base = group.writeBase(store); // above a fork's own index rebuild
            List<DamagedVersion> torn = store.tornVersions(table, tableBranch, base);
            long latest = torn.isEmpty() ? store.latest(table, tableBranch).version() : torn.get(0).ref().version() - 1;
            if (latest <= base) {
                continue;
            }
            String where = "table '" + table + "' (graph branch '" + group.graphBranch() + "', table branch '"
                    + tableBranch + "') is at version " + latest;
            if (latest == base + 1) {
                // one version: the write's own commit, or a foreign one (Lance's metadata cannot tell a merge-insert's
                // author). The write's keys decide what recovery can: after the write's commit every key it inserted or
                // upserted is held exactly once and every key it deleted is gone; anything else means the version is
                // not (only) the write's, and rolling it forward would publish a foreign change (a duplicate id).
                WriteKeys.notTheWrites(store, state, group.intents(), new TableRef(tableBranch, latest))
                        .ifPresent(why -> out.add(new Foreign(group.graphBranch(), table, group.head(state), latest,
                                where + ", one above the interrupted write " + String.join(", ", group.intentIds())
                                + " (base " + base + "), but that version is not the write's commit: " + why, true)));
                continue;
            }
            if (group.first().recorded().operation() == LogicalOperation.COMPACTION
                    || (group.intents().size() == 1 && UnfinishedLoadRule.isLoad(effects, group.first()))) {
                // a compaction commits Lance's ReserveFragments versions before its Rewrite (whose transactions
                // Lance's JNI cannot read back) and is judged by its journaled plan; a bulk load's batches by its
                // progress records (UnfinishedLoadRule)
                continue;
            }
            long versions = latest - base;
            out.add(new Foreign(group.graphBranch(), table, group.head(state), latest, where
                    + " but the interrupted write " + String.join(", ", group.intentIds()) + " based on version " + base
                    + " explains one version; " + versions + " versions were committed above its base: "
                    + Foreign.versionsAbove(store, table, tableBranch, base), true));
        }
        return out;
    }
}
