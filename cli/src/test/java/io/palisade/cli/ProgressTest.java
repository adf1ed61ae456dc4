package io.palisade.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Progress is drawn on a terminal only: off a terminal (here: the test's captured streams, System.console() is not a
 * terminal) a write, a bulk load and a report print nothing beyond their own output; the line a terminal would get
 * states done/total, the rate and the time left; a bulk load journals the rows it committed in each load_progress
 * record and {@code audit --format table} shows them.
 */
class ProgressTest {
    @Test
    void offATerminalWritesLoadsAndReportsPrintNothingExtraAndLoadProgressCarriesRows(@TempDir Path tmp) throws Exception {
        assertThat(Cli.terminal()).as("the test's streams are not a terminal").isFalse();
        String graph = CliRun.graph(tmp, 0);
        StringBuilder rows = new StringBuilder();
        for (int i = 0; i < 250; i++) {
            rows.append("{\"id\":\"p").append(i).append("\",\"age\":").append(i % 90).append("}\n");
        }
        Path file = tmp.resolve("rows.jsonl");
        Files.writeString(file, rows);
        CliRun.Result w = CliRun.run("write", graph, "--table", "person", "--mode", "upsert", file.toString());
        assertThat(w.code()).as(w.toString()).isZero();
        assertThat(ReportLayoutTest.own(w.err())).isEmpty();
        assertThat(w.out().strip().lines()).hasSize(1);

        String more = rows.toString().replace("\"p", "\"q");
        CliRun.Result load = CliRun.runWithInput(more, "write", graph, "--table", "person", "--mode", "insert",
                "--batch-rows", "100");
        assertThat(load.code()).as(load.toString()).isZero();
        assertThat(ReportLayoutTest.own(load.err())).isEmpty();
        assertThat(load.out().strip().lines()).hasSize(1);

        CliRun.Result audit = CliRun.run("audit", graph, "--type", "load_progress");
        List<Long> committed = new ArrayList<>();
        ObjectMapper json = new ObjectMapper();
        for (String l : audit.out().strip().split("\n")) {
            JsonNode n = json.readTree(l);
            if (n.get("batch_index").asInt() >= 0 && n.get("batch_keys") != null && !n.get("batch_keys").isNull()) {
                committed.add(n.get("rows").asLong());
            }
        }
        assertThat(committed).containsExactly(100L, 200L, 250L);
        CliRun.Result table = CliRun.run("audit", graph, "--type", "load_progress", "--format", "table");
        assertThat(table.out()).contains("batch_index=2").contains("rows=250");

        CliRun.Result report = CliRun.run("report", graph, "--html", tmp.resolve("r.html").toString());
        assertThat(report.code()).as(report.toString()).isZero();
        assertThat(ReportLayoutTest.own(report.err())).isEmpty();
    }

    @Test
    void aTerminalsLineStatesDoneOfTotalTheRateAndTheTimeLeft() {
        assertThat(Cli.Progress.line("load: batches committed", 3, 10, "batches", 6_000_000_000L, "3000/10000 rows"))
                .isEqualTo("load: batches committed [#######                 ] 3/10 batches, 3000/10000 rows, 0.5 batches/s, "
                        + "ETA 14.0 s");
        assertThat(Cli.Progress.line("parse", 20_000_000, 40_000_000, "bytes", 2_000_000_000L, "120000 rows parsed"))
                .isEqualTo("parse [############            ] 20.0/40.0 MB, 120000 rows parsed, 10.0 MB/s, ETA 2.0 s");
        assertThat(Cli.Progress.line("report: reading the journal", 5, 0, "records", 100_000_000L, ""))
                .as("no total: no bar, no ETA; under half a second: no rate yet")
                .isEqualTo("report: reading the journal 5 records");
    }
}
