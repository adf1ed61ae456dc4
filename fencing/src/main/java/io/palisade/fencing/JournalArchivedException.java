package io.palisade.fencing;

/**
 * A read asked for journal records that the journal's file retention moved out of the local journal: they are older
 * than the retention window, their writes are folded and checkpointed, and the local journal held more than its byte
 * budget. Nothing was read. The message names the first sequence the local journal still holds and where the older
 * files went (a copy directory, or removed with only their chain anchors kept in {@code journal/archive.log}).
 * Reading from a later point, or keeping copies ({@code Retention.withJournalArchive}), is what helps.
 */
public class JournalArchivedException extends VersionExpiredException {
    private static final long serialVersionUID = 1L;

    private final long firstLocalSequence;
    private final String location;

    public JournalArchivedException(String message, long firstLocalSequence, String location) {
        super(message, -1);
        this.firstLocalSequence = firstLocalSequence;
        this.location = location;
    }

    /** The first sequence the local journal holds. */
    public long firstLocalSequence() {
        return firstLocalSequence;
    }

    /** The directory the older files were copied to; null when they were removed without a copy. */
    public String location() {
        return location;
    }
}
