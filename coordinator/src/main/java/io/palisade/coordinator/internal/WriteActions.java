package io.palisade.coordinator.internal;


import io.palisade.fencing.KeyFilter;
import io.palisade.fencing.action.Action;
import io.palisade.fencing.action.AddFields;
import io.palisade.fencing.action.AddFragments;
import io.palisade.fencing.action.KeyScope;
import io.palisade.fencing.action.RemoveFragments;
import io.palisade.journal.LogicalOperation;
import io.palisade.substrate.CatalogActions;
import io.palisade.substrate.CommitDescription;
import io.palisade.substrate.TableRef;
import io.palisade.substrate.TableStore;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * What a write does, in the vocabularies the pipeline's stages share: the catalog actions an operation is
 * journaled with and judged by ({@link #of}), its journal operation ({@link #operation}), and the actions the
 * substrate's versions did ({@link #describe}, {@link #ofVersions}). Stateless; {@link #describe} reads the
 * store, everything else is a pure function.
 */
final class WriteActions {
    private WriteActions() {
    }

    /**
     * The catalog actions of the fenced {@code a}, as journaled in its intent and judged by the fencing resolver (its
     * key filter and, for maintenance, its plan are the fence's).
     */
    static List<Action> of(Fence.Admitted a) {
        return switch (a.op()) {
            case WriteOp.Insert i -> keyAdd(a.keys());
            case WriteOp.Upsert u -> keyAdd(a.keys());
            case WriteOp.Update u -> keyAdd(a.keys());
            case WriteOp.Append ap -> List.of(new AddFragments(List.of(), KeyScope.KEYLESS));
            // the rows a delete removes are only known to the substrate; its keys ride on the intent's key filter
            case WriteOp.Delete d -> List.of();
            case WriteOp.Overwrite o -> List.of(RemoveFragments.allCurrent(),
                    new AddFragments(List.of(), a.keys() == null ? KeyScope.KEYLESS : KeyScope.exact(a.keys())));
            case WriteOp.AddColumns ac -> List.of(new AddFields(ac.columns().stream()
                    .map(c -> new AddFields.NewField(c.name(), true)).toList(), Map.of()));
            // maintenance journals its plan (made before Phase A, committed exactly as planned)
            case WriteOp.OptimizeIndex o -> plan(a);
            case WriteOp.Compact c -> plan(a);
            // a fold upserts the newest rows of its keys and deletes the rest of them: judged as a key-add of them all
            case WriteOp.Fold f -> keyAdd(f.keys());
        };
    }

    private static List<Action> plan(Fence.Admitted maintenance) {
        return Objects.requireNonNull(maintenance.plan(), "maintenance op without a plan").actions();
    }

    /** The actions of a write that adds exactly {@code keys} (an insert's or an upsert's). */
    static List<Action> keyAdd(KeyFilter keys) {
        return List.of(new AddFragments(List.of(), KeyScope.exact(keys)));
    }

    static LogicalOperation operation(WriteOp.Kind k) {
        return switch (k) {
            case INSERT, APPEND -> LogicalOperation.INSERT;
            case UPSERT -> LogicalOperation.UPSERT;
            case UPDATE -> LogicalOperation.UPDATE;
            case DELETE -> LogicalOperation.DELETE;
            case OVERWRITE -> LogicalOperation.OVERWRITE;
            case ADD_COLUMNS -> LogicalOperation.ADD_COLUMNS;
            case OPTIMIZE_INDEX -> LogicalOperation.INDEX_MAINTENANCE;
            case COMPACT -> LogicalOperation.COMPACTION;
            case FOLD -> LogicalOperation.FOLD;
        };
    }

    /** Descriptions of the versions {@code (from.version, to.version]} of {@code to}'s branch, ascending. */
    static List<CommitDescription> describe(TableStore store, String table, TableRef from, TableRef to) {
        List<CommitDescription> out = new ArrayList<>();
        for (long v = from.version() + 1; v <= to.version(); v++) {
            out.add(store.decompose(table, new TableRef(to.branch(), v)));
        }
        return out;
    }

    /** What the described versions did, as catalog actions ({@link CatalogActions#of}). */
    static List<Action> ofVersions(List<CommitDescription> versions, boolean keyed, Optional<KeyFilter> keys) {
        List<Action> out = new ArrayList<>();
        for (CommitDescription c : versions) {
            // the id field id only distinguishes a PK install, which never goes through this pipeline
            out.addAll(CatalogActions.of(c, keyed, -1, keys));
        }
        return out;
    }
}
