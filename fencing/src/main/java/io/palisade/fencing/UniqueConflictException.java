package io.palisade.fencing;

/**
 * A write would give a unique column's value to a second row: the value is held by another id of the table, in the
 * newest committed state or earlier in the same group of writes. Judged at commit, so two writes of the same value
 * under different ids never both commit; a null is not a value. Nothing of the write was applied; never retried
 * automatically.
 */
public class UniqueConflictException extends PalisadeException {
    private static final long serialVersionUID = 1L;

    private final String table;
    private final String column;
    private final String value;
    private final String holder;
    private final String writer;

    /**
     * @param table  the table written
     * @param column the unique column
     * @param value  the value, as text
     * @param holder the id that holds the value
     * @param writer the id the refused write gave the value to
     */
    public UniqueConflictException(String table, String column, String value, String holder, String writer) {
        super("unique conflict: table '" + table + "': column '" + column + "' already has the value " + value
                + " (held by id " + holder + "), so id " + writer + " cannot take it; nothing written");
        this.table = table;
        this.column = column;
        this.value = value;
        this.holder = holder;
        this.writer = writer;
    }

    public String table() {
        return table;
    }

    public String column() {
        return column;
    }

    /** The value, as text. */
    public String value() {
        return value;
    }

    /** The id that holds the value. */
    public String holder() {
        return holder;
    }

    /** The id the refused write gave the value to. */
    public String writer() {
        return writer;
    }
}
