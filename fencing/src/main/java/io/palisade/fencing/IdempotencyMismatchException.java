package io.palisade.fencing;

import java.util.Objects;

/**
 * An idempotency key given again with a different request (another kind of write, branch, table, or other rows or
 * keys) inside its idempotency window: the key already names a write, so this request is refused and nothing is
 * written. {@link #firstIntent()} is the write the key names. A repeat of the same request gets that write's receipt
 * instead.
 */
public class IdempotencyMismatchException extends ValidationException {
    private static final long serialVersionUID = 1L;

    private final String idempotencyKey;
    private final String firstIntent;

    public IdempotencyMismatchException(String idempotencyKey, String firstIntent) {
        super("idempotency key '" + Objects.requireNonNull(idempotencyKey, "idempotencyKey") + "' was given to "
                + (firstIntent == null ? "a write in flight" : "write " + firstIntent)
                + " with a different request (kind, branch, table, rows or keys); use a new key for a new write");
        this.idempotencyKey = idempotencyKey;
        this.firstIntent = firstIntent;
    }

    public String idempotencyKey() {
        return idempotencyKey;
    }

    /** The intent the key names; null when that write was still in flight in the same group. */
    public String firstIntent() {
        return firstIntent;
    }
}
