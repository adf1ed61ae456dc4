package io.palisade.coordinator.internal;

import io.palisade.coordinator.Catalog;
import io.palisade.fencing.GraphRefusedException;
import io.palisade.heads.HeadsState;
import io.palisade.journal.TableHead;
import io.palisade.substrate.TableRef;
import io.palisade.substrate.TableStore;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What an open checks after recovery and before any write is accepted: the catalog agrees with the tables' physical
 * schemas (an add-columns write a crash cut short is reconciled), every table of the catalog has a head on main, and
 * every pinned image of every live branch carries the PK contract (RFC-023 §9). A graph that fails them is refused.
 */
public final class OpenChecks {
    private OpenChecks() {
    }

    /** Refuses a half-made graph, a catalog table without a head on main, and any pinned image without its PK. */
    public static void everyTableHasItsHeadAndKey(Path root, Catalog catalog, TableStore store, HeadsState state) {
        HeadsState folded = state;
        if (!catalog.tables().isEmpty()
                && catalog.tables().stream().allMatch(t -> folded.head(HeadsState.MAIN, t.name()).isEmpty())) {
            // a create that failed or was killed before creation became atomic (staged, then renamed)
            throw new GraphRefusedException("graph " + root + " is half-made: its creation did not finish (no table "
                    + "of its catalog has a head), so nothing was ever written to it. Delete the directory and create "
                    + "the graph again");
        }
        for (Catalog.TableDef t : catalog.tables()) {
            if (state.head(HeadsState.MAIN, t.name()).isEmpty()) {
                throw new GraphRefusedException("table '" + t.name() + "' of the catalog has no head on main: the "
                        + "catalog names a table the journal never created; restore the graph's catalog.json from a "
                        + "backup (docs/recovery.md)");
            }
            if (t.kind().keyed()) {
                TableHead h = state.head(HeadsState.MAIN, t.name()).orElseThrow();
                store.openKeyed(t.name(), new TableRef(h.tableBranch(), h.version())).close(); // PK contract
            }
        }
        checkPkOnEveryBranch(catalog, store, state);
    }

    /**
     * Columns added by a committed (or rolled-forward) add-columns write whose catalog record was cut
     * short by a crash: the physical schema at main's head is the truth; nullable columns it has beyond
     * the catalog are added to the catalog (which the open then journals and writes: {@link CatalogRecords#settle}).
     * Anything else that differs refuses the graph.
     */
    public static Catalog reconcile(Catalog catalog, TableStore store, HeadsState state) {
        boolean changed = false;
        List<Catalog.TableDef> tables = new ArrayList<>();
        for (Catalog.TableDef t : catalog.tables()) {
            Optional<TableHead> h = state.head(HeadsState.MAIN, t.name());
            if (h.isEmpty()) {
                tables.add(t);
                continue;
            }
            TableRef ref = new TableRef(h.get().tableBranch(), h.get().version());
            org.apache.arrow.vector.types.pojo.Schema physical;
            try (io.palisade.substrate.TableSnapshot snap = t.kind().keyed() ? store.openKeyed(t.name(), ref)
                    : store.openKeyless(t.name(), ref)) {
                physical = snap.schema();
            }
            List<Catalog.ColumnDef> cols = new ArrayList<>(t.columns());
            for (org.apache.arrow.vector.types.pojo.Field f : physical.getFields()) {
                if (t.column(f.getName()).isEmpty()) {
                    if (!f.isNullable()) {
                        throw new GraphRefusedException("table '" + t.name() + "' has a non-null column '" + f.getName()
                                + "' the catalog does not declare");
                    }
                    cols.add(new Catalog.ColumnDef(f.getName(), Catalog.columnType(f), true));
                    changed = true;
                }
            }
            tables.add(t.withColumns(cols));
        }
        if (!changed) {
            return catalog;
        }
        return new Catalog(tables);
    }

    /**
     * RFC-023 §9: every pinned image a write may start from — owned or lazily inherited, on every live
     * graph branch — carries the PK contract (checked once per distinct table state).
     */
    static void checkPkOnEveryBranch(Catalog catalog, TableStore store, HeadsState state) {
        java.util.Set<String> seen = new java.util.HashSet<>();
        for (String branch : state.branches().keySet()) {
            for (java.util.Map.Entry<String, io.palisade.heads.Pin> e : state.pins(branch).entrySet()) {
                Optional<Catalog.TableDef> t = catalog.table(e.getKey());
                TableHead h = e.getValue().head();
                if (t.isEmpty() || !t.get().kind().keyed() || !seen.add(e.getKey() + "/" + h.tableBranch() + "@" + h.version())) {
                    continue;
                }
                try {
                    store.openKeyed(e.getKey(), new TableRef(h.tableBranch(), h.version())).close();
                } catch (GraphRefusedException ex) {
                    throw new GraphRefusedException("graph branch '" + branch + "': " + ex.getMessage(), ex);
                }
            }
        }
    }
}
