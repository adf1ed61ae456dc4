package io.palisade.fencing;

/**
 * The catalog-derived class of a table (RFC-023 §4). Callers never choose it with an ad-hoc flag: it
 * comes from the table's declaration (node and edge tables are keyed on {@code id}; only tables
 * declared append-only are keyless).
 */
public sealed interface TableClass {

    String table();

    /** A node or edge table: non-null {@code keyField} is the unenforced primary key. */
    record Keyed(String table, String keyField, int keyFieldId) implements TableClass {
        public Keyed {
            if (keyFieldId < 0) {
                throw new ValidationException("key field id must be non-negative: " + keyFieldId);
            }
        }

        /** A node or edge table keyed on {@code id}. */
        public static Keyed onId(String table, int idFieldId) {
            return new Keyed(table, "id", idFieldId);
        }
    }

    /** An explicitly declared append-only table with no logical key. */
    record Keyless(String table) implements TableClass {
    }
}
