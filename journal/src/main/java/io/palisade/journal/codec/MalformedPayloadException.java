package io.palisade.journal.codec;

/**
 * A payload that passed its CRC but does not decode. Internal: the journal rethrows it as a
 * {@link io.palisade.fencing.JournalCorruptedException} naming the record's sequence.
 */
public final class MalformedPayloadException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public MalformedPayloadException(String message) {
        super(message);
    }

    public MalformedPayloadException(String message, Throwable cause) {
        super(message, cause);
    }
}
