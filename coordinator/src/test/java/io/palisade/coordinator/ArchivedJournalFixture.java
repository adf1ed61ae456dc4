package io.palisade.coordinator;

import io.palisade.journal.StepClock;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * Builds a journal-ack graph whose journal's file retention moved its oldest files out (docs/journal.md "File
 * retention"), for tests of the commands that read such a journal: the journal writer's clock is stepped past five
 * closed files and the retention window, with a byte budget of 0 and, when {@code copies} is not null, copies kept
 * there.
 */
public final class ArchivedJournalFixture {
    private static final long FIVE_MINUTES = 300_000L;

    private ArchivedJournalFixture() {
    }

    /** What the fixture left: a journal point inside the moved-out range and the number of rows the graph holds. */
    public record Built(long archivedPoint, int rows) {
    }

    /** Folds every unfolded write now: a branch folds its parent first (its fork then pins nothing, once deleted). */
    static void foldNow(Graph g) {
        g.createBranch("fold-now", "main");
        g.deleteBranch("fold-now");
        g.awaitFold();
    }

    /**
     * Four five-minute files of folded writes of {@code person}, then two rounds of 20 writes a retention window apart
     * (the writer's older anchor checkpoint, the bound of what may leave, is then past the four files), each folded.
     * Puts every row written in {@code expected}; returns the journal point after the first file's writes.
     */
    static long writeHistory(Graph g, StepClock clock, Map<String, Object> expected) {
        long early = -1;
        for (int f = 0; f < 4; f++) {
            for (int i = 0; i < 5; i++) {
                g.upsert("main", "person", List.of(Row.of("id", "p" + i, "age", (long) (f * 10 + i))));
                expected.put("p" + i, (long) (f * 10 + i));
            }
            foldNow(g);
            if (f == 0) {
                early = g.state().lastSequence();
            }
            clock.advance(FIVE_MINUTES);
        }
        for (int round = 0; round < 2; round++) {
            clock.advance(3 * FIVE_MINUTES);
            for (int i = 0; i < 20; i++) {
                g.upsert("main", "person", List.of(Row.of("id", "q" + i, "age", (long) (round * 100 + i))));
                expected.put("q" + i, (long) (round * 100 + i));
            }
            foldNow(g); // no write stays unfolded past the window: a point inside it reads from the table
        }
        return early;
    }

    /** Folds every five writes, checkpoints every eight records: files release and leave within a short history. */
    static Options options(Retention retention) {
        return Options.defaults().withFolding(3_600_000, 5, 1L << 40).withCheckpointEvery(8).withRetention(retention);
    }

    public static Built build(Path root, Path copies) {
        Retention retention = Retention.DEFAULTS.withJournalBytes(0).withJournalArchive(copies);
        Options options = options(retention);
        Palisade.create(root, Catalog.fromJson(JournalAckTest.CATALOG), options).close();
        StepClock clock = new StepClock(System.currentTimeMillis() + 60_000L);
        Map<String, Object> rows = new java.util.TreeMap<>();
        long point;
        try (Graph g = Palisade.open(root, options, false, Palisade.Wiring.standard(options).withJournalClock(clock))) {
            point = writeHistory(g, clock, rows);
        }
        return new Built(point, rows.size());
    }
}
