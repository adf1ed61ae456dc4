package io.palisade.recovery;

import io.palisade.fencing.ForeignCommitException;
import io.palisade.fencing.TableCorruptedException;
import io.palisade.heads.Checkpoints;
import io.palisade.heads.HeadsReplayer;
import io.palisade.heads.HeadsState;
import io.palisade.heads.PhaseCrashPoints;
import io.palisade.journal.Journal;
import io.palisade.journal.JournalEvent;
import io.palisade.journal.JournalEvent.TableVersionSetAside;
import io.palisade.journal.TableHead;
import io.palisade.substrate.DamagedVersion;
import io.palisade.substrate.TableRef;
import io.palisade.substrate.TableStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Classifies every intent without a completion exactly as DESIGN §5's table says, journals each
 * decision, and refuses the graph when a table version is explained by no journaled intent.
 *
 * <table>
 *   <caption>Classification</caption>
 *   <tr><td>head published, no completion</td><td>complete as COMMITTED</td></tr>
 *   <tr><td>table branch still at the expected base</td><td>complete as ABORTED</td></tr>
 *   <tr><td>effect present, head not published</td><td>publish the achieved version, complete as ROLLED_FORWARD</td></tr>
 *   <tr><td>a version no intent explains</td><td>{@link ForeignCommitException} (PENDING) naming table, branch and versions</td></tr>
 * </table>
 *
 * <p>A run's steps, each its own class: check the published heads' files ({@link PublishedHeads}); find what no
 * intent explains ({@code UnexplainedVersions}) and refuse it or validate its adoption ({@link Adoption}); find the
 * torn versions above the open groups' bases ({@code TornGroups}) and finish the moves of a killed run
 * ({@code SetAside}); then, journaling ({@code RunningRecovery}): set torn versions aside, decide every open group
 * ({@code UnfinishedLoadRule}, {@code OpenGroupRule}), publish adopted foreign versions, finish; the
 * {@link RecoveryReport} says what was found and done.
 *
 * <p>Journaling: {@code RecoveryStarted} (synced), then one synced batch per (graph branch, table)
 * group holding that group's decisions, then {@code RecoveryFinished}. Each step is followed by a
 * crash point ({@link PhaseCrashPoints}).
 *
 * <p>Invariant: one substrate commit is in flight per table, so every open intent of a (graph branch,
 * table) belongs to the same group and the versions past its expected base are that group's effect.
 * Recovery is idempotent and crash-safe: it only appends records for intents still open (and closes a
 * recovery left open by an earlier, killed run), so a second run finds nothing to do; killed part-way,
 * a re-run decides exactly what is still open, from the same substrate evidence, and so converges to
 * the same heads.
 */
public final class Recovery {
    private static final Logger LOG = LoggerFactory.getLogger(Recovery.class);

    /** Where set-aside versions go: {@code <graph>/_palisade/torn/<recovery id>/<table>/<table branch>/<version>/}. */
    public static final String TORN_DIRECTORY = "torn";

    private Recovery() {
    }

    /** Runs recovery over a replay (checkpoint + tail); the report names the checkpoint and what was skipped. */
    public static RecoveryReport run(Journal journal, HeadsReplayer.Replay replay, TableStore store, boolean adoptForeign) {
        return run(new JournalEffects(journal), replay.state(), replay.checkpointSequence(),
                describe(replay.skippedCheckpoints()), replay.recordsReplayed(), store, adoptForeign);
    }

    /**
     * Runs recovery over {@code state} (the folded journal), appending its decisions to {@code journal}.
     *
     * @param adoptForeign publish foreign versions instead of refusing (the operator's explicit decision)
     * @return the report, with the state after the appended records
     * @throws ForeignCommitException when a table version no journaled intent explains is found (and not adopted)
     */
    public static RecoveryReport run(Journal journal, HeadsState state, TableStore store, boolean adoptForeign) {
        return run(new JournalEffects(journal), state, state.lastCheckpointSequence(), List.of(), -1, store,
                adoptForeign);
    }

    /**
     * What recovery would decide over {@code replay}, without writing anything: the same classification of every
     * open intent, torn version and foreign version as {@link #run}, with no journal record appended and no table
     * file made durable, set aside or restored ({@code palisade recover --dry-run}). {@code opening} are the records
     * opening the journal would append first ({@code WriterStarted}, a {@code TornTailCut}); they are folded, not
     * written, and the report's state folds the records a real run would append after them; {@code recoveryId} is null.
     *
     * @throws ForeignCommitException when a real run would refuse the graph
     */
    public static RecoveryReport plan(Path palisadeDir, HeadsReplayer.Replay replay, List<JournalEvent> opening,
                                      long epoch, TableStore store, boolean adoptForeign) {
        DryRunEffects dry = new DryRunEffects(palisadeDir, replay.state().lastSequence() + 1, epoch);
        HeadsState opened = dry.fold(replay.state(), opening);
        RecoveryReport r = run(dry, opened, replay.checkpointSequence(), describe(replay.skippedCheckpoints()),
                replay.recordsReplayed(), store, adoptForeign);
        return new RecoveryReport(null, r.checkpointSequence(), r.skippedCheckpoints(), r.recordsReplayed(),
                r.closedRecovery(), r.classifications(), r.headsDigestBefore(), r.headsDigest(), adoptForeign, r.state());
    }

    /**
     * The run: checks and refusals first, before anything is journaled; then, only when there is work, the journaled
     * steps of a {@link RunningRecovery}.
     *
     * @throws TableCorruptedException when a published head is damaged, or a journaled commit's version is torn
     */
    private static RecoveryReport run(RecoveryEffects effects, HeadsState state, long checkpointSeq,
                                      List<String> skipped, long replayed, TableStore store, boolean adoptForeign) {
        String before = state.digest();
        // Damaged published heads first: they held acknowledged rows, nothing here can repair them.
        PublishedHeads.check(state, store, effects::reader);
        // Torn versions above heads no open intent explains, then foreign versions: refusing must not leave
        // half a recovery in the journal.
        List<OpenGroup> groups = OpenGroup.of(state);
        UnexplainedVersions unexplained = UnexplainedVersions.find(effects, state, store, groups);
        refuseOrValidate(unexplained.foreign(), store, adoptForeign);
        Map<String, List<DamagedVersion>> torn = TornGroups.find(groups, store);
        Optional<String> leftOpen = state.openRecovery();
        // a recovery killed between journaling a set-aside and moving the files: finish its moves
        List<TableVersionSetAside> earlier = SetAside.finishKilledRun(effects, state, store);
        if (groups.isEmpty() && unexplained.isEmpty()) {
            return closeLeftOpen(effects, state, before, leftOpen, checkpointSeq, skipped, replayed, adoptForeign);
        }

        RunningRecovery run = RunningRecovery.start(effects, state, store);
        run.setAsideOrphans(unexplained.orphans(), earlier);
        Map<String, String> tornDetails = run.setAsideTorn(groups, torn, earlier);
        run.decide(groups, tornDetails);
        run.publishAdopted(unexplained.foreign());
        run.finish();
        return new RecoveryReport(run.id(), checkpointSeq, skipped, replayed, leftOpen.orElse(null),
                run.classifications(), before, run.state().digest(), adoptForeign, run.state());
    }

    /** Refuses foreign versions the operator did not adopt; validates those adopted. Journals nothing. */
    private static void refuseOrValidate(List<Foreign> foreign, TableStore store, boolean adoptForeign) {
        if (!foreign.isEmpty() && !adoptForeign) {
            throw Foreign.pending(foreign);
        }
        if (!foreign.isEmpty()) { // adoption validates before it publishes: nothing is journaled yet
            Adoption.validate(store, foreign.stream().map(Foreign::candidate).toList());
        }
    }

    /**
     * Nothing to decide: closes a recovery an earlier run left open after its last decision (a killed run), or
     * journals nothing at all.
     */
    private static RecoveryReport closeLeftOpen(RecoveryEffects effects, HeadsState state, String before,
                                                Optional<String> leftOpen, long checkpointSeq, List<String> skipped,
                                                long replayed, boolean adoptForeign) {
        if (leftOpen.isEmpty()) {
            return new RecoveryReport(null, checkpointSeq, skipped, replayed, null, List.of(), before, before,
                    adoptForeign, state);
        }
        HeadsState next = effects.fold(state, List.of(
                new JournalEvent.RecoveryFinished(leftOpen.get(), List.of(), state.digest())));
        LOG.info("recovery {} left open by a killed run: closed, nothing else to do", leftOpen.get());
        return new RecoveryReport(leftOpen.get(), checkpointSeq, skipped, replayed, leftOpen.get(), List.of(), before,
                next.digest(), adoptForeign, next);
    }

    /** The table ref a head names. */
    public static TableRef ref(TableHead head) {
        return new TableRef(head.tableBranch(), head.version());
    }

    /** For reports: the checkpoints a replay skipped, as "file: reason". */
    static List<String> describe(List<Checkpoints.Skipped> skipped) {
        return skipped.stream().map(s -> s.file().getFileName() + ": " + s.reason()).toList();
    }
}
