package io.palisade.substrate;

import io.palisade.fencing.ValidationException;

/**
 * One exact table state: a table branch and a version on it.
 *
 * <p>Invariants: {@code branch} is non-blank; {@code version >= 1} (Lance numbers the first
 * committed version 1). Versions of a forked branch continue the numbering of its parent at the
 * fork point, so a version number alone does not name a state: always carry the branch.
 */
public record TableRef(String branch, long version) {

    /** The name of the default table branch. */
    public static final String MAIN = "main";

    public TableRef {
        if (branch == null || branch.isBlank()) {
            throw new ValidationException("table branch must be non-blank");
        }
        if (version < 1) {
            throw new ValidationException("table version must be >= 1, was " + version);
        }
    }

    public static TableRef main(long version) {
        return new TableRef(MAIN, version);
    }

    public boolean onMain() {
        return MAIN.equals(branch);
    }

    @Override
    public String toString() {
        return branch + "@" + version;
    }
}
