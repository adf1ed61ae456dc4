package io.palisade.fencing.conflict;

import io.palisade.fencing.ValidationException;
import io.palisade.fencing.action.Action;
import io.palisade.fencing.action.Manifest;
import io.palisade.fencing.action.ResourceMask;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * Checks a transaction against the transactions that committed after its read version (and only
 * those: like Delta Kernel's ConflictChecker, a transaction is judged only against winning commits).
 *
 * <p>The driver loop (spike §7): for each winner in commit order, for each action of the transaction
 * and each action of the winner, look up the matrix cell. C commutes. X conflicts. R(n) first gates on
 * mask intersection ({@link ResourceMask#contacts}); disjoint masks commute without asking the rule;
 * otherwise rule n judges the payloads and either accepts, rebases the action over the winner's, or
 * reports a conflict. Judgement always uses the action as staged; rebases accumulate on the output
 * copy. (Judging a rebased action instead would let a rebase shrink its masks and dodge a later
 * conflict in one commit order but not the other, which breaks symmetry.)
 *
 * <p>When the latest manifest is given, a rebased (or compatible) transaction is also validated against
 * it by applying it to the model; an action that no longer validates turns the verdict into a
 * retryable conflict naming the failure.
 */
public final class ConflictResolver {

    /**
     * The action kinds by which a whole-table replacement (an overwrite: RemoveFragments of "all current"
     * fragments, its new fragments and schema) supersedes another one: between two replacements these pairs
     * are not judged, since whichever commits later removes everything the earlier one added and replaces its
     * schema, and each one's content (its keys included) was validated on its own. Every other pair of the two
     * transactions (config, metadata, indices, bases) is judged as usual. The condition is symmetric.
     */
    static final java.util.Set<io.palisade.fencing.action.ActionKind> SUPERSEDED = java.util.EnumSet.of(
            io.palisade.fencing.action.ActionKind.ADD_FRAGMENTS, io.palisade.fencing.action.ActionKind.REMOVE_FRAGMENTS,
            io.palisade.fencing.action.ActionKind.CHANGE_SCHEMA);

    private ConflictResolver() {
    }

    /** Whether the actions replace the whole table: they remove "all current" fragments. */
    public static boolean replacesTable(List<Action> actions) {
        return actions.stream().anyMatch(a -> a instanceof io.palisade.fencing.action.RemoveFragments r
                && r.selector() instanceof io.palisade.fencing.action.RemoveFragments.Selector.AllCurrent);
    }

    public static Verdict check(Transaction txn, List<CommittedTransaction> winners) {
        return check(txn, winners, Optional.empty());
    }

    public static Verdict check(Transaction txn, List<CommittedTransaction> winners, Optional<Manifest> latest) {
        List<CommittedTransaction> ordered = winners.stream()
                .filter(w -> w.version() > txn.readVersion())
                .sorted(Comparator.comparingLong(CommittedTransaction::version))
                .toList();
        List<Action> actions = new ArrayList<>(txn.actions());
        List<Conflict> conflicts = new ArrayList<>();
        List<String> rebases = new ArrayList<>();
        boolean replacing = replacesTable(txn.actions());
        for (CommittedTransaction w : ordered) {
            boolean bothReplace = replacing && replacesTable(w.actions());
            for (int i = 0; i < actions.size(); i++) {
                for (Action wa : w.actions()) {
                    Action a = txn.actions().get(i);
                    if (bothReplace && SUPERSEDED.contains(a.kind()) && SUPERSEDED.contains(wa.kind())) {
                        continue; // two whole-table replacements: the later one wins whole (Lance's last writer wins)
                    }
                    Cell cell = ConflictMatrix.cell(a.kind(), wa.kind());
                    switch (cell) {
                        case Cell.Compatible c -> { }
                        case Cell.Conflicting x -> conflicts.add(new Conflict(i, a.kind(), w.id(), w.version(), wa.kind(),
                                "X", x.resolution(), x.why(), List.of(), false));
                        case Cell.Ruled r -> {
                            List<ResourceMask.Contact> contacts = ResourceMask.contacts(a, wa);
                            if (contacts.isEmpty()) {
                                continue;
                            }
                            switch (r.rule().judge(a, wa, contacts)) {
                                case Judgement.Compatible ok -> { }
                                case Judgement.Rebase rb -> {
                                    actions.set(i, actions.get(i).rebase(wa));
                                    rebases.add(a.kind().code() + " (action " + i + ") over " + w.id() + "@v" + w.version()
                                            + " [" + r.rule().code() + "]: " + rb.reason());
                                }
                                case Judgement.Conflicting c -> conflicts.add(new Conflict(i, a.kind(), w.id(), w.version(),
                                        wa.kind(), r.rule().code(), c.resolution(), c.reason(), c.keys(), c.keyCollision()));
                            }
                        }
                    }
                }
            }
        }
        Transaction out = new Transaction(txn.id(), ordered.isEmpty() ? txn.readVersion()
                : ordered.get(ordered.size() - 1).version(), actions);
        if (!conflicts.isEmpty()) {
            boolean fail = conflicts.stream().anyMatch(c -> c.resolution() == Resolution.FAIL);
            return new Verdict(fail ? Verdict.Outcome.INCOMPATIBLE : Verdict.Outcome.RETRYABLE_CONFLICT, txn, conflicts, rebases);
        }
        if (latest.isPresent()) {
            try {
                latest.get().apply(actions);
            } catch (ValidationException e) {
                Conflict c = new Conflict(-1, actions.isEmpty() ? null : actions.get(0).kind(), "latest", latest.get().version(),
                        actions.isEmpty() ? null : actions.get(0).kind(), "validate", Resolution.RETRY,
                        "no longer valid on version " + latest.get().version() + ": " + e.getMessage(), List.of(), false);
                return new Verdict(Verdict.Outcome.RETRYABLE_CONFLICT, txn, List.of(c), rebases);
            }
        }
        return new Verdict(rebases.isEmpty() ? Verdict.Outcome.COMPATIBLE : Verdict.Outcome.REBASED, out, List.of(), rebases);
    }
}
