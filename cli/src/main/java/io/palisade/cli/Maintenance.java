package io.palisade.cli;

import io.palisade.coordinator.Catalog;
import io.palisade.coordinator.Compaction;
import io.palisade.coordinator.Graph;
import io.palisade.coordinator.Receipt;
import io.palisade.heads.HeadsState;
import io.palisade.heads.Pin;
import io.palisade.journal.JournalCursor;
import io.palisade.journal.JournalEvent;
import io.palisade.journal.JournalReader;
import io.palisade.journal.JournalRecord;
import io.palisade.substrate.CompactionTarget;
import io.palisade.substrate.FragmentStats;
import io.palisade.substrate.TableRef;
import io.palisade.substrate.TableSnapshot;
import io.palisade.substrate.TableStore;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;

/**
 * What {@code compact} and {@code optimize} share: under the writer lease, one journaled maintenance operation per
 * table (the one named, or every keyed table of the branch), then one line per table of what it did, read from the
 * receipt, the journaled completion and the two table states' manifests.
 */
final class Maintenance {
    /** One table's outcome: its receipt, or why it was not asked (skipped). */
    record Done(String table, TableRef before, Receipt receipt, String skipped) {
    }

    /** The maintenance {@code compact} or {@code optimize} runs, and what a whole branch leaves out. */
    interface Operation {
        /** The verb of the progress line and the error note: "compact". */
        String verb();

        /** Runs it on one table; the coordinator journals it. */
        Receipt run(Graph g, String branch, String table);

        /** Why {@code def} is left out when every keyed table of a branch is asked, or null to run it. */
        String skips(Catalog.TableDef def);

        /** The fields this operation adds to a table's line, from the two states (before, after; null when skipped). */
        void describe(Map<String, Object> into, TableSnapshot before, TableSnapshot after);
    }

    /** The fragment size status and automatic compaction measure against. */
    static final CompactionTarget TARGET = new CompactionTarget(Compaction.DEFAULTS.rowsPerFragment(),
            Compaction.DEFAULTS.materializeDeletions());

    private Maintenance() {
    }

    /**
     * Runs {@code op} on {@code table} (null: every keyed table of {@code branch}) and prints one line per table in
     * {@code format}. A failure after some tables were done prints them first, then is the command's error.
     */
    static int run(Path graph, String branch, String table, OutputFormat.Format format, Operation op) {
        Catalog catalog = Cli.catalog(graph);
        if (table != null) {
            Cli.requireTable(catalog, table, "--table");
        }
        List<Done> done = new ArrayList<>();
        try {
            try (Graph g = Cli.openForWrite(graph)) {
                HeadsState s = g.state();
                Cli.requireBranch(s, branch, "--branch");
                for (Catalog.TableDef def : catalog.tables()) {
                    if (table == null ? !def.kind().keyed() : !def.name().equals(table)) {
                        continue;
                    }
                    Pin pin = s.pins(branch).get(def.name());
                    if (pin == null) {
                        continue; // a table the branch has no head of: nothing to maintain
                    }
                    TableRef before = new TableRef(pin.head().tableBranch(), pin.head().version());
                    String skip = table != null ? null : pin.inheritedFrom() != null
                            ? "inherited unchanged from branch '" + pin.inheritedFrom() + "': nothing of its own to "
                            + op.verb() + "; write to the table on this branch first"
                            : op.skips(def);
                    if (skip != null) {
                        done.add(new Done(def.name(), before, null, skip));
                        continue;
                    }
                    done.add(new Done(def.name(), before, runShown(g, branch, def.name(), op), null));
                }
            }
        } catch (RuntimeException e) {
            if (!done.isEmpty()) {
                try {
                    print(format, describe(graph, branch, done, op));
                } catch (RuntimeException again) { // the tables done are journaled: the first error is the one said
                    e.addSuppressed(again);
                }
            }
            throw e;
        }
        print(format, describe(graph, branch, done, op));
        return Main.OK;
    }

    /** {@code op} on one table, with the seconds it takes drawn on a terminal. */
    private static Receipt runShown(Graph g, String branch, String table, Operation op) {
        AutoCloseable ticker = Cli.ticker(op.verb() + ": " + table + " on " + branch);
        try {
            return op.run(g, branch, table);
        } finally {
            try {
                ticker.close();
            } catch (Exception e) { // interrupted while the ticker stops: keep the interrupt
                Thread.currentThread().interrupt();
            }
        }
    }

    /** One map per table: the fields of the table form and of JSON alike. */
    private static List<Map<String, Object>> describe(Path graph, String branch, List<Done> done, Operation op) {
        Map<Long, String> reasons = reasons(graph, done);
        List<Map<String, Object>> out = new ArrayList<>();
        Catalog catalog = Cli.catalog(graph);
        try (TableStore store = Cli.tables(graph).open(false)) {
            for (Done d : done) {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("branch", branch);
                m.put("table", d.table());
                m.put("table_branch", d.before().branch());
                m.put("version_before", d.before().version());
                Receipt r = d.receipt();
                m.put("version_after", r == null ? d.before().version() : r.version());
                String reason = r == null ? d.skipped() : reasons.getOrDefault(r.seq(), "");
                m.put("result", r == null ? "skipped" : r.version() == d.before().version() ? "no-op" : "committed");
                BiFunction<String, TableRef, TableSnapshot> open = catalog.require(d.table()).kind().keyed()
                        ? store::openKeyed : store::openKeyless;
                try (TableSnapshot before = open.apply(d.table(), d.before());
                     TableSnapshot after = r == null ? null
                             : open.apply(d.table(), new TableRef(d.before().branch(), r.version()))) {
                    FragmentStats f = before.fragmentStats(TARGET);
                    m.put("live_rows", f.physicalRows() - f.deletedRows());
                    op.describe(m, before, after);
                }
                m.put("seq", r == null ? null : r.seq());
                m.put("intent", r == null ? null : r.intent());
                m.put("reason", reason.isEmpty() ? null : reason);
                out.add(m);
            }
        }
        return out;
    }

    /** The reason each receipt's completion gives (a no-op's "no-op: ..."), by the completion's sequence. */
    private static Map<Long, String> reasons(Path graph, List<Done> done) {
        Map<Long, String> out = new LinkedHashMap<>();
        Map<String, Long> wanted = new LinkedHashMap<>();
        long from = Long.MAX_VALUE;
        for (Done d : done) {
            if (d.receipt() != null) {
                wanted.put(d.receipt().intent(), d.receipt().seq());
                from = Math.min(from, d.receipt().seq());
            }
        }
        if (wanted.isEmpty()) {
            return out;
        }
        try (JournalReader reader = Cli.reader(graph); JournalCursor c = reader.read(from)) {
            for (JournalRecord rec = c.poll(); rec != null && out.size() < wanted.size(); rec = c.poll()) {
                if (rec.event() instanceof JournalEvent.IntentCompleted ic && wanted.containsKey(ic.intentId())) {
                    out.put(wanted.get(ic.intentId()), ic.reason());
                }
            }
        }
        return out;
    }

    /** Fragment counts of a state: {@code fragments_before}, {@code fragments_after} (the same when nothing ran). */
    static void fragments(Map<String, Object> into, TableSnapshot before, TableSnapshot after) {
        FragmentStats b = before.fragmentStats(TARGET);
        FragmentStats a = after == null ? b : after.fragmentStats(TARGET);
        into.put("fragments_before", b.fragments());
        into.put("fragments_after", a.fragments());
        into.put("deleted_rows_before", b.deletedRows());
        into.put("deleted_rows_after", a.deletedRows());
    }

    private static void print(OutputFormat.Format format, List<Map<String, Object>> out) {
        switch (format) {
            case json -> Cli.printJson(System.out, out);
            case jsonl -> out.forEach(m -> System.out.println(Cli.toJson(m)));
            case table -> {
                List<String> header = out.isEmpty() ? List.of("branch", "table", "result")
                        : out.get(0).keySet().stream().filter(k -> !k.equals("intent") && !k.equals("table_branch")
                        && !k.equals("reason")).toList();
                List<String> withReason = new ArrayList<>(header);
                withReason.add("reason");
                List<List<String>> rows = new ArrayList<>();
                for (Map<String, Object> m : out) {
                    rows.add(withReason.stream().map(h -> m.get(h) == null ? "-" : String.valueOf(m.get(h))).toList());
                }
                Tables.print(System.out, withReason, rows);
            }
        }
    }
}
