package io.palisade.cli;

import io.palisade.journal.JournalCursor;
import io.palisade.journal.JournalReader;
import io.palisade.journal.JournalRecord;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.concurrent.Callable;

@Command(name = "report", mixinStandardHelpOptions = true,
        description = {"Write a self-contained HTML report of a window of the journal. Read-only.",
                "The page has inline CSS and SVG and needs no network or script. On a time axis (UTC wall time; "
                        + "sequences in the tooltips and under the ticks) each table has a histogram of commits, "
                        + "conflicts, retries and aborted intents per time bucket; crashes and the recoveries after "
                        + "them are annotated bands across every table. The header states the window's span and "
                        + "event count; tables list the crashes and the busiest conflicting keys with the intents "
                        + "that committed them. A conflict and a retry are defined in docs/conflict-resolution.md (\"Conflicts "
                        + "and retries: definitions\"). On a terminal, progress is drawn on stderr."},
        footer = {"%nExample:%n  palisade report GRAPH --html incident.html --from '2h ago'"})
final class ReportCommand implements Callable<Integer>, ReadOnly {
    /** How many keys the busiest-keys table lists. */
    static final int TOP_KEYS = 25;

    @Parameters(index = "0", paramLabel = "GRAPH", description = "The graph directory.")
    Path graph;

    @Option(names = "--html", required = true, paramLabel = "OUT.html|-", description = "The HTML file to write, or - for stdout.")
    String html;

    @Option(names = {"--from", "--since"}, paramLabel = "POINT",
            description = "The window's first event: a sequence, an ISO-8601 time (zone-less is UTC), a relative time "
                    + "(-10m, 2h ago) or 'last N'. --since is an older name of this option.")
    String since;

    @Option(names = {"--to", "--until"}, paramLabel = "POINT",
            description = "The window's last event (inclusive), in the same forms. --until is an older name of this option.")
    String until;

    @Override
    public Integer call() throws Exception {
        Seek.Point fromPoint = Seek.parse(since, "--from");
        Seek.Point toPoint = Seek.parse(until, "--to");
        JournalReader reader = Cli.reader(graph);
        Seek.Span span = new Seek.Span(reader);
        long lo = fromPoint == null ? 0 : span.start(fromPoint, "--from", false);
        long hi = toPoint == null ? Long.MAX_VALUE : span.end(toPoint, "--to");
        if (fromPoint != null && toPoint != null) {
            Seek.Span.ordered(lo, "--from", fromPoint, hi, "--to", toPoint);
        }
        List<String> tables = Cli.catalog(graph).tables().stream().map(t -> t.name()).toList();
        Cli.Progress progress = new Cli.Progress("report: reading the journal", reader.endSequence(), "records");
        ReportModel model;
        try (JournalCursor c = Cli.readAll(reader)) {
            model = ReportModel.of(() -> records(c), lo, hi, tables, TOP_KEYS, progress);
        } finally {
            progress.done();
        }
        String page = Html.page(graph.toString(), model);
        boolean stdout = html.equals("-");
        if (stdout) {
            System.out.print(page);
            System.out.flush();
        } else {
            Files.writeString(Path.of(html), page, StandardCharsets.UTF_8);
        }
        String done = "wrote " + (stdout ? "the report to stdout" : html) + ": window seq " + model.first + "-"
                + model.last + ", " + model.events + " of " + model.journalEvents + " journal events; " + model.count(ReportModel.Kind.COMMIT) + " commits ("
                + model.transactions.size() + " graph transactions), "
                + model.count(ReportModel.Kind.CONFLICT) + " conflicts, " + model.count(ReportModel.Kind.RETRY)
                + " retries, " + model.incidents.size() + " crashes; " + model.busiest.size() + " conflicting keys listed";
        if (stdout) {
            Cli.note(done); // the page is the output: the summary goes to stderr
        } else {
            System.out.println(done);
        }
        return Main.OK;
    }

    private static Iterator<JournalRecord> records(JournalCursor c) {
        return new Iterator<>() {
            JournalRecord next = c.poll();

            @Override
            public boolean hasNext() {
                return next != null;
            }

            @Override
            public JournalRecord next() {
                if (next == null) {
                    throw new NoSuchElementException();
                }
                JournalRecord r = next;
                next = c.poll();
                return r;
            }
        };
    }
}
