package io.palisade.coordinator.internal;

import io.palisade.coordinator.Catalog;
import io.palisade.fencing.KeyNotFoundException;
import io.palisade.fencing.PalisadeException;
import io.palisade.substrate.ArrowRows;
import org.apache.arrow.vector.VectorSchemaRoot;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Resolves a group of updates into the whole new rows they write (docs/coordinator.md "Updates"). Runs in the fence,
 * on the committer thread, after the group's ops were deferred past every earlier op sharing a key: the table's newest
 * state (its published head and, for a journal-ack table, the acknowledged writes not yet folded) is then the state
 * the group commits on, since the committer is the table's only writer and publishes each group before it fences the
 * next. No write of the keys can come between the read and the commit, so an update loses no concurrent write and is
 * never retried.
 *
 * <p>One keyed lookup reads every key of the group. An update any of whose keys the table does not hold fails whole
 * with {@link KeyNotFoundException} and writes nothing; the others resolve to {@code current row ⊕ change}: the
 * columns a change names replace the current values, the others are kept.
 */
final class Updates {
    private Updates() {
    }

    /**
     * The updates among {@code accepted} (a group of one kind: all updates or none) resolved; an update whose keys are
     * not all held is completed with its failure and left out. Other groups are returned as they are.
     */
    static List<Fence.Admitted> resolve(Context ctx, Catalog.TableDef def, List<Fence.Admitted> accepted) {
        if (accepted.isEmpty() || !(accepted.get(0).op() instanceof WriteOp.Update)) {
            return accepted;
        }
        WriteOp first = accepted.get(0).op();
        List<String> keys = new ArrayList<>();
        for (Fence.Admitted a : accepted) {
            keys.addAll(a.keys().keys());
        }
        Map<String, Map<String, Object>> current;
        try {
            current = ctx.reads().get(first.branch(), first.table(), keys);
        } catch (PalisadeException e) {
            accepted.forEach(a -> a.op().future().completeExceptionally(e));
            return List.of();
        }
        List<Fence.Admitted> out = new ArrayList<>(accepted.size());
        for (Fence.Admitted a : accepted) {
            WriteOp.Update u = (WriteOp.Update) a.op();
            List<String> missing = new ArrayList<>();
            List<Map<String, Object>> after = new ArrayList<>(u.changes().size());
            for (Map<String, Object> change : u.changes()) {
                String id = String.valueOf(change.get("id"));
                Map<String, Object> row = current.get(id);
                if (row == null) {
                    missing.add(id);
                    continue;
                }
                Map<String, Object> merged = new LinkedHashMap<>(row);
                merged.putAll(change);
                after.add(merged);
            }
            if (!missing.isEmpty()) {
                ctx.meters().validationFailures.increment();
                u.future().completeExceptionally(new KeyNotFoundException(u.table(), u.branch(),
                        missing.subList(0, Math.min(20, missing.size())), missing.size()));
                continue;
            }
            VectorSchemaRoot rows = VectorSchemaRoot.create(def.arrowSchema(), ctx.allocator());
            try {
                ArrowRows.fill(rows, after);
            } catch (RuntimeException e) {
                rows.close();
                ctx.meters().validationFailures.increment();
                u.future().completeExceptionally(e instanceof PalisadeException p ? p
                        : new io.palisade.fencing.ValidationException("update of table '" + u.table() + "': " + e.getMessage(), e));
                continue;
            }
            out.add(new Fence.Admitted(u.resolved(rows), a.intentId(), a.keys(), null));
        }
        return out;
    }
}
