package io.palisade.coordinator.internal;

import io.palisade.coordinator.Catalog;
import io.palisade.coordinator.StoredCatalog;
import io.palisade.heads.HeadsState;
import io.palisade.journal.Durability;
import io.palisade.journal.Journal;
import io.palisade.journal.JournalEvent;
import io.palisade.journal.JournalRecord;

import java.util.ArrayList;
import java.util.List;

/**
 * The writer's side of the catalog's journal record ({@link StoredCatalog} is the reader's): every change of the
 * catalog is journaled as a {@code CatalogRecorded} (synced at the graph's durability) <em>before</em>
 * {@code catalog.json} is rewritten (temp file, fsync, rename). A crash between the two leaves the file one record
 * behind, which every open accepts and the writer's open rewrites; a crash before the record leaves both as they were.
 */
public final class CatalogRecords {
    private CatalogRecords() {
    }

    /** The record of {@code catalog} in its canonical form. */
    public static JournalEvent.CatalogRecorded record(Catalog catalog, String reason) {
        return JournalEvent.CatalogRecorded.of(catalog.toJson(), reason);
    }

    /** "table 'person': email, score; table 'city': size": the columns {@code next} has that {@code base} lacks. */
    static String added(Catalog base, Catalog next) {
        List<String> out = new ArrayList<>();
        for (Catalog.TableDef t : next.tables()) {
            Catalog.TableDef b = base.table(t.name()).orElse(null);
            List<String> cols = t.columns().stream().map(Catalog.ColumnDef::name)
                    .filter(c -> b == null || b.column(c).isEmpty()).toList();
            if (!cols.isEmpty()) {
                out.add("table '" + t.name() + "': " + String.join(", ", cols));
            }
        }
        return String.join("; ", out);
    }

    /**
     * At the writer's open, once the catalog it uses is settled ({@code catalog}: the checked one, reconciled with the
     * tables): journals it when the journal has not recorded it (a journal that never recorded a catalog, or columns
     * a crash kept out of the catalog), then rewrites the file when it is not that catalog. Returns {@code state}
     * with the record applied.
     */
    public static HeadsState settle(GraphLayout layout, Journal journal, Durability durability, HeadsState state,
                                    StoredCatalog.Verdict verdict, Catalog catalog) {
        boolean unrecorded = verdict.standing() == StoredCatalog.Standing.UNRECORDED;
        if (unrecorded || !catalog.equals(verdict.catalog())) {
            String columns = added(verdict.catalog(), catalog);
            String reason = unrecorded ? "first writer open since the journal records the catalog: catalog.json taken "
                    + "as found" : "";
            if (!columns.isEmpty()) {
                reason += (reason.isEmpty() ? "" : "; ") + "columns a committed add-columns write gave the tables, whose "
                        + "catalog update a crash cut short: " + columns;
            }
            JournalEvent e = record(catalog, reason);
            long seq = journal.appendBatch(List.of(e), durability);
            state = state.apply(new JournalRecord(seq, System.currentTimeMillis() * 1_000_000L, journal.epoch(), e));
            CrashPoints.hit("open-after-catalog-journaled");
        }
        if (!verdict.stored().equals(catalog)) {
            layout.writeCatalog(catalog);
        }
        return state;
    }
}
