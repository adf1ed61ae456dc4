package io.palisade.coordinator.internal;


import io.palisade.fencing.WriteConflictException;

/**
 * Fault injection for end-to-end tests of failure paths that a single-writer graph cannot provoke on
 * demand. With {@code -Dpalisade.fault.substrate-commit=write-conflict} every substrate commit fails
 * with a retryable {@link WriteConflictException} (as a concurrent foreign commit would), so the retry
 * bound and the CLI's exit code 4 can be exercised through the real launcher; with {@code foreign-commit} a
 * foreign Lance writer commits to the table just before (exit 8). Without the property every call is a no-op.
 */
final class Faults {
    private static final String SUBSTRATE_COMMIT = System.getProperty("palisade.fault.substrate-commit", "");

    private Faults() {
    }

    /**
     * Throws the configured fault before a substrate commit, if any. {@code foreign-commit}: a second Lance handle
     * (a foreign writer) upserts one row {@code foreign-<n>} into the keyed table first, so the commit that follows
     * races a foreign commit (exit 8 through the launcher).
     */
    static void beforeSubstrateCommit(String table, java.nio.file.Path tablesDir, org.apache.arrow.memory.BufferAllocator allocator) {
        if ("write-conflict".equals(SUBSTRATE_COMMIT)) {
            throw new WriteConflictException("injected write conflict on table '" + table
                    + "' (palisade.fault.substrate-commit=write-conflict)");
        }
        if ("foreign-commit".equals(SUBSTRATE_COMMIT)) {
            try (io.palisade.substrate.lance.LanceTableStore foreign = new io.palisade.substrate.lance.LanceTableStore(
                    tablesDir.toString());
                 io.palisade.substrate.KeyedTable t = foreign.openKeyed(table, foreign.latest(table, io.palisade.substrate.TableRef.MAIN));
                 org.apache.arrow.vector.VectorSchemaRoot root = org.apache.arrow.vector.VectorSchemaRoot.create(t.schema(), allocator)) {
                io.palisade.substrate.ArrowRows.fill(root, java.util.List.of(java.util.Map.of("id",
                        "foreign-" + FOREIGN.incrementAndGet())));
                t.upsert(root, t.mergePath());
            }
        }
    }

    private static final java.util.concurrent.atomic.AtomicInteger FOREIGN = new java.util.concurrent.atomic.AtomicInteger();
}
