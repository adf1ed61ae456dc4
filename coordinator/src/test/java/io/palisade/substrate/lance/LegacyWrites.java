package io.palisade.substrate.lance;

import io.palisade.substrate.KeyedSchemas;
import io.palisade.substrate.TableRef;
import org.apache.arrow.c.ArrowArrayStream;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.lance.Dataset;
import org.lance.SourcedTransaction;
import org.lance.WriteParams;
import org.lance.merge.MergeInsertParams;
import org.lance.operation.UpdateConfig;
import org.lance.operation.UpdateMap;
import org.lance.schema.LanceField;

import java.util.List;
import java.util.Map;

/**
 * Test-only: writes the way a pre-fencing binary did, to build pre-fencing fixture graphs. Lives in
 * the Lance package for its package-private plumbing; never part of a main source set.
 */
public final class LegacyWrites {
    private LegacyWrites() {
    }

    /** A merge-insert ON id at {@code base} of a table without PK metadata; returns the new version. */
    public static long insert(LanceTableStore store, String table, TableRef base, VectorSchemaRoot rows) {
        try (Dataset w = store.openDataset(table, base);
             ArrowArrayStream stream = ArrowStreams.export(store.allocator(), w.getLanceSchema().asArrowSchema(), rows)) {
            MergeInsertParams p = new MergeInsertParams(List.of(KeyedSchemas.ID)).withMatchedFail().withConflictRetries(0);
            try (Dataset after = w.mergeInsert(p, stream).dataset()) {
                return after.version();
            }
        } catch (Exception e) {
            throw new IllegalStateException("legacy insert into " + table + " at " + base + " failed", e);
        }
    }

    /** A bare Lance Append on main (how pre-fencing binaries produced duplicate ids); returns the new version. */
    public static long appendOnMain(LanceTableStore store, String table, VectorSchemaRoot rows) {
        try (Dataset cur = store.openLatest(table, TableRef.MAIN);
             ArrowArrayStream stream = ArrowStreams.export(store.allocator(), cur.getLanceSchema().asArrowSchema(), rows);
             Dataset after = Dataset.write().allocator(store.allocator()).stream(stream).uri(store.uri(table))
                     .mode(WriteParams.WriteMode.APPEND).execute()) {
            return after.version();
        } catch (Exception e) {
            throw new IllegalStateException("legacy append into " + table + " failed", e);
        }
    }

    /** Installs a PK on another field than {@code id} (a graph someone annotated wrongly); returns the new version. */
    public static long installPkOn(LanceTableStore store, String table, TableRef base, String field) {
        try (Dataset ds = store.openDataset(table, base)) {
            LanceField f = ds.getLanceSchema().fields().stream().filter(x -> x.getName().equals(field)).findFirst()
                    .orElseThrow();
            UpdateConfig op = UpdateConfig.builder().fieldMetadataUpdates(Map.of(f.getId(), UpdateMap.builder()
                    .updates(Map.of(KeyedSchemas.PK_METADATA, "true")).replace(false).build())).build();
            try (SourcedTransaction tx = ds.newTransactionBuilder().operation(op).build(); Dataset after = tx.commit()) {
                return after.version();
            }
        } catch (Exception e) {
            throw new IllegalStateException("PK install on " + table + "." + field + " failed", e);
        }
    }
}
