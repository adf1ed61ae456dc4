package io.palisade.fencing;

/** A concurrent commit invalidated this write's base; the same request may succeed from a newer base. */
public class WriteConflictException extends PalisadeException {
    private static final long serialVersionUID = 1L;

    public WriteConflictException(String message) {
        super(message);
    }

    public WriteConflictException(String message, Throwable cause) {
        super(message, cause);
    }

    @Override
    public boolean retryable() {
        return true;
    }
}
