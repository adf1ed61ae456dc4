package io.palisade.recovery;

import io.palisade.heads.HeadsState;
import io.palisade.heads.PhaseCrashPoints;
import io.palisade.journal.HeadTransition;
import io.palisade.journal.JournalEvent;
import io.palisade.journal.JournalEvent.HeadPublished;
import io.palisade.journal.JournalEvent.TableVersionSetAside;
import io.palisade.journal.RecoveryClassification;
import io.palisade.journal.RecoveryClassification.Kind;
import io.palisade.journal.TableHead;
import io.palisade.substrate.DamagedVersion;
import io.palisade.substrate.TableStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * One recovery run from its {@code RecoveryStarted} to its {@code RecoveryFinished}: owns the run's id, its torn
 * directory, the state folded so far and the classifications in journal order. Its steps run in this order:
 * {@link #start}, {@link #setAsideOrphans}, {@link #setAsideTorn}, {@link #decide}, {@link #publishAdopted},
 * {@link #finish}.
 *
 * <p>Invariants: every step's records are one synced batch, folded onto the state before the next step reads it,
 * and followed by its crash point ({@code recovery-after-started}, {@code recovery-after-set-aside-journaled},
 * {@code recovery-after-classify} per group, {@code recovery-after-finished}); {@code RecoveryFinished} carries
 * every classification the run made.
 */
final class RunningRecovery {
    private static final Logger LOG = LoggerFactory.getLogger(Recovery.class);

    private final RecoveryEffects effects;
    private final TableStore store;
    private final String id;
    private final List<RecoveryClassification> found = new ArrayList<>();
    private final Path tornDir;
    private HeadsState state;

    private RunningRecovery(RecoveryEffects effects, TableStore store, String id, HeadsState state) {
        this.effects = effects;
        this.store = store;
        this.id = id;
        this.state = state;
        this.tornDir = effects.palisadeDirectory().resolve(Recovery.TORN_DIRECTORY).resolve(id);
    }

    /** Journals {@code RecoveryStarted} under a new id. */
    static RunningRecovery start(RecoveryEffects effects, HeadsState state, TableStore store) {
        String id = "recovery-" + UUID.randomUUID();
        HeadsState s = effects.fold(state, List.of(
                new JournalEvent.RecoveryStarted(id, state.lastCheckpointSequence(), state.lastSequence())));
        PhaseCrashPoints.hit(PhaseCrashPoints.RECOVERY_AFTER_STARTED);
        return new RunningRecovery(effects, store, id, s);
    }

    /** Sets aside the torn versions above owned heads that no open intent explains, one classification per version. */
    void setAsideOrphans(List<UnexplainedVersions.Torn> orphans, List<TableVersionSetAside> earlier) {
        for (UnexplainedVersions.Torn t : orphans) {
            state = SetAside.journalAndMove(effects, state, store, id, tornDir, t.graphBranch(), t.table(), t.versions(),
                    List.of(), earlier);
            for (DamagedVersion v : t.versions()) {
                found.add(new RecoveryClassification(v.ref().branch() + "@" + v.ref().version(),
                        Kind.TORN_VERSION_SET_ASIDE, t.table(), "torn version above the published head "
                        + v.ref().branch() + "@" + (t.versions().get(0).ref().version() - 1) + ", no open intent: "
                        + v.reason() + "; set aside to " + tornDir.resolve(t.table()).resolve(v.ref().branch())
                        .resolve(Long.toString(v.ref().version()))));
            }
        }
    }

    /**
     * Sets aside the torn versions above the open groups' bases.
     *
     * @param torn the torn versions per group ({@link TornGroups})
     * @return per group key, what was set aside above its base, by this run or by the killed run of {@code earlier}
     */
    Map<String, String> setAsideTorn(List<OpenGroup> groups, Map<String, List<DamagedVersion>> torn,
                                     List<TableVersionSetAside> earlier) {
        Map<String, String> tornDetails = new LinkedHashMap<>();
        for (OpenGroup g : groups) {
            String tableBranch = g.tableBranch();
            List<DamagedVersion> versions = torn.get(g.key());
            if (versions != null) {
                state = SetAside.journalAndMove(effects, state, store, id, tornDir, g.graphBranch(), g.table(),
                        versions, g.intentIds(), earlier);
                tornDetails.put(g.key(), versions.stream().map(v -> v.ref().branch() + "@" + v.ref().version() + " "
                        + v.reason()).toList() + " set aside to " + tornDir.resolve(g.table()).resolve(tableBranch));
            } else {
                String detail = SetAside.earlierDetail(earlier, g.table(), tableBranch, g.base());
                if (detail != null) {
                    tornDetails.put(g.key(), detail);
                }
            }
        }
        return tornDetails;
    }

    /** Decides every open group (an unfinished load by its own rule, any other by the general one), a batch each. */
    void decide(List<OpenGroup> groups, Map<String, String> tornDetails) {
        for (OpenGroup g : groups) {
            List<JournalEvent> events = new ArrayList<>();
            if (!UnfinishedLoadRule.decide(effects, g, state, store, found, events)) {
                OpenGroupRule.decide(effects, g, state, store, found, events, tornDetails.get(g.key()));
            }
            state = effects.fold(state, events);
            PhaseCrashPoints.hit(PhaseCrashPoints.RECOVERY_AFTER_CLASSIFY);
        }
    }

    /**
     * Publishes the foreign versions the operator adopted (already validated by {@link Adoption}). A version above
     * an interrupted write was published by that write's roll-forward in {@link #decide}; it is only classified.
     */
    void publishAdopted(List<Foreign> foreign) {
        for (Foreign f : foreign) {
            found.add(new RecoveryClassification(f.head().tableBranch() + "@" + f.latest(), Kind.FOREIGN_COMMIT,
                    f.table(), "adopted by operator: " + f.detail()));
            if (f.openIntents()) {
                // the open group's classification above rolled forward to the latest version and published it
                LOG.warn("recovery {}: adopted foreign commit with an interrupted write (operator decision): {}", id,
                        f.detail());
                continue;
            }
            effects.makeDurable(store, f.table(), f.head().tableBranch(), f.head().version(), f.latest());
            TableHead to = new TableHead(f.head().tableBranch(), f.latest(), f.head().schemaId(), f.head().incarnation());
            state = effects.fold(state, List.of(new HeadPublished(List.of(new HeadTransition(f.graphBranch(), f.table(),
                    f.head(), to)))));
            LOG.warn("recovery {}: adopted foreign commit (operator decision): {}", id, f.detail());
        }
    }

    /** Journals {@code RecoveryFinished} with every classification and the heads digest. */
    void finish() {
        state = effects.fold(state, List.of(new JournalEvent.RecoveryFinished(id, found, state.digest())));
        PhaseCrashPoints.hit(PhaseCrashPoints.RECOVERY_AFTER_FINISHED);
        LOG.info("recovery {}: {}", id, found);
    }

    String id() {
        return id;
    }

    List<RecoveryClassification> classifications() {
        return found;
    }

    HeadsState state() {
        return state;
    }
}
