package io.palisade.recovery;

import io.palisade.heads.HeadsState;
import io.palisade.heads.PhaseCrashPoints;
import io.palisade.journal.JournalCursor;
import io.palisade.journal.JournalEvent;
import io.palisade.journal.JournalEvent.TableVersionSetAside;
import io.palisade.journal.JournalReader;
import io.palisade.journal.JournalRecord;
import io.palisade.substrate.DamagedVersion;
import io.palisade.substrate.TableRef;
import io.palisade.substrate.TableStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Setting torn versions aside, journal first: their {@link TableVersionSetAside} records are appended as one synced
 * batch (crash point {@code recovery-after-set-aside-journaled}), and only then are their files moved, newest first,
 * to {@code <graph>/_palisade/torn/<recovery id>/<table>/<table branch>/<version>/}.
 *
 * <p>Invariant: a version is journaled as set aside once. A recovery killed between journaling and moving is left
 * open; the next run reads that run's records ({@link #finishKilledRun}), finishes their moves into the directories
 * they name, and does not journal those versions again.
 */
final class SetAside {
    private static final Logger LOG = LoggerFactory.getLogger(Recovery.class);

    private SetAside() {
    }

    /**
     * The set-asides journaled by the recovery {@code state} has left open (a run killed before it finished), with
     * their moves finished; empty when no recovery is open.
     */
    static List<TableVersionSetAside> finishKilledRun(RecoveryEffects effects, HeadsState state, TableStore store) {
        Optional<String> leftOpen = state.openRecovery();
        List<TableVersionSetAside> earlier = leftOpen.isEmpty() ? List.of() : journaled(effects, state, leftOpen.get());
        for (TableVersionSetAside e : earlier) {
            effects.setAside(store, e.table(), new DamagedVersion(new TableRef(e.tableBranch(), e.version()),
                    e.damaged(), e.files(), e.reason()), Path.of(e.destination()));
        }
        return earlier;
    }

    /**
     * Journals the set-aside of {@code torn} (one synced batch, before anything moves), then moves each version's
     * files, newest first. A version an earlier, killed run already journaled is not journaled again: its
     * files go to the directory that run named.
     *
     * @return the state with the set-asides folded
     */
    static HeadsState journalAndMove(RecoveryEffects effects, HeadsState s, TableStore store, String recoveryId,
                                     Path tornDir, String graphBranch, String table, List<DamagedVersion> torn,
                                     List<String> intents, List<TableVersionSetAside> earlier) {
        List<JournalEvent> events = new ArrayList<>();
        List<Path> destinations = new ArrayList<>();
        for (DamagedVersion v : torn) {
            Optional<TableVersionSetAside> before = earlier.stream().filter(e -> e.table().equals(table)
                    && e.tableBranch().equals(v.ref().branch()) && e.version() == v.ref().version()).findFirst();
            if (before.isPresent()) {
                destinations.add(Path.of(before.get().destination()));
                continue;
            }
            Path dest = tornDir.resolve(table).resolve(v.ref().branch()).resolve(Long.toString(v.ref().version()));
            destinations.add(dest);
            events.add(new TableVersionSetAside(recoveryId, graphBranch, table, v.ref().branch(), v.ref().version(),
                    intents, v.setAside(), v.damaged(), dest.toString(), "torn by a power cut: " + v.reason()));
        }
        HeadsState next = events.isEmpty() ? s : effects.fold(s, events);
        PhaseCrashPoints.hit(PhaseCrashPoints.RECOVERY_AFTER_SET_ASIDE_JOURNALED);
        for (int i = torn.size() - 1; i >= 0; i--) {
            effects.setAside(store, table, torn.get(i), destinations.get(i));
            LOG.warn("recovery {}: table '{}' {}: torn version set aside to {} ({}; damaged: {})", recoveryId, table,
                    torn.get(i).ref(), destinations.get(i), torn.get(i).reason(), torn.get(i).damaged());
        }
        return next;
    }

    /** The detail of a set-aside an earlier, killed run journaled for this table branch above {@code base}, or null. */
    static String earlierDetail(List<TableVersionSetAside> earlier, String table, String tableBranch, long base) {
        return earlier.stream().filter(e -> e.table().equals(table) && e.tableBranch().equals(tableBranch)
                        && e.version() > base).map(e -> "[" + tableBranch + "@" + e.version() + " " + e.reason()
                        + "] set aside to " + e.destination()).findFirst().orElse(null);
    }

    /** The set-asides journaled by the recovery run {@code recoveryId}, which was killed before it finished. */
    private static List<TableVersionSetAside> journaled(RecoveryEffects effects, HeadsState state, String recoveryId) {
        List<TableVersionSetAside> out = new ArrayList<>();
        try (JournalReader reader = effects.reader();
             JournalCursor cursor = reader.read(Math.max(0, state.lastCheckpointSequence()))) {
            for (JournalRecord r = cursor.poll(); r != null; r = cursor.poll()) {
                if (r.event() instanceof TableVersionSetAside e && e.recoveryId().equals(recoveryId)) {
                    out.add(e);
                }
            }
        }
        return out;
    }
}
