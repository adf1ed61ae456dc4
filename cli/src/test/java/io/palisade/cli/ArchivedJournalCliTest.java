package io.palisade.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.palisade.coordinator.ArchivedJournalFixture;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The commands on a graph whose journal's file retention moved its oldest files out (docs/journal.md "File
 * retention"): `audit verify` verifies the archived range through its anchors and says so, the reading commands say
 * which range left and where and read on, `status` shows it, and a point inside the range is refused with
 * `version_expired` (exit 2) naming where the local journal starts.
 */
class ArchivedJournalCliTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path tmp;

    private String graph;
    private Path copies;
    private ArchivedJournalFixture.Built built;

    @BeforeEach
    void build() {
        copies = tmp.resolve("copies");
        built = ArchivedJournalFixture.build(tmp.resolve("g"), copies);
        graph = tmp.resolve("g").toString();
    }

    @Test
    void auditVerifyChecksTheArchivedRangeThroughItsAnchorsAndTheCopies() throws Exception {
        CliRun.Result text = CliRun.run("audit", "verify", graph);
        assertThat(text.code()).as(text.toString()).isZero();
        assertThat(text.out()).contains("archived: sequences 0..").contains("copied to " + copies)
                .contains("their chain anchors link end to end").contains("copies verified, 0 missing");

        CliRun.Result json = CliRun.run("audit", "verify", graph, "--json");
        assertThat(json.code()).as(json.toString()).isZero();
        JsonNode v = JSON.readTree(json.out());
        assertThat(v.get("ok").asBoolean()).isTrue();
        assertThat(v.get("verified_from").asLong()).isGreaterThan(built.archivedPoint());
        assertThat(v.get("archived_files").asInt()).isGreaterThanOrEqualTo(4);
        assertThat(v.get("archived_copies_verified").asInt()).isEqualTo(v.get("archived_files").asInt());
        assertThat(v.get("archive_location").asText()).isEqualTo(copies.toString());
        // removals are read from where the local journal starts, and it never claims none were made before it
        assertThat(v.get("table_versions")).isNotEmpty();
        for (JsonNode t : v.get("table_versions")) {
            assertThat(t.get("removals_read_from_seq").asLong()).isEqualTo(v.get("verified_from").asLong());
        }
        assertThat(text.out()).doesNotContain("none removed");

        JsonNode status = JSON.readTree(CliRun.run("status", graph, "--format", "json").out());
        assertThat(status.get("journal_first_sequence").asLong()).isEqualTo(v.get("verified_from").asLong());
        assertThat(status.get("journal_archived_files").asInt()).isEqualTo(v.get("archived_files").asInt());
        assertThat(status.get("journal_archive_location").asText()).isEqualTo(copies.toString());
    }

    @Test
    void readingCommandsSayWhatLeftAndReadOnAndAnArchivedPointIsRefused() throws Exception {
        long first = JSON.readTree(CliRun.run("status", graph, "--format", "json").out())
                .get("journal_first_sequence").asLong();
        String note = "journal sequences 0.." + (first - 1) + " were moved out of the local journal";

        CliRun.Result audit = CliRun.run("audit", graph, "--type", "intent_recorded");
        assertThat(audit.code()).as(audit.toString()).isZero();
        assertThat(audit.err()).contains(note).contains("copied to " + copies);
        assertThat(audit.out()).contains("intent_recorded");

        CliRun.Result explain = CliRun.run("explain", graph, "--key", "q1", "--table", "person");
        assertThat(explain.code()).as(explain.toString()).isZero();
        assertThat(explain.err()).contains(note);
        assertThat(explain.out()).contains("q1");
        // every write of p1 was in the files that left
        CliRun.Result gone = CliRun.run("explain", graph, "--key", "p1", "--table", "person");
        assertThat(gone.code()).as(gone.toString()).isEqualTo(Main.INVALID_INPUT);
        assertThat(gone.err()).contains("since sequence " + first + " (the journal's file retention moved the records "
                + "before it out)");

        CliRun.Result report = CliRun.run("report", graph, "--html", tmp.resolve("r.html").toString());
        assertThat(report.code()).as(report.toString()).isZero();
        assertThat(report.err()).contains(note);

        CliRun.Result heads = CliRun.run("heads", graph, "--at", Long.toString(built.archivedPoint()), "--json");
        assertThat(heads.code()).as(heads.toString()).isEqualTo(Main.USAGE);
        assertThat(heads.out() + heads.err()).contains("version_expired")
                .contains("the local journal starts at sequence " + first);

        // a local point older than every kept checkpoint cannot be rebuilt either: the message names the oldest that can
        // (the point must lie before the oldest kept checkpoint: one that covers the local journal's first records, as
        // it happens to in this history, is taken out as checkpoint pruning would)
        try (var files = java.nio.file.Files.list(tmp.resolve("g").resolve("_palisade").resolve("checkpoints"))) {
            for (Path f : files.toList()) {
                String name = f.getFileName().toString();
                if (name.matches("heads-\\d+\\.ckpt")) {
                    long covered = Long.parseLong(name.substring("heads-".length(), name.length() - ".ckpt".length()));
                    if (covered >= first && covered <= first + 1) {
                        java.nio.file.Files.delete(f);
                    }
                }
            }
        }
        CliRun.Result local = CliRun.run("heads", graph, "--at", Long.toString(first + 1));
        assertThat(local.code()).as(local.toString()).isEqualTo(Main.USAGE);
        assertThat(local.err()).contains("the graph's state at sequence " + (first + 1) + " cannot be rebuilt")
                .contains("points from the oldest kept checkpoint, sequence ");
        long oldest = Long.parseLong(local.err().replaceAll("(?s).*oldest kept checkpoint, sequence (\\d+).*", "$1"));
        CliRun.Result atCheckpoint = CliRun.run("heads", graph, "--at", Long.toString(oldest));
        assertThat(atCheckpoint.code()).as(atCheckpoint.toString()).isZero();

        // a time before the first local record: refused, naming where the local journal starts; a later one reads
        CliRun.Result early = CliRun.run("heads", graph, "--at", "2000-01-01T00:00:00Z");
        assertThat(early.code()).as(early.toString()).isEqualTo(Main.USAGE);
        assertThat(early.err()).contains("is before the first record the local journal holds (sequence " + first);
        CliRun.Result later = CliRun.run("audit", graph, "--from", "last 5");
        assertThat(later.code()).as(later.toString()).isZero();

        CliRun.Result scan = CliRun.run("scan", graph, "--table", "person");
        assertThat(scan.code()).as(scan.toString()).isZero();
        assertThat(scan.out().strip().split("\n")).hasSize(built.rows()); // one JSON line per row
    }
}
