package io.palisade.journal;

/** How an intent ended (DESIGN §3 phase D, §5 recovery). Stable wire codes, never reused. */
public enum IntentOutcome {
    COMMITTED(1),
    KEY_CONFLICT(2),
    WRITE_CONFLICT(3),
    VALIDATION_FAILED(4),
    ABORTED(5),
    ROLLED_FORWARD(6),
    /** An unfinished bulk load undone by restoring its start version (docs/bulk-load.md). */
    ROLLED_BACK(7),
    /**
     * The intent's commit landed over a foreign version (a Lance writer other than this graph's committer): its rows
     * are in the version recorded by a {@link JournalEvent.ForeignCommitFound}, which is not published; the write was
     * not acknowledged (docs/recovery.md "Foreign commits").
     */
    FOREIGN_COMMIT(8),
    /**
     * A write to a journal-ack table acknowledged once its intent and rows were durable in the journal: it is part of
     * the graph (every read through Palisade sees it) and reaches the table at a later fold (docs/journal-ack.md).
     */
    JOURNALED(9),
    /**
     * The write would have broken a declared integrity rule of the graph: an edge endpoint its node table does not
     * hold, a node deleted while edges name it, or a unique value held by another id (docs/integrity.md). Nothing of
     * it was applied.
     */
    INTEGRITY_CONFLICT(10);

    private final int code;

    IntentOutcome(int code) {
        this.code = code;
    }

    public int code() {
        return code;
    }

    /** The constant for a wire code, or {@code null} when this build does not know it. */
    public static IntentOutcome ofCode(int code) {
        for (IntentOutcome o : values()) {
            if (o.code == code) {
                return o;
            }
        }
        return null;
    }
}
