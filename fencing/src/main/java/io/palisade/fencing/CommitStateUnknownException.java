package io.palisade.fencing;

/**
 * The substrate or journal failed in a way that leaves the outcome unknown (Iceberg's
 * CommitStateUnknownException). The caller must not blindly retry: recovery or the journal decides.
 */
public class CommitStateUnknownException extends PalisadeException {
    private static final long serialVersionUID = 1L;

    public CommitStateUnknownException(String message, Throwable cause) {
        super(message, cause);
    }
}
