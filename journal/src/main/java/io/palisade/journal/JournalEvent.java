package io.palisade.journal;

import io.palisade.fencing.KeyFilter;

import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * Event vocabulary v1 of the journal: one record per event. Every consumer switches over this sealed
 * type exhaustively and without a default branch, so a new event type fails the compilation of every
 * reducer that would ignore it.
 *
 * <p>Each type has a stable wire type code ({@code io.palisade.journal.codec.EventCodec#typeCode});
 * a reader that meets a code it does not know, or a newer record format version, throws
 * {@link io.palisade.fencing.JournalCorruptedException} and never skips the record.
 *
 * <p>Nullability: fields documented "nullable" may be {@code null}; every other reference field is
 * non-null (checked at construction). Lists are copied and immutable.
 */
public sealed interface JournalEvent {

    /**
     * The first record of every writer session (one per journal segment): the lease epoch of the
     * writer, its owner token, process id and host, the binary version and the graph format stamp.
     */
    record WriterStarted(long epoch, String ownerToken, long pid, String host, String binaryVersion, int formatStamp)
            implements JournalEvent {
        public WriterStarted {
            Objects.requireNonNull(ownerToken, "ownerToken");
            Objects.requireNonNull(host, "host");
            Objects.requireNonNull(binaryVersion, "binaryVersion");
        }
    }

    /**
     * Phase A: the sidecar intent of one logical write, journaled before any substrate effect.
     *
     * @param intentId           unique id of the intent
     * @param idempotencyKey     nullable: the client's idempotency key
     * @param operation          the logical operation
     * @param graphBranch        the graph branch written
     * @param table              the table written
     * @param expectedBase       the base the transaction was planned against
     * @param actions            the encoded catalog action list (fencing's {@code ActionCodec}); opaque to the
     *                           journal until the typed action list replaces it
     * @param keyFilter          nullable: the exact key filter attached to the transaction's AddFragments
     *                           (null for keyless tables and for operations that touch no key)
     * @param intendedTransition the head transition the intent will publish
     * @param requestDigest      nullable: the digest of the request an idempotency key names (its kind, branch, table
     *                           and rows or keys), which a repeat of the key must match; absent from records written
     *                           before the writer journaled it
     */
    record IntentRecorded(String intentId, String idempotencyKey, LogicalOperation operation, String graphBranch,
                          String table, ExpectedBase expectedBase, byte[] actions, KeyFilter keyFilter,
                          HeadTransition intendedTransition, String requestDigest) implements JournalEvent {
        /** An intent without a request digest. */
        public IntentRecorded(String intentId, String idempotencyKey, LogicalOperation operation, String graphBranch,
                              String table, ExpectedBase expectedBase, byte[] actions, KeyFilter keyFilter,
                              HeadTransition intendedTransition) {
            this(intentId, idempotencyKey, operation, graphBranch, table, expectedBase, actions, keyFilter,
                    intendedTransition, null);
        }

        public IntentRecorded {
            Objects.requireNonNull(intentId, "intentId");
            Objects.requireNonNull(operation, "operation");
            Objects.requireNonNull(graphBranch, "graphBranch");
            Objects.requireNonNull(table, "table");
            Objects.requireNonNull(expectedBase, "expectedBase");
            actions = Objects.requireNonNull(actions, "actions").clone();
            Objects.requireNonNull(intendedTransition, "intendedTransition");
        }

        /** A copy of the encoded action list. */
        @Override
        public byte[] actions() {
            return actions.clone();
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof IntentRecorded r && intentId.equals(r.intentId)
                    && Objects.equals(idempotencyKey, r.idempotencyKey) && operation == r.operation
                    && graphBranch.equals(r.graphBranch) && table.equals(r.table)
                    && expectedBase.equals(r.expectedBase) && Arrays.equals(actions, r.actions)
                    && Objects.equals(keyFilter, r.keyFilter) && intendedTransition.equals(r.intendedTransition)
                    && Objects.equals(requestDigest, r.requestDigest);
        }

        @Override
        public int hashCode() {
            return Objects.hash(intentId, idempotencyKey, operation, graphBranch, table, expectedBase,
                    Arrays.hashCode(actions), keyFilter, intendedTransition, requestDigest);
        }

        @Override
        public String toString() {
            return "IntentRecorded[intentId=" + intentId + ", idempotencyKey=" + idempotencyKey + ", operation="
                    + operation + ", graphBranch=" + graphBranch + ", table=" + table + ", expectedBase=" + expectedBase
                    + ", actions=" + actions.length + " bytes, keyFilter=" + keyFilter + ", intendedTransition="
                    + intendedTransition + ", requestDigest=" + requestDigest + "]";
        }
    }

    /** Phase B observed: one substrate commit for a group of intents reached {@code achievedVersion}. */
    record TableCommitted(List<String> intentIds, String graphBranch, String table, String tableBranch,
                          long achievedVersion) implements JournalEvent {
        public TableCommitted {
            intentIds = List.copyOf(intentIds);
            Objects.requireNonNull(graphBranch, "graphBranch");
            Objects.requireNonNull(table, "table");
            Objects.requireNonNull(tableBranch, "tableBranch");
        }
    }

    /** Phase C: the head transitions are published (atomically, as one record). */
    record HeadPublished(List<HeadTransition> transitions) implements JournalEvent {
        public HeadPublished {
            transitions = List.copyOf(transitions);
        }
    }

    /**
     * Phase D: the intent's outcome.
     *
     * @param reason            human-readable reason ("" when committed)
     * @param conflictingIntent nullable: the winning intent of a conflict
     * @param conflictingKeys   the first few conflicting keys (empty when none)
     */
    record IntentCompleted(String intentId, IntentOutcome outcome, String reason, String conflictingIntent,
                           List<String> conflictingKeys) implements JournalEvent {
        public IntentCompleted {
            Objects.requireNonNull(intentId, "intentId");
            Objects.requireNonNull(outcome, "outcome");
            Objects.requireNonNull(reason, "reason");
            conflictingKeys = List.copyOf(conflictingKeys);
        }
    }

    /**
     * Bulk-load progress: one record per committed batch of a load intent, plus a start marker
     * ({@code batchIndex == -1}, {@code rows == 0}, no keys) that names the table branch and the version
     * the load starts from (the roll-back target). A load publishes its head once, at the end; recovery
     * of an unfinished load rolls back to the start marker's version (docs/bulk-load.md).
     *
     * @param intentId        the load's intent
     * @param batchIndex      0-based index of the committed batch; -1 for the start marker
     * @param tableBranch     the table branch the load writes
     * @param achievedVersion the table version after this batch (for the start marker: the start version)
     * @param rows            rows committed by the load so far, this batch included
     * @param batchKeys       nullable: the exact key filter of this batch (null for the start marker); a
     *                        load journals its keys per batch so its memory stays bounded by the batch
     */
    record LoadProgress(String intentId, int batchIndex, String tableBranch, long achievedVersion, long rows,
                        KeyFilter batchKeys) implements JournalEvent {
        public LoadProgress {
            Objects.requireNonNull(intentId, "intentId");
            Objects.requireNonNull(tableBranch, "tableBranch");
            if (batchIndex < -1) {
                throw new IllegalArgumentException("batchIndex " + batchIndex);
            }
        }
    }

    /** A graph branch was created from {@code fromBranch} as of journal sequence {@code fromSequence}. */
    record GraphBranchCreated(String branch, String fromBranch, long fromSequence) implements JournalEvent {
        public GraphBranchCreated {
            Objects.requireNonNull(branch, "branch");
            Objects.requireNonNull(fromBranch, "fromBranch");
        }
    }

    /** A graph branch was deleted. */
    record GraphBranchDeleted(String branch) implements JournalEvent {
        public GraphBranchDeleted {
            Objects.requireNonNull(branch, "branch");
        }
    }

    /** A heads checkpoint covering every record up to {@code coveredSequence} was written durably. */
    record CheckpointWritten(long coveredSequence, String file, String headsDigest) implements JournalEvent {
        public CheckpointWritten {
            Objects.requireNonNull(file, "file");
            Objects.requireNonNull(headsDigest, "headsDigest");
        }
    }

    /** RFC-023 §8: the migration claim (create-if-absent, random owner token). */
    record MigrationClaimed(String migrationId, String ownerToken, int fromStamp, int toStamp) implements JournalEvent {
        public MigrationClaimed {
            Objects.requireNonNull(migrationId, "migrationId");
            Objects.requireNonNull(ownerToken, "ownerToken");
        }
    }

    /** RFC-023 §8 step 5: a unit's sidecar, journaled before its fork or PK effect. */
    record MigrationUnitPlanned(String migrationId, String unitId, String graphBranch, String table,
                                String pinnedTableBranch, long pinnedVersion, boolean lazyInherited)
            implements JournalEvent {
        public MigrationUnitPlanned {
            Objects.requireNonNull(migrationId, "migrationId");
            Objects.requireNonNull(unitId, "unitId");
            Objects.requireNonNull(graphBranch, "graphBranch");
            Objects.requireNonNull(table, "table");
            Objects.requireNonNull(pinnedTableBranch, "pinnedTableBranch");
        }
    }

    /** RFC-023 §8 steps 7-8: a lazy-inherited state was forked into {@code tableBranch} at the exact pinned version. */
    record MigrationUnitForked(String migrationId, String unitId, String tableBranch, long forkedFromVersion,
                               long achievedVersion) implements JournalEvent {
        public MigrationUnitForked {
            Objects.requireNonNull(migrationId, "migrationId");
            Objects.requireNonNull(unitId, "unitId");
            Objects.requireNonNull(tableBranch, "tableBranch");
        }
    }

    /** RFC-023 §8 step 6: the PK metadata is installed (or was already correct: {@code alreadyPresent}). */
    record MigrationPkInstalled(String migrationId, String unitId, String table, String tableBranch,
                                long achievedVersion, boolean alreadyPresent) implements JournalEvent {
        public MigrationPkInstalled {
            Objects.requireNonNull(migrationId, "migrationId");
            Objects.requireNonNull(unitId, "unitId");
            Objects.requireNonNull(table, "table");
            Objects.requireNonNull(tableBranch, "tableBranch");
        }
    }

    /** RFC-023 §8 steps 9-10: the unit's head transition is published with its completion digest. */
    record MigrationUnitPublished(String migrationId, String unitId, HeadTransition transition, String digest)
            implements JournalEvent {
        public MigrationUnitPublished {
            Objects.requireNonNull(migrationId, "migrationId");
            Objects.requireNonNull(unitId, "unitId");
            Objects.requireNonNull(transition, "transition");
            Objects.requireNonNull(digest, "digest");
        }
    }

    /** RFC-023 §8 step 11: a re-enumerated live branch verified. */
    record MigrationBranchVerified(String migrationId, String graphBranch, String digest) implements JournalEvent {
        public MigrationBranchVerified {
            Objects.requireNonNull(migrationId, "migrationId");
            Objects.requireNonNull(graphBranch, "graphBranch");
            Objects.requireNonNull(digest, "digest");
        }
    }

    /** RFC-023 §8: the fencing-compatible format stamp was written, last. */
    record MigrationStampWritten(String migrationId, int stamp) implements JournalEvent {
        public MigrationStampWritten {
            Objects.requireNonNull(migrationId, "migrationId");
        }
    }

    /**
     * RFC-023 §8: the migration refused (duplicate or null ids, a different PK already set, ...).
     *
     * @param graphBranch nullable
     * @param table       nullable
     * @param keys        the first few offending keys (empty when none)
     */
    record MigrationRefused(String migrationId, String reason, String graphBranch, String table, List<String> keys)
            implements JournalEvent {
        public MigrationRefused {
            Objects.requireNonNull(migrationId, "migrationId");
            Objects.requireNonNull(reason, "reason");
            keys = List.copyOf(keys);
        }
    }

    /** Recovery began from the checkpoint at {@code checkpointSequence} (-1: none) with the journal ending at {@code lastSequence}. */
    record RecoveryStarted(String recoveryId, long checkpointSequence, long lastSequence) implements JournalEvent {
        public RecoveryStarted {
            Objects.requireNonNull(recoveryId, "recoveryId");
        }
    }

    /** Recovery finished: what it found and did, and the digest of the heads it converged to. */
    record RecoveryFinished(String recoveryId, List<RecoveryClassification> classifications, String headsDigest)
            implements JournalEvent {
        public RecoveryFinished {
            Objects.requireNonNull(recoveryId, "recoveryId");
            classifications = List.copyOf(classifications);
            Objects.requireNonNull(headsDigest, "headsDigest");
        }
    }

    /**
     * Recovery found table version {@code version} of {@code table}'s branch {@code tableBranch} torn by a
     * power cut (its manifest zero-length or undecodable, or a file it names missing or short) above the
     * published head, and sets it aside: journaled (synced) <em>before</em> the files are moved, so a
     * recovery killed in between finds this record and finishes the move into the same directory. Once
     * moved, Lance sees the previous version as the branch's latest and the next commit reuses the
     * version number (docs/recovery.md).
     *
     * @param recoveryId  the recovery run that set it aside
     * @param graphBranch the graph branch whose head the table branch carries
     * @param intentIds   the open intents whose commit the torn version was (empty: no open intent explained it)
     * @param files       the files moved aside (the manifest, and the version hint when it named the version)
     * @param damaged     the damaged files found, each with what is wrong with it
     * @param destination the directory the files are moved into
     * @param reason      human-readable: why the version counts as torn
     */
    record TableVersionSetAside(String recoveryId, String graphBranch, String table, String tableBranch, long version,
                                List<String> intentIds, List<String> files, List<String> damaged, String destination,
                                String reason) implements JournalEvent {
        public TableVersionSetAside {
            Objects.requireNonNull(recoveryId, "recoveryId");
            Objects.requireNonNull(graphBranch, "graphBranch");
            Objects.requireNonNull(table, "table");
            Objects.requireNonNull(tableBranch, "tableBranch");
            intentIds = List.copyOf(intentIds);
            files = List.copyOf(files);
            damaged = List.copyOf(damaged);
            Objects.requireNonNull(destination, "destination");
            Objects.requireNonNull(reason, "reason");
        }
    }

    /**
     * {@code palisade repair} (docs/recovery.md "Repair"): the rows of duplicated ids it removes from the image it
     * repairs, journaled in the same synced batch as its {@link IntentRecorded} and <em>before</em> the Lance
     * commit, so that every removed row's key and values are in the journal whatever happens next. Whether the
     * removal took effect is the intent's outcome (COMMITTED, ROLLED_FORWARD, or ABORTED by recovery).
     *
     * @param intentId        the repair's intent
     * @param graphBranch     the graph branch whose head is repaired
     * @param table           the table
     * @param tableBranch     the table branch
     * @param imageVersion    the version repaired (the newest, possibly foreign, version of the table branch)
     * @param adoptedVersions the foreign versions the repair adopts (empty when there were none)
     * @param policy          which row of a duplicated id is kept: {@code keep-newest} or {@code keep-oldest}
     * @param primaryKeyReinstalled whether the repair's commit re-installs the primary key {@code id}
     * @param rows            every removed row
     */
    record DuplicatesRepaired(String intentId, String graphBranch, String table, String tableBranch, long imageVersion,
                              List<Long> adoptedVersions, String policy, boolean primaryKeyReinstalled,
                              List<RemovedRow> rows) implements JournalEvent {
        public DuplicatesRepaired {
            Objects.requireNonNull(intentId, "intentId");
            Objects.requireNonNull(graphBranch, "graphBranch");
            Objects.requireNonNull(table, "table");
            Objects.requireNonNull(tableBranch, "tableBranch");
            adoptedVersions = List.copyOf(adoptedVersions);
            Objects.requireNonNull(policy, "policy");
            rows = List.copyOf(rows);
        }
    }

    /**
     * Written by the journal itself, right after {@link WriterStarted}, when the previous writer session
     * left a torn tail: the records after {@code lastGoodSequence} in the segment of
     * {@code previousEpoch} failed their check and were cut ({@code excerptsCut} storage excerpts).
     */
    record TornTailCut(long previousEpoch, long lastGoodSequence, long excerptsCut, String reason)
            implements JournalEvent {
        public TornTailCut {
            Objects.requireNonNull(reason, "reason");
        }
    }

    /**
     * A write's substrate commit landed over a foreign version (docs/recovery.md "Foreign commits"): Lance
     * rebased it, so the version it achieved is not its base + 1. The achieved version holds the intents' rows and
     * every foreign version below it; it is <em>not</em> published and the intents are not acknowledged (each
     * completes {@link IntentOutcome#FOREIGN_COMMIT}). The record is the journal's explanation of those versions
     * until an operator adopts them.
     *
     * @param intentIds         the intents of the commit, none acknowledged
     * @param graphBranch       the graph branch written
     * @param table             the table written
     * @param tableBranch       the table branch committed to
     * @param baseVersion       the version the commit was based on (the published head)
     * @param achievedVersion   the version the commit reached, or -1 when Lance refused the commit because of the
     *                          foreign versions (nothing of the intents was committed)
     * @param foreignVersions   the versions that no intent explains, ascending
     * @param duplicatesChecked whether the intents inserted keys into a keyed table and those keys were counted
     *                          at the achieved version
     * @param duplicateKeys     a sample of those keys held more than once at the achieved version
     * @param detail            what was found, for people
     */
    record ForeignCommitFound(List<String> intentIds, String graphBranch, String table, String tableBranch,
                              long baseVersion, long achievedVersion, List<Long> foreignVersions,
                              boolean duplicatesChecked, List<String> duplicateKeys, String detail)
            implements JournalEvent {
        public ForeignCommitFound {
            intentIds = List.copyOf(intentIds);
            Objects.requireNonNull(graphBranch, "graphBranch");
            Objects.requireNonNull(table, "table");
            Objects.requireNonNull(tableBranch, "tableBranch");
            foreignVersions = List.copyOf(foreignVersions);
            duplicateKeys = List.copyOf(duplicateKeys);
            Objects.requireNonNull(detail, "detail");
        }
    }

    /**
     * The rows of a write to a journal-ack table (docs/journal-ack.md), journaled with its {@link IntentRecorded} and
     * synced before the write is acknowledged ({@link IntentOutcome#JOURNALED}). The journal is then the write's
     * only durable copy until a fold commits it to the table.
     *
     * @param intentId    the write's intent
     * @param graphBranch the graph branch written
     * @param table       the table written
     * @param rowCount    rows in {@code rows} (0 for a delete, whose keys are the intent's key filter)
     * @param rows        the rows as an Arrow IPC stream in the table's schema; empty for a delete
     */
    record RowsRecorded(String intentId, String graphBranch, String table, int rowCount, byte[] rows)
            implements JournalEvent {
        public RowsRecorded {
            Objects.requireNonNull(intentId, "intentId");
            Objects.requireNonNull(graphBranch, "graphBranch");
            Objects.requireNonNull(table, "table");
            Objects.requireNonNull(rows, "rows");
            if (rowCount < 0) {
                throw new IllegalArgumentException("rowCount " + rowCount);
            }
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof RowsRecorded r && intentId.equals(r.intentId) && graphBranch.equals(r.graphBranch)
                    && table.equals(r.table) && rowCount == r.rowCount && java.util.Arrays.equals(rows, r.rows);
        }

        @Override
        public int hashCode() {
            return Objects.hash(intentId, graphBranch, table, rowCount, java.util.Arrays.hashCode(rows));
        }
    }

    /**
     * A {@link RowsRecorded} whose rows the journal no longer holds: once every write before a sequence is folded into
     * its table and a checkpoint covers it, the journal's row release rewrites each closed file of records before that
     * sequence, replacing each {@code RowsRecorded} by this record at the same sequence (docs/journal.md "Row
     * release"). Everything else of the write stays: its intent (key filter, request digest), its completion and its
     * fold. The record keeps the SHA-256 of the record it replaced, which is what the next record's previous-hash field
     * links to, so the chain still verifies end to end; this record's own fields are not covered by that hash.
     *
     * @param intentId    the write's intent
     * @param graphBranch the graph branch written
     * @param table       the table written
     * @param rowCount    rows the released record held
     * @param rowsBytes   bytes of the Arrow IPC stream that was released
     * @param recordHash  SHA-256 of the replaced {@code RowsRecorded} record, 32 bytes
     */
    record RowsReleased(String intentId, String graphBranch, String table, int rowCount, long rowsBytes,
                        byte[] recordHash) implements Released {
        public RowsReleased {
            Objects.requireNonNull(intentId, "intentId");
            Objects.requireNonNull(graphBranch, "graphBranch");
            Objects.requireNonNull(table, "table");
            recordHash = Released.checked(rowCount, rowsBytes, recordHash);
        }

        /** The SHA-256 of the replaced record (a copy). */
        @Override
        public byte[] recordHash() {
            return recordHash.clone();
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof RowsReleased r && intentId.equals(r.intentId) && graphBranch.equals(r.graphBranch)
                    && table.equals(r.table) && rowCount == r.rowCount && rowsBytes == r.rowsBytes
                    && java.util.Arrays.equals(recordHash, r.recordHash);
        }

        @Override
        public int hashCode() {
            return Objects.hash(intentId, graphBranch, table, rowCount, rowsBytes, java.util.Arrays.hashCode(recordHash));
        }
    }

    /**
     * The plan of a fold (docs/journal-ack.md), journaled with the fold's {@link IntentRecorded} (operation
     * {@link LogicalOperation#FOLD}) before its table commit: the fold commits every journaled write of
     * (graph branch, table) acknowledged at or before {@code throughSequence} and not yet folded, as one merge-insert
     * that upserts the newest row of every key in the intent's key filter outside {@code deletedKeys} and deletes
     * {@code deletedKeys}. When the fold's intent completes {@code COMMITTED} or {@code ROLLED_FORWARD} those writes
     * are folded; the watermark {@code throughSequence} is also written into the table version as its MemWAL merged
     * generation.
     *
     * @param intentId        the fold's intent
     * @param graphBranch     the graph branch folded
     * @param table           the table folded
     * @param throughSequence the acknowledgement sequence of the newest write folded (the watermark)
     * @param writes          how many journaled writes the fold covers
     * @param deletedKeys     the keys whose newest write is a delete, or null when there are none
     */
    record FoldPlanned(String intentId, String graphBranch, String table, long throughSequence, int writes,
                       KeyFilter deletedKeys) implements JournalEvent {
        public FoldPlanned {
            Objects.requireNonNull(intentId, "intentId");
            Objects.requireNonNull(graphBranch, "graphBranch");
            Objects.requireNonNull(table, "table");
            if (writes < 1) {
                throw new IllegalArgumentException("a fold covers at least one write, not " + writes);
            }
        }
    }

    /**
     * Version retention: the versions of table branch {@code tableBranch} of {@code table} below {@code beforeVersion}
     * are being removed, with the files only they name. Journaled before a single file is removed, so the journal
     * never names a removed version it has not explained; a crash in between leaves versions the record already
     * counts as gone, which a later removal takes. No head, pin, unfinished fold or intent of the graph lies below
     * {@code beforeVersion} when it is written. Reads of a point whose version lies below it are refused with the
     * retention horizon, never a storage error.
     *
     * @param table         the table
     * @param tableBranch   the table branch whose versions are removed
     * @param beforeVersion the oldest version kept
     * @param rule          the retention rule that chose it, for the person reading the journal
     */
    record VersionsExpired(String table, String tableBranch, long beforeVersion, String rule) implements JournalEvent {
        public VersionsExpired {
            Objects.requireNonNull(table, "table");
            Objects.requireNonNull(tableBranch, "tableBranch");
            Objects.requireNonNull(rule, "rule");
            if (beforeVersion < 1) {
                throw new IllegalArgumentException("versions expire below a version >= 1, not " + beforeVersion);
            }
        }
    }

    /**
     * The graph's catalog (its tables, kinds, columns and ack modes) as the graph uses it from this record on. The
     * journal is the catalog's truth and {@code _palisade/catalog.json} its copy: a writer journals this record (synced)
     * <em>before</em> it writes the file, at create, at every add-columns and when an open reconciles the catalog with
     * the tables; an open refuses a file that is neither this catalog nor the one recorded before it (a file write cut
     * short, which the writer's open rewrites from here).
     *
     * @param digest  SHA-256 (lowercase hex) of the UTF-8 bytes of {@code catalog}; checked at construction, so a
     *                record whose digest does not match its catalog never decodes
     * @param catalog the catalog in its canonical JSON form (the coordinator's {@code Catalog.toJson()}: the exact
     *                bytes a writer puts in {@code catalog.json})
     * @param reason  why it was recorded, for the person reading the journal
     */
    record CatalogRecorded(String digest, String catalog, String reason) implements JournalEvent {
        public CatalogRecorded {
            Objects.requireNonNull(digest, "digest");
            Objects.requireNonNull(catalog, "catalog");
            Objects.requireNonNull(reason, "reason");
            String actual = sha256(catalog);
            if (!actual.equals(digest)) {
                throw new IllegalArgumentException("catalog digest " + digest + " is not the SHA-256 of its catalog ("
                        + actual + ")");
            }
        }

        /** The record of {@code catalog} (canonical JSON), its digest computed. */
        public static CatalogRecorded of(String catalog, String reason) {
            return new CatalogRecorded(sha256(catalog), catalog, reason);
        }

        /** SHA-256 (lowercase hex) of the UTF-8 bytes of {@code text}. */
        public static String sha256(String text) {
            try {
                return java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256")
                        .digest(text.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
            } catch (java.security.NoSuchAlgorithmException e) {
                throw new IllegalStateException("SHA-256 is missing from this JVM", e);
            }
        }
    }

    /**
     * Idempotency retention: the receipts issued at or before sequence {@code throughSequence} are forgotten, so their
     * idempotency keys no longer answer a repeat with the first receipt (a repeat of such a key is a new write). The
     * intents, their outcomes and their key filters stay in the journal; only the heads state's memory of the keys
     * ends. Journaled by the writer under its idempotency window (a time and a count bound).
     *
     * @param throughSequence the newest completion sequence whose receipt is forgotten
     * @param rule            the retention rule that chose it, for the person reading the journal
     */
    record ReceiptsExpired(long throughSequence, String rule) implements JournalEvent {
        public ReceiptsExpired {
            Objects.requireNonNull(rule, "rule");
            if (throughSequence < 0) {
                throw new IllegalArgumentException("receipts expire through a sequence >= 0, not " + throughSequence);
            }
        }
    }

    /**
     * The start of a graph transaction (docs/transactions.md): journaled in the same append as, and before, its parts
     * and its {@code TransactionCommitted}. It changes no state; it names the parts, so that a transaction torn before
     * its commit point (its parts left open, then completed {@code ABORTED} by recovery) can still be told as one:
     * any prefix of the append that holds a part holds this record.
     *
     * @param transactionId the transaction's id ({@code t-…})
     * @param graphBranch   the graph branch every part writes
     * @param intentIds     the parts' intents, in the order the transaction named them; at least one, no repeats
     */
    record TransactionStarted(String transactionId, String graphBranch, List<String> intentIds) implements JournalEvent {
        public TransactionStarted {
            intentIds = TransactionCommitted.parts(transactionId, graphBranch, intentIds, "starts");
        }
    }

    /**
     * The commit point of a graph transaction (docs/transactions.md): every intent it lists, each journaled before it
     * in the same batch with its rows ({@code IntentRecorded} leaving its table's head as it is, then
     * {@code RowsRecorded}), completes {@code JOURNALED} at this record, all together. A transaction whose record is
     * not in the journal never happened: its intents stay open and recovery completes them {@code ABORTED}. Readers
     * see every part of a transaction from this record on, and none before it.
     *
     * @param transactionId the transaction's id ({@code t-…})
     * @param graphBranch   the graph branch every part writes
     * @param intentIds     the parts' intents, in the order the transaction named them; at least one, no repeats
     */
    record TransactionCommitted(String transactionId, String graphBranch, List<String> intentIds) implements JournalEvent {
        public TransactionCommitted {
            intentIds = parts(transactionId, graphBranch, intentIds, "commits");
        }

        /** A transaction record's parts, checked: an id and a branch, one or more distinct intents (a copy). */
        static List<String> parts(String transactionId, String graphBranch, List<String> intentIds, String verb) {
            Objects.requireNonNull(transactionId, "transactionId");
            Objects.requireNonNull(graphBranch, "graphBranch");
            List<String> copy = List.copyOf(intentIds);
            if (copy.isEmpty() || new java.util.HashSet<>(copy).size() != copy.size()) {
                throw new IllegalArgumentException("a transaction " + verb + " one or more distinct intents, not " + copy);
            }
            return copy;
        }
    }

    /**
     * A record that replaced another in place (the journal's row release, docs/journal.md "Row release"): it keeps the
     * SHA-256 of the record it replaced, which is what the next record's previous-hash field links to. Written by the
     * row release only, never appended.
     */
    sealed interface Released extends JournalEvent permits RowsReleased, WriteReleased {
        /** The SHA-256 of the replaced record, 32 bytes (a copy). */
        byte[] recordHash();

        /**
         * A released record's fields, checked: counts not negative and a hash of 32 bytes; returns a copy of the hash.
         */
        static byte[] checked(int rowCount, long rowsBytes, byte[] recordHash) {
            Objects.requireNonNull(recordHash, "recordHash");
            if (rowCount < 0 || rowsBytes < 0 || recordHash.length != 32) {
                throw new IllegalArgumentException("rowCount " + rowCount + ", rowsBytes " + rowsBytes + ", hash of "
                        + recordHash.length + " bytes");
            }
            return recordHash.clone();
        }
    }

    /**
     * A journal-ack write in one record (docs/journal-ack.md "One record per write"): its intent, its rows and its
     * completion {@code JOURNALED}, which a torn tail keeps or cuts together. Readers take it as the intent recorded,
     * its rows recorded and the intent completed {@code JOURNALED}, all at this record's sequence; the receipt's
     * sequence is this record's. Two forms: {@link WriteJournaled} with the rows, and the {@link WriteReleased} the
     * row release leaves in its place.
     */
    sealed interface JournaledWrite extends JournalEvent permits WriteJournaled, WriteReleased {
        /** The write's intent (operation INSERT, UPSERT or DELETE; the head to itself: the table does not move). */
        IntentRecorded intent();

        /** Rows the write carried (0 for a delete). */
        int rowCount();

        /** The intent's id. */
        default String intentId() {
            return intent().intentId();
        }

        /** The completion this record stands for. */
        default IntentCompleted completed() {
            return new IntentCompleted(intent().intentId(), IntentOutcome.JOURNALED, "", null, List.of());
        }
    }

    /**
     * A journal-ack write with its rows: an Arrow IPC stream (empty for a delete), as a {@link RowsRecorded} holds
     * them.
     *
     * @param intent   the write's intent
     * @param rowCount rows in {@code rows}
     * @param rows     the Arrow IPC stream of the rows
     */
    record WriteJournaled(IntentRecorded intent, int rowCount, byte[] rows) implements JournaledWrite {
        public WriteJournaled {
            Objects.requireNonNull(intent, "intent");
            Objects.requireNonNull(rows, "rows");
            if (rowCount < 0) {
                throw new IllegalArgumentException("rowCount " + rowCount);
            }
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof WriteJournaled w && intent.equals(w.intent) && rowCount == w.rowCount
                    && Arrays.equals(rows, w.rows);
        }

        @Override
        public int hashCode() {
            return Objects.hash(intent, rowCount, Arrays.hashCode(rows));
        }

        @Override
        public String toString() {
            return "WriteJournaled[intent=" + intent + ", rowCount=" + rowCount + ", rows=" + rows.length + " bytes]";
        }
    }

    /**
     * A {@link WriteJournaled} whose rows the journal's row release gave back (docs/journal.md "Row release"): the
     * intent stays whole (key filter, request digest), the rows are counted, and the SHA-256 of the replaced record is
     * kept for the chain; this record's own fields are not covered by that hash.
     *
     * @param intent     the write's intent
     * @param rowCount   rows the released record held
     * @param rowsBytes  bytes of the Arrow IPC stream that was released
     * @param recordHash SHA-256 of the replaced {@code WriteJournaled} record, 32 bytes
     */
    record WriteReleased(IntentRecorded intent, int rowCount, long rowsBytes, byte[] recordHash)
            implements JournaledWrite, Released {
        public WriteReleased {
            Objects.requireNonNull(intent, "intent");
            recordHash = Released.checked(rowCount, rowsBytes, recordHash);
        }

        @Override
        public byte[] recordHash() {
            return recordHash.clone();
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof WriteReleased w && intent.equals(w.intent) && rowCount == w.rowCount
                    && rowsBytes == w.rowsBytes && Arrays.equals(recordHash, w.recordHash);
        }

        @Override
        public int hashCode() {
            return Objects.hash(intent, rowCount, rowsBytes, Arrays.hashCode(recordHash));
        }
    }
}
