package io.palisade.cli;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code --quiet} (-q), a root option every subcommand inherits: the progress a terminal would get, notes and the
 * confirmations a command prints on stderr are left out; stdout is the same; with --verbose it is a usage error.
 */
class QuietTest {
    @TempDir
    Path tmp;

    @AfterEach
    void offTheTerminal() {
        Cli.assumeTerminal = false;
    }

    /** stderr without the test classpath's library logging. */
    private static String own(CliRun.Result r) {
        return ReportLayoutTest.own(r.err());
    }

    @Test
    void onATerminalAWritesProgressIsLeftOutWithQuietAndItsReceiptIsTheSame() throws Exception {
        String graph = CliRun.graph(tmp, 0);
        StringBuilder rows = new StringBuilder();
        for (int i = 0; i < 2048; i++) {
            rows.append("{\"id\":\"p").append(i).append("\",\"age\":").append(i % 90).append("}\n");
        }
        Path file = tmp.resolve("rows.jsonl");
        Files.writeString(file, rows);
        Path other = tmp.resolve("rows2.jsonl");
        Files.writeString(other, rows.toString().replace("\"p", "\"q"));
        Cli.assumeTerminal = true;
        CliRun.Result drawn = CliRun.run("write", graph, "--table", "person", file.toString());
        assertThat(drawn.code()).as(drawn.toString()).isZero();
        assertThat(own(drawn)).as("the parse progress a terminal gets").contains("parse [").contains("rows parsed");
        for (String[] args : new String[][] {{"write", graph, "--table", "person", "-q", other.toString()},
                {"--quiet", "write", graph, "--table", "person", "--mode", "upsert", file.toString()}}) {
            CliRun.Result quiet = CliRun.run(args);
            assertThat(quiet.code()).as(quiet.toString()).isZero();
            assertThat(own(quiet)).as(String.join(" ", args)).isEmpty();
            assertThat(quiet.out().strip().lines()).hasSize(1);
            assertThat(quiet.out()).startsWith("{\"intent\":").contains("\"rows\":2048");
        }
    }

    @Test
    void theSummaryOfAReportOrExportWrittenToStdoutIsLeftOutWithQuiet() throws Exception {
        String graph = CliRun.graph(tmp, 2);
        CliRun.Result report = CliRun.run("report", graph, "--html", "-");
        assertThat(report.code()).as(report.toString()).isZero();
        assertThat(own(report)).startsWith("palisade: wrote the report to stdout: window seq ");
        CliRun.Result quietReport = CliRun.run("report", graph, "--html", "-", "--quiet");
        assertThat(quietReport.code()).as(quietReport.toString()).isZero();
        assertThat(own(quietReport)).isEmpty();
        assertThat(quietReport.out()).startsWith("<!DOCTYPE html>").isEqualTo(report.out());

        CliRun.Result export = CliRun.run("audit", "export", graph, "--format", "jsonl", "--out", "-");
        assertThat(own(export)).startsWith("palisade: exported ");
        CliRun.Result quietExport = CliRun.run("-q", "audit", "export", graph, "--format", "jsonl", "--out", "-");
        assertThat(quietExport.code()).as(quietExport.toString()).isZero();
        assertThat(own(quietExport)).isEmpty();
        assertThat(quietExport.out()).isEqualTo(export.out());
        // written to a file, the summary is the result: on stdout, with or without --quiet
        Path out = tmp.resolve("audit.jsonl");
        CliRun.Result toFile = CliRun.run("audit", "export", graph, "--format", "jsonl", "--out", out.toString(), "-q");
        assertThat(toFile.out()).startsWith("exported ");
    }

    @Test
    void warningsAndErrorsAreStillPrinted() throws Exception {
        String graph = CliRun.graph(tmp, 1);
        CliRun.Result r = CliRun.run("scan", graph, "--table", "persn", "-q");
        assertThat(r.code()).isEqualTo(Main.USAGE);
        assertThat(own(r)).contains("palisade: usage: --table 'persn'");
    }

    @Test
    void quietWithVerboseIsAUsageError() throws Exception {
        String graph = CliRun.graph(tmp, 0);
        for (String[] args : new String[][] {{"-q", "heads", graph, "-v"}, {"heads", graph, "-qv"},
                {"--verbose", "status", graph, "--quiet"}}) {
            CliRun.Result r = CliRun.run(args);
            assertThat(r.code()).as(String.join(" ", args) + "\n" + r).isEqualTo(Main.USAGE);
            assertThat(own(r)).as(String.join(" ", args))
                    .startsWith("palisade: --quiet and --verbose contradict each other; give one");
            assertThat(r.out()).isEmpty();
        }
    }
}
