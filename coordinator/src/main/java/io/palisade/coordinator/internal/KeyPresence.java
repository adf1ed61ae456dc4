package io.palisade.coordinator.internal;

import io.palisade.coordinator.Catalog;

import io.palisade.fencing.KeyFilter;
import io.palisade.journal.TableHead;
import io.palisade.substrate.KeyedTable;
import io.palisade.substrate.TableRef;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Which keys a journal-ack table's folded head holds, for the strict-insert fence (docs/journal-ack.md): a
 * {@link KeyBloom} per (graph branch, table) rules most new keys out without reading the table, and only the keys it
 * cannot rule out are looked up (one predicate read at the head). The filter is built on first use from the head's
 * {@code id} column and the unfolded writes' keys, kept current by every acknowledged insert or upsert, and dropped
 * (rebuilt on next use) when the table changes by any path other than a fold, or when it outgrows its size.
 *
 * <p>Invariant: every key the head holds, or that an unfolded write inserted or upserted, tests positive. Committer
 * thread only.
 */
public final class KeyPresence {
    /**
     * False-positive rate of the filters: 0.01 %, 22 bits a key of capacity, 11 of them set by each key, in one
     * 512-bit block ({@link KeyBloom}). Each false positive is a
     * predicate read at the head on the committer thread, which scans the fragments the table's index does not cover
     * yet: at 0.1 %, a million strict inserts into a million-row table spent about 9 % of the committer's time in such
     * reads (200 lookups of 26 ms on average, docs/benchmarks.md).
     */
    public static final double FPP = 0.0001;

    private final Context ctx;
    private final Map<String, KeyBloom> filters = new HashMap<>();
    /** The creation of the graph branch each filter was built for: a branch deleted and created again gets a new one. */
    private final Map<String, Long> builtFor = new HashMap<>();

    KeyPresence(Context ctx) {
        this.ctx = ctx;
    }

    /** The keys of {@code candidates} that the folded head {@code head} of (branch, table) holds. */
    Set<String> presentAtHead(Catalog.TableDef def, String branch, String table, TableHead head,
                              Collection<String> candidates) {
        KeyBloom f = filter(def, branch, table, head);
        List<String> maybe = new ArrayList<>();
        for (String k : candidates) {
            if (f.mightContain(k)) {
                maybe.add(k);
            }
        }
        Set<String> present = new TreeSet<>();
        if (maybe.isEmpty()) {
            return present;
        }
        ctx.meters().keyLookups.increment(maybe.size());
        long start = System.nanoTime();
        try (KeyedTable t = ctx.store().openKeyed(table, new TableRef(head.tableBranch(), head.version()))) {
            for (Map<String, Object> r : t.rowsWithKeys(keys(def, maybe))) {
                present.add(String.valueOf(r.get("id")));
            }
        }
        ctx.meters().keyLookup.record(System.nanoTime() - start);
        ctx.meters().keyFilterFalsePositives.increment(maybe.size() - present.size());
        return present;
    }

    /** Keys an acknowledged insert or upsert added to (branch, table). */
    void added(String branch, String table, List<String> keys) {
        String where = WriteOp.where(branch, table);
        KeyBloom f = filters.get(where);
        if (f == null) {
            return;
        }
        for (String k : keys) {
            f.add(k);
        }
        if (f.overfull()) {
            filters.remove(where); // rebuilt larger on next use
        }
    }

    /** The table changed by a path other than a fold (a table-ack write, a load, a merge, a repair). */
    void invalidate(String branch, String table) {
        filters.remove(WriteOp.where(branch, table));
    }

    /** Bytes held by the filters (for docs/benchmarks.md and {@code heads}). */
    long bytes() {
        long n = 0;
        for (KeyBloom f : filters.values()) {
            n += f.bytes();
        }
        return n;
    }

    /** The capacity a filter for a table of {@code keys} keys is built with: room to double before a rebuild. */
    public static long capacityFor(long keys) {
        return Math.max(1 << 16, 2 * keys);
    }

    private KeyBloom filter(Catalog.TableDef def, String branch, String table, TableHead head) {
        String where = WriteOp.where(branch, table);
        long created = ctx.view().state().branch(branch).map(io.palisade.heads.GraphBranch::createdAt).orElse(-1L);
        KeyBloom f = filters.get(where);
        if (f != null && builtFor.get(where) == created) {
            return f;
        }
        Map<String, UnfoldedWrites.Entry> tail = ctx.view().unfoldedNewest(branch, table);
        long rows;
        long start = System.nanoTime();
        try (KeyedTable t = ctx.store().openKeyed(table, new TableRef(head.tableBranch(), head.version()))) {
            rows = t.countRows();
            KeyBloom built = KeyBloom.forCapacity(capacityFor(rows + tail.size()), FPP);
            t.forEachKey(built::add);
            f = built;
        }
        for (String k : tail.keySet()) {
            f.add(k);
        }
        filters.put(where, f);
        ctx.meters().keyFilterBuild.record(System.nanoTime() - start);
        builtFor.put(where, created);
        return f;
    }

    private static KeyFilter keys(Catalog.TableDef def, List<String> keys) {
        return BatchValidation.keyFilter(def, keys);
    }
}
