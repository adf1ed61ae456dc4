package io.palisade.coordinator;

import io.palisade.fencing.JournalArchivedException;
import io.palisade.fencing.VersionExpiredException;
import io.palisade.journal.ArchivedFile;
import io.palisade.journal.JournalReader;
import io.palisade.journal.StepClock;
import io.palisade.journal.VerificationReport;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The journal's file retention as the graph drives it (docs/journal.md "File retention"): once their rows are released,
 * the oldest closed files leave the local journal while it holds more than its budget; the graph reopens and reads the
 * same, the archived range verifies through its anchors, a read of the archived past is refused by a typed error, and a
 * graph branch keeps the journal from its fork on.
 */
class JournalFileRetentionTest extends GraphTestSupport {
    private static final long FIVE_MINUTES = 300_000L;

    private final StepClock clock = new StepClock(System.currentTimeMillis() + 60_000L);

    private Options options(Retention retention) {
        return ArchivedJournalFixture.options(retention);
    }

    private Palisade.Wiring created(Path root, Options options) {
        Palisade.create(root, Catalog.fromJson(JournalAckTest.CATALOG), options).close();
        return Palisade.Wiring.standard(options).withJournalClock(clock);
    }

    private static Map<String, Object> ages(List<Map<String, Object>> rows) {
        return JournalAckTest.ages(rows);
    }

    /** {@link ArchivedJournalFixture#writeHistory}: four files of folded writes, then two rounds a window apart. */
    private long writeHistory(Graph g, Map<String, Object> expected) {
        return ArchivedJournalFixture.writeHistory(g, clock, expected);
    }

    @Test
    void releasedFilesLeaveTheLocalJournalAndTheGraphReadsAndVerifiesTheSame() throws Exception {
        Path root = dir.resolve("g");
        Options options = options(Retention.DEFAULTS.withJournalBytes(0));
        Palisade.Wiring wiring = created(root, options);
        Map<String, Object> expected = new TreeMap<>();
        long early;
        long archivedFiles;
        try (Graph g = Palisade.open(root, options, false, wiring)) {
            early = writeHistory(g, expected);
            g.close();
            archivedFiles = g.metrics().journalFilesArchived();
        }
        long first;
        try (JournalReader r = JournalReader.open(root.resolve("_palisade"))) {
            first = r.firstSequence();
            List<ArchivedFile> files = r.archivedFiles();
            // every closed file of the session (the four of folded writes, and the one the graph's create wrote) left
            assertThat(files).hasSizeGreaterThanOrEqualTo(4);
            assertThat(archivedFiles).isEqualTo(files.size());
            assertThat(first).isGreaterThan(early);
            VerificationReport v = r.verify();
            assertThat(v.ok()).as("verify: %s", v.problem()).isTrue();
            assertThat(v.verifiedFrom()).isEqualTo(first);
            assertThat(v.archivedFiles()).isEqualTo(files.size());
            assertThatThrownBy(() -> r.read(0)).isInstanceOf(JournalArchivedException.class);
        }
        clock.advance(FIVE_MINUTES);
        try (Graph g = Palisade.open(root, options, false, wiring)) {
            assertThat(ages(g.scan("main", "person"))).isEqualTo(expected);
            // a point in the archived range: refused, naming where the journal starts
            assertThatThrownBy(() -> g.scanAt("main", "person", early))
                    .isInstanceOf(VersionExpiredException.class);
            g.upsert("main", "person", List.of(Row.of("id", "p0", "age", 99L)));
            expected.put("p0", 99L);
        }
        try (Graph g = Palisade.open(root, options, false, wiring)) {
            assertThat(ages(g.scan("main", "person"))).isEqualTo(expected);
        }
    }

    @Test
    void aPointTheLocalJournalHoldsStillReadsAfterFilesLeftAndANewWriterPrunedTheOldCheckpoints() throws Exception {
        Path root = dir.resolve("g");
        Options options = options(Retention.DEFAULTS.withJournalBytes(0));
        Palisade.Wiring wiring = created(root, options);
        Map<String, Object> expected = new TreeMap<>();
        long inWindow;
        Map<String, Object> atThatPoint;
        try (Graph g = Palisade.open(root, options, false, wiring)) {
            writeHistory(g, expected);
            clock.advance(FIVE_MINUTES);
            g.upsert("main", "person", List.of(Row.of("id", "w", "age", 1L)));
            inWindow = g.state().lastSequence();
            atThatPoint = ages(g.scan("main", "person"));
            g.upsert("main", "person", List.of(Row.of("id", "w", "age", 2L)));
        }
        try (JournalReader r = JournalReader.open(root.resolve("_palisade"))) {
            assertThat(r.firstSequence()).isPositive();
        }
        clock.advance(60_000L);
        // a new writer (its checkpoints prune the old ones) still rebuilds a point five minutes old
        try (Graph g = Palisade.open(root, options, false, wiring)) {
            g.upsert("main", "person", List.of(Row.of("id", "x", "age", 3L)));
            g.upsert("main", "person", List.of(Row.of("id", "x", "age", 4L)));
            assertThat(ages(g.scanAt("main", "person", inWindow))).isEqualTo(atThatPoint);
        }
    }

    @Test
    void theByteBudgetCutsIntoTheRetentionWindow() throws Exception {
        java.time.Duration twoHours = java.time.Duration.ofHours(2); // every file of the history is younger
        Map<String, Object> expected = new TreeMap<>();
        // over its budget, the journal moves out files younger than the window
        Path root = dir.resolve("g");
        Options options = options(Retention.DEFAULTS.withWindow(twoHours).withJournalBytes(0));
        Palisade.Wiring wiring = created(root, options);
        long early;
        try (Graph g = Palisade.open(root, options, false, wiring)) {
            early = writeHistory(g, expected);
        }
        try (JournalReader r = JournalReader.open(root.resolve("_palisade"))) {
            assertThat(r.archivedFiles()).hasSizeGreaterThanOrEqualTo(4);
            assertThat(r.firstSequence()).isGreaterThan(early);
            VerificationReport v = r.verify();
            assertThat(v.ok()).as("verify: %s", v.problem()).isTrue();
        }
        try (Graph g = Palisade.open(root, options, false, wiring)) {
            assertThat(ages(g.scan("main", "person"))).isEqualTo(expected);
            assertThatThrownBy(() -> g.scanAt("main", "person", early)).isInstanceOf(VersionExpiredException.class)
                    .hasMessageContaining("file retention");
        }
        // the same history inside its budget: nothing leaves, and the same point reads
        Path whole = dir.resolve("whole");
        Options roomy = options(Retention.DEFAULTS.withWindow(twoHours));
        Palisade.Wiring roomyWiring = created(whole, roomy);
        Map<String, Object> atEarly;
        try (Graph g = Palisade.open(whole, roomy, false, roomyWiring)) {
            long point = writeHistory(g, new TreeMap<>());
            atEarly = ages(g.scanAt("main", "person", point));
            assertThat(atEarly).hasSize(5);
        }
        try (JournalReader r = JournalReader.open(whole.resolve("_palisade"))) {
            assertThat(r.archivedFiles()).isEmpty();
            assertThat(r.firstSequence()).isZero();
        }
    }

    @Test
    void copiesGoToTheArchiveDirectoryAndVerify() throws Exception {
        Path root = dir.resolve("g");
        Path copies = dir.resolve("journal-copies");
        Options options = options(Retention.DEFAULTS.withJournalBytes(0).withJournalArchive(copies));
        Palisade.Wiring wiring = created(root, options);
        try (Graph g = Palisade.open(root, options, false, wiring)) {
            writeHistory(g, new TreeMap<>());
        }
        try (JournalReader r = JournalReader.open(root.resolve("_palisade"))) {
            List<ArchivedFile> files = r.archivedFiles();
            assertThat(files).hasSizeGreaterThanOrEqualTo(4).allMatch(ArchivedFile::copied);
            assertThat(files).allMatch(f -> Files.exists(Path.of(f.location())) && Path.of(f.location()).startsWith(copies));
            VerificationReport v = r.verify();
            assertThat(v.ok()).isTrue();
            assertThat(v.copiesVerified()).isEqualTo(files.size());
        }
    }

    @Test
    void aGraphBranchKeepsTheJournalFromItsForkOn() throws Exception {
        Path root = dir.resolve("g");
        Options options = options(Retention.DEFAULTS.withJournalBytes(0));
        Palisade.Wiring wiring = created(root, options);
        long fork;
        try (Graph g = Palisade.open(root, options, false, wiring)) {
            g.upsert("main", "person", List.of(Row.of("id", "a", "age", 1L)));
            g.awaitFold();
            clock.advance(FIVE_MINUTES);
            g.createBranch("side", "main");
            fork = g.state().branch("side").orElseThrow().fromSequence();
            writeHistory(g, new TreeMap<>());
        }
        try (JournalReader r = JournalReader.open(root.resolve("_palisade"))) {
            // the files before the fork left (the create's, the first write's); none after it
            assertThat(r.firstSequence()).isPositive().isLessThanOrEqualTo(fork);
            assertThat(r.verify().ok()).isTrue();
        }
        try (Graph g = Palisade.open(root, options, false, wiring)) {
            g.upsert("side", "person", List.of(Row.of("id", "s", "age", 7L)));
            g.merge("side", "main");
            assertThat(g.get("main", "person", List.of("s"))).containsKey("s");
        }
    }

    @Test
    void theDefaultBudgetKeepsASmallJournalWhole() throws Exception {
        Path root = dir.resolve("g");
        Options options = options(Retention.DEFAULTS);
        Palisade.Wiring wiring = created(root, options);
        try (Graph g = Palisade.open(root, options, false, wiring)) {
            writeHistory(g, new TreeMap<>());
        }
        try (JournalReader r = JournalReader.open(root.resolve("_palisade"))) {
            assertThat(r.firstSequence()).isZero();
            assertThat(r.archivedFiles()).isEmpty();
        }
    }
}
