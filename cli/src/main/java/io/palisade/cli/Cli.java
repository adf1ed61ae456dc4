package io.palisade.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.palisade.coordinator.Catalog;
import io.palisade.coordinator.Options;
import io.palisade.coordinator.Palisade;
import io.palisade.coordinator.Graph;
import io.palisade.heads.HeadsReplayer;
import io.palisade.heads.HeadsState;
import io.palisade.journal.JournalCursor;
import io.palisade.journal.JournalReader;
import io.palisade.journal.JournalRecord;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;

/** Shared helpers of the commands: graph paths, read-only journal access, JSON. */
final class Cli {
    static final ObjectMapper JSON = new ObjectMapper().disable(SerializationFeature.FAIL_ON_EMPTY_BEANS);

    private Cli() {
    }

    static Path palisadeDir(Path graph) {
        return graph.resolve("_palisade");
    }

    static Path tablesDir(Path graph) {
        return graph.resolve("tables");
    }

    /** Fails with exit 5 when {@code graph} holds no graph. */
    static Path requireGraph(Path graph) {
        if (!Files.exists(palisadeDir(graph).resolve("catalog.json"))) {
            throw new CliException(Main.INVALID_INPUT, "no graph at " + graph + " (missing _palisade/catalog.json)");
        }
        return graph;
    }

    static Catalog catalog(Path graph) {
        return Catalog.read(palisadeDir(requireGraph(graph)).resolve("catalog.json"));
    }

    /** Opens the graph for writing (takes the writer lease; recovery runs). */
    static Graph openForWrite(Path graph) {
        requireGraph(graph);
        return Palisade.open(graph, Options.defaults());
    }

    static JournalReader reader(Path graph) {
        return JournalReader.open(palisadeDir(requireGraph(graph)));
    }

    static HeadsReplayer replayer(Path graph) {
        return HeadsReplayer.of(palisadeDir(requireGraph(graph)));
    }

    /** The current heads state, folded read-only from checkpoint + journal. */
    static HeadsState currentState(Path graph) {
        return replayer(graph).replay().state();
    }

    /**
     * Pending foreign versions (docs/recovery.md "Foreign commits"), found without the writer lease: one warning
     * line on stderr per table branch holding versions no journaled write explains. Read-only tools call it.
     */
    static List<io.palisade.recovery.ForeignVersions.Pending> warnForeign(Path graph) {
        List<io.palisade.recovery.ForeignVersions.Pending> pending;
        try (io.palisade.substrate.lance.LanceTableStore store = new io.palisade.substrate.lance.LanceTableStore(
                tablesDir(graph).toString(), java.util.Map.of(), false) /* read-only */) {
            pending = io.palisade.recovery.ForeignVersions.find(() -> currentState(graph), store);
        }
        for (io.palisade.recovery.ForeignVersions.Pending p : pending) {
            System.err.println("palisade: warning: " + p.warning());
        }
        return pending;
    }

    /** A pending foreign version as a JSON object of a read-only tool's output. */
    static java.util.Map<String, Object> foreignJson(io.palisade.recovery.ForeignVersions.Pending p) {
        java.util.Map<String, Object> m = new java.util.LinkedHashMap<>();
        m.put("table", p.table());
        m.put("graph_branch", p.graphBranch());
        m.put("table_branch", p.tableBranch());
        m.put("journal_version", p.journalVersion());
        m.put("latest_version", p.latestVersion());
        m.put("versions", p.versions());
        return m;
    }

    /** Every record from {@code from} to the current end. */
    static List<JournalRecord> records(Path graph, long from) {
        List<JournalRecord> out = new ArrayList<>();
        try (JournalCursor c = reader(graph).read(Math.max(0, from))) {
            JournalRecord r;
            while ((r = c.poll()) != null) {
                out.add(r);
            }
        }
        return out;
    }

    static Instant parseTime(String s, String option) {
        if (s == null) {
            return null;
        }
        try {
            return Instant.parse(s);
        } catch (DateTimeParseException e) {
            try {
                return java.time.OffsetDateTime.parse(s).toInstant();
            } catch (DateTimeParseException e2) {
                try {
                    return java.time.LocalDate.parse(s).atStartOfDay(java.time.ZoneOffset.UTC).toInstant();
                } catch (DateTimeParseException e3) {
                    throw new CliException(Main.USAGE, option + " '" + s + "' is not an ISO-8601 time "
                            + "(e.g. 2026-11-29T14:00:00Z)");
                }
            }
        }
    }

    static void printJson(PrintStream out, Object o) {
        Main.jsonPrinted = true;
        try {
            out.println(JSON.writeValueAsString(o));
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    static String toJson(Object o) {
        try {
            return JSON.writeValueAsString(o);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    /** A JSON-friendly form of a scanned value. */
    static Object plain(Object v) {
        if (v == null || v instanceof String || v instanceof Number || v instanceof Boolean) {
            return v;
        }
        if (v instanceof java.time.LocalDateTime t) {
            return t.toString() + "Z";
        }
        if (v instanceof List<?> l) {
            return l.stream().map(Cli::plain).toList();
        }
        return v.toString();
    }

    /** Whether progress may be drawn (a terminal, not a pipe). */
    static boolean terminal() {
        java.io.Console c = System.console();
        if (c == null) {
            return false;
        }
        try {
            return (Boolean) java.io.Console.class.getMethod("isTerminal").invoke(c);
        } catch (ReflectiveOperationException e) {
            return true;
        }
    }

    /** A progress line on stderr, drawn only on a terminal. */
    static final class Progress {
        private final String what;
        private final long total;
        private final boolean on = terminal();
        private long last;

        Progress(String what, long total) {
            this.what = what;
            this.total = total;
        }

        void at(long n) {
            if (!on) {
                return;
            }
            long now = System.nanoTime();
            if (now - last < 100_000_000L && n < total) {
                return;
            }
            last = now;
            int width = 30;
            int filled = total <= 0 ? 0 : (int) Math.min(width, n * width / total);
            System.err.print("\r" + what + " [" + "#".repeat(filled) + " ".repeat(width - filled) + "] " + n
                    + (total > 0 ? "/" + total : ""));
        }

        void done() {
            if (on) {
                System.err.print("\r" + " ".repeat(what.length() + 60) + "\r");
            }
        }
    }

    /**
     * Draws progress of work that journals as it goes (a bulk load's batches, a migration's steps) by
     * following the journal from its current end on a daemon thread; only on a terminal. Close it when
     * the work returns.
     */
    static AutoCloseable journalProgress(Path graph, String what, long total,
                                         java.util.function.Predicate<io.palisade.journal.JournalEvent> counts) {
        if (!terminal()) {
            return () -> { };
        }
        Progress p = new Progress(what, total);
        java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
        Thread t = new Thread(() -> {
            try (io.palisade.journal.JournalReader r = io.palisade.journal.JournalReader.open(graph.resolve("_palisade"));
                 io.palisade.journal.JournalCursor c = r.follow(java.time.Instant.now())) {
                long n = 0;
                while (!stop.get()) {
                    io.palisade.journal.JournalRecord rec = c.take(java.time.Duration.ofMillis(200));
                    if (rec != null && counts.test(rec.event())) {
                        p.at(++n);
                    }
                }
            } catch (RuntimeException e) {
                // progress is best effort; the work itself reports its own errors
            }
        }, "palisade-progress");
        t.setDaemon(true);
        t.start();
        return () -> {
            stop.set(true);
            t.join(1_000);
            p.done();
        };
    }
}
