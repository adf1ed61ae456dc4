package io.palisade.recovery;

import io.palisade.heads.HeadsState;
import io.palisade.heads.IntentPhase;
import io.palisade.heads.OpenIntent;
import io.palisade.journal.HeadTransition;
import io.palisade.journal.IntentOutcome;
import io.palisade.journal.JournalEvent;
import io.palisade.journal.JournalEvent.HeadPublished;
import io.palisade.journal.JournalEvent.IntentCompleted;
import io.palisade.journal.JournalEvent.TableCommitted;
import io.palisade.journal.RecoveryClassification;
import io.palisade.journal.RecoveryClassification.Kind;
import io.palisade.journal.TableHead;
import io.palisade.substrate.TableStore;

import java.util.List;

/**
 * DESIGN §5's rule for one open (graph branch, table) group, from the substrate evidence:
 *
 * <table>
 *   <caption>Decision</caption>
 *   <tr><td>head published, no completion</td><td>complete as COMMITTED ({@code PUBLISHED_COMPLETED})</td></tr>
 *   <tr><td>table branch still at the expected base (or only the lazy fork, at the base), no TableCommitted</td>
 *       <td>complete as ABORTED ({@code NO_EFFECT_ABORTED}, or {@code TORN_VERSION_SET_ASIDE} when torn versions
 *       above the base were set aside)</td></tr>
 *   <tr><td>effect present, or a TableCommitted journaled, head not published</td><td>make the achieved version
 *       durable, publish it, complete as ROLLED_FORWARD ({@code EFFECT_ROLLED_FORWARD})</td></tr>
 * </table>
 *
 * <p>Invariant: a TableCommitted already journaled (a killed Phase C/D batch) is never journaled again (a second one
 * is an illegal transition), and the version it names is the one published.
 */
final class OpenGroupRule {

    private OpenGroupRule() {
    }

    /**
     * Appends the group's decision to {@code found} and its records (one batch) to {@code events}.
     *
     * @param tornDetail what was set aside above the group's base (by this run or a killed earlier one), or null
     */
    static void decide(RecoveryEffects effects, OpenGroup group, HeadsState state, TableStore store,
                       List<RecoveryClassification> found, List<JournalEvent> events, String tornDetail) {
        OpenIntent first = group.first();
        if (group.published()) {
            for (OpenIntent o : group.intents()) {
                found.add(new RecoveryClassification(o.intentId(), Kind.PUBLISHED_COMPLETED, o.table(),
                        "head published at " + o.publishedHead().tableBranch() + "@" + o.publishedHead().version()));
                events.add(new IntentCompleted(o.intentId(), IntentOutcome.COMMITTED, "completed by recovery", null, List.of()));
            }
            return;
        }
        HeadTransition intended = first.recorded().intendedTransition();
        String tableBranch = group.tableBranch();
        long base = group.base();
        long achieved = store.exists(first.table()) && store.listBranches(first.table()).contains(tableBranch)
                ? store.latest(first.table(), tableBranch).version() : -1;
        // a fork left without the write: at the base, or at the fork's own index rebuild one above it
        boolean forkOnly = group.forked() && achieved == group.writeBase(store);
        boolean anyCommitted = group.intents().stream().anyMatch(o -> o.phase() == IntentPhase.TABLE_COMMITTED);
        if ((achieved <= base || forkOnly) && !anyCommitted) {
            for (OpenIntent o : group.intents()) {
                if (tornDetail != null) {
                    found.add(new RecoveryClassification(o.intentId(), Kind.TORN_VERSION_SET_ASIDE, o.table(),
                            "commit torn by a power cut: " + tornDetail + "; " + tableBranch + " at " + achieved
                                    + ", expected base " + base));
                    events.add(new IntentCompleted(o.intentId(), IntentOutcome.ABORTED,
                            "its commit was torn by a power cut and set aside by recovery", null, List.of()));
                    continue;
                }
                found.add(new RecoveryClassification(o.intentId(), Kind.NO_EFFECT_ABORTED, o.table(),
                        tableBranch + " at " + achieved + ", expected base " + base));
                events.add(new IntentCompleted(o.intentId(), IntentOutcome.ABORTED,
                        "no substrate effect found by recovery", null, List.of()));
            }
            return;
        }
        TableHead from = group.head(state);
        // A TableCommitted already journaled (a killed Phase C/D batch) names the achieved version: journal it
        // once only (a second one is an illegal transition) and publish exactly that version.
        List<String> uncommitted = group.intents().stream().filter(o -> o.phase() == IntentPhase.RECORDED)
                .map(OpenIntent::intentId).toList();
        long version = group.intents().stream().filter(o -> o.phase() == IntentPhase.TABLE_COMMITTED)
                .mapToLong(OpenIntent::committedVersion).max().orElse(achieved);
        TableHead to = new TableHead(tableBranch, version, intended.to().schemaId(), intended.to().incarnation());
        // found, not seen committed: make its files durable before the journal publishes it
        effects.makeDurable(store, first.table(), tableBranch, base, version);
        if (!uncommitted.isEmpty()) {
            events.add(new TableCommitted(uncommitted, first.graphBranch(), first.table(), tableBranch, version));
        }
        events.add(new HeadPublished(List.of(new HeadTransition(first.graphBranch(), first.table(), from, to))));
        for (OpenIntent o : group.intents()) {
            found.add(new RecoveryClassification(o.intentId(), Kind.EFFECT_ROLLED_FORWARD, o.table(),
                    "expected base " + base + ", found " + tableBranch + "@" + achieved + "; published " + version));
            events.add(new IntentCompleted(o.intentId(), IntentOutcome.ROLLED_FORWARD, "rolled forward by recovery", null,
                    List.of()));
        }
    }
}
