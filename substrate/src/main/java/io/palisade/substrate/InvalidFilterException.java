package io.palisade.substrate;

import io.palisade.fencing.ValidationException;

/**
 * A filter expression the store cannot evaluate on a table (it does not parse, names a column the table lacks, compares
 * values of types that do not compare, or is not a condition): nothing was read. {@link #reason()} says why in plain
 * words; the message names the expression and the table.
 */
public class InvalidFilterException extends ValidationException {
    private static final long serialVersionUID = 1L;

    private final String expression;
    private final String reason;

    public InvalidFilterException(String table, String expression, String reason) {
        super("the filter '" + expression + "' cannot be evaluated on table '" + table + "': " + reason);
        this.expression = expression;
        this.reason = reason;
    }

    /** The expression as given. */
    public String expression() {
        return expression;
    }

    /** Why it cannot be evaluated, in plain words. */
    public String reason() {
        return reason;
    }
}
