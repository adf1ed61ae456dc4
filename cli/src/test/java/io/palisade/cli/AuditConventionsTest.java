package io.palisade.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** audit's filters and ranges, and the conventions the reading commands share. */
class AuditConventionsTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    static Path tmp;
    static String graph;
    static long end;

    @BeforeAll
    static void graph() throws Exception {
        graph = CliRun.graph(tmp, 3);
        end = JSON.readTree(CliRun.run("audit", "verify", graph, "--json").out()).get("end_sequence").asLong();
    }

    private static void usage(CliRun.Result r, String... named) {
        assertThat(r.code()).as(r.toString()).isEqualTo(2);
        assertThat(r.err()).as(r.toString()).contains(named).doesNotContain("internal error", "Exception", "\tat ");
        assertThat(r.out()).as("nothing printed as a result").isEmpty();
    }

    @Test
    void anUnknownTypeIsAUsageErrorListingTheTypesAndTheNearestOne() {
        usage(CliRun.run("audit", graph, "--type", "intent_complete"), "'intent_complete' is not an event type",
                "did you mean intent_completed?", "intent_recorded", "writer_started");
        usage(CliRun.run("audit", graph, "--type", "intent_recorded,bogus"), "'bogus'", "the types are");
        assertThat(CliRun.run("audit", graph, "--type", "intent_completed").out()).contains("COMMITTED");
    }

    @Test
    void aRangeOutsideTheJournalOrReversedIsAUsageErrorNamingTheJournalsRange() {
        String range = "the journal holds sequences 0.." + (end - 1);
        usage(CliRun.run("audit", graph, "--from-seq", "999999"), "--from '999999' is past the journal's end", range);
        usage(CliRun.run("audit", graph, "--from-seq", "-3"), "a sequence is 0 or more", range);
        usage(CliRun.run("audit", graph, "--to-seq", "999999"), range);
        usage(CliRun.run("audit", graph, "--from-seq", "5", "--to-seq", "2"), "reversed range", "'5'", "'2'");
        usage(CliRun.run("audit", graph, "--since", "2h ago", "--until", "3h ago"), "before the graph existed");
        usage(CliRun.run("audit", graph, "--from", "2999-01-01"), "after the journal's last record", range);
        // a good range prints exactly it
        CliRun.Result r = CliRun.run("audit", graph, "--from", "2", "--to", "4");
        assertThat(r.code()).as(r.toString()).isZero();
        assertThat(r.out().strip().split("\n")).hasSize(3);
        CliRun.Result last = CliRun.run("audit", graph, "--from", "last 2", "--format", "json");
        assertThat(last.code()).as(last.toString()).isZero();
        assertThat(last.out()).contains("\"seq\":" + (end - 2)).contains("\"seq\":" + (end - 1))
                .doesNotContain("\"seq\":" + (end - 3) + ",");
    }

    @Test
    void theTableViewsColumnsLineUpUnderTheirHeaders() {
        CliRun.Result r = CliRun.run("audit", graph, "--format", "table");
        assertThat(r.code()).as(r.toString()).isZero();
        String[] lines = r.out().split("\n");
        String header = lines[0];
        int time = header.indexOf("time");
        int type = header.indexOf("type");
        int summary = header.indexOf("summary");
        assertThat(lines).hasSizeGreaterThan(5);
        for (int i = 1; i < lines.length; i++) {
            String l = lines[i];
            assertThat(l.charAt(time - 1)).as(l).isEqualTo(' ');
            assertThat(l.substring(time, time + 4)).as(l).matches("\\d{4}");
            assertThat(l.charAt(type - 2)).as(l).isEqualTo(' ');
            assertThat(l.substring(time, type).strip()).as(l).hasSize(30).endsWith("Z"); // a full ISO time fits
            assertThat(Character.isLetter(l.charAt(type))).as(l).isTrue();
            assertThat(l.charAt(summary - 1)).as(l).isEqualTo(' ');
            assertThat(l.substring(type, summary).strip()).as(l).doesNotContain(" ");
        }
        // the table's summary names fields as the JSON does
        assertThat(r.out()).contains("key_filter.keys=").doesNotContain(" keys=[");
    }

    @Test
    void exportToDashWritesToStdout() throws Exception {
        CliRun.Result r = CliRun.run("audit", "export", graph, "--format", "jsonl", "--out", "-");
        assertThat(r.code()).as(r.toString()).isZero();
        String[] lines = r.out().strip().split("\n");
        assertThat(lines).hasSize((int) end);
        for (String l : lines) {
            assertThat(JSON.readTree(l).has("seq")).isTrue();
        }
        assertThat(r.err()).contains("exported " + end + " events to stdout");
        assertThat(tmp.resolve("-")).doesNotExist();
        assertThat(Path.of("-")).doesNotExist();
        CliRun.Result arrow = CliRun.run("audit", "export", graph, "--format", "arrow", "--out", "-");
        assertThat(arrow.code()).as(arrow.toString()).isZero();
        assertThat(arrow.out()).startsWith("ARROW1");
    }

    @Test
    @Timeout(60)
    void followStartsAtTheLastNRecords() throws Exception {
        PrintStream saved = System.out;
        PipedInputStream in = new PipedInputStream(1 << 16);
        PrintStream pipe = new PrintStream(new PipedOutputStream(in), true, StandardCharsets.UTF_8);
        System.setOut(pipe); // the command keeps the stream it started with
        Thread t = Thread.ofPlatform().start(() -> Main.run("audit", graph, "--follow", "--from", "last 2"));
        List<JsonNode> got = new ArrayList<>();
        BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
        try {
            got.add(JSON.readTree(r.readLine()));
            got.add(JSON.readTree(r.readLine()));
        } finally {
            t.interrupt();
            t.join(30_000);
            System.setOut(saved);
        }
        assertThat(t.isAlive()).isFalse();
        assertThat(got).extracting(n -> n.get("seq").asLong()).containsExactly(end - 2, end - 1);
    }

    @Test
    void anUnknownBranchNamesTheBranchesAndAnUnknownTableTheTables() {
        usage(CliRun.run("heads", graph, "--branch", "nope"), "--branch 'nope': no such graph branch", "main");
        usage(CliRun.run("scan", graph, "--table", "person", "--branch", "nope"), "the branches are main");
        usage(CliRun.run("scan", graph, "--table", "persons"), "--table 'persons'", "its tables are person");
        CliRun.Result audit = CliRun.run("audit", graph, "--branch", "nope");
        assertThat(audit.code()).as(audit.toString()).isEqualTo(2);
        assertThat(audit.err()).contains("the graph's branches are main");
    }

    @Test
    void pointsBeforeTheGraphExistedAreUsageErrorsAndZoneLessTimesAreUtc() throws Exception {
        usage(CliRun.run("heads", graph, "--at-time", "2000-01-01T00:00:00Z"), "before the graph existed",
                "its first record is at");
        usage(CliRun.run("scan", graph, "--table", "person", "--at-time", "-1000d"), "before the graph existed");
        usage(CliRun.run("replay", graph, "--to-time", "2000-01-01"), "before the graph existed");
        // read as UTC it is now, after the last record; read in any other zone it would be before the graph or future
        String utcNow = LocalDateTime.now(ZoneOffset.UTC).toString();
        CliRun.Result zoneLess = CliRun.run("heads", graph, "--at", utcNow, "--format", "json");
        assertThat(zoneLess.code()).as(zoneLess.toString()).isZero();
        // a future point is as unknowable as a sequence past the end
        usage(CliRun.run("scan", graph, "--table", "person", "--at", "2999-01-01T00:00:00Z"), "is in the future (now is ");
        usage(CliRun.run("heads", graph, "--at", LocalDateTime.now(ZoneOffset.UTC).plusHours(1).toString()),
                "is in the future");
        CliRun.Result byScan = CliRun.run("scan", graph, "--table", "person", "--at-time", "now", "--format", "json");
        assertThat(byScan.code()).as(byScan.toString()).isZero();
        assertThat(JSON.readTree(byScan.out())).hasSize(3);
        usage(CliRun.run("heads", graph, "--at", "last " + end), "reaches before the journal's first record");
        CliRun.Result earlier = CliRun.run("heads", graph, "--at", "last 1", "--format", "json");
        assertThat(earlier.code()).as(earlier.toString()).isZero();
    }

    @Test
    void tableAndJsonUseTheSameFieldNames() throws Exception {
        CliRun.Result t = CliRun.run("heads", graph);
        assertThat(t.out().split("\n")[0]).contains("inherited_from").doesNotContain("pin");
        JsonNode j = JSON.readTree(CliRun.run("heads", graph, "--format", "json").out()).get(0);
        for (String column : t.out().split("\n")[0].trim().split("\\s+")) {
            assertThat(j.has(column)).as(column).isTrue();
        }
        // a table-ack table has no fold: its fold fields are null, as in status
        assertThat(j.get("ack").asText()).isEqualTo("table");
        assertThat(j.get("unfolded").isNull()).isTrue();
        assertThat(j.get("folded_through").isNull()).isTrue();
        assertThat(j.get("fold_lag_ms").isNull()).isTrue();
        CliRun.Result jsonl = CliRun.run("heads", graph, "--format", "jsonl");
        assertThat(JSON.readTree(jsonl.out().strip())).isEqualTo(j);
        CliRun.Result alias = CliRun.run("heads", graph, "--json");
        assertThat(JSON.readTree(alias.out()).get(0)).isEqualTo(j);
        CliRun.Result bl = CliRun.run("branch", graph, "list");
        JsonNode b = JSON.readTree(CliRun.run("branch", graph, "list", "--format", "json").out()).get(0);
        for (String column : bl.out().split("\n")[0].trim().split("\\s+")) {
            assertThat(b.has(column)).as(column).isTrue();
        }
    }

    @Test
    void readOnlyErrorsDoNotSayNothingWasWrittenAndMistypedCommandsGetSuggestions() {
        CliRun.Result r = CliRun.run("explain", graph, "no-such-intent");
        assertThat(r.code()).isEqualTo(5);
        assertThat(r.err()).startsWith("palisade: validation: no intent").doesNotContain("nothing written");
        CliRun.Result typo = CliRun.run("audti", graph);
        assertThat(typo.code()).isEqualTo(2);
        assertThat(typo.err()).contains("'audti'").contains("did you mean").contains("audit");
        CliRun.Result sub = CliRun.run("audit", "verfy", graph);
        assertThat(sub.code()).as(sub.toString()).isEqualTo(2);
        CliRun.Result help = CliRun.run("branch", "create", "--help");
        assertThat(help.code()).as(help.toString()).isZero();
        assertThat(help.out()).contains("Usage: palisade branch create").contains("Example:");
    }
}
