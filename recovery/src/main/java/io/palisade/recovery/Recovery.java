package io.palisade.recovery;

import io.palisade.fencing.GraphRefusedException;
import io.palisade.heads.HeadsState;
import io.palisade.heads.IntentPhase;
import io.palisade.heads.OpenIntent;
import io.palisade.heads.Pin;
import io.palisade.journal.HeadTransition;
import io.palisade.journal.IntentOutcome;
import io.palisade.journal.Journal;
import io.palisade.journal.JournalEvent;
import io.palisade.journal.JournalEvent.HeadPublished;
import io.palisade.journal.JournalEvent.IntentCompleted;
import io.palisade.journal.JournalEvent.LoadProgress;
import io.palisade.journal.JournalCursor;
import io.palisade.journal.JournalReader;
import io.palisade.journal.JournalEvent.TableCommitted;
import io.palisade.journal.JournalRecord;
import io.palisade.journal.RecoveryClassification;
import io.palisade.journal.RecoveryClassification.Kind;
import io.palisade.journal.TableHead;
import io.palisade.substrate.OperationKind;
import io.palisade.substrate.TableRef;
import io.palisade.substrate.TableStore;
import io.palisade.substrate.VersionInfo;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Classifies every intent without a completion exactly as DESIGN §5's table says, journals each
 * decision, and refuses the graph when a table version is explained by no journaled intent.
 *
 * <table>
 *   <caption>Classification</caption>
 *   <tr><td>head published, no completion</td><td>complete as COMMITTED</td></tr>
 *   <tr><td>table branch still at the expected base</td><td>complete as ABORTED</td></tr>
 *   <tr><td>effect present, head not published</td><td>publish the achieved version, complete as ROLLED_FORWARD</td></tr>
 *   <tr><td>a version no intent explains</td><td>{@link GraphRefusedException} naming table, branch and version</td></tr>
 * </table>
 *
 * Invariant: one substrate commit is in flight per table, so every open intent of a (graph branch,
 * table) belongs to the same group and the versions past its expected base are that group's effect.
 * Recovery is idempotent: it only appends completions for intents still open, so a second run finds
 * nothing to do; killed part-way, a re-run redoes exactly what is still open.
 */
public final class Recovery {
    private static final Logger LOG = LoggerFactory.getLogger(Recovery.class);

    /** What one run found and did. */
    public record Report(String recoveryId, List<RecoveryClassification> classifications, String headsDigest,
                         HeadsState state) {
        public boolean changedAnything() {
            return !classifications.isEmpty();
        }
    }

    private Recovery() {
    }

    /**
     * Runs recovery over {@code state} (the folded journal), appending its decisions to {@code journal}.
     *
     * @param adoptForeign publish foreign versions instead of refusing (the operator's explicit decision)
     * @return the report, with the state after the appended records
     */
    public static Report run(Journal journal, HeadsState state, TableStore store, boolean adoptForeign) {
        String id = "recovery-" + UUID.randomUUID();
        List<RecoveryClassification> found = new ArrayList<>();
        List<JournalEvent> events = new ArrayList<>();

        Map<String, List<OpenIntent>> groups = new LinkedHashMap<>();
        for (OpenIntent o : state.openIntents()) {
            groups.computeIfAbsent(o.graphBranch() + "\u0000" + o.table(), k -> new ArrayList<>()).add(o);
        }
        for (List<OpenIntent> group : groups.values()) {
            if (!classifyLoad(journal, group, state, store, found, events)) {
                classify(group, state, store, found, events);
            }
        }
        List<String> explainedTables = state.openIntents().stream().map(o -> o.graphBranch() + "/" + o.table()).toList();
        for (String branch : state.branches().keySet()) {
            for (Map.Entry<String, Pin> e : state.pins(branch).entrySet()) {
                if (!e.getValue().owned() || explainedTables.contains(branch + "/" + e.getKey())) {
                    continue;
                }
                TableHead head = e.getValue().head();
                if (!store.exists(e.getKey())) {
                    continue;
                }
                long latest = store.latest(e.getKey(), head.tableBranch()).version();
                if (latest > head.version()) {
                    String detail = "table '" + e.getKey() + "' branch " + head.tableBranch() + " is at version " + latest
                            + " but the journal's head is version " + head.version() + "; no intent explains "
                            + describe(store, e.getKey(), head.tableBranch(), head.version());
                    if (!adoptForeign) {
                        throw new GraphRefusedException("foreign commit: " + detail
                                + ". Inspect it, then run `palisade recover GRAPH --adopt-foreign` to publish it");
                    }
                    found.add(new RecoveryClassification(head.tableBranch() + "@" + latest, Kind.FOREIGN_COMMIT, e.getKey(),
                            "adopted by operator: " + detail));
                    TableHead to = new TableHead(head.tableBranch(), latest, head.schemaId(), head.incarnation());
                    events.add(new HeadPublished(List.of(new HeadTransition(branch, e.getKey(), head, to))));
                }
            }
        }
        if (found.isEmpty()) {
            return new Report(id, List.of(), state.digest(), state);
        }
        List<JournalEvent> all = new ArrayList<>();
        all.add(new JournalEvent.RecoveryStarted(id, state.lastCheckpointSequence(), state.lastSequence()));
        all.addAll(events);
        HeadsState next = fold(journal, state, all);
        JournalEvent finished = new JournalEvent.RecoveryFinished(id, found, next.digest());
        next = fold(journal, next, List.of(finished));
        LOG.info("recovery {}: {}", id, found);
        return new Report(id, List.copyOf(found), next.digest(), next);
    }

    private static void classify(List<OpenIntent> group, HeadsState state, TableStore store,
                                 List<RecoveryClassification> found, List<JournalEvent> events) {
        OpenIntent first = group.get(0);
        boolean published = group.stream().allMatch(o -> o.publishedHead() != null);
        if (published) {
            for (OpenIntent o : group) {
                found.add(new RecoveryClassification(o.intentId(), Kind.PUBLISHED_COMPLETED, o.table(),
                        "head published at " + o.publishedHead().tableBranch() + "@" + o.publishedHead().version()));
                events.add(new IntentCompleted(o.intentId(), IntentOutcome.COMMITTED, "completed by recovery", null, List.of()));
            }
            return;
        }
        HeadTransition intended = first.recorded().intendedTransition();
        String tableBranch = intended.to().tableBranch();
        long base = first.recorded().expectedBase().version();
        long achieved = store.exists(first.table()) && store.listBranches(first.table()).contains(tableBranch)
                ? store.latest(first.table(), tableBranch).version() : -1;
        boolean forkOnly = !tableBranch.equals(first.recorded().expectedBase().tableBranch()) && achieved == base;
        if (achieved <= base || forkOnly) {
            for (OpenIntent o : group) {
                found.add(new RecoveryClassification(o.intentId(), Kind.NO_EFFECT_ABORTED, o.table(),
                        tableBranch + " at " + achieved + ", expected base " + base));
                events.add(new IntentCompleted(o.intentId(), IntentOutcome.ABORTED,
                        "no substrate effect found by recovery", null, List.of()));
            }
            return;
        }
        TableHead from = state.head(first.graphBranch(), first.table()).orElse(intended.from());
        TableHead to = new TableHead(tableBranch, achieved, intended.to().schemaId(), intended.to().incarnation());
        List<String> ids = group.stream().map(OpenIntent::intentId).toList();
        events.add(new TableCommitted(ids, first.graphBranch(), first.table(), tableBranch, achieved));
        events.add(new HeadPublished(List.of(new HeadTransition(first.graphBranch(), first.table(), from, to))));
        for (OpenIntent o : group) {
            found.add(new RecoveryClassification(o.intentId(), Kind.EFFECT_ROLLED_FORWARD, o.table(),
                    "expected base " + base + ", found " + tableBranch + "@" + achieved + "; published"));
            events.add(new IntentCompleted(o.intentId(), IntentOutcome.ROLLED_FORWARD, "rolled forward by recovery", null,
                    List.of()));
        }
    }

    /**
     * The rule for an unfinished bulk load (docs/bulk-load.md): an open intent with {@link LoadProgress}
     * records that never reached its single TableCommitted is rolled BACK to the version its last start
     * marker names, by a Restore commit (or by adopting the Restore an interrupted earlier rollback
     * made); that restored version (same content as the start) is published and the intent completes
     * as ROLLED_BACK. The batches between are explained by the progress records, plus at most one
     * in-flight batch (committed, not yet journaled); anything beyond is a foreign commit.
     *
     * @return false when the group is not an unfinished load (the general rule applies)
     */
    private static boolean classifyLoad(Journal journal, List<OpenIntent> group, HeadsState state, TableStore store,
                                        List<RecoveryClassification> found, List<JournalEvent> events) {
        OpenIntent o = group.get(0);
        if (group.size() != 1 || o.phase() != IntentPhase.RECORDED) {
            return false;
        }
        LoadProgress startMarker = null;
        LoadProgress lastBatch = null;
        int progressRecords = 0;
        try (JournalReader reader = journal.reader(); JournalCursor cursor = reader.read(o.recordedAt())) {
            for (JournalRecord r = cursor.poll(); r != null; r = cursor.poll()) {
                if (r.event() instanceof LoadProgress lp && lp.intentId().equals(o.intentId())) {
                    progressRecords++;
                    if (lp.batchIndex() < 0) {
                        startMarker = lp;
                    } else {
                        // keep no key filters: memory stays bounded however long the load was
                        lastBatch = new LoadProgress(lp.intentId(), lp.batchIndex(), lp.tableBranch(),
                                lp.achievedVersion(), lp.rows(), null);
                    }
                }
            }
        }
        if (progressRecords == 0) {
            return false;
        }
        String table = o.table();
        String tableBranch = startMarker.tableBranch();
        long startVersion = startMarker.achievedVersion();
        long journaled = lastBatch == null || !lastBatch.tableBranch().equals(tableBranch) ? startVersion
                : lastBatch.achievedVersion();
        long latest = store.exists(table) && store.listBranches(table).contains(tableBranch)
                ? store.latest(table, tableBranch).version() : -1;
        String evidence = "load started at " + tableBranch + "@" + startVersion + ", "
                + (lastBatch == null ? "no batch journaled" : (lastBatch.batchIndex() + 1) + " batches (" + lastBatch.rows()
                + " rows) journaled up to @" + journaled) + ", table branch at @" + latest;
        if (latest <= startVersion) {
            found.add(new RecoveryClassification(o.intentId(), Kind.NO_EFFECT_ABORTED, table, evidence));
            events.add(new IntentCompleted(o.intentId(), IntentOutcome.ABORTED,
                    "bulk load without substrate effect, aborted by recovery", null, List.of()));
            return true;
        }
        TableRef restored;
        boolean restoredEarlier = latest <= journaled + 2
                && store.decompose(table, new TableRef(tableBranch, latest)).kind() == OperationKind.RESTORE;
        if (restoredEarlier) {
            restored = new TableRef(tableBranch, latest);
        } else if (latest <= journaled + 1) {
            restored = store.restore(table, new TableRef(tableBranch, startVersion));
        } else {
            throw new GraphRefusedException("foreign commit: table '" + table + "' branch " + tableBranch + " is at version "
                    + latest + " but the unfinished bulk load " + o.intentId() + " explains at most version " + (journaled + 1)
                    + " (" + evidence + "); versions: " + describe(store, table, tableBranch, journaled));
        }
        TableHead from = state.head(o.graphBranch(), table).orElse(o.recorded().intendedTransition().from());
        TableHead to = new TableHead(tableBranch, restored.version(), from.schemaId(), from.incarnation());
        events.add(new HeadPublished(List.of(new HeadTransition(o.graphBranch(), table, from, to))));
        events.add(new IntentCompleted(o.intentId(), IntentOutcome.ROLLED_BACK,
                "unfinished bulk load rolled back by recovery: " + tableBranch + "@" + startVersion + " restored as @"
                        + restored.version(), null, List.of()));
        found.add(new RecoveryClassification(o.intentId(), Kind.LOAD_ROLLED_BACK, table,
                evidence + "; restored @" + startVersion + " as @" + restored.version() + " and published it"));
        return true;
    }

    private static String describe(TableStore store, String table, String branch, long after) {
        try {
            return store.listVersions(table, branch).stream().filter(v -> v.ref().version() > after)
                    .map(VersionInfo::toString).toList().toString();
        } catch (RuntimeException e) {
            return "(versions unreadable: " + e.getMessage() + ")";
        }
    }

    private static HeadsState fold(Journal journal, HeadsState state, List<JournalEvent> events) {
        long first = journal.appendBatch(events, io.palisade.journal.Durability.POWER_LOSS);
        HeadsState s = state;
        long now = System.currentTimeMillis() * 1_000_000L;
        for (int i = 0; i < events.size(); i++) {
            s = s.apply(new JournalRecord(first + i, now, journal.epoch(), events.get(i)));
        }
        return s;
    }

    /** The table ref a head names. */
    public static TableRef ref(TableHead head) {
        return new TableRef(head.tableBranch(), head.version());
    }
}
