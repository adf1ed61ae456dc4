package io.palisade.journal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.palisade.fencing.KeyFilter;
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

import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.util.Base64;
import java.util.List;

/**
 * Renders records as JSON with stable snake_case field names: {@code seq}, {@code time} (ISO-8601),
 * {@code epoch}, {@code type} (the event name in snake_case), then the event's fields. One object per
 * line for JSON Lines. Field names are part of the audit format: renaming one is a breaking change.
 * Thread-safe.
 */
public final class JsonRenderer {
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private JsonRenderer() {
    }

    /** One record as a single-line JSON object. */
    public static String toJson(JournalRecord record) {
        try {
            return MAPPER.writeValueAsString(toTree(record));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot render journal record " + record.sequence(), e);
        }
    }

    /** Writes each record as one JSON line. */
    public static void writeJsonl(Iterable<JournalRecord> records, Writer out) {
        try {
            for (JournalRecord r : records) {
                out.write(toJson(r));
                out.write('\n');
            }
            out.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The snake_case type name of an event, as rendered in {@code type}. */
    public static String typeName(JournalEvent event) {
        return switch (event) {
            case WriterStarted e -> "writer_started";
            case IntentRecorded e -> "intent_recorded";
            case TableCommitted e -> "table_committed";
            case HeadPublished e -> "head_published";
            case IntentCompleted e -> "intent_completed";
            case GraphBranchCreated e -> "graph_branch_created";
            case GraphBranchDeleted e -> "graph_branch_deleted";
            case CheckpointWritten e -> "checkpoint_written";
            case MigrationClaimed e -> "migration_claimed";
            case MigrationUnitPlanned e -> "migration_unit_planned";
            case MigrationUnitForked e -> "migration_unit_forked";
            case MigrationPkInstalled e -> "migration_pk_installed";
            case MigrationUnitPublished e -> "migration_unit_published";
            case MigrationBranchVerified e -> "migration_branch_verified";
            case MigrationStampWritten e -> "migration_stamp_written";
            case MigrationRefused e -> "migration_refused";
            case RecoveryStarted e -> "recovery_started";
            case RecoveryFinished e -> "recovery_finished";
            case TornTailCut e -> "torn_tail_cut";
            case LoadProgress e -> "load_progress";
            case TableVersionSetAside e -> "table_version_set_aside";
            case ForeignCommitFound e -> "foreign_commit_found";
            case JournalEvent.DuplicatesRepaired e -> "duplicates_repaired";
            case JournalEvent.RowsRecorded e -> "rows_recorded";
            case JournalEvent.RowsReleased e -> "rows_released";
            case JournalEvent.WriteJournaled e -> "write_journaled";
            case JournalEvent.WriteReleased e -> "write_released";
            case JournalEvent.FoldPlanned e -> "fold_planned";
            case JournalEvent.VersionsExpired e -> "versions_expired";
            case JournalEvent.ReceiptsExpired e -> "receipts_expired";
            case JournalEvent.CatalogRecorded e -> "catalog_recorded";
            case JournalEvent.TransactionCommitted e -> "transaction_committed";
            case JournalEvent.TransactionStarted e -> "transaction_started";
        };
    }

    /** The JSON tree of one record. */
    public static ObjectNode toTree(JournalRecord record) {
        ObjectNode n = MAPPER.createObjectNode();
        n.put("seq", record.sequence());
        n.put("time", record.time().toString());
        n.put("epoch", record.writerEpoch());
        n.put("type", typeName(record.event()));
        switch (record.event()) {
            case WriterStarted e -> {
                n.put("writer_epoch", e.epoch());
                n.put("owner_token", e.ownerToken());
                n.put("pid", e.pid());
                n.put("host", e.host());
                n.put("binary_version", e.binaryVersion());
                n.put("format_stamp", e.formatStamp());
            }
            case IntentRecorded e -> intent(n, e);
            case JournalEvent.WriteJournaled e -> {
                intent(n, e.intent());
                n.put("row_count", e.rowCount());
                n.put("rows_bytes", e.rows().length);
                n.put("rows_base64", Base64.getEncoder().encodeToString(e.rows()));
            }
            case JournalEvent.WriteReleased e -> {
                intent(n, e.intent());
                n.put("row_count", e.rowCount());
                n.put("rows_bytes", e.rowsBytes());
                n.put("released_record_sha256", java.util.HexFormat.of().formatHex(e.recordHash()));
            }
            case TableCommitted e -> {
                strings(n.putArray("intent_ids"), e.intentIds());
                n.put("graph_branch", e.graphBranch());
                n.put("table", e.table());
                n.put("table_branch", e.tableBranch());
                n.put("achieved_version", e.achievedVersion());
            }
            case HeadPublished e -> {
                ArrayNode a = n.putArray("transitions");
                for (HeadTransition t : e.transitions()) {
                    transition(a.addObject(), t);
                }
            }
            case IntentCompleted e -> {
                n.put("intent_id", e.intentId());
                n.put("outcome", e.outcome().name());
                n.put("reason", e.reason());
                n.put("conflicting_intent", e.conflictingIntent());
                strings(n.putArray("conflicting_keys"), e.conflictingKeys());
            }
            case GraphBranchCreated e -> {
                n.put("branch", e.branch());
                n.put("from_branch", e.fromBranch());
                n.put("from_sequence", e.fromSequence());
            }
            case GraphBranchDeleted e -> n.put("branch", e.branch());
            case CheckpointWritten e -> {
                n.put("covered_sequence", e.coveredSequence());
                n.put("file", e.file());
                n.put("heads_digest", e.headsDigest());
            }
            case MigrationClaimed e -> {
                n.put("migration_id", e.migrationId());
                n.put("owner_token", e.ownerToken());
                n.put("from_stamp", e.fromStamp());
                n.put("to_stamp", e.toStamp());
            }
            case MigrationUnitPlanned e -> {
                n.put("migration_id", e.migrationId());
                n.put("unit_id", e.unitId());
                n.put("graph_branch", e.graphBranch());
                n.put("table", e.table());
                n.put("pinned_table_branch", e.pinnedTableBranch());
                n.put("pinned_version", e.pinnedVersion());
                n.put("lazy_inherited", e.lazyInherited());
            }
            case MigrationUnitForked e -> {
                n.put("migration_id", e.migrationId());
                n.put("unit_id", e.unitId());
                n.put("table_branch", e.tableBranch());
                n.put("forked_from_version", e.forkedFromVersion());
                n.put("achieved_version", e.achievedVersion());
            }
            case MigrationPkInstalled e -> {
                n.put("migration_id", e.migrationId());
                n.put("unit_id", e.unitId());
                n.put("table", e.table());
                n.put("table_branch", e.tableBranch());
                n.put("achieved_version", e.achievedVersion());
                n.put("already_present", e.alreadyPresent());
            }
            case MigrationUnitPublished e -> {
                n.put("migration_id", e.migrationId());
                n.put("unit_id", e.unitId());
                transition(n.putObject("transition"), e.transition());
                n.put("digest", e.digest());
            }
            case MigrationBranchVerified e -> {
                n.put("migration_id", e.migrationId());
                n.put("graph_branch", e.graphBranch());
                n.put("digest", e.digest());
            }
            case MigrationStampWritten e -> {
                n.put("migration_id", e.migrationId());
                n.put("stamp", e.stamp());
            }
            case MigrationRefused e -> {
                n.put("migration_id", e.migrationId());
                n.put("reason", e.reason());
                n.put("graph_branch", e.graphBranch());
                n.put("table", e.table());
                strings(n.putArray("keys"), e.keys());
            }
            case RecoveryStarted e -> {
                n.put("recovery_id", e.recoveryId());
                n.put("checkpoint_sequence", e.checkpointSequence());
                n.put("last_sequence", e.lastSequence());
            }
            case RecoveryFinished e -> {
                n.put("recovery_id", e.recoveryId());
                ArrayNode a = n.putArray("classifications");
                for (RecoveryClassification c : e.classifications()) {
                    ObjectNode o = a.addObject();
                    o.put("subject_id", c.subjectId());
                    o.put("kind", c.kind().name());
                    o.put("table", c.table());
                    o.put("detail", c.detail());
                }
                n.put("heads_digest", e.headsDigest());
            }
            case TornTailCut e -> {
                n.put("previous_epoch", e.previousEpoch());
                n.put("last_good_sequence", e.lastGoodSequence());
                n.put("excerpts_cut", e.excerptsCut());
                n.put("reason", e.reason());
            }
            case LoadProgress e -> {
                n.put("intent_id", e.intentId());
                n.put("batch_index", e.batchIndex());
                n.put("table_branch", e.tableBranch());
                n.put("achieved_version", e.achievedVersion());
                n.put("rows", e.rows());
                if (e.batchKeys() == null) {
                    n.putNull("batch_keys");
                } else {
                    keyFilter(n.putObject("batch_keys"), e.batchKeys());
                }
            }
            case TableVersionSetAside e -> {
                n.put("recovery_id", e.recoveryId());
                n.put("graph_branch", e.graphBranch());
                n.put("table", e.table());
                n.put("table_branch", e.tableBranch());
                n.put("version", e.version());
                strings(n.putArray("intent_ids"), e.intentIds());
                strings(n.putArray("files"), e.files());
                strings(n.putArray("damaged"), e.damaged());
                n.put("destination", e.destination());
                n.put("reason", e.reason());
            }
            case ForeignCommitFound e -> {
                strings(n.putArray("intent_ids"), e.intentIds());
                n.put("graph_branch", e.graphBranch());
                n.put("table", e.table());
                n.put("table_branch", e.tableBranch());
                n.put("base_version", e.baseVersion());
                n.put("achieved_version", e.achievedVersion());
                com.fasterxml.jackson.databind.node.ArrayNode fv = n.putArray("foreign_versions");
                e.foreignVersions().forEach(fv::add);
                n.put("duplicates_checked", e.duplicatesChecked());
                strings(n.putArray("duplicate_keys"), e.duplicateKeys());
                n.put("detail", e.detail());
            }
            case JournalEvent.RowsRecorded e -> {
                n.put("intent_id", e.intentId());
                n.put("graph_branch", e.graphBranch());
                n.put("table", e.table());
                n.put("row_count", e.rowCount());
                n.put("rows_bytes", e.rows().length);
                n.put("rows_base64", Base64.getEncoder().encodeToString(e.rows()));
            }
            case JournalEvent.RowsReleased e -> {
                n.put("intent_id", e.intentId());
                n.put("graph_branch", e.graphBranch());
                n.put("table", e.table());
                n.put("row_count", e.rowCount());
                n.put("rows_bytes", e.rowsBytes());
                n.put("released_record_sha256", java.util.HexFormat.of().formatHex(e.recordHash()));
            }
            case JournalEvent.FoldPlanned e -> {
                n.put("intent_id", e.intentId());
                n.put("graph_branch", e.graphBranch());
                n.put("table", e.table());
                n.put("through_sequence", e.throughSequence());
                n.put("writes", e.writes());
                if (e.deletedKeys() == null) {
                    n.putNull("deleted_keys");
                } else {
                    keyFilter(n.putObject("deleted_keys"), e.deletedKeys());
                }
            }
            case JournalEvent.VersionsExpired e -> {
                n.put("table", e.table());
                n.put("table_branch", e.tableBranch());
                n.put("before_version", e.beforeVersion());
                n.put("rule", e.rule());
            }
            case JournalEvent.ReceiptsExpired e -> {
                n.put("through_sequence", e.throughSequence());
                n.put("rule", e.rule());
            }
            case JournalEvent.TransactionCommitted e -> {
                n.put("transaction_id", e.transactionId());
                n.put("graph_branch", e.graphBranch());
                strings(n.putArray("intent_ids"), e.intentIds());
            }
            case JournalEvent.TransactionStarted e -> {
                n.put("transaction_id", e.transactionId());
                n.put("graph_branch", e.graphBranch());
                strings(n.putArray("intent_ids"), e.intentIds());
            }
            case JournalEvent.CatalogRecorded e -> {
                n.put("digest", e.digest());
                n.put("reason", e.reason());
                com.fasterxml.jackson.databind.JsonNode catalog;
                try {
                    catalog = MAPPER.readTree(e.catalog());
                } catch (IOException ex) {
                    catalog = null;
                }
                if (catalog != null && catalog.isObject()) {
                    n.set("catalog", catalog);
                } else {
                    n.put("catalog", e.catalog()); // not a JSON object: shown as it was recorded
                }
            }
            case JournalEvent.DuplicatesRepaired e -> {
                n.put("intent_id", e.intentId());
                n.put("graph_branch", e.graphBranch());
                n.put("table", e.table());
                n.put("table_branch", e.tableBranch());
                n.put("image_version", e.imageVersion());
                ArrayNode adopted = n.putArray("adopted_versions");
                e.adoptedVersions().forEach(adopted::add);
                n.put("policy", e.policy());
                n.put("primary_key_reinstalled", e.primaryKeyReinstalled());
                ArrayNode rows = n.putArray("removed_rows");
                for (RemovedRow row : e.rows()) {
                    ObjectNode o = rows.addObject();
                    o.put("key", row.key());
                    o.put("row_address", row.rowAddress());
                    o.put("kept_row_address", row.keptRowAddress());
                    try {
                        o.set("values", MAPPER.readTree(row.values()));
                    } catch (IOException ex) {
                        o.put("values", row.values()); // journaled text that is not JSON: shown as it is
                    }
                }
            }
        }
        return n;
    }

    private static void strings(ArrayNode a, List<String> values) {
        for (String s : values) {
            a.add(s);
        }
    }

    private static void head(ObjectNode parent, String field, TableHead h) {
        if (h == null) {
            parent.putNull(field);
            return;
        }
        ObjectNode o = parent.putObject(field);
        o.put("table_branch", h.tableBranch());
        o.put("version", h.version());
        o.put("schema_id", h.schemaId());
        o.put("incarnation", h.incarnation());
    }

    private static void transition(ObjectNode o, HeadTransition t) {
        o.put("graph_branch", t.graphBranch());
        o.put("table", t.table());
        head(o, "from", t.from());
        head(o, "to", t.to());
    }

    private static void keyFilter(ObjectNode o, KeyFilter f) {
        o.put("key_type", f.keyType().name());
        ArrayNode ids = o.putArray("field_ids");
        for (int id : f.fieldIds()) {
            ids.add(id);
        }
        o.put("count", f.size());
        strings(o.putArray("keys"), f.keys());
    }

    /** An intent's fields ({@code intent_recorded}, and the intent of a {@code write_journaled}). */
    private static void intent(ObjectNode n, IntentRecorded e) {
        n.put("intent_id", e.intentId());
        n.put("idempotency_key", e.idempotencyKey());
        n.put("operation", e.operation().name().toLowerCase(java.util.Locale.ROOT));
        n.put("graph_branch", e.graphBranch());
        n.put("table", e.table());
        ObjectNode b = n.putObject("expected_base");
        b.put("table_branch", e.expectedBase().tableBranch());
        b.put("version", e.expectedBase().version());
        b.put("schema_id", e.expectedBase().schemaId());
        b.put("graph_sequence", e.expectedBase().graphSequence());
        byte[] actions = e.actions();
        n.put("actions_bytes", actions.length);
        n.put("actions_base64", Base64.getEncoder().encodeToString(actions));
        if (e.keyFilter() == null) {
            n.putNull("key_filter");
        } else {
            keyFilter(n.putObject("key_filter"), e.keyFilter());
        }
        transition(n.putObject("intended_transition"), e.intendedTransition());
        n.put("request_digest", e.requestDigest());
    }
}
