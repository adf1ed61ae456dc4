package io.palisade.coordinator.internal;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.palisade.coordinator.Catalog;
import io.palisade.coordinator.Repair.Duplicates;
import io.palisade.coordinator.Repair.Report;
import io.palisade.coordinator.Repair.Request;
import io.palisade.coordinator.Repair.Status;
import io.palisade.coordinator.Repair;
import io.palisade.coordinator.TableLocation;
import io.palisade.fencing.CommitStateUnknownException;
import io.palisade.fencing.ForeignCommitException;
import io.palisade.fencing.FormatStamp;
import io.palisade.fencing.GraphRefusedException;
import io.palisade.fencing.KeyFilter;
import io.palisade.fencing.ValidationException;
import io.palisade.heads.HeadsReplayer;
import io.palisade.heads.HeadsState;
import io.palisade.heads.Pin;
import io.palisade.journal.Durability;
import io.palisade.journal.ExpectedBase;
import io.palisade.journal.HeadTransition;
import io.palisade.journal.IntentOutcome;
import io.palisade.journal.Journal;
import io.palisade.journal.JournalEvent.DuplicatesRepaired;
import io.palisade.journal.JournalEvent.HeadPublished;
import io.palisade.journal.JournalEvent.IntentCompleted;
import io.palisade.journal.JournalEvent.IntentRecorded;
import io.palisade.journal.JournalEvent.TableCommitted;
import io.palisade.journal.JournalEvent;
import io.palisade.journal.JournalOptions;
import io.palisade.journal.LogicalOperation;
import io.palisade.journal.RemovedRow;
import io.palisade.journal.TableHead;
import io.palisade.recovery.Recovery;
import io.palisade.recovery.RecoveryReport;
import io.palisade.substrate.IdCensus;
import io.palisade.substrate.KeyedSchemas;
import io.palisade.substrate.TableRef;
import io.palisade.substrate.TableStore;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The repair of one graph table (the engine of {@link Repair}; its pipeline and crash points are documented there). */
public final class Repairer {
    private static final Logger LOG = LoggerFactory.getLogger(Repairer.class);
    private static final ObjectMapper JSON = new ObjectMapper();

    private Repairer() {
    }

    /** Runs the repair of the graph at {@code root}; takes the writer lease for its duration. */
    public static Report run(Path root, Request request, Map<String, String> storageOptions) {
        GraphLayout layout = new GraphLayout(root);
        if (!layout.exists()) {
            throw new ValidationException("no graph at " + root + " (missing " + layout.catalogFile() + ")");
        }
        HeadsState peek = HeadsReplayer.of(layout.palisade()).replay().state();
        Catalog catalog = io.palisade.coordinator.StoredCatalog.read(layout.catalogFile(), peek).catalog();
        Catalog.TableDef def = catalog.table(request.table()).orElseThrow(() -> new ValidationException("table '"
                + request.table() + "' is not in the catalog of " + root));
        if (!def.kind().keyed()) {
            throw new ValidationException("table '" + request.table() + "' is append-only: it has no key to repair");
        }
        int stamp = GraphFormat.read(root).orElse(peek.formatStamp() <= 0 ? FormatStamp.FENCING.number() : peek.formatStamp());
        boolean fencing = GraphFormat.check(root, stamp) == FormatStamp.FENCING;
        if (peek.migrations().values().stream().anyMatch(m -> !m.finished())) {
            throw new GraphRefusedException("graph " + root + " has a PK migration in progress; finish it with "
                    + "`palisade migrate pk` before repairing");
        }
        Journal journal = Journal.open(layout.palisade(), JournalOptions.defaults()
                .withDefaultDurability(request.durability()).withBinaryVersion(BinaryVersion.VERSION).withFormatStamp(stamp));
        TableStore store = null;
        try {
            store = TableLocation.of(root, storageOptions).openForWriting(request.durability() == Durability.POWER_LOSS);
            HeadsReplayer.Replay replay = HeadsReplayer.of(layout.palisade()).replay();
            HeadsState state = replay.state();
            String recovered = "";
            if (!state.openIntents().isEmpty() || state.openRecovery().isPresent()) {
                // an interrupted repair (or any write) is rolled forward or back first, like at every open
                RecoveryReport r = Recovery.run(journal, replay, store, false);
                state = r.state();
                recovered = r.classifications().stream().map(c -> c.kind() + " " + c.subjectId() + " (" + c.detail() + ")")
                        .reduce((a, b) -> a + "; " + b).orElse("");
            }
            return repair(journal, store, state, request, fencing, recovered);
        } finally {
            try {
                journal.close();
            } finally {
                if (store != null) {
                    store.close();
                }
            }
        }
    }

    private static Report repair(Journal journal, TableStore store, HeadsState state, Request req, boolean fencing,
                                 String recovered) {
        String table = req.table();
        String gb = req.graphBranch();
        Pin pin = state.pins(gb).get(table);
        if (pin == null) {
            throw new ValidationException("table '" + table + "' has no head on graph branch '" + gb + "'");
        }
        if (!pin.owned()) {
            throw new ValidationException("table '" + table + "' on graph branch '" + gb + "' is inherited from '"
                    + pin.inheritedFrom() + "'; repair the branch it is inherited from");
        }
        TableHead head = pin.head();
        String tb = head.tableBranch();
        if (!TableRef.MAIN.equals(tb)) {
            throw new ValidationException("table '" + table + "' on graph branch '" + gb + "' is table branch '" + tb
                    + "'; a repair rewrites table branch main only");
        }
        if (!store.tornVersions(table, tb, head.version()).isEmpty()) {
            throw new GraphRefusedException("table '" + table + "' branch '" + tb + "' ends in a version torn by a power "
                    + "cut; run `palisade recover GRAPH` first (it sets torn versions aside)");
        }
        long latest = store.latest(table, tb).version();
        List<Long> adopted = new ArrayList<>();
        for (long v = head.version() + 1; v <= latest; v++) {
            adopted.add(v);
        }
        TableRef image = new TableRef(tb, latest);
        IdCensus census = store.idCensus(table, image, 10);
        String where = "table '" + table + "' (graph branch '" + gb + "', table branch '" + tb + "') at version " + latest;
        List<String> unrepairable = new ArrayList<>();
        if (!census.hasId()) {
            unrepairable.add("has no 'id' column");
        } else if (census.idNullable()) {
            unrepairable.add("has a nullable 'id', which cannot carry the primary key");
        }
        if (census.nullIds() > 0) {
            unrepairable.add("has " + census.nullIds() + " row(s) with a null id");
        }
        List<String> pk = census.primaryKey();
        if (!pk.isEmpty() && !pk.equals(List.of(KeyedSchemas.ID))) {
            unrepairable.add("marks " + pk + " as its primary key; a primary key is never changed");
        }
        if (!unrepairable.isEmpty()) {
            throw refused(req, head, latest, adopted, census, where + " cannot be repaired: it "
                    + String.join("; and it ", unrepairable) + ". Nothing was changed; restore the table directory from "
                    + "a backup (docs/recovery.md \"Foreign commits\")");
        }
        boolean reinstall = fencing && pk.isEmpty();
        if (census.duplicatedKeys() == 0 && !reinstall) {
            String msg = adopted.isEmpty() ? "" : "; its foreign versions pass the adoption checks: adopt them with "
                    + "`palisade recover GRAPH --adopt-foreign`";
            LOG.info("repair of {}: nothing to repair{}", where, msg);
            return new Report(Status.NOTHING_TO_REPAIR, null, table, gb, tb, head.version(), latest, head.version(),
                    adopted, false, req.duplicates().cliName(), 0, List.of(), -1, recovered);
        }
        if (census.duplicatedKeys() > 0 && req.duplicates() == Duplicates.FAIL) {
            throw refused(req, head, latest, adopted, census, "repair refused (--duplicates fail): " + where + " holds "
                    + census.duplicatedKeys() + " id(s) more than once (" + census.extraRows() + " extra row(s)): "
                    + census.describeSample() + ". Nothing was changed; choose which row to keep with --duplicates "
                    + "keep-newest or keep-oldest");
        }
        // which rows go
        Map<String, List<Map<String, Object>>> byKey = new TreeMap<>();
        for (Map<String, Object> row : store.duplicatedRows(table, image)) {
            byKey.computeIfAbsent(String.valueOf(row.get(KeyedSchemas.ID)), k -> new ArrayList<>()).add(row);
        }
        List<RemovedRow> removed = new ArrayList<>();
        Set<Long> addresses = new HashSet<>();
        for (Map.Entry<String, List<Map<String, Object>>> e : byKey.entrySet()) {
            List<Map<String, Object>> rows = new ArrayList<>(e.getValue());
            rows.sort((a, b) -> Long.compareUnsigned(address(a), address(b)));
            Map<String, Object> kept = req.duplicates() == Duplicates.KEEP_OLDEST ? rows.get(0) : rows.get(rows.size() - 1);
            for (Map<String, Object> r : rows) {
                if (r != kept) {
                    removed.add(new RemovedRow(e.getKey(), address(r), address(kept), values(r)));
                    addresses.add(address(r));
                }
            }
        }
        String intent = "i-" + UUID.randomUUID();
        int idField = KeyFilterFields.idFieldId(store, table, head);
        KeyFilter keys = census.idType() != null && census.idType().startsWith("Int")
                ? KeyFilter.ofLongs(idField, byKey.keySet().stream().mapToLong(Long::parseLong).toArray())
                : KeyFilter.ofStrings(idField, byKey.keySet());
        TableHead intended = new TableHead(tb, latest + 1, head.schemaId(), head.incarnation());
        List<JournalEvent> phaseA = List.of(
                new IntentRecorded(intent, null, LogicalOperation.REPAIR, gb, table,
                        new ExpectedBase(tb, latest, head.schemaId(), state.lastSequence()),
                        io.palisade.fencing.action.ActionCodec.encode(List.of()), keys,
                        new HeadTransition(gb, table, head, intended)),
                new DuplicatesRepaired(intent, gb, table, tb, latest, adopted, req.duplicates().cliName(), reinstall, removed));
        journal.appendBatch(phaseA, Durability.POWER_LOSS);
        CrashPoints.hit(Repair.AFTER_INTENT);
        TableRef achieved = store.rewriteWithout(table, image, addresses, reinstall);
        CrashPoints.hit(Repair.AFTER_COMMIT);
        if (achieved.version() != latest + 1) {
            throw new CommitStateUnknownException("table '" + table + "': the repair's commit reached version "
                    + achieved.version() + ", not " + (latest + 1) + "; another writer committed meanwhile. The intent "
                    + intent + " stays open; the next open's recovery decides it", null);
        }
        IdCensus after = store.idCensus(table, achieved, 10);
        if (!after.idsClean() || (fencing && !after.primaryKey().equals(List.of(KeyedSchemas.ID)))) {
            throw new CommitStateUnknownException("table '" + table + "': the repaired version " + achieved.version()
                    + " still breaks the key contract (" + after.duplicatedKeys() + " duplicated ids, primary key "
                    + String.join(", ", after.primaryKey()) + "); the intent " + intent + " stays open", null);
        }
        TableHead to = new TableHead(tb, achieved.version(), head.schemaId(), head.incarnation());
        String reason = "repair: " + (adopted.isEmpty() ? "" : "adopted foreign version(s) " + adopted.get(0)
                + (adopted.size() > 1 ? " to " + adopted.get(adopted.size() - 1) : "") + ", ")
                + "removed " + removed.size() + " row(s) of " + byKey.size() + " duplicated id(s) (" + req.duplicates().cliName()
                + ")" + (reinstall ? ", re-installed the primary key 'id'" : "");
        long first = journal.appendBatch(List.of(
                new TableCommitted(List.of(intent), gb, table, tb, achieved.version()),
                new HeadPublished(List.of(new HeadTransition(gb, table, head, to))),
                new IntentCompleted(intent, IntentOutcome.COMMITTED, reason, null, List.of())), Durability.POWER_LOSS);
        LOG.warn("repair of {}: {}", where, reason);
        return new Report(Status.REPAIRED, intent, table, gb, tb, head.version(), latest, achieved.version(), adopted,
                reinstall, req.duplicates().cliName(), byKey.size(), removed, first + 2, recovered);
    }

    private static RuntimeException refused(Request req, TableHead head, long latest, List<Long> adopted, IdCensus census,
                                            String message) {
        if (adopted.isEmpty()) {
            return new ValidationException(message);
        }
        return new ForeignCommitException(ForeignCommitException.Situation.ADOPTION_REFUSED, req.table(),
                req.graphBranch(), head.tableBranch(), head.version(), latest, adopted, List.of(), true,
                census.sampleKeys(), message);
    }

    private static long address(Map<String, Object> row) {
        return ((Number) row.get(TableStore.ROW_ADDRESS)).longValue();
    }

    private static String values(Map<String, Object> row) {
        Map<String, Object> m = new LinkedHashMap<>();
        row.forEach((k, v) -> {
            if (!k.equals(TableStore.ROW_ADDRESS)) {
                m.put(k, v);
            }
        });
        try {
            return JSON.writeValueAsString(m);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            return String.valueOf(m);
        }
    }

    /** The field id of {@code id}, read from the head (which carried the key). */
    private static final class KeyFilterFields {
        static int idFieldId(TableStore store, String table, TableHead head) {
            try (var t = store.openKeyed(table, new TableRef(head.tableBranch(), head.version()))) {
                return t.idFieldId();
            } catch (GraphRefusedException e) { // a pre-fencing head has no key yet: the field id of 'id' all the same
                return store.fieldId(table, new TableRef(head.tableBranch(), head.version()), KeyedSchemas.ID);
            }
        }
    }
}
