package io.palisade.coordinator.internal;

import io.palisade.coordinator.Catalog;

import io.palisade.fencing.KeyFilter;
import io.palisade.fencing.ValidationException;
import io.palisade.substrate.CommitResult;
import io.palisade.substrate.FoldWatermark;
import io.palisade.substrate.KeyedTable;
import io.palisade.substrate.KeylessTable;
import io.palisade.substrate.MergePath;
import io.palisade.substrate.TableRef;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.util.VectorSchemaRootAppender;

import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The one substrate write of a group of fenced ops of one kind and table (for {@link SubstrateCommit}, which decides
 * what it came to): an append, an overwrite, added columns, a maintenance plan, a fold, a delete of every op's keys,
 * or one merge-insert of every op's rows. Invariants: writes exactly one commit attempt on the version it is given;
 * journals nothing, completes no future; closes every batch it allocates.
 */
final class SubstrateWrites {
    private SubstrateWrites() {
    }

    /** The one substrate commit of {@code ops} on {@code ref}. */
    static CommitResult write(Context ctx, Catalog.TableDef def, TableRef ref, List<Fence.Admitted> ops) {
        Fence.Admitted first = ops.get(0);
        WriteOp op = first.op();
        if (op instanceof WriteOp.Append || !def.kind().keyed()) {
            try (KeylessTable t = ctx.store().openKeyless(op.table(), ref)) {
                return switch (op) {
                    case WriteOp.Append a -> {
                        try (Combined rows = combine(ctx, ops)) {
                            yield t.append(rows.root);
                        }
                    }
                    case WriteOp.Overwrite o -> t.overwrite(o.rows());
                    case WriteOp.AddColumns a -> t.addColumns(fields(a));
                    case WriteOp.Compact c -> t.commit(first.plan(), CrashPoints::hit);
                    case WriteOp.Insert i -> throw keyedOnly(op);
                    case WriteOp.Upsert u -> throw keyedOnly(op);
                    case WriteOp.Update u -> throw keyedOnly(op);
                    case WriteOp.Delete d -> throw keyedOnly(op);
                    case WriteOp.OptimizeIndex o -> throw keyedOnly(op);
                    case WriteOp.Fold f -> throw keyedOnly(op);
                };
            }
        }
        try (KeyedTable t = ctx.store().openKeyed(op.table(), ref)) {
            MergePath path = t.mergePath();
            CommitResult r = switch (op) {
                case WriteOp.Overwrite o -> t.overwrite(o.rows());
                case WriteOp.AddColumns a -> t.addColumns(fields(a));
                case WriteOp.OptimizeIndex o -> t.commit(first.plan());
                case WriteOp.Compact c -> t.commit(first.plan(), CrashPoints::hit);
                // the fold's rows were fenced when each write was acknowledged (docs/journal-ack.md)
                case WriteOp.Fold f -> t.fold(f.rows().root(), f.deleteKeys(), FoldWatermark.of(f.branch(), f.table(),
                        f.plan().throughSequence()));
                case WriteOp.Delete d -> t.delete(allKeys(ops));
                case WriteOp.Insert i -> merge(ctx, t, path, ops, true);
                case WriteOp.Upsert u -> merge(ctx, t, path, ops, false);
                // its after-image, resolved by the fence: an upsert of keys the table holds
                case WriteOp.Update u -> merge(ctx, t, path, ops, false);
                case WriteOp.Append a -> throw new IllegalStateException("an append is written to its table as keyless");
            };
            switch (r.plan()) {
                case INDEXED -> ctx.meters().mergesIndexed.increment();
                case SCAN -> ctx.meters().mergesScanned.increment();
                case NONE -> { } // no merge-insert, or a store that does not say
            }
            return r;
        }
    }

    /** The keys of a group of deletes that the table holds at {@code ref}: one keyed lookup, no commit. */
    static Set<String> present(Context ctx, TableRef ref, List<Fence.Admitted> deletes) {
        Set<String> present = new HashSet<>();
        try (KeyedTable t = ctx.store().openKeyed(deletes.get(0).op().table(), ref)) {
            for (Map<String, Object> r : t.rowsWithKeys(allKeys(deletes))) {
                present.add(String.valueOf(r.get("id")));
            }
        }
        return present;
    }

    /** The rows an op of a kind that has rows writes. */
    static VectorSchemaRoot rows(WriteOp op) {
        return switch (op) {
            case WriteOp.Insert i -> i.rows();
            case WriteOp.Upsert u -> u.rows();
            case WriteOp.Update u -> u.rows();
            case WriteOp.Append a -> a.rows();
            case WriteOp.Overwrite o -> o.rows();
            case WriteOp.Fold f -> f.rows().root();
            case WriteOp.Delete d -> throw noRows(op);
            case WriteOp.AddColumns a -> throw noRows(op);
            case WriteOp.OptimizeIndex o -> throw noRows(op);
            case WriteOp.Compact c -> throw noRows(op);
        };
    }

    private static IllegalArgumentException noRows(WriteOp op) {
        return new IllegalArgumentException(op.kind() + " has no rows");
    }

    private static ValidationException keyedOnly(WriteOp op) {
        return new ValidationException(op.kind() + " needs a keyed table");
    }

    private static List<Field> fields(WriteOp.AddColumns op) {
        return op.columns().stream().map(Catalog::arrowField).toList();
    }

    /** The union of the key filters of a group of deletes. */
    private static KeyFilter allKeys(List<Fence.Admitted> ops) {
        KeyFilter all = ops.get(0).keys();
        for (int i = 1; i < ops.size(); i++) {
            all = all.union(ops.get(i).keys());
        }
        return all;
    }

    /** One merge-insert ON exactly {@code id} of the group's rows: a strict insert, else an upsert. */
    private static CommitResult merge(Context ctx, KeyedTable t, MergePath path, List<Fence.Admitted> ops, boolean strict) {
        try (Combined rows = combine(ctx, ops)) {
            // The indexed path attaches no key filter in Lance 7.0.0; it is safe here only because this
            // thread is the graph's single writer (lease) and the exact fence (Fence) has excluded every
            // concurrent same-key commit (DESIGN §3).
            return strict ? t.insert(rows.root, path) : t.upsert(rows.root, path);
        }
    }

    /** The rows of a group as one batch; closes the combined batch it allocated. */
    private static final class Combined implements AutoCloseable {
        final VectorSchemaRoot root;
        final boolean owned;

        Combined(VectorSchemaRoot root, boolean owned) {
            this.root = root;
            this.owned = owned;
        }

        @Override
        public void close() {
            if (owned) {
                root.close();
            }
        }
    }

    private static Combined combine(Context ctx, List<Fence.Admitted> ops) {
        if (ops.size() == 1) {
            return new Combined(rows(ops.get(0).op()), false);
        }
        VectorSchemaRoot target = VectorSchemaRoot.create(rows(ops.get(0).op()).getSchema(), ctx.allocator());
        target.allocateNew();
        target.setRowCount(0);
        VectorSchemaRootAppender.append(false, target, ops.stream().map(a -> rows(a.op())).toArray(VectorSchemaRoot[]::new));
        return new Combined(target, true);
    }
}
