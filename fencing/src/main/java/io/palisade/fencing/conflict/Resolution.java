package io.palisade.fencing.conflict;

/** What happens to the transaction that commits second when a cell or rule fires. */
public enum Resolution {
    /** The action is rewritten to follow the winner (its effect absorbed) and the transaction commits. */
    REBASE,
    /** The logical operation restarts from the new base: re-validate, restage, commit. */
    RETRY,
    /** The operation cannot succeed as requested; it fails without retry. */
    FAIL
}
