package io.palisade.journal.codec;

import io.palisade.fencing.KeyFilter;
import io.palisade.fencing.ValidationException;
import io.palisade.journal.ExpectedBase;
import io.palisade.journal.HeadTransition;
import io.palisade.journal.IntentOutcome;
import io.palisade.journal.JournalEvent;
import io.palisade.journal.JournalEvent.CheckpointWritten;
import io.palisade.journal.JournalEvent.GraphBranchCreated;
import io.palisade.journal.JournalEvent.GraphBranchDeleted;
import io.palisade.journal.JournalEvent.HeadPublished;
import io.palisade.journal.JournalEvent.IntentCompleted;
import io.palisade.journal.JournalEvent.IntentRecorded;
import io.palisade.journal.JournalEvent.MigrationBranchVerified;
import io.palisade.journal.JournalEvent.MigrationClaimed;
import io.palisade.journal.JournalEvent.MigrationPkInstalled;
import io.palisade.journal.JournalEvent.MigrationRefused;
import io.palisade.journal.JournalEvent.MigrationStampWritten;
import io.palisade.journal.JournalEvent.MigrationUnitForked;
import io.palisade.journal.JournalEvent.MigrationUnitPlanned;
import io.palisade.journal.JournalEvent.MigrationUnitPublished;
import io.palisade.journal.JournalEvent.RecoveryFinished;
import io.palisade.journal.JournalEvent.RecoveryStarted;
import io.palisade.journal.JournalEvent.LoadProgress;
import io.palisade.journal.JournalEvent.TableCommitted;
import io.palisade.journal.JournalEvent.TableVersionSetAside;
import io.palisade.journal.JournalEvent.ForeignCommitFound;
import io.palisade.journal.JournalEvent.TornTailCut;
import io.palisade.journal.JournalEvent.WriterStarted;
import io.palisade.journal.LogicalOperation;
import io.palisade.journal.RecoveryClassification;
import io.palisade.journal.TableHead;
import org.agrona.DirectBuffer;
import org.agrona.ExpandableArrayBuffer;

import java.util.ArrayList;
import java.util.List;

/**
 * Hand-written payload codec of {@link JournalEvent} (format version 1). Type codes are stable and
 * never reused; field order within a payload is fixed per type code. A payload must be consumed
 * exactly: bytes left over are malformed.
 */
public final class EventCodec {
    public static final short WRITER_STARTED = 1;
    public static final short INTENT_RECORDED = 2;
    public static final short TABLE_COMMITTED = 3;
    public static final short HEAD_PUBLISHED = 4;
    public static final short INTENT_COMPLETED = 5;
    public static final short GRAPH_BRANCH_CREATED = 6;
    public static final short GRAPH_BRANCH_DELETED = 7;
    public static final short CHECKPOINT_WRITTEN = 8;
    public static final short LOAD_PROGRESS = 9;
    public static final short FOREIGN_COMMIT_FOUND = 10;
    public static final short ROWS_RECORDED = 11;
    public static final short FOLD_PLANNED = 12;
    public static final short VERSIONS_EXPIRED = 13;
    public static final short RECEIPTS_EXPIRED = 14;
    public static final short CATALOG_RECORDED = 15;
    public static final short ROWS_RELEASED = 16;
    public static final short TRANSACTION_COMMITTED = 17;
    public static final short TRANSACTION_STARTED = 18;
    public static final short WRITE_JOURNALED = 19;
    public static final short WRITE_RELEASED = 28;
    public static final short MIGRATION_CLAIMED = 20;
    public static final short MIGRATION_UNIT_PLANNED = 21;
    public static final short MIGRATION_UNIT_FORKED = 22;
    public static final short MIGRATION_PK_INSTALLED = 23;
    public static final short MIGRATION_UNIT_PUBLISHED = 24;
    public static final short MIGRATION_BRANCH_VERIFIED = 25;
    public static final short MIGRATION_STAMP_WRITTEN = 26;
    public static final short MIGRATION_REFUSED = 27;
    public static final short RECOVERY_STARTED = 40;
    public static final short RECOVERY_FINISHED = 41;
    public static final short TABLE_VERSION_SET_ASIDE = 42;
    public static final short DUPLICATES_REPAIRED = 44;
    public static final short TORN_TAIL_CUT = 60;

    private EventCodec() {
    }

    /** The stable wire type code of an event. */
    public static short typeCode(JournalEvent event) {
        return switch (event) {
            case WriterStarted e -> WRITER_STARTED;
            case IntentRecorded e -> INTENT_RECORDED;
            case TableCommitted e -> TABLE_COMMITTED;
            case HeadPublished e -> HEAD_PUBLISHED;
            case IntentCompleted e -> INTENT_COMPLETED;
            case GraphBranchCreated e -> GRAPH_BRANCH_CREATED;
            case GraphBranchDeleted e -> GRAPH_BRANCH_DELETED;
            case CheckpointWritten e -> CHECKPOINT_WRITTEN;
            case MigrationClaimed e -> MIGRATION_CLAIMED;
            case MigrationUnitPlanned e -> MIGRATION_UNIT_PLANNED;
            case MigrationUnitForked e -> MIGRATION_UNIT_FORKED;
            case MigrationPkInstalled e -> MIGRATION_PK_INSTALLED;
            case MigrationUnitPublished e -> MIGRATION_UNIT_PUBLISHED;
            case MigrationBranchVerified e -> MIGRATION_BRANCH_VERIFIED;
            case MigrationStampWritten e -> MIGRATION_STAMP_WRITTEN;
            case MigrationRefused e -> MIGRATION_REFUSED;
            case RecoveryStarted e -> RECOVERY_STARTED;
            case RecoveryFinished e -> RECOVERY_FINISHED;
            case TornTailCut e -> TORN_TAIL_CUT;
            case LoadProgress e -> LOAD_PROGRESS;
            case TableVersionSetAside e -> TABLE_VERSION_SET_ASIDE;
            case ForeignCommitFound e -> FOREIGN_COMMIT_FOUND;
            case JournalEvent.DuplicatesRepaired e -> DUPLICATES_REPAIRED;
            case JournalEvent.RowsRecorded e -> ROWS_RECORDED;
            case JournalEvent.RowsReleased e -> ROWS_RELEASED;
            case JournalEvent.WriteJournaled e -> WRITE_JOURNALED;
            case JournalEvent.WriteReleased e -> WRITE_RELEASED;
            case JournalEvent.FoldPlanned e -> FOLD_PLANNED;
            case JournalEvent.VersionsExpired e -> VERSIONS_EXPIRED;
            case JournalEvent.ReceiptsExpired e -> RECEIPTS_EXPIRED;
            case JournalEvent.CatalogRecorded e -> CATALOG_RECORDED;
            case JournalEvent.TransactionCommitted e -> TRANSACTION_COMMITTED;
            case JournalEvent.TransactionStarted e -> TRANSACTION_STARTED;
        };
    }

    /** Writes the payload of {@code event} at {@code offset}; returns the payload length. */
    public static int encode(JournalEvent event, ExpandableArrayBuffer buffer, int offset) {
        PayloadWriter w = new PayloadWriter(buffer, offset);
        switch (event) {
            case WriterStarted e -> w.putLong(e.epoch()).putString(e.ownerToken()).putLong(e.pid()).putString(e.host())
                    .putString(e.binaryVersion()).putInt(e.formatStamp());
            case IntentRecorded e -> {
                putIntent(w, e);
                if (e.requestDigest() != null) {
                    w.putString(e.requestDigest()); // trailing: a record without it ends at the transition
                }
            }
            case JournalEvent.WriteJournaled e -> {
                putIntent(w, e.intent());
                w.putString(e.intent().requestDigest()).putInt(e.rowCount()).putBytes(e.rows());
            }
            case JournalEvent.WriteReleased e -> {
                putIntent(w, e.intent());
                w.putString(e.intent().requestDigest()).putInt(e.rowCount()).putLong(e.rowsBytes())
                        .putBytes(e.recordHash());
            }
            case TableCommitted e -> {
                putStrings(w, e.intentIds());
                w.putString(e.graphBranch()).putString(e.table()).putString(e.tableBranch()).putLong(e.achievedVersion());
            }
            case HeadPublished e -> {
                w.putInt(e.transitions().size());
                for (HeadTransition t : e.transitions()) {
                    putTransition(w, t);
                }
            }
            case IntentCompleted e -> {
                w.putString(e.intentId()).putShort(e.outcome().code()).putString(e.reason())
                        .putString(e.conflictingIntent());
                putStrings(w, e.conflictingKeys());
            }
            case GraphBranchCreated e -> w.putString(e.branch()).putString(e.fromBranch()).putLong(e.fromSequence());
            case GraphBranchDeleted e -> w.putString(e.branch());
            case CheckpointWritten e -> w.putLong(e.coveredSequence()).putString(e.file()).putString(e.headsDigest());
            case MigrationClaimed e -> w.putString(e.migrationId()).putString(e.ownerToken()).putInt(e.fromStamp())
                    .putInt(e.toStamp());
            case MigrationUnitPlanned e -> w.putString(e.migrationId()).putString(e.unitId()).putString(e.graphBranch())
                    .putString(e.table()).putString(e.pinnedTableBranch()).putLong(e.pinnedVersion())
                    .putBoolean(e.lazyInherited());
            case MigrationUnitForked e -> w.putString(e.migrationId()).putString(e.unitId()).putString(e.tableBranch())
                    .putLong(e.forkedFromVersion()).putLong(e.achievedVersion());
            case MigrationPkInstalled e -> w.putString(e.migrationId()).putString(e.unitId()).putString(e.table())
                    .putString(e.tableBranch()).putLong(e.achievedVersion()).putBoolean(e.alreadyPresent());
            case MigrationUnitPublished e -> {
                w.putString(e.migrationId()).putString(e.unitId());
                putTransition(w, e.transition());
                w.putString(e.digest());
            }
            case MigrationBranchVerified e -> w.putString(e.migrationId()).putString(e.graphBranch())
                    .putString(e.digest());
            case MigrationStampWritten e -> w.putString(e.migrationId()).putInt(e.stamp());
            case MigrationRefused e -> {
                w.putString(e.migrationId()).putString(e.reason()).putString(e.graphBranch()).putString(e.table());
                putStrings(w, e.keys());
            }
            case RecoveryStarted e -> w.putString(e.recoveryId()).putLong(e.checkpointSequence())
                    .putLong(e.lastSequence());
            case RecoveryFinished e -> {
                w.putString(e.recoveryId()).putInt(e.classifications().size());
                for (RecoveryClassification c : e.classifications()) {
                    w.putString(c.subjectId()).putShort(c.kind().code()).putString(c.table()).putString(c.detail());
                }
                w.putString(e.headsDigest());
            }
            case TornTailCut e -> w.putLong(e.previousEpoch()).putLong(e.lastGoodSequence()).putLong(e.excerptsCut())
                    .putString(e.reason());
            case LoadProgress e -> w.putString(e.intentId()).putInt(e.batchIndex()).putString(e.tableBranch())
                    .putLong(e.achievedVersion()).putLong(e.rows())
                    .putBytes(e.batchKeys() == null ? null : e.batchKeys().encode());
            case TableVersionSetAside e -> {
                w.putString(e.recoveryId()).putString(e.graphBranch()).putString(e.table()).putString(e.tableBranch())
                        .putLong(e.version());
                putStrings(w, e.intentIds());
                putStrings(w, e.files());
                putStrings(w, e.damaged());
                w.putString(e.destination()).putString(e.reason());
            }
            case ForeignCommitFound e -> {
                putStrings(w, e.intentIds());
                w.putString(e.graphBranch()).putString(e.table()).putString(e.tableBranch()).putLong(e.baseVersion())
                        .putLong(e.achievedVersion());
                w.putInt(e.foreignVersions().size());
                for (long v : e.foreignVersions()) {
                    w.putLong(v);
                }
                w.putInt(e.duplicatesChecked() ? 1 : 0);
                putStrings(w, e.duplicateKeys());
                w.putString(e.detail());
            }
            case JournalEvent.RowsRecorded e -> w.putString(e.intentId()).putString(e.graphBranch()).putString(e.table())
                    .putInt(e.rowCount()).putBytes(e.rows());
            case JournalEvent.RowsReleased e -> w.putString(e.intentId()).putString(e.graphBranch()).putString(e.table())
                    .putInt(e.rowCount()).putLong(e.rowsBytes()).putBytes(e.recordHash());
            case JournalEvent.FoldPlanned e -> w.putString(e.intentId()).putString(e.graphBranch()).putString(e.table())
                    .putLong(e.throughSequence()).putInt(e.writes())
                    .putBytes(e.deletedKeys() == null ? null : e.deletedKeys().encode());
            case JournalEvent.VersionsExpired e -> w.putString(e.table()).putString(e.tableBranch())
                    .putLong(e.beforeVersion()).putString(e.rule());
            case JournalEvent.ReceiptsExpired e -> w.putLong(e.throughSequence()).putString(e.rule());
            case JournalEvent.CatalogRecorded e -> w.putString(e.digest()).putString(e.catalog()).putString(e.reason());
            case JournalEvent.TransactionCommitted e -> {
                w.putString(e.transactionId()).putString(e.graphBranch());
                putStrings(w, e.intentIds());
            }
            case JournalEvent.TransactionStarted e -> {
                w.putString(e.transactionId()).putString(e.graphBranch());
                putStrings(w, e.intentIds());
            }
            case JournalEvent.DuplicatesRepaired e -> {
                w.putString(e.intentId()).putString(e.graphBranch()).putString(e.table()).putString(e.tableBranch())
                        .putLong(e.imageVersion()).putInt(e.adoptedVersions().size());
                for (long v : e.adoptedVersions()) {
                    w.putLong(v);
                }
                w.putString(e.policy()).putBoolean(e.primaryKeyReinstalled()).putInt(e.rows().size());
                for (io.palisade.journal.RemovedRow row : e.rows()) {
                    w.putString(row.key()).putLong(row.rowAddress()).putLong(row.keptRowAddress()).putString(row.values());
                }
            }
        }
        return w.position() - offset;
    }

    /**
     * Decodes a payload of type {@code type}. An unknown type code, an unknown enum code or a payload
     * that does not decode exactly throws {@link MalformedPayloadException}.
     */
    public static JournalEvent decode(short type, DirectBuffer buffer, int offset, int length) {
        PayloadReader r = new PayloadReader(buffer, offset, length);
        JournalEvent event;
        try {
            event = decode0(type, r);
        } catch (NullPointerException | IllegalArgumentException | ValidationException e) {
            throw new MalformedPayloadException("payload of type " + type + " does not form a valid event: " + e, e);
        }
        if (r.remaining() != 0) {
            throw new MalformedPayloadException(r.remaining() + " bytes left over after a type " + type + " payload");
        }
        return event;
    }

    private static JournalEvent decode0(short type, PayloadReader r) {
        return switch (type) {
            case WRITER_STARTED -> new WriterStarted(r.getLong(), r.getString(), r.getLong(), r.getString(),
                    r.getString(), r.getInt());
            case INTENT_RECORDED -> getIntent(r, true);
            case WRITE_JOURNALED -> {
                IntentRecorded intent = getIntent(r, false);
                int rowCount = r.getInt();
                byte[] rows = r.getBytes();
                if (rows == null || rowCount < 0) {
                    throw new MalformedPayloadException("write_journaled: missing rows or a negative row count");
                }
                yield new JournalEvent.WriteJournaled(intent, rowCount, rows);
            }
            case WRITE_RELEASED -> {
                IntentRecorded intent = getIntent(r, false);
                int rowCount = r.getInt();
                long rowsBytes = r.getLong();
                byte[] hash = r.getBytes();
                if (hash == null || hash.length != 32 || rowCount < 0 || rowsBytes < 0) {
                    throw new MalformedPayloadException("write_released: negative count or a hash that is not 32 bytes");
                }
                yield new JournalEvent.WriteReleased(intent, rowCount, rowsBytes, hash);
            }
            case TABLE_COMMITTED -> new TableCommitted(getStrings(r), r.getString(), r.getString(), r.getString(),
                    r.getLong());
            case HEAD_PUBLISHED -> {
                int n = r.getCount();
                List<HeadTransition> ts = new ArrayList<>(n);
                for (int i = 0; i < n; i++) {
                    ts.add(getTransition(r));
                }
                yield new HeadPublished(ts);
            }
            case INTENT_COMPLETED -> {
                String intentId = r.getString();
                IntentOutcome outcome = IntentOutcome.ofCode(r.getShort());
                if (outcome == null) {
                    throw new MalformedPayloadException("unknown intent outcome code");
                }
                yield new IntentCompleted(intentId, outcome, r.getString(), r.getNullableString(), getStrings(r));
            }
            case GRAPH_BRANCH_CREATED -> new GraphBranchCreated(r.getString(), r.getString(), r.getLong());
            case GRAPH_BRANCH_DELETED -> new GraphBranchDeleted(r.getString());
            case CHECKPOINT_WRITTEN -> new CheckpointWritten(r.getLong(), r.getString(), r.getString());
            case MIGRATION_CLAIMED -> new MigrationClaimed(r.getString(), r.getString(), r.getInt(), r.getInt());
            case MIGRATION_UNIT_PLANNED -> new MigrationUnitPlanned(r.getString(), r.getString(), r.getString(),
                    r.getString(), r.getString(), r.getLong(), r.getBoolean());
            case MIGRATION_UNIT_FORKED -> new MigrationUnitForked(r.getString(), r.getString(), r.getString(),
                    r.getLong(), r.getLong());
            case MIGRATION_PK_INSTALLED -> new MigrationPkInstalled(r.getString(), r.getString(), r.getString(),
                    r.getString(), r.getLong(), r.getBoolean());
            case MIGRATION_UNIT_PUBLISHED -> new MigrationUnitPublished(r.getString(), r.getString(),
                    getTransition(r), r.getString());
            case MIGRATION_BRANCH_VERIFIED -> new MigrationBranchVerified(r.getString(), r.getString(), r.getString());
            case MIGRATION_STAMP_WRITTEN -> new MigrationStampWritten(r.getString(), r.getInt());
            case MIGRATION_REFUSED -> new MigrationRefused(r.getString(), r.getString(), r.getNullableString(),
                    r.getNullableString(), getStrings(r));
            case RECOVERY_STARTED -> new RecoveryStarted(r.getString(), r.getLong(), r.getLong());
            case RECOVERY_FINISHED -> {
                String id = r.getString();
                int n = r.getCount();
                List<RecoveryClassification> cs = new ArrayList<>(n);
                for (int i = 0; i < n; i++) {
                    String subject = r.getString();
                    RecoveryClassification.Kind kind = RecoveryClassification.Kind.ofCode(r.getShort());
                    if (kind == null) {
                        throw new MalformedPayloadException("unknown recovery classification code");
                    }
                    cs.add(new RecoveryClassification(subject, kind, r.getString(), r.getString()));
                }
                yield new RecoveryFinished(id, cs, r.getString());
            }
            case TORN_TAIL_CUT -> new TornTailCut(r.getLong(), r.getLong(), r.getLong(), r.getString());
            case LOAD_PROGRESS -> {
                String intentId = r.getString();
                int batchIndex = r.getInt();
                String tableBranch = r.getString();
                long version = r.getLong();
                long rows = r.getLong();
                byte[] kf = r.getNullableBytes();
                yield new LoadProgress(intentId, batchIndex, tableBranch, version, rows,
                        kf == null ? null : KeyFilter.decode(kf));
            }
            case TABLE_VERSION_SET_ASIDE -> new TableVersionSetAside(r.getString(), r.getString(), r.getString(),
                    r.getString(), r.getLong(), getStrings(r), getStrings(r), getStrings(r), r.getString(), r.getString());
            case ROWS_RECORDED -> {
                String intent = r.getString();
                String graphBranch = r.getString();
                String table = r.getString();
                int rowCount = r.getInt();
                byte[] rows = r.getBytes();
                if (intent == null || graphBranch == null || table == null || rows == null || rowCount < 0) {
                    throw new MalformedPayloadException("rows_recorded: missing field or negative row count");
                }
                yield new JournalEvent.RowsRecorded(intent, graphBranch, table, rowCount, rows);
            }
            case ROWS_RELEASED -> {
                String intent = r.getString();
                String graphBranch = r.getString();
                String table = r.getString();
                int rowCount = r.getInt();
                long rowsBytes = r.getLong();
                byte[] hash = r.getBytes();
                if (intent == null || graphBranch == null || table == null || hash == null || hash.length != 32
                        || rowCount < 0 || rowsBytes < 0) {
                    throw new MalformedPayloadException("rows_released: missing field, negative count or a hash that is"
                            + " not 32 bytes");
                }
                yield new JournalEvent.RowsReleased(intent, graphBranch, table, rowCount, rowsBytes, hash);
            }
            case FOLD_PLANNED -> {
                String intent = r.getString();
                String graphBranch = r.getString();
                String table = r.getString();
                long through = r.getLong();
                int writes = r.getInt();
                byte[] deleted = r.getNullableBytes();
                if (intent == null || graphBranch == null || table == null || writes < 1) {
                    throw new MalformedPayloadException("fold_planned: missing field or no writes");
                }
                yield new JournalEvent.FoldPlanned(intent, graphBranch, table, through, writes,
                        deleted == null ? null : KeyFilter.decode(deleted));
            }
            case VERSIONS_EXPIRED -> {
                String table = r.getString();
                String tableBranch = r.getString();
                long before = r.getLong();
                String rule = r.getString();
                if (table == null || tableBranch == null || rule == null || before < 1) {
                    throw new MalformedPayloadException("versions_expired: missing field or a version below 1");
                }
                yield new JournalEvent.VersionsExpired(table, tableBranch, before, rule);
            }
            case RECEIPTS_EXPIRED -> {
                long through = r.getLong();
                String rule = r.getString();
                if (rule == null || through < 0) {
                    throw new MalformedPayloadException("receipts_expired: missing rule or a sequence below 0");
                }
                yield new JournalEvent.ReceiptsExpired(through, rule);
            }
            case TRANSACTION_COMMITTED -> transaction(r, "transaction_committed", JournalEvent.TransactionCommitted::new);
            case TRANSACTION_STARTED -> transaction(r, "transaction_started", JournalEvent.TransactionStarted::new);
            case CATALOG_RECORDED -> {
                String digest = r.getString();
                String catalog = r.getString();
                String reason = r.getString();
                if (digest == null || catalog == null || reason == null) {
                    throw new MalformedPayloadException("catalog_recorded: missing field");
                }
                yield new JournalEvent.CatalogRecorded(digest, catalog, reason);
            }
            case FOREIGN_COMMIT_FOUND -> {
                List<String> intents = getStrings(r);
                String graphBranch = r.getString();
                String table = r.getString();
                String tableBranch = r.getString();
                long base = r.getLong();
                long achieved = r.getLong();
                int n = r.getCount();
                List<Long> versions = new ArrayList<>(n);
                for (int i = 0; i < n; i++) {
                    versions.add(r.getLong());
                }
                int checked = r.getInt();
                if (checked != 0 && checked != 1) {
                    throw new MalformedPayloadException("foreign_commit_found: duplicates_checked flag " + checked);
                }
                yield new ForeignCommitFound(intents, graphBranch, table, tableBranch, base, achieved, versions,
                        checked == 1, getStrings(r), r.getString());
            }
            case DUPLICATES_REPAIRED -> {
                String intentId = r.getString();
                String graphBranch = r.getString();
                String table = r.getString();
                String tableBranch = r.getString();
                long image = r.getLong();
                int n = r.getCount();
                List<Long> adopted = new ArrayList<>(n);
                for (int i = 0; i < n; i++) {
                    adopted.add(r.getLong());
                }
                String policy = r.getString();
                boolean pk = r.getBoolean();
                int m = r.getCount();
                List<io.palisade.journal.RemovedRow> rows = new ArrayList<>(m);
                for (int i = 0; i < m; i++) {
                    rows.add(new io.palisade.journal.RemovedRow(r.getString(), r.getLong(), r.getLong(), r.getString()));
                }
                yield new JournalEvent.DuplicatesRepaired(intentId, graphBranch, table, tableBranch, image, adopted, policy,
                        pk, rows);
            }
            default -> throw new MalformedPayloadException("record type code " + type
                    + " is unknown to this build (journal format " + RecordDescriptor.FORMAT_VERSION
                    + "); it was written by a newer Palisade and is refused, never skipped");
        };
    }

    private static void putStrings(PayloadWriter w, List<String> list) {
        w.putInt(list.size());
        for (String s : list) {
            w.putString(s);
        }
    }

    /** Makes a transaction record of its id, graph branch and parts. */
    private interface TransactionRecord {
        JournalEvent of(String transactionId, String graphBranch, List<String> intentIds);
    }

    /** A transaction record ({@code type}): the fields both kinds carry, its id, graph branch and parts. */
    private static JournalEvent transaction(PayloadReader r, String type, TransactionRecord record) {
        String id = r.getString();
        String graphBranch = r.getString();
        List<String> intents = getStrings(r);
        if (id == null || graphBranch == null) {
            throw new MalformedPayloadException(type + ": missing field");
        }
        return record.of(id, graphBranch, intents);
    }

    private static List<String> getStrings(PayloadReader r) {
        int n = r.getCount();
        List<String> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            out.add(r.getString());
        }
        return out;
    }

    private static void putBase(PayloadWriter w, ExpectedBase b) {
        w.putString(b.tableBranch()).putLong(b.version()).putLong(b.schemaId()).putLong(b.graphSequence());
    }

    private static ExpectedBase getBase(PayloadReader r) {
        return new ExpectedBase(r.getString(), r.getLong(), r.getLong(), r.getLong());
    }

    private static void putHead(PayloadWriter w, TableHead h) {
        if (h == null) {
            w.putBoolean(false);
            return;
        }
        w.putBoolean(true).putString(h.tableBranch()).putLong(h.version()).putLong(h.schemaId()).putLong(h.incarnation());
    }

    private static TableHead getHead(PayloadReader r) {
        if (!r.getBoolean()) {
            return null;
        }
        return new TableHead(r.getString(), r.getLong(), r.getLong(), r.getLong());
    }

    private static void putTransition(PayloadWriter w, HeadTransition t) {
        w.putString(t.graphBranch()).putString(t.table());
        putHead(w, t.from());
        putHead(w, t.to());
    }

    private static HeadTransition getTransition(PayloadReader r) {
        String gb = r.getString();
        String table = r.getString();
        TableHead from = getHead(r);
        TableHead to = getHead(r);
        return new HeadTransition(gb, table, from, to);
    }

    /** An intent's fields, without its request digest (which each record type places itself). */
    private static void putIntent(PayloadWriter w, IntentRecorded e) {
        w.putString(e.intentId()).putString(e.idempotencyKey()).putShort(e.operation().code())
                .putString(e.graphBranch()).putString(e.table());
        putBase(w, e.expectedBase());
        w.putBytes(e.actions()).putBytes(e.keyFilter() == null ? null : e.keyFilter().encode());
        putTransition(w, e.intendedTransition());
    }

    /**
     * An intent's fields as {@link #putIntent} wrote them, then its request digest: for {@code intent_recorded} a
     * trailing field present when there are bytes left ({@code trailingDigest}), otherwise a nullable string.
     */
    private static IntentRecorded getIntent(PayloadReader r, boolean trailingDigest) {
        String intentId = r.getString();
        String idem = r.getNullableString();
        LogicalOperation op = LogicalOperation.ofCode(r.getShort());
        if (op == null) {
            throw new MalformedPayloadException("unknown logical operation code");
        }
        String graphBranch = r.getString();
        String table = r.getString();
        ExpectedBase base = getBase(r);
        byte[] actions = r.getBytes();
        byte[] kf = r.getNullableBytes();
        HeadTransition t = getTransition(r);
        String digest = trailingDigest ? (r.remaining() > 0 ? r.getString() : null) : r.getNullableString();
        return new IntentRecorded(intentId, idem, op, graphBranch, table, base, actions,
                kf == null ? null : KeyFilter.decode(kf), t, digest);
    }
}
