package io.palisade.cli;

import io.palisade.coordinator.Catalog;
import io.palisade.coordinator.Compaction;
import io.palisade.heads.HeadsReplayer;
import io.palisade.heads.HeadsState;
import io.palisade.heads.Pin;
import io.palisade.journal.IntentOutcome;
import io.palisade.journal.JournalCursor;
import io.palisade.journal.JournalEvent;
import io.palisade.journal.JournalReader;
import io.palisade.journal.JournalRecord;
import io.palisade.journal.LeaseOwner;
import io.palisade.journal.WriterLease;
import io.palisade.journal.LogicalOperation;
import io.palisade.substrate.CompactionTarget;
import io.palisade.substrate.FragmentStats;
import io.palisade.substrate.TableRef;
import io.palisade.substrate.TableSnapshot;
import io.palisade.substrate.TableStore;
import io.palisade.substrate.VersionInfo;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * {@code palisade status}: what a graph's history costs now, per table head and for the graph, for an operator
 * watching a long-running writer: fragments and deleted rows (what compaction works off), versions kept and bytes on
 * disk against live rows (what retention bounds), the last maintenance the journal shows since its last checkpoint,
 * the journal's bytes and the heads state's size. Read-only.
 */
@Command(name = "status", mixinStandardHelpOptions = true,
        description = {"Print what a graph's history costs now: per table head its fragments, deleted rows, versions "
                + "kept, bytes on disk and live rows, whether compaction is due under the default triggers, and the "
                + "last compaction and version removal since the last checkpoint; for a journal-ack table, its "
                + "unfolded writes, the rows they recorded and the fold lag (the age of the oldest, in ms; '-' or null "
                + "for a table-ack table); for the graph, the journal's bytes and the heads state's size. Read-only.",
                "The default format is table; json prints one object {tables: [...], journal_bytes, "
                        + "journal_rows_released_below, journal_first_sequence, journal_archived_files, "
                        + "journal_archive_location, palisade_bytes, "
                        + "last_sequence, last_checkpoint_seq, open_intents, completed_intents}."},
        footer = {"%nExample:%n  palisade status GRAPH --format json"})
final class StatusCommand implements java.util.concurrent.Callable<Integer>, ReadOnly {
    @Parameters(index = "0", paramLabel = "GRAPH", description = "The graph directory.")
    Path graph;

    @picocli.CommandLine.Mixin
    OutputFormat output = new OutputFormat();

    @Override
    public Integer call() {
        OutputFormat.Format format = output.resolve(OutputFormat.Format.table);
        Catalog catalog = Cli.catalog(graph);
        HeadsReplayer.Replay replay = Cli.replayer(graph).replay();
        Cli.warnSkippedCheckpoints(replay);
        HeadsState s = replay.state();
        Map<String, Long> lastCompaction = new HashMap<>();
        Map<String, Long> lastExpiry = new HashMap<>();
        maintenanceSince(s.lastCheckpointSequence(), lastCompaction, lastExpiry);
        Compaction triggers = Compaction.DEFAULTS;
        CompactionTarget target = new CompactionTarget(triggers.rowsPerFragment(), triggers.materializeDeletions());
        List<Map<String, Object>> tables = new ArrayList<>();
        long now = System.currentTimeMillis();
        // the rows of the unfolded writes: one read of the journal from the oldest unfolded write, when there is one
        boolean anyUnfolded = s.branches().keySet().stream().anyMatch(b -> !s.unfoldedTables(b).isEmpty());
        Map<String, Map<String, Long>> unfoldedRows = anyUnfolded
                ? io.palisade.coordinator.UnfoldedReads.unfoldedRows(Cli.palisadeDir(graph), catalog, s) : Map.of();
        try (TableStore store = Cli.tables(graph).open(false)) {
            for (String b : s.branches().keySet()) {
                for (Map.Entry<String, Pin> e : s.pins(b).entrySet()) {
                    String table = e.getKey();
                    Catalog.TableDef def = catalog.require(table);
                    TableRef ref = new TableRef(e.getValue().head().tableBranch(), e.getValue().head().version());
                    Map<String, Object> m = new LinkedHashMap<>();
                    m.put("branch", b);
                    m.put("table", table);
                    m.put("table_branch", ref.branch());
                    m.put("version", ref.version());
                    m.put("inherited_from", e.getValue().inheritedFrom());
                    FragmentStats f;
                    try (TableSnapshot t = def.kind().keyed() ? store.openKeyed(table, ref) : store.openKeyless(table, ref)) {
                        f = t.fragmentStats(target);
                    }
                    m.put("fragments", f.fragments());
                    m.put("small_fragments", f.smallFragments());
                    m.put("live_rows", f.physicalRows() - f.deletedRows());
                    m.put("deleted_rows", f.deletedRows());
                    m.put("compaction_due", due(triggers, f));
                    List<VersionInfo> versions = store.listVersions(table, ref.branch());
                    m.put("versions_kept", versions.size());
                    m.put("oldest_version_kept", versions.isEmpty() ? null : versions.get(0).ref().version());
                    m.put("table_bytes", bytes(graph.resolve("tables").resolve(table + ".lance")));
                    m.put("last_compaction_seq", lastCompaction.get(b + "/" + table));
                    m.put("last_version_removal_seq", lastExpiry.get(table + "/" + ref.branch()));
                    // journal-ack tables: what the journal holds that the table does not yet (heads' figures)
                    m.put("ack", def.ack().json());
                    if (def.journalAck() || s.foldMark(b, table).unfolded() > 0) {
                        HeadsCommand.putFold(m, s, b, table, now);
                        m.put("unfolded_rows", unfoldedRows.getOrDefault(b, Map.of()).getOrDefault(table, 0L));
                    } else {
                        m.put("unfolded", null);
                        m.put("unfolded_rows", null);
                        m.put("folded_through", null);
                        m.put("fold_lag_ms", null);
                    }
                    tables.add(m);
                }
            }
        }
        Map<String, Object> out = new LinkedHashMap<>();
        Path palisade = Cli.palisadeDir(graph);
        Optional<LeaseOwner> writer = WriterLease.holder(palisade);
        Map<String, Object> w = null;
        if (writer.isPresent()) {
            w = new LinkedHashMap<>();
            w.put("pid", writer.get().pid());
            w.put("host", writer.get().host());
            w.put("epoch", writer.get().epoch());
            w.put("since", writer.get().since().toString());
        }
        out.put("writer", w);
        out.put("tables", tables);
        // Chronicle's cycle files are sparse: their length is what was reserved, their allocated blocks what is used
        out.put("journal_bytes", allocated(palisade.resolve("journal")));
        out.put("journal_file_bytes", bytes(palisade.resolve("journal")));
        out.put("journal_segments", segments(palisade.resolve("journal")));
        try (io.palisade.journal.JournalReader jr = io.palisade.journal.JournalReader.open(palisade)) {
            java.util.OptionalLong released = jr.rowsReleasedBelow();
            out.put("journal_rows_released_below", released.isPresent() ? released.getAsLong() : null);
            out.put("journal_first_sequence", jr.firstSequence());
            out.put("journal_archived_files", jr.archivedFiles().size());
            out.put("journal_archive_location", AuditVerifyCommand.archiveLocation(jr));
        }
        out.put("palisade_bytes", allocated(palisade));
        out.put("last_sequence", s.lastSequence());
        out.put("last_checkpoint_seq", s.lastCheckpointSequence());
        out.put("open_intents", s.openIntents().size());
        out.put("completed_intents", s.completedCount()); // those completed after the last checkpoint
        out.put("idempotency_keys", s.receiptCount());
        switch (format) {
            case json -> Cli.printJson(System.out, out);
            case jsonl -> System.out.println(Cli.toJson(out));
            case table -> {
                List<String> header = List.of("branch", "table", "version", "fragments", "live_rows", "deleted_rows",
                        "versions_kept", "table_bytes", "compaction_due", "last_compaction_seq",
                        "last_version_removal_seq", "unfolded", "unfolded_rows", "fold_lag_ms");
                List<List<String>> rows = new ArrayList<>();
                for (Map<String, Object> m : tables) {
                    List<String> row = new ArrayList<>();
                    for (String h : header) {
                        Object v = m.get(h);
                        row.add(v == null ? "-" : String.valueOf(v));
                    }
                    rows.add(row);
                }
                System.out.println(w == null ? "writer: none holds the lease (this is what the files say)"
                        : "writer: pid " + w.get("pid") + " on " + w.get("host") + ", epoch " + w.get("epoch") + ", since "
                        + w.get("since") + " (the numbers below are the files' as of now; the writer may be ahead)");
                Tables.print(System.out, header, rows);
                System.out.println("journal " + out.get("journal_bytes") + " bytes on disk in " + out.get("journal_segments")
                        + " segment(s) (_palisade " + out.get("palisade_bytes") + ")"
                        + (out.get("journal_rows_released_below") == null ? ""
                        : ", the rows of folded journal-ack writes released below sequence "
                        + out.get("journal_rows_released_below"))
                        + ((long) out.get("journal_first_sequence") == 0 ? ""
                        : ", files before sequence " + out.get("journal_first_sequence") + " moved out by the file "
                        + "retention (" + out.get("journal_archived_files") + " files, "
                        + (out.get("journal_archive_location") == null ? "removed without a copy"
                        : "copied to " + out.get("journal_archive_location")) + ")") + "; heads state: " + out.get("open_intents") + " open intents, " + out.get("completed_intents")
                        + " completed since the last checkpoint, " + out.get("idempotency_keys")
                        + " idempotency keys remembered, as of sequence " + s.lastSequence() + " (last checkpoint "
                        + s.lastCheckpointSequence() + "; maintenance is shown since it, '-' = none since)");
            }
        }
        return Main.OK;
    }

    /** The trigger of {@code c} that {@code f} reaches, or null. */
    static String due(Compaction c, FragmentStats f) {
        if (f.fragments() >= c.maxFragments()) {
            return f.fragments() + " fragments (trigger " + c.maxFragments() + ")";
        }
        if (f.smallFragments() >= c.maxSmallFragments()) {
            return f.smallFragments() + " small fragments (trigger " + c.maxSmallFragments() + ")";
        }
        if (f.deletedRatio() >= c.maxDeletedRatio()) {
            return Math.round(f.deletedRatio() * 100) + " % of stored rows deleted (trigger "
                    + Math.round(c.maxDeletedRatio() * 100) + " %)";
        }
        return null;
    }

    /** The newest completed compaction per branch/table and version removal per table/table branch after {@code from}. */
    private void maintenanceSince(long from, Map<String, Long> compactions, Map<String, Long> expiries) {
        Map<String, String> compactionIntents = new HashMap<>();
        try (JournalReader reader = Cli.reader(graph); JournalCursor c = reader.read(Math.max(0, from))) {
            for (JournalRecord r = c.poll(); r != null; r = c.poll()) {
                // only maintenance is looked for: a filter over the events, not a handling of each
                if (r.event() instanceof JournalEvent.IntentRecorded i && i.operation() == LogicalOperation.COMPACTION) {
                    compactionIntents.put(i.intentId(), i.graphBranch() + "/" + i.table());
                } else if (r.event() instanceof JournalEvent.IntentCompleted i && compactionIntents.containsKey(i.intentId())
                        && (i.outcome() == IntentOutcome.COMMITTED || i.outcome() == IntentOutcome.ROLLED_FORWARD)) {
                    compactions.put(compactionIntents.get(i.intentId()), r.sequence());
                } else if (r.event() instanceof JournalEvent.VersionsExpired x) {
                    expiries.put(x.table() + "/" + x.tableBranch(), r.sequence());
                }
            }
        }
    }

    /** Bytes of every file under {@code dir}; null when it is absent (a table on an object store). */
    /**
     * The bytes the file system allocated under {@code dir}, as {@code du -s -B1} reports them; the files' lengths
     * when {@code du} gives no figure; null for a missing directory.
     */
    private static Long allocated(Path dir) {
        if (!Files.isDirectory(dir)) {
            return null;
        }
        try {
            Process du = new ProcessBuilder("du", "-s", "-B1", dir.toString())
                    .redirectError(ProcessBuilder.Redirect.DISCARD).start();
            String printed = new String(du.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8).trim();
            du.waitFor();
            return Long.parseLong(printed.split("\\s+", 2)[0]);
        } catch (IOException | NumberFormatException | ArrayIndexOutOfBoundsException e) {
            return bytes(dir);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return bytes(dir);
        }
    }

    /** The journal's segments (one per writer session on a Chronicle journal; 0 on Kafka). */
    private static long segments(Path journalDir) {
        if (!Files.isDirectory(journalDir)) {
            return 0;
        }
        try (Stream<Path> s = Files.list(journalDir)) {
            return s.filter(p -> p.getFileName().toString().endsWith(".ready")).count();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Long bytes(Path dir) {
        if (!Files.isDirectory(dir)) {
            return null;
        }
        try (Stream<Path> files = Files.walk(dir)) {
            return files.filter(Files::isRegularFile).mapToLong(p -> p.toFile().length()).sum();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (UncheckedIOException e) {
            return null; // a file removed while walking (a live writer's retention): the caller may run it again
        }
    }
}
