package io.palisade.coordinator;

import io.palisade.fencing.KeyFilter;
import io.palisade.fencing.PalisadeException;
import io.palisade.heads.FoldMark;
import io.palisade.heads.HeadsState;
import io.palisade.journal.JournalEvent;
import io.palisade.journal.TableHead;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletionException;

/**
 * The fold agent of journal-ack tables (docs/journal-ack.md): commits a table's whole unfolded tail to Lance as one
 * fenced merge-insert through the ordinary pipeline (a {@code FOLD} op: fence, Phase A with its
 * {@link JournalEvent.FoldPlanned}, the substrate commit with its achieved-version check, publication). The fold's
 * rows are the newest row of every key whose newest unfolded write is an insert or upsert; its deletes, every key
 * whose newest write is a delete. When its intent completes, the heads fold moves the table's watermark and the
 * unfolded writes are dropped: each write is folded exactly once.
 *
 * <p>When it folds: {@link #duty} after each committer cycle folds every table whose tail has reached
 * {@link Options#foldEvery()} writes or whose oldest unfolded write is older than {@link Options#foldLagMillis()};
 * before an acknowledgement that would pass {@link Options#maxUnfoldedBytes()} the committer folds first, so the
 * writer waits (back-pressure) rather than fails; and before any other operation on the table, a branch created
 * from its graph branch, a merge, a bulk load, or the graph's close.
 *
 * <p>Invariants: committer thread only. A fold that fails leaves its writes unfolded (they stay acknowledged and
 * readable); a fold of unknown outcome poisons the table like any commit, and recovery decides at the next open.
 */
final class Folder {
    private static final Logger LOG = LoggerFactory.getLogger(Folder.class);

    private final Graph graph;
    private final Committer committer;

    Folder(Graph graph, Committer committer) {
        this.graph = graph;
        this.committer = committer;
    }

    /** Folds every table whose tail reached a bound; returns how many folds committed. */
    int duty() {
        List<Graph.TailSummary> tails = graph.unfoldedSummary();
        if (tails.isEmpty()) {
            return 0;
        }
        Options o = graph.options();
        long now = System.currentTimeMillis() * 1_000_000L;
        int folded = 0;
        for (Graph.TailSummary t : tails) {
            boolean due = t.writes() >= o.foldEvery() || t.bytes() >= o.maxUnfoldedBytes()
                    || now - t.oldestNanos() >= o.foldLagMillis() * 1_000_000L;
            if (due && fold(t.branch(), t.table())) {
                folded++;
            }
        }
        return folded;
    }

    /** Folds every table of the graph with unfolded writes (before close). */
    void foldAll() {
        for (Graph.TailSummary t : graph.unfoldedSummary()) {
            fold(t.branch(), t.table());
        }
    }

    /** Folds the tables of {@code branch} with unfolded writes (before a branch is created from it, or merged). */
    void foldBranch(String branch) {
        for (Graph.TailSummary t : graph.unfoldedSummary()) {
            if (t.branch().equals(branch)) {
                fold(t.branch(), t.table());
            }
        }
    }

    /** Folds (branch, table) if it has unfolded writes; whether a fold committed. */
    boolean fold(String branch, String table) {
        HeadsState state = graph.state();
        FoldMark mark = state.foldMark(branch, table);
        Map<String, UnfoldedWrites.Entry> newest = graph.unfoldedNewest(branch, table);
        if (mark.unfolded() == 0 || newest.isEmpty()) {
            return false;
        }
        Catalog.TableDef def = graph.catalog().require(table);
        TableHead head = state.head(branch, table).orElseThrow();
        List<String> deleted = new ArrayList<>();
        List<String> all = new ArrayList<>(newest.keySet());
        for (Map.Entry<String, UnfoldedWrites.Entry> e : newest.entrySet()) {
            if (e.getValue().deletes()) {
                deleted.add(e.getKey());
            }
        }
        long t0 = System.nanoTime();
        KeyFilter deletes = deleted.isEmpty() ? null : Graph.keyFilter(def, deleted);
        VectorSchemaRoot rows = newestRows(def, newest);
        String intentId = "f-" + UUID.randomUUID();
        WriteOp op = new WriteOp(WriteOp.Kind.FOLD, branch, table, rows, deletes, Optional.empty(), head.version());
        op.intentId = intentId;
        op.keys = Graph.keyFilter(def, all);
        op.foldPlan = new JournalEvent.FoldPlanned(intentId, branch, table, mark.newestSequence(),
                Math.toIntExact(mark.unfolded()), deletes);
        try {
            committer.runNow(op);
            graph.metrics().foldNanos.add(System.nanoTime() - t0);
            graph.metrics().foldedRows.add(rows.getRowCount());
            return true;
        } catch (CompletionException | PalisadeException e) {
            Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
            LOG.warn("fold of {}/{} ({} writes) did not commit; they stay acknowledged and unfolded: {}", branch, table,
                    mark.unfolded(), cause.getMessage());
            return false;
        } finally {
            rows.close();
        }
    }

    /**
     * The newest row of every key whose newest unfolded write inserted or upserted it, copied vector by vector from
     * the journaled batches (so every column type the catalog declares is carried exactly), in the catalog schema.
     */
    private VectorSchemaRoot newestRows(Catalog.TableDef def, Map<String, UnfoldedWrites.Entry> newest) {
        VectorSchemaRoot target = VectorSchemaRoot.create(def.arrowSchema(), graph.allocator());
        target.allocateNew();
        Set<UnfoldedWrites.Entry> entries = new java.util.LinkedHashSet<>();
        for (UnfoldedWrites.Entry e : newest.values()) {
            if (!e.deletes()) {
                entries.add(e);
            }
        }
        List<UnfoldedWrites.Entry> ordered = new ArrayList<>(entries);
        ordered.sort(java.util.Comparator.comparingLong(e -> e.acknowledgedAt));
        int n = 0;
        Set<String> copied = new HashSet<>();
        for (UnfoldedWrites.Entry e : ordered) {
            try (ArrowStreamReader r = new ArrowStreamReader(new ByteArrayInputStream(e.rows), graph.allocator())) {
                while (r.loadNextBatch()) {
                    VectorSchemaRoot from = r.getVectorSchemaRoot();
                    FieldVector ids = from.getVector("id");
                    for (int i = 0; i < from.getRowCount(); i++) {
                        String key = String.valueOf(ids.getObject(i));
                        if (newest.get(key) != e || !copied.add(key)) {
                            continue; // a newer write of the key decides, or the key was copied already
                        }
                        for (FieldVector to : target.getFieldVectors()) {
                            FieldVector src = from.getVector(to.getName());
                            if (src == null) {
                                to.setNull(n);
                            } else {
                                to.copyFromSafe(i, n, src);
                            }
                        }
                        n++;
                    }
                }
            } catch (IOException ex) {
                target.close();
                throw new IllegalStateException("journaled rows of " + e.intentId + " do not decode: " + ex.getMessage(), ex);
            }
        }
        for (FieldVector v : target.getFieldVectors()) {
            v.setValueCount(n);
        }
        target.setRowCount(n);
        return target;
    }
}
