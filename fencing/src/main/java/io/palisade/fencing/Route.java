package io.palisade.fencing;

import java.util.List;

/**
 * How the substrate executes one logical operation (RFC-023 §5). A keyed table is only ever written
 * through {@link MergeInsert} ON exactly its key, {@link Delete}, {@link Overwrite} or
 * {@link SchemaChange}; {@link Append} can only be built from a {@link TableClass.Keyless} table, so a
 * keyed Append cannot be expressed.
 */
public sealed interface Route {

    /** What a merge-insert does with a row whose key already exists. */
    enum WhenMatched {
        /** Strict: an existing key fails the whole operation (KeyConflict), never an update. */
        FAIL,
        /** Upsert: the existing row is replaced. */
        UPDATE_ALL
    }

    /**
     * Merge-insert ON exactly the primary key; always key-filtered: the transaction's exact key filter
     * is attached (on AddFragments) and checked against every concurrent commit.
     */
    record MergeInsert(TableClass.Keyed table, List<String> on, WhenMatched whenMatched) implements Route {
        public MergeInsert {
            on = List.copyOf(on);
            if (!on.equals(List.of(table.keyField()))) {
                throw new ValidationException("merge-insert on table '" + table.table() + "' must be ON exactly ["
                        + table.keyField() + "], not " + on + ": any other ON set has no key fencing");
            }
        }

        public MergeInsert(TableClass.Keyed table, WhenMatched whenMatched) {
            this(table, List.of(table.keyField()), whenMatched);
        }
    }

    /** A bare Append: only for keyless append-only tables. */
    record Append(TableClass.Keyless table) implements Route {
    }

    /** A staged delete (by key on a keyed table; the deleted keys ride on the deletion vectors). */
    record Delete(TableClass table) implements Route {
    }

    /** A staged overwrite whose output schema keeps the exact primary key of a keyed table. */
    record Overwrite(TableClass table, boolean preservesPrimaryKey) implements Route {
        public Overwrite {
            if (table instanceof TableClass.Keyed && !preservesPrimaryKey) {
                throw new ValidationException("an overwrite of keyed table '" + table.table() + "' must keep its primary key");
            }
        }
    }

    /** Add or drop columns; a keyed table keeps its primary key (dropping it is refused). */
    record SchemaChange(TableClass table, Kind kind) implements Route {
        public enum Kind { ADD_COLUMNS, DROP_COLUMNS }
    }
}
