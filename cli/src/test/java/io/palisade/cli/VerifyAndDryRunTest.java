package io.palisade.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.palisade.journal.ExpectedBase;
import io.palisade.journal.HeadTransition;
import io.palisade.journal.Journal;
import io.palisade.journal.JournalEvent;
import io.palisade.journal.JournalOptions;
import io.palisade.journal.JournalReader;
import io.palisade.journal.JournalRecord;
import io.palisade.journal.TableHead;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/** audit verify's scope and pinned head, readers' warnings past damage, and recover --dry-run. */
class VerifyAndDryRunTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path tmp;

    @Test
    void verifyStatesItsScopeAndAPinnedHeadCatchesARewrittenJournal() throws Exception {
        String graph = CliRun.graph(tmp.resolve("a"), 2);
        CliRun.Result v = CliRun.run("audit", "verify", graph);
        assertThat(v.code()).as(v.toString()).isZero();
        JsonNode j = JSON.readTree(CliRun.run("audit", "verify", graph, "--json").out());
        long end = j.get("end_sequence").asLong();
        int sessions = CliRun.run("audit", graph, "--type", "writer_started").out().strip().split("\n").length;
        assertThat(v.out()).contains("journal verified: " + end + " records, sequences 0.." + (end - 1) + ", from ")
                .contains("segments: " + sessions + " (writer epochs 1, 2, ")
                .contains("checkpoints: ").contains("equals the journal folded to it")
                .contains("table heads verified: 1 published head(s) checked against the journal")
                .contains("chain head: " + (end - 1) + ":" + j.get("chain_head").asText());
        assertThat(j.get("segments").asLong()).isEqualTo(sessions);
        assertThat(j.get("epochs")).hasSize(sessions);
        assertThat(j.get("heads_checked").asInt()).isEqualTo(1);
        assertThat(j.get("checkpoints").size()).isPositive();
        assertThat(j.get("first_time").asText()).isNotEqualTo("null");

        CliRun.Result printed = CliRun.run("audit", "verify", graph, "--print-head");
        assertThat(printed.code()).as(printed.toString()).isZero();
        String pin = printed.out().strip();
        assertThat(pin).isEqualTo((end - 1) + ":" + j.get("chain_head").asText());
        assertThat(CliRun.run("audit", "verify", graph, "--expect-head", pin).code()).isZero();
        // the journal grows: the pinned record is still there, unchanged
        assertThat(CliRun.runWithInput("{\"id\":\"zed\"}\n", "write", graph, "--table", "person").code()).isZero();
        CliRun.Result grown = CliRun.run("audit", "verify", graph, "--expect-head", pin);
        assertThat(grown.code()).as(grown.toString()).isZero();
        CliRun.Result bareHead = CliRun.run("audit", "verify", graph, "--expect-head", pin.substring(pin.indexOf(':') + 1));
        assertThat(bareHead.code()).as("a bare hash pins the last record").isEqualTo(7);

        // a journal rewritten with a recomputed chain (here: another graph's, made by the same commands) verifies on
        // its own, and fails against the pin
        String other = CliRun.graph(tmp.resolve("b"), 2);
        assertThat(CliRun.run("audit", "verify", other).code()).isZero();
        CliRun.Result rewritten = CliRun.run("audit", "verify", other, "--expect-head", pin);
        assertThat(rewritten.code()).as(rewritten.toString()).isEqualTo(7);
        assertThat(rewritten.err()).contains("not the pinned journal").contains("sequence " + (end - 1));
        CliRun.Result rewrittenJson = CliRun.run("audit", "verify", other, "--expect-head", pin, "--json");
        assertThat(rewrittenJson.code()).isEqualTo(7);
        assertThat(JSON.readTree(rewrittenJson.out().strip().split("\n")[0]).get("head_matches").asBoolean()).isFalse();
        CliRun.Result malformed = CliRun.run("audit", "verify", graph, "--expect-head", "xyz");
        assertThat(malformed.code()).isEqualTo(2);
        assertThat(malformed.err()).contains("64 hex digits");
    }

    @Test
    void readersWarnWhenTheyReadPastACorruptRegion() throws Exception {
        String graph = CliRun.graph(tmp, 3);
        JsonNode first = JSON.readTree(CliRun.run("audit", graph, "--type", "intent_recorded", "--table", "person")
                .out().strip().split("\n")[0]);
        long seq = first.get("seq").asLong();
        flipAByteOf(Path.of(graph), first.get("intent_id").asText());
        assertThat(CliRun.run("audit", "verify", graph).code()).isEqualTo(7);
        long end;
        try (JournalReader r = JournalReader.open(Path.of(graph, "_palisade"))) {
            end = r.endSequence();
        }
        CliRun.Result tail = CliRun.run("audit", graph, "--from-seq", Long.toString(end - 2));
        assertThat(tail.code()).as(tail.toString()).isZero();
        assertThat(tail.out().strip().split("\n")).hasSize(2);
        assertThat(tail.err()).contains("warning: the journal is corrupt before the part read here, at sequence " + seq);
        CliRun.Result heads = CliRun.run("heads", graph);
        assertThat(heads.code()).as(heads.toString()).isZero();
        assertThat(heads.err()).contains("warning: the journal is corrupt").contains("sequence " + seq);
        // an undamaged journal: no warning
        String clean = CliRun.graph(tmp.resolve("clean"), 2);
        assertThat(CliRun.run("heads", clean).err()).doesNotContain("warning");
        assertThat(CliRun.run("audit", clean, "--from", "last 2").err()).doesNotContain("warning");
    }

    @Test
    void recoverDryRunClassifiesEveryOpenIntentAndWritesNothing() throws Exception {
        String graph = CliRun.graph(tmp, 1);
        Path palisade = Path.of(graph, "_palisade");
        String open = "intent-left-open";
        // a writer that recorded an intent and died before its commit: the intent stays open, the table untouched
        JournalEvent.IntentRecorded last = null;
        TableHead head = null;
        try (JournalReader r = JournalReader.open(palisade); var c = r.read(0)) {
            for (JournalRecord rec = c.poll(); rec != null; rec = c.poll()) {
                if (rec.event() instanceof JournalEvent.IntentRecorded ir && ir.table().equals("person")) {
                    last = ir;
                }
                if (rec.event() instanceof JournalEvent.HeadPublished hp) {
                    head = hp.transitions().get(0).to();
                }
            }
        }
        try (Journal j = Journal.open(palisade, JournalOptions.defaults())) {
            j.append(new JournalEvent.IntentRecorded(open, null, last.operation(), "main", "person",
                    new ExpectedBase(head.tableBranch(), head.version(), head.schemaId(), j.endSequence() - 1),
                    last.actions(), last.keyFilter(), new HeadTransition("main", "person", head,
                    new TableHead(head.tableBranch(), head.version() + 1, head.schemaId(), head.incarnation()))));
        }
        Map<String, String> before = hashes(Path.of(graph));

        CliRun.Result text = CliRun.run("recover", graph, "--dry-run");
        assertThat(text.code()).as(text.toString()).isZero();
        assertThat(text.out()).contains("dry run: nothing was written").contains("NO_EFFECT_ABORTED").contains(open);
        CliRun.Result dry = CliRun.run("recover", graph, "--dry-run", "--format", "json");
        assertThat(dry.code()).as(dry.toString()).isZero();
        JsonNode plan = JSON.readTree(dry.out());
        assertThat(plan.get("dry_run").asBoolean()).isTrue();
        assertThat(plan.get("classifications")).hasSize(1);
        assertThat(hashes(Path.of(graph))).as("the graph is byte-identical after a dry run").isEqualTo(before);

        CliRun.Result real = CliRun.run("recover", graph, "--json");
        assertThat(real.code()).as(real.toString()).isZero();
        JsonNode done = JSON.readTree(real.out());
        assertThat(done.get("classifications").get(0).get("subject_id").asText()).isEqualTo(open);
        assertThat(done.get("classifications").get(0).get("kind").asText())
                .isEqualTo(plan.get("classifications").get(0).get("kind").asText());
        assertThat(hashes(Path.of(graph))).isNotEqualTo(before);
        // nothing left: the dry run says so
        CliRun.Result after = CliRun.run("recover", graph, "--dry-run");
        assertThat(after.out()).contains("nothing to recover");
    }

    private static Map<String, String> hashes(Path root) throws Exception {
        Map<String, String> out = new TreeMap<>();
        try (Stream<Path> s = Files.walk(root)) {
            for (Path p : s.filter(Files::isRegularFile).toList()) {
                MessageDigest d = MessageDigest.getInstance("SHA-256");
                out.put(root.relativize(p).toString(), HexFormat.of().formatHex(d.digest(Files.readAllBytes(p))));
            }
        }
        try (Stream<Path> s = Files.walk(root)) {
            for (Path p : s.filter(Files::isDirectory).toList()) {
                out.put(root.relativize(p) + "/", "dir");
            }
        }
        return out;
    }

    /** Flips one byte of the record that holds {@code needle} (mid-segment), as a tampering would. */
    private static void flipAByteOf(Path graph, String needle) throws Exception {
        byte[] n = needle.getBytes(StandardCharsets.UTF_8);
        try (Stream<Path> files = Files.walk(graph.resolve("_palisade/journal"))) {
            for (Path f : files.filter(Files::isRegularFile).sorted().toList()) {
                byte[] b = Files.readAllBytes(f);
                outer:
                for (int i = 0; i + n.length <= b.length; i++) {
                    for (int k = 0; k < n.length; k++) {
                        if (b[i + k] != n[k]) {
                            continue outer;
                        }
                    }
                    try (RandomAccessFile raf = new RandomAccessFile(f.toFile(), "rw")) {
                        raf.seek(i + 4);
                        int x = raf.read();
                        raf.seek(i + 4);
                        raf.write(x ^ 0x01);
                    }
                    return;
                }
            }
        }
        throw new AssertionError("no journal file holds " + needle);
    }
}
