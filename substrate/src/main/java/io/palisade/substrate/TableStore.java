package io.palisade.substrate;

import org.apache.arrow.vector.types.pojo.Schema;

import java.util.List;

/**
 * The substrate SPI (DESIGN §2): the only way Palisade touches table storage. Implementations: the
 * Lance store ({@code io.palisade.substrate.lance.LanceTableStore}) and, for simulation, the
 * in-memory {@code SimulatedTableStore} of this module's test-jar. Both pass one conformance suite.
 *
 * <p>Table-level invariants every implementation keeps:
 * <ul>
 *   <li>A keyed table carries the PK {@code id} from its first version; no operation of this SPI
 *       removes or changes an installed PK (overwrite, schema change, fork all preserve it).</li>
 *   <li>{@link #openKeyed} refuses a table whose PK is not exactly {@code [id]}; {@link #openKeyless}
 *       refuses a table with any PK. So a keyed table cannot be appended to through this SPI.</li>
 *   <li>Reads of a {@link TableRef} are repeatable: a version, once committed, never changes.</li>
 * </ul>
 * Unknown tables, branches or versions are a {@link io.palisade.fencing.ValidationException}.
 */
public interface TableStore extends AutoCloseable {

    /** Transaction property carrying the caller's intent id, where the store can record one. */
    String INTENT_ID_PROPERTY = "palisade.intent-id";

    /** Creates an empty keyed table at {@code main@1}; the schema must have a non-null-able {@code id}. */
    KeyedTable createKeyed(String table, TableKind kind, Schema schema);

    /** Creates an empty keyless append-only table at {@code main@1}. */
    KeylessTable createKeyless(String table, Schema schema);

    /**
     * Creates an empty keyed table as a pre-fencing binary did: non-null {@code id}, no PK metadata.
     * Only for migration ({@link #installPrimaryKey}) and its tests; {@link #openKeyed} refuses it
     * until its PK is installed.
     */
    void createLegacyKeyed(String table, TableKind kind, Schema schema);

    boolean exists(String table);

    /** Opens a keyed table at an exact state; {@link io.palisade.fencing.GraphRefusedException} if its PK is not exactly {@code [id]}. */
    KeyedTable openKeyed(String table, TableRef ref);

    /** Opens a keyless table at an exact state; {@link io.palisade.fencing.GraphRefusedException} if it has a PK or was created keyed. */
    KeylessTable openKeyless(String table, TableRef ref);

    /** The newest version of a table branch. */
    TableRef latest(String table, String branch);

    /** Every version of a table branch, ascending (a fork lists the fork version first). */
    List<VersionInfo> listVersions(String table, String branch);

    /** Table branch names, {@link TableRef#MAIN} first, then ascending. */
    List<String> listBranches(String table);

    /**
     * Forks {@code newBranch} from the exact state {@code from}; returns {@code newBranch@from.version()},
     * except when {@code from} is on a branch other than main and has an index on {@code id}: then the
     * index is rebuilt on the new branch by one CreateIndex commit and {@code newBranch@from.version()+1}
     * is returned (Lance 7.0.0 cannot read index files inherited through an intermediate branch; see
     * docs/lance-surface.md). The source branch is unchanged; the fork shares its PK and rows. An
     * existing branch name is refused.
     */
    TableRef forkBranch(String table, TableRef from, String newBranch);

    /**
     * Whether a table branch forked from exactly {@code ref} keeps {@code ref} readable through {@link #expireVersions}
     * of {@code ref}'s branch for as long as that fork lives, so that a pin at {@code ref} need not hold the versions
     * after it back. The default: no.
     */
    default boolean forkKeeps(String table, TableRef ref) {
        return false;
    }

    /** The PK field names at a state (empty when none is installed). */
    List<String> primaryKey(String table, TableRef ref);

    /**
     * Installs the PK {@code id}, set-if-absent, on the branch of {@code base}:
     * PK already exactly {@code [id]} → {@link PrimaryKeyInstall.Outcome#ALREADY_PRESENT}, no new version;
     * no PK → one UpdateConfig commit whose transaction properties carry
     * {@link #INTENT_ID_PROPERTY}{@code =intentId};
     * another PK → {@link io.palisade.fencing.GraphRefusedException} (a PK is never changed).
     * A keyless table, or one without a non-null {@code id}, is a {@link io.palisade.fencing.ValidationException}.
     */
    PrimaryKeyInstall installPrimaryKey(String table, TableRef base, String intentId);

    /**
     * Every row at an exact state, read without the PK contract check of {@link #openKeyed}: only for
     * the PK migration (validating ids of pre-fencing images and digesting rows before and after) and
     * its tests. Never a write path.
     */
    default List<java.util.Map<String, Object>> scanUnchecked(String table, TableRef ref) {
        throw new io.palisade.fencing.ValidationException(getClass().getSimpleName() + " cannot read a table unchecked");
    }

    /**
     * An exact count of the ids of the state {@code ref} (every row, read without the PK contract check of
     * {@link #openKeyed}, so a state whose PK was stripped can be counted too), with the schema facts of the
     * primary-key contract and up to {@code sampleSize} duplicated ids. Never a write path: recovery calls it
     * before it adopts a foreign version, the repair before and after it removes duplicates.
     * The default counts the rows of {@link #scanUnchecked}; a store may read only the {@code id} column.
     */
    default IdCensus idCensus(String table, TableRef ref, int sampleSize) {
        List<java.util.Map<String, Object>> rows = scanUnchecked(table, ref);
        List<Object> ids = new java.util.ArrayList<>(rows.size());
        rows.forEach(r -> ids.add(r.get(KeyedSchemas.ID)));
        boolean hasId = rows.isEmpty() || rows.get(0).containsKey(KeyedSchemas.ID);
        return IdCensus.of(ref, primaryKey(table, ref), hasId ? "unknown" : null, false, ids, sampleSize);
    }

    /** The stable field id of {@code column} at a state, read without the PK contract check. */
    default int fieldId(String table, TableRef ref, String column) {
        throw new io.palisade.fencing.ValidationException(getClass().getSimpleName() + " cannot read field ids unchecked");
    }

    /** The column {@link #duplicatedRows} adds: the row's Lance row address (fragment id &lt;&lt; 32 | offset), a Long. */
    String ROW_ADDRESS = "_rowaddr";

    /**
     * Every row of {@code ref} whose non-null id is held by more than one row, with its {@link #ROW_ADDRESS}, in
     * storage order (read without the PK contract check). For {@code palisade repair} only.
     */
    default List<java.util.Map<String, Object>> duplicatedRows(String table, TableRef ref) {
        throw new io.palisade.fencing.ValidationException(getClass().getSimpleName() + " cannot list duplicated rows");
    }

    /**
     * One commit on the branch of {@code base} (which must be that branch's newest version, else a
     * {@link io.palisade.fencing.WriteConflictException}): an Overwrite holding every row of {@code base} except those
     * whose {@link #ROW_ADDRESS} is in {@code remove}, with the schema of {@code base} and, when {@code installPk}, the
     * primary key {@code [id]} (which {@code id} must be able to carry). Returns the new version. For
     * {@code palisade repair} only: one commit, so recovery rolls it forward or back like any intent's.
     */
    default TableRef rewriteWithout(String table, TableRef base, java.util.Set<Long> remove, boolean installPk) {
        throw new io.palisade.fencing.ValidationException(getClass().getSimpleName() + " cannot rewrite a table");
    }

    /** What the commit that produced {@code ref} did (see {@link CommitDescription}). */
    CommitDescription decompose(String table, TableRef ref);

    /**
     * The version a write on {@code tableBranch}, forked at {@code pinVersion}, is made on: {@code pinVersion}, or one
     * above it when the fork went through another branch and rebuilt the {@code id} index in one CreateIndex version
     * of its own ({@link #forkBranch}). That version is the fork's, never a write's effect. The one rule the writer
     * (reusing a fork an interrupted write left) and recovery (judging what a write did) both apply. An unreadable
     * version above the pin is judged as any other: {@code pinVersion}.
     */
    default long forkWriteBase(String table, String tableBranch, long pinVersion) {
        if (!listBranches(table).contains(tableBranch) || latest(table, tableBranch).version() <= pinVersion) {
            return pinVersion;
        }
        try {
            return decompose(table, new TableRef(tableBranch, pinVersion + 1)).kind() == OperationKind.CREATE_INDEX
                    ? pinVersion + 1 : pinVersion;
        } catch (RuntimeException e) {
            return pinVersion;
        }
    }

    /**
     * Restores the branch of {@code to} to the exact state {@code to}: one Restore commit whose content
     * is that version's, at a new newest version (which is returned). Versions in between stay in the
     * history. Used to roll back an unfinished bulk load (docs/bulk-load.md). A version whose primary key
     * differs from the installed one is refused ({@link io.palisade.fencing.GraphRefusedException}: RFC-023
     * §9, a restore never removes a PK); stores that cannot restore throw a
     * {@link io.palisade.fencing.ValidationException}.
     */
    default TableRef restore(String table, TableRef to) {
        throw new io.palisade.fencing.ValidationException(getClass().getSimpleName() + " cannot restore a table version");
    }

    /**
     * Makes every file of the versions {@code (afterVersion, upToVersion]} of table branch {@code branch}
     * durable (data, deletion, index and transaction files, manifests, the version hint, and the
     * directories naming them), so that a power cut cannot take them away. Every commit this store makes
     * already does this before it returns, when the store was built to sync; recovery calls it before it
     * publishes a version it found but did not see committed (a roll-forward, an adoption). A store whose
     * commits are durable when they return (an object store, the in-memory store) does nothing.
     */
    default void makeDurable(String table, String branch, long afterVersion, long upToVersion) {
    }

    /**
     * The versions above {@code afterVersion} on table branch {@code branch} whose files are torn, ascending:
     * the manifest is zero-length or does not decode, the transaction file is zero-length or unreadable,
     * or a data, deletion or index file the version added is missing, zero-length or shorter than the
     * manifest records. Only the newest versions of the branch can be torn (a commit reads the manifest
     * of the version before it): a damaged version below a complete one is not listed here but reported by
     * {@link #damage}. A store whose commits are atomic (an object store, the in-memory store) returns an
     * empty list. Never fails because of the damage it reports.
     */
    List<DamagedVersion> tornVersions(String table, String branch, long afterVersion);

    /**
     * Whether the files of the exact state {@code ref} are damaged, checked cheaply: its manifest decodes and
     * the files its own commit added (data, deletion, index, transaction) are present with their recorded
     * sizes. Files inherited from older versions are not read. Empty when intact, and for stores whose
     * versions cannot be torn.
     */
    java.util.Optional<DamagedVersion> damage(String table, TableRef ref);

    /**
     * Moves the files of {@code version} named by {@link DamagedVersion#setAside()} into {@code destination}
     * (created if needed), so that the version before it is the branch's latest and the next commit reuses
     * the version number. Files already moved (a repeated call after a crash) are skipped; the directories
     * involved are synced. Returns the files moved by this call. Stores that cannot tear a version do
     * nothing.
     */
    List<String> setAside(String table, DamagedVersion version, java.nio.file.Path destination);

    /**
     * Removes every version of table branch {@code branch} older than {@code beforeVersion}, with the files only
     * they name (data, deletion, index, transaction files and manifests). The branch's newest version is never
     * removed, nor a file another table branch still names, nor a file no version names (a commit in flight). Of a
     * version another table branch was forked from, a store may keep the manifest without the files only it names:
     * it is then listed but no longer readable. The caller decides {@code beforeVersion}: nothing a reader, a graph
     * branch or recovery still needs may lie below it. A store that keeps no history does nothing.
     */
    default VersionExpiry expireVersions(String table, String branch, long beforeVersion) {
        return VersionExpiry.NONE;
    }

    @Override
    void close();
}
