package io.palisade.coordinator.internal;

import io.palisade.coordinator.Catalog;
import io.palisade.fencing.EndpointConflictException;
import io.palisade.fencing.PalisadeException;
import io.palisade.fencing.UniqueConflictException;
import io.palisade.fencing.ValidationException;
import io.palisade.heads.HeadsState;
import io.palisade.heads.Pin;
import io.palisade.journal.JournalEvent;
import io.palisade.journal.TableHead;
import io.palisade.substrate.ArrowRows;
import io.palisade.substrate.KeyedTable;
import io.palisade.substrate.TableRef;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The integrity stage of a write group (docs/integrity.md), between the fence and the journal: the catalog's edge
 * endpoints and unique columns, checked against the newest published state of the graph branch.
 * <ul>
 *   <li>An inserted, upserted or updated edge's {@code src} and {@code dst} must be ids its declared node tables hold.</li>
 *   <li>A deleted node must be named by no edge of a table that declares it as an endpoint.</li>
 *   <li>An inserted, upserted or updated row's non-null value of a unique column must be held by no other id, in the
 *       table or earlier in the same group.</li>
 * </ul>
 * An op that breaks one is rejected whole: its intent and an {@code INTEGRITY_CONFLICT} completion are journaled with
 * the group's other records, and it is answered with {@link EndpointConflictException} or
 * {@link UniqueConflictException}. The answers are exact because the committer runs every write group of the graph
 * one at a time on its thread, and this stage looks at the state every earlier group published: a delete of an
 * endpoint and an insert of an edge naming it are two groups, and whichever runs second sees the first.
 *
 * <p>The lookups (the ids of a node table, edges by endpoint, ids by unique value) use a {@link TableImage} per
 * (graph branch, table),
 * built on first use from one projected scan of the head and the unfolded tail, then advanced by each published group
 * ({@link #published}) and kept across folds ({@link #folded}). An image whose stamp is not its table's head (the table
 * moved by a path that does not report here: a load, a merge, a repair) is rebuilt before use. Committer thread only.
 */
final class Integrity {
    /** Edges or keys named in one error at most. */
    static final int NAMED = 20;

    private final Context ctx;
    private final JournalPhases journal;
    /** In access order: the least recently used first, dropped first past {@code Options.maxImageRows}. */
    private final Map<Where, TableImage> images = new java.util.LinkedHashMap<>(16, 0.75f, true);
    /**
     * The rows of the group being judged, by op, read before any of them is answered: a writer may release its rows
     * once its future completes, and {@link #published} runs after that.
     */
    private final Map<Fence.Admitted, List<Map<String, Object>>> staged = new java.util.IdentityHashMap<>();

    /**
     * While graph transactions of one batch are judged, images hold the effects of transactions not journaled yet: none
     * may be dropped (a rebuild from the journal would lose them) until {@link #releaseEviction}.
     */
    private boolean evictionHeld;

    /** The (graph branch, table) of an image. */
    private record Where(String branch, String table) {
    }

    Integrity(Context ctx, JournalPhases journal) {
        this.ctx = ctx;
        this.journal = journal;
    }

    /** Whether an endpoint declaration ties tables {@code a} and {@code b} (an edge table and one of its node tables). */
    static boolean linked(Catalog catalog, String a, String b) {
        if (!catalog.declaresIntegrity()) {
            return false;
        }
        Optional<Catalog.TableDef> da = catalog.table(a);
        Optional<Catalog.TableDef> db = catalog.table(b);
        return da.isPresent() && db.isPresent() && (names(da.get(), b) || names(db.get(), a));
    }

    private static boolean names(Catalog.TableDef edge, String node) {
        return node.equals(edge.src()) || node.equals(edge.dst());
    }

    /** Whether writes of {@code def} take this stage at all. */
    static boolean checks(Catalog catalog, Catalog.TableDef def) {
        return def.declaresIntegrity() || !catalog.endpointsInto(def.name()).isEmpty();
    }

    /**
     * The fence's {@code admission} of a group on {@code def}, with every accepted op that breaks an integrity rule
     * moved to the rejected ops (its records added to the rejections).
     */
    Fence.Admission judge(Catalog.TableDef def, Pin pin, HeadsState state, List<WriteOp> group, Fence.Admission admission) {
        Catalog catalog = ctx.view().catalog();
        staged.clear();
        if (admission.accepted().isEmpty() || !checks(catalog, def)) {
            return admission;
        }
        admission = inQueueOrder(def, group, admission);
        if (admission.accepted().isEmpty()) {
            return admission;
        }
        WriteOp first = admission.accepted().get(0).op();
        Map<Fence.Admitted, PalisadeException> refused = new LinkedHashMap<>();
        switch (first) {
            case WriteOp.Insert i -> written(catalog, def, state, admission.accepted(), refused);
            case WriteOp.Upsert u -> written(catalog, def, state, admission.accepted(), refused);
            case WriteOp.Update u -> written(catalog, def, state, admission.accepted(), refused);
            case WriteOp.Delete d -> deleted(catalog, def, state, admission.accepted(), refused);
            case WriteOp.Overwrite o -> {
                for (Fence.Admitted a : admission.accepted()) {
                    refused.put(a, new ValidationException("table '" + def.name() + "' takes part in the graph's "
                            + "integrity declarations (edge endpoints or unique columns): an overwrite, which replaces "
                            + "every row unchecked, is refused; write its rows with inserts, upserts and deletes"));
                }
            }
            // a keyless table declares nothing; added columns, maintenance and folds change no checked value
            case WriteOp.Append a -> {
            }
            case WriteOp.AddColumns a -> {
            }
            case WriteOp.OptimizeIndex o -> {
            }
            case WriteOp.Compact c -> {
            }
            case WriteOp.Fold f -> {
            }
        }
        if (refused.isEmpty()) {
            return admission;
        }
        List<Fence.Admitted> accepted = new ArrayList<>();
        List<Lost> rejected = new ArrayList<>(admission.rejected());
        List<JournalEvent> rejections = new ArrayList<>(admission.rejections());
        for (Fence.Admitted a : admission.accepted()) {
            PalisadeException e = refused.get(a);
            if (e == null) {
                accepted.add(a);
            } else if (e instanceof EndpointConflictException || e instanceof UniqueConflictException) {
                ctx.meters().integrityConflicts.increment();
                rejections.addAll(journal.integrityRejection(a, pin.head(), e.getMessage(), named(e)));
                rejected.add(new Lost(a, e));
            } else {
                // bad input, or a table the checks must read that this session refuses: nothing journaled
                if (e instanceof ValidationException) {
                    ctx.meters().validationFailures.increment();
                }
                a.op().future().completeExceptionally(e);
            }
        }
        return new Fence.Admission(accepted, admission.deferred(), rejected, rejections);
    }

    /**
     * The fence defers an op that shares a key with an earlier op of the group to the next group, so the ops after it
     * run before it. Unique values tie rows of different keys together, so on a table with unique columns every
     * accepted op queued after the first deferred one is deferred too: the group's writes take effect in queue order.
     */
    private static Fence.Admission inQueueOrder(Catalog.TableDef def, List<WriteOp> group, Fence.Admission admission) {
        if (def.unique().isEmpty() || admission.deferred().isEmpty()) {
            return admission;
        }
        Map<java.util.concurrent.CompletableFuture<?>, Integer> index = new java.util.IdentityHashMap<>();
        for (int i = 0; i < group.size(); i++) {
            index.put(group.get(i).future(), i);
        }
        int firstDeferred = Integer.MAX_VALUE;
        java.util.TreeMap<Integer, WriteOp> deferred = new java.util.TreeMap<>();
        for (WriteOp d : admission.deferred()) {
            int i = index.get(d.future());
            firstDeferred = Math.min(firstDeferred, i);
            deferred.put(i, d);
        }
        List<Fence.Admitted> accepted = new ArrayList<>();
        for (Fence.Admitted a : admission.accepted()) {
            int i = index.get(a.op().future());
            if (i > firstDeferred) {
                deferred.put(i, group.get(i)); // as queued (an update unresolved: it is resolved again)
            } else {
                accepted.add(a);
            }
        }
        if (accepted.size() == admission.accepted().size()) {
            return admission;
        }
        return new Fence.Admission(accepted, new ArrayList<>(deferred.values()), admission.rejected(),
                admission.rejections());
    }

    private static List<String> named(PalisadeException e) {
        return switch (e) {
            case EndpointConflictException c -> c.keys();
            case UniqueConflictException u -> List.of(u.writer());
            default -> List.of();
        };
    }

    // ------------------------------------------------------------------ inserts, upserts, updates

    private void written(Catalog catalog, Catalog.TableDef def, HeadsState state, List<Fence.Admitted> ops,
                         Map<Fence.Admitted, PalisadeException> refused) {
        String branch = ops.get(0).op().branch();
        Map<Fence.Admitted, List<Map<String, Object>>> rows = new LinkedHashMap<>();
        List<String> read = new ArrayList<>(tracked(def));
        read.add(0, "id");
        for (Fence.Admitted a : ops) {
            rows.put(a, ArrowRows.rows(SubstrateWrites.rows(a.op()), read));
        }
        staged.putAll(rows); // the table's image (if any) advances by them once published
        if (!def.declaresIntegrity()) {
            return; // a node table that edges name: only its deletes are checked
        }
        if (ops.get(0).op() instanceof WriteOp.Insert) {
            // a strict insert of an id the table holds is the key fence's to refuse (KeyConflictException), whatever
            // else it breaks: it is judged here no further, and the values it names are not taken from the ops after it
            TableImage image = image(def, branch, state);
            rows.keySet().removeIf(a -> rows.get(a).stream().anyMatch(r -> image.holds(String.valueOf(r.get("id")))));
        }
        for (Catalog.Endpoint e : catalog.endpointsOf(def)) {
            endpoints(catalog, def, branch, state, e, rows, refused);
        }
        if (!def.unique().isEmpty()) {
            unique(def, branch, state, rows, refused);
        }
    }

    /** Refuses each op one of whose rows names, in {@code e.column()}, an id {@code e.node()} does not hold. */
    private void endpoints(Catalog catalog, Catalog.TableDef def, String branch, HeadsState state, Catalog.Endpoint e,
                           Map<Fence.Admitted, List<Map<String, Object>>> rows,
                           Map<Fence.Admitted, PalisadeException> refused) {
        Set<String> asked = new LinkedHashSet<>();
        rows.forEach((a, rs) -> {
            if (!refused.containsKey(a)) {
                rs.forEach(r -> asked.add(TableImage.text(r.get(e.column()))));
            }
        });
        // a table this session refuses (unknown outcome, foreign commit): its image may not be its state
        Optional<PalisadeException> nodeRefused = ctx.refusals().refusal(branch, e.node());
        if (nodeRefused.isPresent()) {
            rows.keySet().forEach(a -> refused.putIfAbsent(a, nodeRefused.get()));
            return;
        }
        Set<String> present = present(catalog.require(e.node()), branch, state, asked);
        rows.forEach((a, rs) -> {
            if (refused.containsKey(a)) {
                return;
            }
            Set<String> missing = new LinkedHashSet<>();
            List<String> edges = new ArrayList<>();
            for (Map<String, Object> r : rs) {
                String end = TableImage.text(r.get(e.column()));
                if (!present.contains(end)) {
                    missing.add(end);
                    if (edges.size() < NAMED) {
                        edges.add(def.name() + "/" + r.get("id"));
                    }
                }
            }
            if (!missing.isEmpty()) {
                refused.put(a, new EndpointConflictException(EndpointConflictException.Situation.MISSING_ENDPOINT,
                        def.name(), first(missing), missing.size(), edges,
                        "table '" + e.node() + "' (the declared " + e.column() + " of '" + def.name() + "')"));
            }
        });
    }

    /** The ids of {@code keys} that node table {@code node} holds on {@code branch}: its image's. */
    private Set<String> present(Catalog.TableDef node, String branch, HeadsState state, Set<String> keys) {
        Set<String> present = new java.util.HashSet<>();
        if (keys.isEmpty()) {
            return present;
        }
        Optional<Pin> pin = state.pin(branch, node.name());
        if (pin.isEmpty()) {
            return present;
        }
        TableImage image = image(node, branch, state);
        for (String k : keys) {
            if (image.holds(k)) {
                present.add(k);
            }
        }
        return present;
    }

    /**
     * Refuses each op one of whose rows gives a unique column's non-null value that another id holds: in the table's
     * image as moved by the ops of the group before it that were not refused, and by the op's own rows, which take
     * effect at once (two rows of one write may swap their values; two may not take the same one).
     */
    private void unique(Catalog.TableDef def, String branch, HeadsState state,
                        Map<Fence.Admitted, List<Map<String, Object>>> rows,
                        Map<Fence.Admitted, PalisadeException> refused) {
        TableImage image = image(def, branch, state);
        // the group's moves so far: "column NUL value" → the id now holding it (null: freed); "column NUL id" → the
        // id's value now (null: none)
        Moves group = new Moves(image, null);
        rows.forEach((a, rs) -> {
            if (refused.containsKey(a)) {
                return;
            }
            Moves op = new Moves(image, group);
            // a write's rows take effect at once: every row first gives up its id's old value, then takes its new one
            for (Map<String, Object> r : rs) {
                String id = String.valueOf(r.get("id"));
                for (String col : def.unique()) {
                    String v = TableImage.text(r.get(col));
                    String old = op.valueOf(col, id);
                    if (old != null && !old.equals(v)) {
                        op.holders.put(col + '\u0000' + old, null);
                    }
                    op.values.put(col + '\u0000' + id, v);
                }
            }
            UniqueConflictException conflict = null;
            for (Map<String, Object> r : rs) {
                String id = String.valueOf(r.get("id"));
                for (String col : def.unique()) {
                    String v = TableImage.text(r.get(col));
                    if (v == null) {
                        continue;
                    }
                    String holder = op.holderOf(col, v);
                    if (holder != null && !holder.equals(id)) {
                        conflict = new UniqueConflictException(def.name(), col, v, holder, id);
                        break;
                    }
                    op.holders.put(col + '\u0000' + v, id);
                }
                if (conflict != null) {
                    break;
                }
            }
            if (conflict != null) {
                refused.put(a, conflict);
            } else {
                group.holders.putAll(op.holders);
                group.values.putAll(op.values);
            }
        });
    }

    /**
     * Unique values moved by rows not yet published, over {@code image} (through {@code under}, the moves before these,
     * when not null). Keys are "column NUL value" (→ holder id, null when freed) and "column NUL id" (→ value).
     */
    private static final class Moves {
        final TableImage image;
        final Moves under;
        final Map<String, String> holders = new HashMap<>();
        final Map<String, String> values = new HashMap<>();

        Moves(TableImage image, Moves under) {
            this.image = image;
            this.under = under;
        }

        /** {@code id}'s value of {@code col} after these moves. */
        String valueOf(String col, String id) {
            String key = col + '\u0000' + id;
            if (values.containsKey(key)) {
                return values.get(key);
            }
            return under != null ? under.valueOf(col, id) : image.valueOf(id, image.column(col));
        }

        /** The id holding {@code v} of {@code col} after these moves, or null. */
        String holderOf(String col, String v) {
            String key = col + '\u0000' + v;
            if (holders.containsKey(key)) {
                return holders.get(key);
            }
            if (under != null) {
                return under.holderOfAbove(col, v, this);
            }
            String h = image.holder(image.column(col), v);
            return h != null && v.equals(valueOf(col, h)) ? h : null;
        }

        /** {@link #holderOf} in this layer, judged by the values of {@code above} (the newest layer). */
        private String holderOfAbove(String col, String v, Moves above) {
            String key = col + '\u0000' + v;
            if (holders.containsKey(key)) {
                String h = holders.get(key);
                return h != null && v.equals(above.valueOf(col, h)) ? h : null;
            }
            String h = image.holder(image.column(col), v);
            return h != null && v.equals(above.valueOf(col, h)) ? h : null;
        }
    }

    // ------------------------------------------------------------------ deletes

    /** Refuses each delete of a node that an edge of a table declaring it as an endpoint still names. */
    private void deleted(Catalog catalog, Catalog.TableDef def, HeadsState state, List<Fence.Admitted> ops,
                         Map<Fence.Admitted, PalisadeException> refused) {
        List<Catalog.Endpoint> into = catalog.endpointsInto(def.name());
        if (into.isEmpty()) {
            return;
        }
        String branch = ops.get(0).op().branch();
        // each edge table's image, fetched once for the group
        List<Catalog.Endpoint> ends = new ArrayList<>();
        List<TableImage> endImages = new ArrayList<>();
        for (Catalog.Endpoint e : into) {
            if (state.pin(branch, e.edge()).isEmpty()) {
                continue;
            }
            Optional<PalisadeException> edgeRefused = ctx.refusals().refusal(branch, e.edge());
            if (edgeRefused.isPresent()) {
                ops.forEach(a -> refused.putIfAbsent(a, edgeRefused.get()));
                return;
            }
            ends.add(e);
            endImages.add(image(catalog.require(e.edge()), branch, state));
        }
        for (Fence.Admitted a : ops) {
            nodeHasEdges(def.name(), a.keys().keys(), ends, endImages).ifPresent(e -> refused.put(a, e));
        }
    }

    /**
     * The refusal of a delete of {@code keys} from node table {@code node} when an edge still names one: the edge
     * tables' endpoints into it ({@code ends}) with their images, in order. Names the ids and up to {@link #NAMED}
     * edges.
     */
    static Optional<EndpointConflictException> nodeHasEdges(String node, List<String> keys, List<Catalog.Endpoint> ends,
                                                            List<TableImage> images) {
        Set<String> held = new LinkedHashSet<>();
        List<String> edges = new ArrayList<>();
        for (int i = 0; i < ends.size(); i++) {
            Catalog.Endpoint e = ends.get(i);
            TableImage image = images.get(i);
            int col = image.column(e.column());
            Set<String> mine = new LinkedHashSet<>();
            for (String k : keys) {
                if (image.count(col, k) > 0) {
                    mine.add(k);
                }
            }
            held.addAll(mine);
            if (!mine.isEmpty() && edges.size() < NAMED) {
                for (String id : image.rowsNaming(col, mine, NAMED - edges.size())) {
                    edges.add(e.edge() + "/" + id + " (" + e.column() + ")");
                }
            }
        }
        if (held.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(new EndpointConflictException(EndpointConflictException.Situation.NODE_HAS_EDGES, node,
                first(held), held.size(), edges, ""));
    }

    // ------------------------------------------------------------------ images

    /** The columns an image of {@code def} tracks: its unique columns, then its declared endpoint columns. */
    static List<String> tracked(Catalog.TableDef def) {
        List<String> cols = new ArrayList<>(def.unique());
        def.srcTable().ifPresent(n -> cols.add("src"));
        def.dstTable().ifPresent(n -> cols.add("dst"));
        return cols;
    }

    /**
     * What an image of (branch, table) agrees with: the table's head and the graph branch's creation (a branch deleted
     * and created again under its name inherits the same head, but not the deleted one's unfolded writes).
     */
    private static String stamp(HeadsState state, String branch, TableHead head) {
        long created = state.branch(branch).map(io.palisade.heads.GraphBranch::createdAt).orElse(-1L);
        return head.tableBranch() + "@" + head.version() + "#" + created;
    }

    /** The image of (branch, def) agreeing with its head in {@code state}, built when there is none that does. */
    TableImage image(Catalog.TableDef def, String branch, HeadsState state) {
        Where where = new Where(branch, def.name());
        TableHead head = state.pin(branch, def.name()).orElseThrow(
                () -> new ValidationException("table '" + def.name() + "' has no head on branch '" + branch + "'")).head();
        TableImage image = images.get(where);
        if (image != null && image.stamp().equals(stamp(state, branch, head))) {
            return image;
        }
        List<String> cols = tracked(def);
        boolean[] unique = new boolean[cols.size()];
        for (int i = 0; i < cols.size(); i++) {
            unique[i] = def.unique().contains(cols.get(i));
        }
        images.keySet().removeIf(w -> !state.branchLive(w.branch())); // a deleted graph branch's images go with it
        TableImage built = new TableImage(stamp(state, branch, head), cols, unique);
        List<String> read = new ArrayList<>(cols);
        read.add(0, "id");
        try (KeyedTable t = ctx.store().openKeyed(def.name(), new TableRef(head.tableBranch(), head.version()))) {
            t.forEachRow(read, r -> built.put(String.valueOf(r.get("id")), r));
        }
        for (Map.Entry<String, UnfoldedWrites.Entry> e : ctx.view().unfoldedNewest(branch, def.name()).entrySet()) {
            UnfoldedWrites.Entry w = e.getValue();
            if (w.deletes()) {
                built.remove(e.getKey());
            } else if (!w.released()) { // a released write's rows are in the folded head already
                built.put(e.getKey(), w.rows(ctx.allocator()).get(e.getKey()));
            }
        }
        images.put(where, built);
        ctx.meters().integrityImageBuilds.increment();
        evictBeyond(ctx.options().maxImageRows(), where);
        return built;
    }

    /**
     * A group on (branch, def) was published: {@code ops} took effect, and the table's head moved from
     * {@code before} to the head now published (the same head for journal-ack writes). The image advances with them;
     * an image that did not agree with {@code before} is dropped (rebuilt on next use).
     */
    void published(Catalog.TableDef def, String branch, TableHead before, List<Fence.Admitted> ops) {
        Where where = new Where(branch, def.name());
        TableImage image = images.get(where);
        if (image == null) {
            staged.clear();
            return;
        }
        HeadsState state = ctx.view().state();
        Optional<Pin> now = state.pin(branch, def.name());
        if (!image.stamp().equals(stamp(state, branch, before)) || now.isEmpty()) {
            images.remove(where);
            staged.clear();
            return;
        }
        for (Fence.Admitted a : ops) {
            List<Map<String, Object>> rows = staged.get(a);
            switch (a.op()) {
                case WriteOp.Insert i -> putAll(image, rows, where);
                case WriteOp.Upsert u -> putAll(image, rows, where);
                case WriteOp.Update u -> putAll(image, rows, where);
                case WriteOp.Delete d -> d.keys().keys().forEach(image::remove);
                case WriteOp.Append x -> images.remove(where);
                case WriteOp.Overwrite x -> images.remove(where);
                case WriteOp.AddColumns x -> {
                }
                case WriteOp.OptimizeIndex x -> {
                }
                case WriteOp.Compact x -> {
                }
                case WriteOp.Fold x -> {
                }
            }
        }
        if (images.get(where) == image) {
            image.restamp(stamp(state, branch, now.get().head()));
        }
        staged.clear();
        evictBeyond(ctx.options().maxImageRows(), where);
    }

    /** Advances {@code image} by {@code rows}; without them (not staged) the image is dropped, to be rebuilt. */
    private void putAll(TableImage image, List<Map<String, Object>> rows, Where where) {
        if (rows == null) {
            images.remove(where);
            return;
        }
        for (Map<String, Object> r : rows) {
            image.put(String.valueOf(r.get("id")), r);
        }
    }

    /** A fold of (branch, table) published: the head moved from {@code before}; what the table holds did not. */
    void folded(String branch, String table, TableHead before) {
        Where where = new Where(branch, table);
        TableImage image = images.get(where);
        HeadsState state = ctx.view().state();
        Optional<Pin> now = state.pin(branch, table);
        if (image == null) {
            return;
        }
        if (!image.stamp().equals(stamp(state, branch, before)) || now.isEmpty()) {
            images.remove(where);
            return;
        }
        image.restamp(stamp(state, branch, now.get().head()));
    }

    /** Drops the image of (branch, table): a group on it failed with an unknown outcome. */
    void forget(String branch, String table) {
        staged.clear();
        images.remove(new Where(branch, table));
    }

    /**
     * Drops the least recently used images other than {@code keep}'s while all of them hold more than {@code max} rows
     * (a group that still uses a dropped image finishes with it; the image is rebuilt by the next write that needs it).
     */
    private void evictBeyond(long max, Where keep) {
        if (evictionHeld) {
            return;
        }
        long held = rowsHeld();
        java.util.Iterator<Map.Entry<Where, TableImage>> it = images.entrySet().iterator();
        while (held > max && it.hasNext()) {
            Map.Entry<Where, TableImage> e = it.next();
            if (!e.getKey().equals(keep)) {
                held -= e.getValue().size();
                it.remove();
            }
        }
    }

    /** No image is dropped past the bound until {@link #releaseEviction} (a batch of graph transactions is judged). */
    void holdEviction() {
        evictionHeld = true;
    }

    /** Images may be dropped again; drops those past the bound now. */
    void releaseEviction() {
        evictionHeld = false;
        evictBeyond(ctx.options().maxImageRows(), null);
    }

    /** Rows held by all images (for the memory measurement of docs/integrity.md). */
    long rowsHeld() {
        long n = 0;
        for (TableImage t : images.values()) {
            n += t.size();
        }
        return n;
    }

    static List<String> first(Set<String> keys) {
        List<String> out = new ArrayList<>();
        for (String k : keys) {
            if (out.size() == NAMED) {
                break;
            }
            out.add(k);
        }
        return out;
    }
}
