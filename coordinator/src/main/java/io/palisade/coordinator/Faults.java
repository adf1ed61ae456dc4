package io.palisade.coordinator;

import io.palisade.fencing.WriteConflictException;

/**
 * Fault injection for end-to-end tests of failure paths that a single-writer graph cannot provoke on
 * demand. With {@code -Dpalisade.fault.substrate-commit=write-conflict} every substrate commit fails
 * with a retryable {@link WriteConflictException} (as a concurrent foreign commit would), so the retry
 * bound and the CLI's exit code 4 can be exercised through the real launcher. Without the property
 * every call is a no-op.
 */
final class Faults {
    private static final String SUBSTRATE_COMMIT = System.getProperty("palisade.fault.substrate-commit", "");

    private Faults() {
    }

    /** Throws the configured fault before a substrate commit, if any. */
    static void beforeSubstrateCommit(String table) {
        if ("write-conflict".equals(SUBSTRATE_COMMIT)) {
            throw new WriteConflictException("injected write conflict on table '" + table
                    + "' (palisade.fault.substrate-commit=write-conflict)");
        }
    }
}
