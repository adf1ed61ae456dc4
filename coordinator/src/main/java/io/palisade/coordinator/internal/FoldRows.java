package io.palisade.coordinator.internal;

import io.palisade.coordinator.Catalog;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The rows a fold writes: the newest row of every key whose newest unfolded write inserted or upserted it, in the
 * catalog schema, copied vector by vector from the journaled Arrow IPC batches (so every column type the catalog
 * declares is carried exactly).
 *
 * <p>The committer plans a fold from the newest-write map alone: {@link #count()} is the number of its keys whose
 * newest write is not a delete, known without decoding anything. The batches are decoded by the first call of
 * {@link #root()}, which is the fold's Lance commit on the fold thread, so the committer does not spend its time on
 * a fold's decoding while it acknowledges writes.
 *
 * <p>Invariants: {@code newest} is a snapshot the caller no longer changes, and its entries are immutable; the root,
 * once decoded, holds exactly {@link #count()} rows, one per key, else decoding fails; {@link #root()} and
 * {@link #close()} may run on different threads (one at a time: both are synchronized); after close the root is
 * released and {@link #root()} fails.
 */
final class FoldRows implements AutoCloseable {
    private final Catalog.TableDef def;
    private final BufferAllocator allocator;
    private final Map<String, UnfoldedWrites.Entry> newest;
    private final int count;
    private VectorSchemaRoot root;
    private boolean closed;

    FoldRows(Catalog.TableDef def, BufferAllocator allocator, Map<String, UnfoldedWrites.Entry> newest) {
        this.def = Objects.requireNonNull(def, "def");
        this.allocator = Objects.requireNonNull(allocator, "allocator");
        this.newest = Objects.requireNonNull(newest, "newest");
        int n = 0;
        for (UnfoldedWrites.Entry e : newest.values()) {
            if (!e.deletes()) {
                n++;
            }
        }
        this.count = n;
    }

    /** The number of rows the fold writes: its keys whose newest unfolded write is not a delete. */
    int count() {
        return count;
    }

    /** The rows, decoded on the first call; owned by this object (released by {@link #close()}). */
    synchronized VectorSchemaRoot root() {
        if (closed) {
            throw new IllegalStateException("the rows of this fold were released");
        }
        if (root == null) {
            root = decode();
        }
        return root;
    }

    private VectorSchemaRoot decode() {
        Map<UnfoldedWrites.Entry, Boolean> distinct = new IdentityHashMap<>();
        for (UnfoldedWrites.Entry e : newest.values()) {
            if (!e.deletes()) {
                distinct.put(e, Boolean.TRUE);
            }
        }
        List<UnfoldedWrites.Entry> ordered = new ArrayList<>(distinct.keySet());
        ordered.sort(Comparator.comparingLong(e -> e.acknowledgedAt));
        VectorSchemaRoot target = VectorSchemaRoot.create(def.arrowSchema(), allocator);
        try {
            target.allocateNew();
            int[] n = {0};
            Set<String> copied = new HashSet<>();
            try (JournaledRows.Reader reader = new JournaledRows.Reader(allocator)) {
                for (UnfoldedWrites.Entry e : ordered) {
                    try {
                        reader.forEachBatch(e.rows, from -> {
                            FieldVector ids = from.getVector("id");
                            for (int i = 0; i < from.getRowCount(); i++) {
                                String key = String.valueOf(ids.getObject(i));
                                if (newest.get(key) != e || !copied.add(key)) {
                                    continue; // a newer write of the key decides, or the key was copied already
                                }
                                for (FieldVector to : target.getFieldVectors()) {
                                    FieldVector src = from.getVector(to.getName());
                                    if (src == null) {
                                        to.setNull(n[0]);
                                    } else {
                                        to.copyFromSafe(i, n[0], src);
                                    }
                                }
                                n[0]++;
                            }
                        });
                    } catch (IOException ex) {
                        throw new IllegalStateException("journaled rows of " + e.intentId + " do not decode: "
                                + ex.getMessage(), ex);
                    }
                }
            }
            if (n[0] != count) {
                throw new IllegalStateException("the unfolded writes name " + count + " keys to write but their journaled "
                        + "rows hold " + n[0] + " of them");
            }
            for (FieldVector v : target.getFieldVectors()) {
                v.setValueCount(n[0]);
            }
            target.setRowCount(n[0]);
            return target;
        } catch (RuntimeException | Error ex) {
            target.close();
            throw ex;
        }
    }

    @Override
    public synchronized void close() {
        closed = true;
        if (root != null) {
            root.close();
            root = null;
        }
    }
}
