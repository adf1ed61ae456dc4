package io.palisade.journal;

/**
 * A maintenance call ({@link Journal#releaseRows}, {@link Journal#archiveFiles}) on a journal that is closed, failed or
 * fenced: only its live writer maintains it, and the next writer goes on where it stopped.
 */
public final class JournalClosedException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    JournalClosedException(String message) {
        super(message);
    }
}
