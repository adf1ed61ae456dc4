package io.palisade.coordinator;

import io.palisade.fencing.CatalogCorruptedException;
import io.palisade.fencing.ValidationException;
import io.palisade.heads.HeadsState;
import io.palisade.heads.JournaledCatalog;

import java.nio.file.Path;
import java.util.List;

/**
 * The stored catalog ({@code _palisade/catalog.json}) against the catalog the journal last recorded
 * ({@code CatalogRecorded}, kept in the heads state and its checkpoints, so the check costs no journal scan).
 *
 * <p>The journal is the catalog's truth and the file its copy. A writer journals a catalog (synced) before it writes
 * the file (temp file, fsync, rename), so after a crash the file is either the catalog last recorded or the one
 * recorded before it. Every open (the writer's, and the read-only commands that load the catalog) accepts:
 * <ul>
 *   <li>a file that means the same as the catalog last recorded ({@link Standing#MATCHES}; spacing, key order and
 *       implied defaults do not count: the two are compared as catalogs, and their canonical forms hashed);</li>
 *   <li>a file whose canonical digest is that of the catalog recorded before the last one ({@link Standing#BEHIND}:
 *       a file write cut short after its record); the graph uses the journal's catalog, and the writer's open rewrites
 *       the file from it;</li>
 *   <li>any file when the journal has recorded no catalog yet ({@link Standing#UNRECORDED}: a graph created before the
 *       record existed); the writer's open then records the file's catalog, trusting it once.</li>
 * </ul>
 * Anything else is refused with {@link CatalogCorruptedException} naming each difference.
 */
public final class StoredCatalog {
    private StoredCatalog() {
    }

    /** How the stored file stands against the journal. */
    public enum Standing {
        /** The file is the catalog the journal last recorded. */
        MATCHES,
        /** The file is the catalog recorded before the last one: its rewrite was cut short; the journal's is used. */
        BEHIND,
        /** The journal has recorded no catalog yet: the file is taken as it is. */
        UNRECORDED
    }

    /**
     * The outcome of a check.
     *
     * @param standing how the file stands
     * @param catalog  the catalog the graph uses: the journal's when it recorded one, else the file's
     * @param stored   the file's catalog
     */
    public record Verdict(Standing standing, Catalog catalog, Catalog stored) {
    }

    /**
     * Checks {@code stored} (the catalog read from {@code file}) against the catalog {@code state} last recorded.
     *
     * @throws CatalogCorruptedException when the file is neither the catalog last recorded nor the one before it
     */
    public static Verdict check(Path file, Catalog stored, HeadsState state) {
        if (state.catalog().isEmpty()) {
            return new Verdict(Standing.UNRECORDED, stored, stored);
        }
        JournaledCatalog j = state.catalog().get();
        Catalog journaled;
        try {
            journaled = Catalog.fromJson(j.catalog());
        } catch (ValidationException e) {
            throw new CatalogCorruptedException(file.toString(), j.sequence(), List.of("the journal's catalog does "
                    + "not read as a catalog (" + e.getMessage() + ")"));
        }
        if (stored.equals(journaled)) {
            return new Verdict(Standing.MATCHES, journaled, stored);
        }
        if (stored.digest().equals(j.previousDigest())) {
            return new Verdict(Standing.BEHIND, journaled, stored);
        }
        List<String> differences = stored.differencesFrom(journaled);
        throw new CatalogCorruptedException(file.toString(), j.sequence(), differences.isEmpty()
                ? List.of("its canonical digest is " + stored.digest() + ", the journal recorded " + j.digest())
                : differences);
    }

    /** Reads {@code file} and {@linkplain #check checks} it against {@code state}. */
    public static Verdict read(Path file, HeadsState state) {
        return check(file, Catalog.read(file), state);
    }
}
