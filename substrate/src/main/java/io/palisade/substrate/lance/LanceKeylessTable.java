package io.palisade.substrate.lance;

import io.palisade.substrate.CommitResult;
import io.palisade.substrate.KeyedSchemas;
import io.palisade.substrate.KeylessTable;
import io.palisade.substrate.TableKind;
import io.palisade.substrate.TableRef;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.lance.Dataset;
import org.lance.operation.Append;
import org.lance.operation.Overwrite;

import java.util.List;

/** Keyless (append-only) Lance table handle: the only handle that issues Lance Append. */
final class LanceKeylessTable extends LanceSnapshot implements KeylessTable {

    LanceKeylessTable(LanceTableStore store, String name, TableRef ref, Dataset dataset) {
        super(store, name, ref, TableKind.KEYLESS, dataset);
    }

    @Override
    public CommitResult append(VectorSchemaRoot rows) {
        KeyedSchemas.checkBatch(schema, rows);
        checkNotEmpty(rows);
        try {
            return onWriteDataset(w -> commit(w, Append.builder().fragments(writeFragments(w, schema, rows)).build(),
                    rows.getRowCount()));
        } catch (Exception e) {
            throw LanceErrors.commitFailure(name, "append", e);
        }
    }

    @Override
    public CommitResult overwrite(VectorSchemaRoot rows) {
        Schema target = KeyedSchemas.keylessSchema(rows.getSchema());
        Schema withMeta = new Schema(target.getFields(), schema().getCustomMetadata());
        checkNotEmpty(rows);
        try {
            return onWriteDataset(w -> commit(w, Overwrite.builder().fragments(writeFragments(w, withMeta, rows))
                    .schema(withMeta).build(), rows.getRowCount()));
        } catch (Exception e) {
            throw LanceErrors.commitFailure(name, "overwrite", e);
        }
    }

    @Override
    public CommitResult addColumns(List<Field> columns) {
        return addColumnsCommit(columns);
    }

    @Override
    public CommitResult dropColumns(List<String> columns) {
        return dropColumnsCommit(columns, false);
    }
}
