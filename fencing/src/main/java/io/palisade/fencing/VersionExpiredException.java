package io.palisade.fencing;

/**
 * A read asked for a point whose table version was removed by version retention: the journal still explains it, but
 * its rows are gone. Nothing was read. The message names the table, the version asked for, the oldest version still
 * kept and the retention rule; reading a newer point, or widening the retention before the fact, is what helps.
 */
public class VersionExpiredException extends PalisadeException {
    private static final long serialVersionUID = 1L;

    private final long oldestKept;

    public VersionExpiredException(String message, long oldestKept) {
        super(message);
        this.oldestKept = oldestKept;
    }

    /** The oldest version of the table branch still kept, or -1 when none is known. */
    public long oldestKept() {
        return oldestKept;
    }
}
