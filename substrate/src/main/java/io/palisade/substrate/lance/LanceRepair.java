package io.palisade.substrate.lance;

import io.palisade.fencing.PalisadeException;
import io.palisade.fencing.ValidationException;
import io.palisade.substrate.ArrowRows;
import io.palisade.substrate.BatchSource;
import io.palisade.substrate.KeyedSchemas;
import io.palisade.substrate.TableRef;
import io.palisade.substrate.TableStore;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.lance.Dataset;
import org.lance.WriteParams;
import org.lance.ipc.LanceScanner;
import org.lance.ipc.ScanOptions;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The Lance side of {@code palisade repair} ({@link TableStore#duplicatedRows}, {@link TableStore#rewriteWithout}):
 * Lance scans with row addresses, and one Overwrite commit of the kept rows. Package-private: the SPI is the API.
 */
final class LanceRepair {
    private LanceRepair() {
    }

    /** Every row whose id is held more than once at {@code ref}, with {@link TableStore#ROW_ADDRESS}, in storage order. */
    static List<Map<String, Object>> duplicatedRows(LanceTableStore store, String table, TableRef ref) {
        try (Dataset ds = store.openDataset(table, ref)) {
            Map<Object, Integer> counts = new HashMap<>();
            scan(ds, List.of(KeyedSchemas.ID), false, root -> {
                FieldVector v = root.getVector(KeyedSchemas.ID);
                for (int r = 0; r < root.getRowCount(); r++) {
                    if (!v.isNull(r)) {
                        counts.merge(key(v, r), 1, Integer::sum);
                    }
                }
            });
            Set<Object> dup = new HashSet<>();
            counts.forEach((k, n) -> {
                if (n > 1) {
                    dup.add(k);
                }
            });
            List<Map<String, Object>> out = new ArrayList<>();
            if (dup.isEmpty()) {
                return out;
            }
            scan(ds, null, true, root -> {
                FieldVector v = root.getVector(KeyedSchemas.ID);
                List<Map<String, Object>> rows = ArrowRows.rows(root);
                for (int r = 0; r < root.getRowCount(); r++) {
                    if (!v.isNull(r) && dup.contains(key(v, r))) {
                        Map<String, Object> row = new LinkedHashMap<>(rows.get(r));
                        row.put(TableStore.ROW_ADDRESS, ((UInt8Vector) root.getVector(TableStore.ROW_ADDRESS)).getObjectNoOverflow(r).longValue());
                        out.add(row);
                    }
                }
            });
            return out;
        } catch (PalisadeException e) {
            throw e;
        } catch (Exception e) {
            throw LanceErrors.readFailure(table, ref, "read duplicated rows at " + ref, e);
        }
    }

    /**
     * One Overwrite commit of every row of {@code base} except those at {@code remove}, streamed batch by batch, with
     * the schema of {@code base} (and the primary-key metadata on {@code id} when {@code installPk}).
     */
    static TableRef rewriteWithout(LanceTableStore store, String table, TableRef base, Set<Long> remove, boolean installPk) {
        if (!base.onMain()) {
            throw new ValidationException("table '" + table + "': a repair rewrites table branch main only, not '"
                    + base.branch() + "'");
        }
        long before = store.latest(table, base.branch()).version();
        if (before != base.version()) {
            throw new io.palisade.fencing.WriteConflictException("table '" + table + "' branch '" + base.branch()
                    + "' moved to version " + before + " since the repair read version " + base.version());
        }
        try (Dataset ds = store.openDataset(table, base)) {
            Schema physical = ds.getLanceSchema().asArrowSchema();
            List<Field> fields = new ArrayList<>();
            for (Field f : physical.getFields()) {
                if (installPk && f.getName().equals(KeyedSchemas.ID)) {
                    if (f.isNullable() || !KeyedSchemas.isKeyType(f.getType())) {
                        throw new ValidationException("table '" + table + "': 'id' must be non-null Utf8, LargeUtf8 or "
                                + "Int64 to carry the primary key");
                    }
                    Map<String, String> md = new LinkedHashMap<>(f.getMetadata() == null ? Map.of() : f.getMetadata());
                    md.put(KeyedSchemas.PK_METADATA, "true");
                    fields.add(new Field(f.getName(), new FieldType(false, f.getType(), f.getDictionary(), md), f.getChildren()));
                } else {
                    fields.add(f);
                }
            }
            Schema target = new Schema(fields, ds.getSchema().getCustomMetadata());
            List<String> columns = physical.getFields().stream().map(Field::getName).toList();
            ScanOptions.Builder b = new ScanOptions.Builder().columns(columns).withRowAddress(true);
            LanceScanner scanner = ds.newScan(b.build());
            try (ArrowReader source = scanner.scanBatches();
                 Kept kept = new Kept(store, target, source, remove);
                 Dataset after = Dataset.write().allocator(store.allocator()).reader(kept).uri(store.uri(table))
                         .mode(WriteParams.WriteMode.OVERWRITE).storageOptions(store.storageOptions()).execute()) {
                store.synced(table, base.branch(), ds, after, base.version(), true);
                return new TableRef(base.branch(), after.version());
            } finally {
                try {
                    scanner.close();
                } catch (Exception ignored) {
                    // the rewrite is committed or failed already
                }
            }
        } catch (PalisadeException e) {
            throw e;
        } catch (Exception e) {
            throw LanceErrors.commitFailure(table, "repair rewrite of " + base, e);
        }
    }

    private static Object key(FieldVector v, int r) {
        return v instanceof org.apache.arrow.vector.BigIntVector b ? (Object) b.get(r) : String.valueOf(v.getObject(r));
    }

    private interface BatchConsumer {
        void accept(VectorSchemaRoot root) throws Exception;
    }

    private static void scan(Dataset ds, List<String> columns, boolean rowAddress, BatchConsumer c) throws Exception {
        ScanOptions.Builder b = new ScanOptions.Builder().withRowAddress(rowAddress);
        if (columns != null) {
            b.columns(columns);
        }
        LanceScanner scanner = ds.newScan(b.build());
        try (ArrowReader reader = scanner.scanBatches()) {
            while (reader.loadNextBatch()) {
                c.accept(reader.getVectorSchemaRoot());
            }
        } finally {
            scanner.close();
        }
    }

    /** The rows of {@code source} whose row address is not in {@code remove}, in {@code target}'s schema. */
    private static final class Kept extends BatchSource {
        private final Schema target;
        private final ArrowReader source;
        private final Set<Long> remove;

        Kept(LanceTableStore store, Schema target, ArrowReader source, Set<Long> remove) {
            super(store.allocator(), target);
            this.target = target;
            this.source = source;
            this.remove = remove;
        }

        @Override
        protected boolean fillNext(VectorSchemaRoot copy) {
            try {
                if (!source.loadNextBatch()) {
                    return false;
                }
                VectorSchemaRoot in = source.getVectorSchemaRoot();
                UInt8Vector addr = (UInt8Vector) in.getVector(TableStore.ROW_ADDRESS);
                copy.allocateNew();
                int n = 0;
                for (int r = 0; r < in.getRowCount(); r++) {
                    if (remove.contains(addr.getObjectNoOverflow(r).longValue())) {
                        continue;
                    }
                    for (int c = 0; c < target.getFields().size(); c++) {
                        copy.getVector(c).copyFromSafe(r, n, in.getVector(target.getFields().get(c).getName()));
                    }
                    n++;
                }
                for (int c = 0; c < target.getFields().size(); c++) {
                    copy.getVector(c).setValueCount(n);
                }
                copy.setRowCount(n);
                return true;
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }
    }
}
