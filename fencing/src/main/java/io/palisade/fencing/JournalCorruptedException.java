package io.palisade.fencing;

/** The journal failed verification (CRC, hash chain, or a bad record followed by good ones). */
public class JournalCorruptedException extends PalisadeException {
    private static final long serialVersionUID = 1L;

    private final long sequence;

    public JournalCorruptedException(long sequence, String message) {
        super("journal corrupted at sequence " + sequence + ": " + message);
        this.sequence = sequence;
    }

    /** The first sequence that failed verification. */
    public long sequence() {
        return sequence;
    }
}
