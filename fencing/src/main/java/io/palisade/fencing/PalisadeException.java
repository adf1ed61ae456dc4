package io.palisade.fencing;

/**
 * Root of Palisade's one error taxonomy (DESIGN §7). Unchecked; every failure a caller can see is
 * one of its subclasses, and the subclass tells the caller what it may do next:
 * <ul>
 *   <li>{@link KeyConflictException}: a strict insert met an existing or concurrently inserted key; do not retry blindly.</li>
 *   <li>{@link WriteConflictException}: retryable; the same request may succeed from a newer base.</li>
 *   <li>{@link ValidationException}: the input is wrong; nothing was written.</li>
 *   <li>{@link CommitStateUnknownException}: the outcome is not known; consult the journal before retrying.</li>
 *   <li>{@link GraphRefusedException}: the graph may not be opened or written as asked.</li>
 *   <li>{@link JournalCorruptedException}: the journal failed verification.</li>
 *   <li>{@link TableCorruptedException}: a published table version's files are damaged (torn by a power cut, truncated);
 *       restore the table from a backup.</li>
 *   <li>{@link CatalogCorruptedException}: the stored catalog is not the one the journal recorded (edited by hand);
 *       undo the edit.</li>
 *   <li>{@link ForeignCommitException} (a {@link GraphRefusedException}): a Lance writer other than the graph's committer
 *       touched a table; the write was not acknowledged (its error says whether its keys are now duplicated); an
 *       operator inspects and adopts the versions before the table takes writes again.</li>
 *   <li>{@link VersionExpiredException}: a read of a point older than the table versions retention keeps; read a
 *       newer point.</li>
 * </ul>
 */
public abstract class PalisadeException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    protected PalisadeException(String message) {
        super(message);
    }

    protected PalisadeException(String message, Throwable cause) {
        super(message, cause);
    }

    /** Whether repeating the same request from a newer base may succeed. */
    public boolean retryable() {
        return false;
    }
}
