package io.palisade.coordinator;

import io.palisade.fencing.VersionExpiredException;
import io.palisade.heads.Checkpoints;
import io.palisade.journal.JournalEvent;
import io.palisade.journal.JournalReader;
import io.palisade.journal.StepClock;
import io.palisade.journal.JournalRecord;
import io.palisade.journal.VerificationReport;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The journal's row release as the graph drives it (docs/journal.md "Row release"): once a checkpoint covers folded
 * journal-ack writes, the journal's closed files lose their rows; the graph's present, a replay from sequence 0, and a
 * read at a point after the fold are unchanged, and a read at a point whose unfolded writes lost their rows says so.
 */
class JournalRowReleaseTest extends GraphTestSupport {
    private static final String CATALOG = JournalAckTest.CATALOG;
    private static final long FIVE_MINUTES = 300_000L;

    /**
     * The journal writer's clock, moved by the test: its files roll every five minutes of it. It starts a minute ahead
     * of the wall clock, after every record the graph's create journaled (record times never go back).
     */
    private final StepClock clock = new StepClock(System.currentTimeMillis() + 60_000L);
    private final Options options = JournalAckTest.noAutoFold().withCheckpointEvery(1_000_000);

    /** A new journal-ack graph at {@code root}, and the wiring that opens it with {@link #clock}. */
    private Palisade.Wiring created(Path root, Options options) {
        Palisade.create(root, Catalog.fromJson(CATALOG), options).close();
        return Palisade.Wiring.standard(options).withJournalClock(clock);
    }

    private static Map<String, Object> ages(List<Map<String, Object>> rows) {
        return JournalAckTest.ages(rows);
    }

    private static List<JournalRecord> journal(Path graph) {
        try (JournalReader r = JournalReader.open(graph.resolve("_palisade")); var c = r.read(0)) {
            return c.drain();
        }
    }

    private static long count(List<JournalRecord> records, Class<? extends JournalEvent> type) {
        return records.stream().filter(r -> type.isInstance(r.event())).count();
    }

    @Test
    void foldedAndCheckpointedRowsLeaveTheJournalAndEveryReadOfTheGraphStaysTheSame() throws Exception {
        Path root = dir.resolve("g");
        Palisade.Wiring wiring = created(root, options);
        Map<String, Object> expected = new TreeMap<>();
        long unfoldedPoint;
        long foldedPoint;
        try (Graph g = Palisade.open(root, options, false, wiring)) {
            for (int i = 0; i < 12; i++) {
                g.upsert("main", "person", List.of(Row.of("id", "p" + i, "age", (long) i)));
                expected.put("p" + i, (long) i);
            }
            unfoldedPoint = g.state().lastSequence();
            clock.advance(FIVE_MINUTES);
            for (int i = 0; i < 12; i += 2) {
                g.upsert("main", "person", List.of(Row.of("id", "p" + i, "age", 100L + i)));
                expected.put("p" + i, 100L + i);
            }
            g.delete("main", "person", List.of("p11"));
            expected.remove("p11");
            g.createBranch("folded", "main"); // a branch folds its parent first
            g.awaitFold();
            foldedPoint = g.state().lastSequence();
            // past the retention window (10 minutes): the first two files are old enough to lose their rows
            clock.advance(3 * FIVE_MINUTES);
            g.upsert("main", "person", List.of(Row.of("id", "p1", "age", 201L)));
            expected.put("p1", 201L);
        } // close: folds, checkpoints, and the row release runs before the journal closes

        List<JournalRecord> records = journal(root);
        long released = count(records, JournalEvent.WriteReleased.class);
        // the first two files' 19 writes lost their rows; the writer's last file (one write, then the close's fold
        // and checkpoint) kept its own
        assertThat(released).isEqualTo(19);
        assertThat(count(records, JournalEvent.WriteJournaled.class)).isEqualTo(1);
        VerificationReport v;
        try (JournalReader r = JournalReader.open(root.resolve("_palisade"))) {
            v = r.verify();
        }
        assertThat(v.ok()).as("verify: %s", v.problem()).isTrue();
        assertThat(v.records()).isEqualTo(records.size());

        clock.advance(3 * FIVE_MINUTES);
        try (Graph g = Palisade.open(root, options, false, wiring)) {
            assertThat(ages(g.scan("main", "person"))).isEqualTo(expected);
            // a point after the fold holds no unfolded write: it reads as it did
            Map<String, Object> atFold = ages(g.scanAt("main", "person", foldedPoint));
            assertThat(atFold).containsEntry("p0", 100L).containsEntry("p1", 1L).doesNotContainKey("p11");
            // a point whose unfolded writes lost their rows says so, naming the release
            assertThatThrownBy(() -> g.scanAt("main", "person", unfoldedPoint))
                    .isInstanceOf(VersionExpiredException.class)
                    .hasMessageContaining("released their rows")
                    .hasMessageContaining("rows are released below sequence")
                    .hasMessageContaining("retention window of 10 min");
            // the next session releases what the previous one's last file held
            g.upsert("main", "person", List.of(Row.of("id", "p2", "age", 302L)));
            expected.put("p2", 302L);
        }
        records = journal(root);
        assertThat(count(records, JournalEvent.WriteReleased.class)).isEqualTo(20);
        assertThat(count(records, JournalEvent.WriteJournaled.class)).isEqualTo(1);
        // a replay of the whole journal, without any checkpoint, gives the same graph
        try (Stream<Path> s = Files.walk(root.resolve("_palisade").resolve(Checkpoints.DIRECTORY))) {
            for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
        try (Graph g = Palisade.open(root, options)) {
            assertThat(ages(g.scan("main", "person"))).isEqualTo(expected);
            assertThat(g.get("main", "person", List.of("p0", "p2", "p11"))).containsOnlyKeys("p0", "p2");
        }
    }

    @Test
    void foldedRowsYoungerThanTheRetentionWindowStayAndReadsOfThatPastStillSeeThem() throws Exception {
        Path root = dir.resolve("g");
        Palisade.Wiring wiring = created(root, options);
        long unfoldedPoint;
        try (Graph g = Palisade.open(root, options, false, wiring)) {
            g.upsert("main", "person", List.of(Row.of("id", "a", "age", 1L)));
            unfoldedPoint = g.state().lastSequence();
            clock.advance(FIVE_MINUTES);
            g.upsert("main", "person", List.of(Row.of("id", "a", "age", 2L)));
            g.createBranch("folded", "main");
            g.awaitFold();
            clock.advance(FIVE_MINUTES); // the first file is closed, but not older than 10 minutes
            g.upsert("main", "person", List.of(Row.of("id", "b", "age", 3L)));
        }
        assertThat(count(journal(root), JournalEvent.WriteReleased.class)).isZero();
        try (Graph g = Palisade.open(root, options, false, wiring)) {
            assertThat(ages(g.scanAt("main", "person", unfoldedPoint))).containsExactly(Map.entry("a", 1L));
        }
        // with retention off, nothing is ever released
        Options keepAll = options.withRetention(Retention.keepAll());
        clock.advance(6 * FIVE_MINUTES);
        try (Graph g = Palisade.open(root, keepAll, false, wiring)) {
            g.upsert("main", "person", List.of(Row.of("id", "c", "age", 4L)));
        }
        assertThat(count(journal(root), JournalEvent.WriteReleased.class)).isZero();
        try (Graph g = Palisade.open(root, options, false, wiring)) {
            g.upsert("main", "person", List.of(Row.of("id", "d", "age", 5L)));
        }
        assertThat(count(journal(root), JournalEvent.WriteReleased.class)).isPositive();
    }

    @Test
    void writesNotFoldedKeepTheirRowsWhateverTheirFileAge() throws Exception {
        Path root = dir.resolve("g");
        Options options = this.options.withCheckpointEvery(4);
        Palisade.Wiring wiring = created(root, options);
        List<String> ids = new ArrayList<>();
        try (Graph g = Palisade.open(root, options, false, wiring)) {
            for (int f = 0; f < 3; f++) {
                for (int i = 0; i < 5; i++) {
                    String id = "f" + f + "-" + i;
                    g.insert("main", "person", List.of(Row.of("id", id, "age", (long) i)));
                    ids.add(id);
                }
                clock.advance(3 * FIVE_MINUTES); // each file past the retention window

            }
            // many checkpoints ran (every 4 records), but nothing was folded: every write keeps its rows
            assertThat(g.state().foldMark("main", "person").unfolded()).isEqualTo(15);
            assertThat(count(journal(root), JournalEvent.WriteReleased.class)).isZero();
            assertThat(ages(g.scan("main", "person"))).hasSize(15);
        }
        try (Graph g = Palisade.open(root, options)) {
            assertThat(ages(g.scan("main", "person")).keySet()).containsExactlyInAnyOrderElementsOf(ids);
        }
    }
}
