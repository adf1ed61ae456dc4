package io.palisade.fencing;

/** Bad input (null or duplicate key, wrong type, unknown column, corrupt encoding): nothing was written. */
public class ValidationException extends PalisadeException {
    private static final long serialVersionUID = 1L;

    public ValidationException(String message) {
        super(message);
    }

    public ValidationException(String message, Throwable cause) {
        super(message, cause);
    }
}
