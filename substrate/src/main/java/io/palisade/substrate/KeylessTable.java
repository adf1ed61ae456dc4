package io.palisade.substrate;

import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;

import java.util.List;

/**
 * An explicitly declared append-only table without a primary key (RFC-023 §4.2). It may use Lance
 * Append and receives no same-key guarantee. A table with a primary key can never be opened as one.
 */
public interface KeylessTable extends TableSnapshot {

    /** Lance Append of the rows. */
    CommitResult append(VectorSchemaRoot rows);

    /** Replaces all rows. */
    CommitResult overwrite(VectorSchemaRoot rows);

    CommitResult addColumns(List<Field> columns);

    CommitResult dropColumns(List<String> columns);
}
