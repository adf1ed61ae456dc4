package io.palisade.cli;

import io.palisade.journal.JournalCursor;
import io.palisade.journal.JournalReader;
import io.palisade.journal.JournalRecord;
import io.palisade.journal.JsonRenderer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.BufferedWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;

/**
 * {@code palisade audit export}: writes the whole journal, one row per event, as JSON lines or an Arrow IPC file,
 * to a file or to stdout. Read-only.
 */
@Command(name = "export", mixinStandardHelpOptions = true,
        description = {"Export the whole journal, one row per event, to a file or to stdout. Read-only.",
                "jsonl writes one event per line as audit prints it; arrow writes an Arrow IPC file (columns seq, "
                        + "time, epoch, type, intent_id, graph_branch, table, outcome, json) that pyarrow and "
                        + "DuckDB load. --out - writes to stdout (the summary line then goes to stderr)."},
        footer = {"%nExample:%n  palisade audit export GRAPH --format arrow --out audit.arrow"})
final class AuditExportCommand implements Callable<Integer>, ReadOnly {
    enum Format { jsonl, arrow }

    @Parameters(index = "0", paramLabel = "GRAPH", description = "The graph directory.")
    Path graph;
    @Option(names = "--format", required = true, paramLabel = "jsonl|arrow", description = "The file format: jsonl or arrow.")
    Format format;
    @Option(names = "--out", required = true, paramLabel = "FILE|-", description = "The file to write, or - for stdout.")
    String out;

    @Override
    public Integer call() throws Exception {
        JournalReader reader = Cli.reader(graph);
        long end = reader.endSequence();
        boolean stdout = out.equals("-");
        Cli.Progress p = new Cli.Progress("export", stdout ? 0 : end);
        long n = 0;
        java.io.OutputStream sink = stdout ? new java.io.FilterOutputStream(System.out) {
            @Override
            public void write(byte[] b, int off, int len) throws java.io.IOException {
                out.write(b, off, len);
            }

            @Override
            public void close() throws java.io.IOException {
                flush(); // stdout stays open
            }
        } : null;
        if (format == Format.jsonl) {
            try (java.io.Writer w = stdout ? new BufferedWriter(new java.io.OutputStreamWriter(sink, StandardCharsets.UTF_8))
                    : Files.newBufferedWriter(Path.of(out), StandardCharsets.UTF_8);
                 JournalCursor c = Cli.readAll(reader)) {
                JournalRecord r;
                while ((r = c.poll()) != null) {
                    w.write(JsonRenderer.toJson(r));
                    w.write('\n');
                    p.at(++n);
                }
            }
        } else if (stdout) {
            n = ArrowExport.write(reader, java.nio.channels.Channels.newChannel(sink), p);
        } else {
            n = ArrowExport.write(reader, Path.of(out), p);
        }
        p.done();
        String done = "exported " + n + " events to " + (stdout ? "stdout" : out) + " (" + format + ")";
        if (stdout) {
            Cli.note(done); // the events are the output: the summary goes to stderr
        } else {
            System.out.println(done);
        }
        return Main.OK;
    }
}
