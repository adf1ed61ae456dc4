package io.palisade.journal;

/**
 * The user-level operation an intent performs. Each constant has a stable wire code; codes are never
 * reused or renumbered (a new operation gets a new code, and older readers refuse it loudly).
 */
public enum LogicalOperation {
    INSERT(1),
    UPSERT(2),
    DELETE(3),
    OVERWRITE(4),
    ADD_COLUMNS(5),
    CREATE_TABLE(6),
    BRANCH_MERGE(7),
    INDEX_MAINTENANCE(8),
    COMPACTION(9),
    MIGRATION_UNIT(10),
    /** A fold of a journal-ack table's acknowledged writes into the table (docs/journal-ack.md). */
    FOLD(11),
    /**
     * An update of existing rows by key: the columns it names change, the others keep their values. Journaled and
     * committed as the whole new rows of its keys (an upsert of exactly those keys, which the table held).
     */
    UPDATE(12),
    /** {@code palisade repair}: adopt a table's foreign versions, remove rows of duplicated ids, re-install a stripped PK. */
    REPAIR(20);

    private final int code;

    LogicalOperation(int code) {
        this.code = code;
    }

    /** The stable wire code. */
    public int code() {
        return code;
    }

    /** The constant for a wire code, or {@code null} when this build does not know it. */
    public static LogicalOperation ofCode(int code) {
        for (LogicalOperation o : values()) {
            if (o.code == code) {
                return o;
            }
        }
        return null;
    }
}
