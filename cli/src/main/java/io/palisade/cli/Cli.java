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

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
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

    /** The graph's tables: its {@code tables/} directory or the object store it records (docs/scale-out.md). */
    static io.palisade.coordinator.TableLocation tables(Path graph) {
        return io.palisade.coordinator.TableLocation.of(graph);
    }

    /** Fails with exit 5 when {@code graph} holds no graph. */
    static Path requireGraph(Path graph) {
        if (!Files.exists(palisadeDir(graph).resolve("catalog.json"))) {
            throw new CliException(Main.INVALID_INPUT, "no graph at " + graph + " (missing _palisade/catalog.json)");
        }
        return graph;
    }

    /**
     * The graph's catalog as the journal covers it ({@link io.palisade.coordinator.StoredCatalog}): a catalog.json that
     * is not the catalog the journal recorded is refused (catalog_corrupted, exit 7), naming each difference; one left
     * a record behind by a crash is noted, and the journal's catalog is used.
     */
    static Catalog catalog(Path graph) {
        return checkedCatalog(graph, currentState(graph)).catalog();
    }

    /** {@link #catalog(Path)} against a state already folded. */
    static io.palisade.coordinator.StoredCatalog.Verdict checkedCatalog(Path graph, HeadsState state) {
        io.palisade.coordinator.StoredCatalog.Verdict v = io.palisade.coordinator.StoredCatalog.read(
                palisadeDir(requireGraph(graph)).resolve("catalog.json"), state);
        if (v.standing() == io.palisade.coordinator.StoredCatalog.Standing.BEHIND) {
            note("note: catalog.json is one change behind the catalog the journal recorded at seq "
                    + state.catalog().orElseThrow().sequence() + " (its rewrite was cut short); the journal's catalog "
                    + "is used, and the next writer open rewrites the file");
        }
        return v;
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
        try (io.palisade.substrate.TableStore store = tables(graph).open(false) /* read-only */) {
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

    /** A usage error (exit 2) naming the catalog's tables when {@code table} is not one of them. */
    static Catalog.TableDef requireTable(Catalog catalog, String table, String option) {
        List<String> names = catalog.tables().stream().map(Catalog.TableDef::name).toList();
        return catalog.table(table).orElseThrow(() -> {
            List<String> near = Suggest.nearest(table, names);
            return new CliException(Main.USAGE, option + " '" + table + "': the graph has no such table"
                    + (near.isEmpty() ? "" : " (did you mean " + String.join(" or ", near) + "?)")
                    + "; its tables are " + String.join(", ", names));
        });
    }

    /** Whether standard input is a terminal (Linux: fd 0 is a tty device); false when it cannot be told. */
    static boolean stdinIsTerminal() {
        try {
            String target = Files.readSymbolicLink(Path.of("/proc/self/fd/0")).toString();
            return target.startsWith("/dev/pts/") || target.startsWith("/dev/tty");
        } catch (IOException | UnsupportedOperationException | SecurityException e) {
            return false;
        }
    }

    /** A usage error (exit 2) naming the live graph branches when {@code branch} is not one of them. */
    static void requireBranch(HeadsState s, String branch, String option) {
        if (branch != null && !s.branchLive(branch)) {
            List<String> live = s.branches().keySet().stream().filter(s::branchLive).toList();
            List<String> near = Suggest.nearest(branch, live);
            throw new CliException(Main.USAGE, option + " '" + branch + "': no such graph branch"
                    + (s.lastSequence() < 0 ? "" : " at sequence " + s.lastSequence())
                    + (near.isEmpty() ? "" : " (did you mean " + String.join(" or ", near) + "?)")
                    + "; the branches are " + String.join(", ", live));
        }
    }

    /** One warning line per checkpoint a replay passed over (damaged, beyond the journal, digest mismatch). */
    static void warnSkippedCheckpoints(HeadsReplayer.Replay replay) {
        for (io.palisade.heads.Checkpoints.Skipped k : replay.skippedCheckpoints()) {
            System.err.println("palisade: warning: skipped checkpoint " + k.file().getFileName() + " (sequence "
                    + k.sequence() + "): " + k.reason() + "; the heads were folded from the journal instead");
        }
    }

    /** How many skipped records a reader checks before it warns that it did not (one sequential read, ~1 M/s). */
    static final long CHECK_BUDGET = 2_000_000;

    /**
     * A reader that starts at sequence {@code from} does not read the records before it, so it would not see a
     * corrupt or cut region there. This reads them through a checked cursor (CRC32C, hash chain) and warns on stderr
     * when they hold corruption or a cut torn tail, or when they are too many to check here; it never fails.
     */
    static void checkSkipped(JournalReader reader, long from) {
        if (from <= 0) {
            return;
        }
        if (from > CHECK_BUDGET) {
            System.err.println("palisade: warning: sequences 0.." + (from - 1) + " were not verified by this read "
                    + "(`palisade audit verify GRAPH` checks the whole journal)");
            return;
        }
        try (JournalCursor c = reader.readAvailable(0)) {
            JournalRecord r;
            while ((r = c.poll()) != null && r.sequence() < from - 1) {
                // checked by the cursor
            }
            for (io.palisade.journal.TornTail t : c.cutTails()) {
                System.err.println("palisade: warning: the journal before sequence " + from + " holds a torn tail of "
                        + "writer epoch " + t.segmentEpoch() + " after sequence " + t.lastGoodSequence() + " ("
                        + t.excerpts() + " bad excerpts: " + t.reason() + "), cut by a later writer");
            }
        } catch (io.palisade.fencing.JournalCorruptedException e) {
            System.err.println("palisade: warning: the journal is corrupt before the part read here, at sequence "
                    + e.sequence() + " (" + e.getMessage().replace('\n', ' ') + "); what follows was read past it "
                    + "(`palisade audit verify GRAPH` names the damage)");
        }
    }

    /**
     * A cursor over every record the local journal holds, from its first; when the journal's file retention moved older
     * files out, says so on stderr once, naming the range and where it went.
     */
    static JournalCursor readAll(JournalReader reader) {
        return reader.read(firstLocal(reader));
    }

    /**
     * The first sequence the local journal holds; when the journal's file retention moved older files out, says so on
     * stderr, naming the range and where it went.
     */
    static long firstLocal(JournalReader reader) {
        long first = reader.firstSequence();
        if (first > 0) {
            String where = AuditVerifyCommand.archiveLocation(reader);
            System.err.println("palisade: note: journal sequences 0.." + (first - 1) + " were moved out of the local "
                    + "journal by its file retention (" + (where == null ? "removed without a copy; their chain anchors "
                    + "are in _palisade/journal/" + "archive.log" : "copied to " + where) + "); reading from sequence "
                    + first);
        }
        return first;
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

    /** Tests set it to draw progress as on a terminal (their streams are captured, never a terminal). */
    static volatile boolean assumeTerminal;

    /** Whether progress may be drawn: on a terminal (not a pipe), unless {@code --quiet}. */
    static boolean drawsProgress() {
        return !Main.quiet && (assumeTerminal || terminal());
    }

    /**
     * A line on stderr, "palisade: " and {@code text}: something a person may like to know that is neither the result
     * nor a warning (a note, where a result went); {@code --quiet} leaves it out.
     */
    static void note(String text) {
        if (!Main.quiet) {
            System.err.println("palisade: " + text);
        }
    }

    /** Whether this runs on a terminal ({@code System.console()} is one), not a pipe. */
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

    /**
     * A progress line on stderr, drawn only on a terminal and without {@code --quiet} ({@link #drawsProgress()}): what,
     * a bar when the total is known, done/total, the rate and the time left. Redrawn at most every 100 ms;
     * {@link #done()} clears it. Off the terminal it prints nothing, so pipes and logs see only the command's own
     * output.
     */
    static final class Progress {
        private final String what;
        private final long total;
        private final String unit;
        private final boolean on;
        private final long started = System.nanoTime();
        private long last;
        private volatile String note = "";

        Progress(String what, long total) {
            this(what, total, "");
        }

        /** {@code unit}: "" (plain counts), "rows", "batches", or "bytes" (drawn in MB). */
        Progress(String what, long total, String unit) {
            this.what = what;
            this.total = total;
            this.unit = unit;
            this.on = drawsProgress();
        }

        /** An extra text after the counts (for example the rows a load has committed). */
        void note(String note) {
            this.note = note;
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
            System.err.print("\r" + line(what, n, total, unit, now - started, note) + "\u001b[K");
        }

        void done() {
            if (on) {
                System.err.print("\r\u001b[K");
            }
        }

        /** The line drawn for {@code n} of {@code total} after {@code elapsedNanos}; total &lt;= 0 is unknown. */
        static String line(String what, long n, long total, String unit, long elapsedNanos, String note) {
            StringBuilder sb = new StringBuilder(what).append(' ');
            if (total > 0) {
                int width = 24;
                int filled = (int) Math.min(width, n * width / total);
                sb.append('[').append("#".repeat(filled)).append(" ".repeat(width - filled)).append("] ");
            }
            boolean bytes = unit.equals("bytes");
            sb.append(bytes ? mb(n) : Long.toString(n));
            if (total > 0) {
                sb.append('/').append(bytes ? mb(total) : Long.toString(total));
            }
            sb.append(bytes ? " MB" : unit.isEmpty() ? "" : " " + unit);
            if (!note.isEmpty()) {
                sb.append(", ").append(note);
            }
            double secs = elapsedNanos / 1e9;
            if (secs >= 0.5 && n > 0) {
                double rate = n / secs;
                sb.append(", ").append(bytes ? String.format(java.util.Locale.ROOT, "%.1f MB/s", rate / 1e6)
                        : String.format(java.util.Locale.ROOT, rate < 10 ? "%.1f%s/s" : "%,.0f%s/s", rate,
                        unit.isEmpty() ? "" : " " + unit));
                if (total > n) {
                    sb.append(", ETA ").append(Html.span(java.time.Duration.ofMillis((long) ((total - n) / rate * 1000))));
                }
            }
            return sb.toString();
        }

        private static String mb(long b) {
            return String.format(java.util.Locale.ROOT, "%.1f", b / 1e6);
        }
    }

    /**
     * Draws "{@code what} ... N s" on stderr every 200 ms on a daemon thread, for one long step whose progress cannot
     * be counted (a single write's commit); only on a terminal. Close it when the step returns.
     */
    static AutoCloseable ticker(String what) {
        if (!drawsProgress()) {
            return () -> { };
        }
        long started = System.nanoTime();
        java.util.concurrent.CountDownLatch stop = new java.util.concurrent.CountDownLatch(1);
        Thread t = new Thread(() -> {
            try {
                while (!stop.await(200, java.util.concurrent.TimeUnit.MILLISECONDS)) {
                    System.err.print("\r" + what + " ... " + Html.span(java.time.Duration.ofNanos(System.nanoTime() - started))
                            + "\u001b[K");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "palisade-ticker");
        t.setDaemon(true);
        t.start();
        return () -> {
            stop.countDown();
            t.join(1_000);
            System.err.print("\r\u001b[K");
        };
    }

    /**
     * Draws progress of work that journals as it goes (a bulk load's batches, a migration's steps) by
     * following the journal from its current end on a daemon thread; only on a terminal. Close it when
     * the work returns.
     */
    static AutoCloseable journalProgress(Path graph, String what, long total,
                                         java.util.function.Predicate<io.palisade.journal.JournalEvent> counts) {
        return journalProgress(graph, what, total, "", counts, e -> null);
    }

    /**
     * As above, counting {@code unit}s, with a note taken from each counted event ({@code note} answers null to keep
     * the last one): a bulk load's rows committed so far.
     */
    static AutoCloseable journalProgress(Path graph, String what, long total, String unit,
                                         java.util.function.Predicate<io.palisade.journal.JournalEvent> counts,
                                         java.util.function.Function<io.palisade.journal.JournalEvent, String> note) {
        if (!drawsProgress()) {
            return () -> { };
        }
        Progress p = new Progress(what, total, unit);
        java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
        Thread t = new Thread(() -> {
            try (io.palisade.journal.JournalReader r = io.palisade.journal.JournalReader.open(graph.resolve("_palisade"));
                 io.palisade.journal.JournalCursor c = r.follow(java.time.Instant.now())) {
                long n = 0;
                while (!stop.get()) {
                    io.palisade.journal.JournalRecord rec = c.take(java.time.Duration.ofMillis(200));
                    if (rec != null && counts.test(rec.event())) {
                        String text = note.apply(rec.event());
                        if (text != null) {
                            p.note(text);
                        }
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
