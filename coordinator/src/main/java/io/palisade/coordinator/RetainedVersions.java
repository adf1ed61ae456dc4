package io.palisade.coordinator;

import io.palisade.coordinator.internal.Reads;
import io.palisade.fencing.VersionExpiredException;
import io.palisade.substrate.TableRef;
import io.palisade.substrate.TableStore;

import java.nio.file.Path;
import java.util.Optional;

/**
 * For tools that do not open the graph (the read-only CLI commands): whether a table version that cannot be read was
 * removed by version retention ({@link Retention}), as {@link Graph#scanAt} decides it. Lance keeps the manifest of a
 * version another table branch was forked from, but only the files that branch still names, so such a version can be
 * listed and yet be unreadable once a journaled {@code versions_expired} bound has passed it.
 */
public final class RetainedVersions {
    private RetainedVersions() {
    }

    /**
     * The error a read of {@code ref} of {@code table} gets when version retention removed it (exit 2 on the command
     * line, naming the journaled rule and the oldest version kept after it); empty when it was not retention's doing.
     *
     * @param palisadeDir the graph's {@code _palisade} directory
     * @param cause       the failure the read met
     */
    public static Optional<VersionExpiredException> removed(Path palisadeDir, TableStore store, String table,
                                                            TableRef ref, Exception cause) {
        return Reads.removedByRetention(palisadeDir, store, table, ref).map(r -> r.error(table, ref, cause));
    }
}
