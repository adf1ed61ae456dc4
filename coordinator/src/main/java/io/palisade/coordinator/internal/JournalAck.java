package io.palisade.coordinator.internal;

import io.palisade.coordinator.Catalog;
import io.palisade.coordinator.Receipt;

import io.palisade.fencing.KeyConflictException;
import io.palisade.heads.HeadsState;
import io.palisade.heads.Pin;
import io.palisade.journal.JournalEvent;
import io.palisade.journal.TableHead;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The acknowledgement stage of a journal-ack table (docs/journal-ack.md): the fenced inserts, upserts and deletes of
 * one group are acknowledged once their intents and rows are durable in the journal, without a table commit.
 * <ol>
 *   <li>The exact fence of a strict insert: its keys are checked against every acknowledged-but-unfolded write of the
 *       table (the newest write of a key decides: an insert or upsert holds it, a delete frees it) and, for the keys
 *       no unfolded write touched, against the folded head ({@link KeyPresence}: a negative filter, then a lookup of
 *       the possible hits). A held key fails the op with {@link KeyConflictException} naming its keys and, where an
 *       unfolded write holds the key, that write's intent. The fence before this stage has already deferred every op
 *       that shares a key with an earlier op of the group, so the ops of a group are judged independently.</li>
 *   <li>One append, one sync: one {@code WriteJournaled} record for each accepted op (its intent, the head to itself:
 *       the table does not move; its rows; its completion {@code JOURNALED}), after the rejected ops' records. Only
 *       then are receipts ({@code folded = false}) given, each at its op's record.</li>
 * </ol>
 *
 * <p>Invariants: committer thread only; writes no table and changes no op (a held insert's failure is carried in a
 * {@link Lost}); its records are folded into the published heads and the unfolded writes by {@link PublishedView#journal}
 * before any receipt is given, so a reader that sees a receipt sees the write. Crash point {@code after-journal-ack}
 * follows the append.
 */
final class JournalAck {
    private final Context ctx;
    private final JournalPhases journal;
    private final KeyPresence presence;

    JournalAck(Context ctx, JournalPhases journal, KeyPresence presence) {
        this.ctx = ctx;
        this.journal = journal;
        this.presence = presence;
    }

    /**
     * Acknowledges the fenced {@code accepted} ops of one group; {@code rejections} are the fence's records. Returns
     * the ops acknowledged (the others were refused by the strict-insert fence), in order.
     */
    List<Fence.Admitted> acknowledge(Catalog.TableDef def, Pin pin, HeadsState state, List<Fence.Admitted> accepted,
                     List<JournalEvent> rejections) {
        WriteOp first = accepted.get(0).op();
        TableHead head = pin.head();
        List<JournalEvent> batch = new ArrayList<>(rejections);
        Judged judged = first instanceof WriteOp.Insert ? fenceInserts(def, head, accepted, batch)
                : new Judged(List.copyOf(accepted), List.of());
        List<Fence.Admitted> acked = judged.acked();
        for (Fence.Admitted a : acked) {
            WriteOp op = a.op();
            JournalEvent.IntentRecorded intent = journal.acknowledgedIntent(a, head);
            boolean delete = op instanceof WriteOp.Delete;
            JournalRowsMemo submitted = op.submittedRows(); // encoded by the writer's thread when it submitted
            byte[] rows = submitted != null ? submitted.bytes()
                    : delete ? new byte[0] : JournaledRows.encode(SubstrateWrites.rows(op));
            batch.add(new JournalEvent.WriteJournaled(intent, delete ? 0 : SubstrateWrites.rows(op).getRowCount(), rows));
        }
        int firstWrite = batch.size() - acked.size(); // the rejections come first
        List<Long> rows = first instanceof WriteOp.Delete && !acked.isEmpty() ? deleted(def, head, acked) : null;
        long firstSeq = journal.append(batch);
        CrashPoints.hit("after-journal-ack");
        for (Fence.Admitted a : acked) {
            if (!(a.op() instanceof WriteOp.Delete)) {
                presence.added(a.op().branch(), a.op().table(), a.keys().keys());
            }
        }
        ctx.meters().journalAckWrites.increment(acked.size());
        ctx.meters().journalAckGroups.increment();
        long now = System.nanoTime();
        for (int i = 0; i < acked.size(); i++) {
            Fence.Admitted a = acked.get(i);
            WriteOp op = a.op();
            ctx.meters().journalAck.record(now - op.submission().submittedNanos());
            op.future().complete(new Receipt(a.intentId(), firstSeq + firstWrite + i, op.table(), op.branch(),
                    head.version(), rows == null ? op.rowCount() : rows.get(i), false));
        }
        for (Lost l : judged.conflicted()) {
            l.op().op().future().completeExceptionally(l.failure());
        }
        return acked;
    }

    /**
     * The rows each of a group of acknowledged deletes removes: the keys held (by the newest unfolded write of the key,
     * else by the folded head) that no earlier delete of the group removed. Called before the group is journaled, whose
     * own entries then join the unfolded tail.
     */
    private List<Long> deleted(Catalog.TableDef def, TableHead head, List<Fence.Admitted> deletes) {
        WriteOp first = deletes.get(0).op();
        List<String> asked = new ArrayList<>();
        for (Fence.Admitted op : deletes) {
            asked.addAll(op.keys().keys());
        }
        Map<String, UnfoldedWrites.Entry> tail = ctx.view().unfoldedNewest(first.branch(), first.table(), asked);
        Set<String> untouched = new HashSet<>(asked);
        untouched.removeAll(tail.keySet());
        Set<String> atHead = untouched.isEmpty() ? Set.of()
                : presence.presentAtHead(def, first.branch(), first.table(), head, untouched);
        Set<String> gone = new HashSet<>();
        List<Long> rows = new ArrayList<>(deletes.size());
        for (Fence.Admitted op : deletes) {
            long n = 0;
            for (String k : op.keys().keys()) {
                UnfoldedWrites.Entry e = tail.get(k);
                boolean held = e != null ? !e.deletes() : atHead.contains(k);
                if (held && gone.add(k)) {
                    n++;
                }
            }
            rows.add(n);
        }
        return rows;
    }

    /**
     * What the journal-ack fence made of a group: the ops to acknowledge, in order, and the strict inserts whose keys
     * were held, each with its {@link KeyConflictException} (their rejection records already in the batch).
     * Invariants: together exactly the group's ops, each once.
     */
    private record Judged(List<Fence.Admitted> acked, List<Lost> conflicted) {
    }

    /**
     * The exact fence of the strict inserts {@code accepted} (see the class comment): adds each rejected insert's
     * records to {@code batch}.
     */
    private Judged fenceInserts(Catalog.TableDef def, TableHead head, List<Fence.Admitted> accepted,
                                List<JournalEvent> batch) {
        WriteOp first = accepted.get(0).op();
        List<Fence.Admitted> acked = new ArrayList<>();
        List<Lost> conflicted = new ArrayList<>();
        List<String> asked = new ArrayList<>();
        for (Fence.Admitted op : accepted) {
            asked.addAll(op.keys().keys());
        }
        Map<String, UnfoldedWrites.Entry> tail = ctx.view().unfoldedNewest(first.branch(), first.table(), asked);
        Set<String> untouched = new HashSet<>();
        for (Fence.Admitted op : accepted) {
            for (String k : op.keys().keys()) {
                if (!tail.containsKey(k)) {
                    untouched.add(k);
                }
            }
        }
        Set<String> atHead = untouched.isEmpty() ? Set.of()
                : presence.presentAtHead(def, first.branch(), first.table(), head, untouched);
        for (Fence.Admitted op : accepted) {
            List<String> held = new ArrayList<>();
            String winner = null;
            for (String k : op.keys().keys()) {
                UnfoldedWrites.Entry e = tail.get(k);
                if (e != null ? !e.deletes() : atHead.contains(k)) {
                    held.add(k);
                    if (winner == null && e != null) {
                        winner = e.intentId;
                    }
                }
            }
            if (held.isEmpty()) {
                acked.add(op);
                continue;
            }
            KeyConflictException c = new KeyConflictException(op.op().table(), held.subList(0, Math.min(20, held.size())),
                    held.size(), winner);
            batch.addAll(journal.keyConflictRejection(op, head, c.getMessage(), winner, held));
            ctx.meters().keyConflicts.increment();
            conflicted.add(new Lost(op, c));
        }
        return new Judged(acked, conflicted);
    }
}
