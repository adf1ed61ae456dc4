package io.palisade.coordinator.internal;

import io.palisade.coordinator.Catalog;
import io.palisade.fencing.KeyFilter;
import io.palisade.heads.HeadsState;
import io.palisade.substrate.RowSink;
import io.palisade.substrate.ScanSpec;
import io.palisade.substrate.TableSnapshot;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The unfolded writes of one (graph branch, table) as of a journal sequence, for a streaming
 * read (docs/journal-ack.md "Reads"): the keys they touch, whose rows in the folded table they override, and the rows
 * live after them. Held in memory: the fold bounds bound it ({@code Options.maxUnfoldedBytes}).
 */
public final class UnfoldedTail implements AutoCloseable {
    private final Catalog.TableDef def;
    private final Map<String, UnfoldedWrites.Entry> newest;
    private final BufferAllocator allocator = new RootAllocator();

    private UnfoldedTail(Catalog.TableDef def, Map<String, UnfoldedWrites.Entry> newest) {
        this.def = def;
        this.newest = newest;
    }

    /** The tail of (branch, table) as of {@code through}, rebuilt from the journal ({@code at}: the heads there). */
    public static UnfoldedTail of(Path palisadeDir, Catalog catalog, HeadsState at, long through, String branch,
                                  String table) {
        Catalog.TableDef def = catalog.require(table);
        if (at.foldMark(branch, table).unfolded() == 0) {
            return new UnfoldedTail(def, Map.of());
        }
        return new UnfoldedTail(def, Reads.rebuildUnfolded(palisadeDir, catalog, at, through).newest(branch, table));
    }

    /**
     * The rows the unfolded writes recorded for each (graph branch, table) with unfolded writes in {@code at}, as of its
     * last sequence: every row an insert or upsert wrote and every key a delete named, counted once per write.
     */
    public static Map<String, Map<String, Long>> rowCounts(Path palisadeDir, Catalog catalog, HeadsState at) {
        return Reads.rebuildUnfolded(palisadeDir, catalog, at, at.lastSequence()).rowCounts();
    }

    /** Whether no unfolded write touches the table. */
    public boolean isEmpty() {
        return newest.isEmpty();
    }

    /** The keys the unfolded writes touch. */
    public int keyCount() {
        return newest.size();
    }

    /** Whether an unfolded write touches {@code key}: the folded table's row of it is not the current one. */
    public boolean touches(String key) {
        return newest.containsKey(key);
    }

    /**
     * Streams the rows live after the unfolded writes (the newest write of their key inserted or upserted them) that
     * {@code spec} selects, in the order their newest write was acknowledged (then by key), to {@code sink}: staged
     * as one batch in the table's catalog schema and read through {@code t}'s {@link TableSnapshot#scanRows}, so a
     * filter means exactly what it means on the folded table.
     */
    public void scan(TableSnapshot t, ScanSpec spec, RowSink sink) {
        if (newest.isEmpty() || spec.limit() == 0) {
            return;
        }
        Set<String> wanted = spec.keys() == null ? null : new HashSet<>(spec.keys().keys());
        List<Map.Entry<String, UnfoldedWrites.Entry>> live = new ArrayList<>();
        for (Map.Entry<String, UnfoldedWrites.Entry> e : newest.entrySet()) {
            if (!e.getValue().deletes() && (wanted == null || wanted.contains(e.getKey()))) {
                live.add(e);
            }
        }
        live.sort(Comparator.comparingLong((Map.Entry<String, UnfoldedWrites.Entry> e) -> e.getValue().acknowledgedAt)
                .thenComparing(Map.Entry::getKey));
        try (VectorSchemaRoot rows = stage(live)) {
            t.scanRows(rows, spec.withKeys((KeyFilter) null), sink);
        }
    }

    /** One batch of the live rows, in {@code live}'s order, copied from the journaled payloads column by column. */
    private VectorSchemaRoot stage(List<Map.Entry<String, UnfoldedWrites.Entry>> live) {
        Schema schema = def.arrowSchema();
        VectorSchemaRoot out = VectorSchemaRoot.create(schema, allocator);
        try {
            out.allocateNew();
            int n = 0;
            int i = 0;
            while (i < live.size()) {
                UnfoldedWrites.Entry entry = live.get(i).getValue();
                Set<String> keys = new HashSet<>();
                List<String> order = new ArrayList<>();
                for (; i < live.size() && live.get(i).getValue() == entry; i++) {
                    keys.add(live.get(i).getKey());
                    order.add(live.get(i).getKey());
                }
                n = copy(entry, order, keys, out, n);
            }
            for (Field f : schema.getFields()) {
                out.getVector(f.getName()).setValueCount(n);
            }
            out.setRowCount(n);
            return out;
        } catch (RuntimeException e) {
            out.close();
            throw e;
        }
    }

    /** Copies the rows of {@code keys} of {@code entry}'s payload to {@code out} from row {@code at}, in {@code order}. */
    private int copy(UnfoldedWrites.Entry entry, List<String> order, Set<String> keys, VectorSchemaRoot out, int at) {
        try (ArrowStreamReader r = new ArrowStreamReader(new ByteArrayInputStream(entry.rows), allocator)) {
            Map<String, Integer> found = new HashMap<>();
            // one payload is one batch (JournaledRows); a reader reuses its root, so copy while it is loaded
            while (r.loadNextBatch()) {
                VectorSchemaRoot in = r.getVectorSchemaRoot();
                FieldVector ids = in.getVector("id");
                Map<String, Integer> rowOf = new HashMap<>();
                for (int row = 0; row < in.getRowCount(); row++) {
                    String k = String.valueOf(io.palisade.substrate.ArrowRows.value(ids, row));
                    if (keys.contains(k)) {
                        rowOf.put(k, row);
                    }
                }
                for (String k : order) {
                    Integer row = rowOf.get(k);
                    if (row == null || found.containsKey(k)) {
                        continue;
                    }
                    int to = at + found.size();
                    for (Field f : out.getSchema().getFields()) {
                        FieldVector from = in.getVector(f.getName());
                        FieldVector target = out.getVector(f.getName());
                        if (from == null) {
                            target.setNull(to);
                        } else {
                            target.copyFromSafe(row, to, from);
                        }
                    }
                    found.put(k, to);
                }
            }
            if (found.size() != keys.size()) {
                Set<String> missing = new HashSet<>(keys);
                missing.removeAll(found.keySet());
                throw new IllegalStateException("journaled write " + entry.intentId + " names keys " + missing
                        + " but its rows lack them");
            }
            return at + found.size();
        } catch (IOException e) {
            throw new IllegalStateException("journaled rows do not decode as an Arrow IPC stream: " + e.getMessage(), e);
        }
    }

    @Override
    public void close() {
        allocator.close();
    }
}
