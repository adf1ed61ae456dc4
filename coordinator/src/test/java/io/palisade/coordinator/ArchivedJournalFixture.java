package io.palisade.coordinator;

import io.palisade.journal.StepClock;

import java.nio.file.Path;
import java.util.List;

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
    private static void foldNow(Graph g) {
        g.createBranch("fold-now", "main");
        g.deleteBranch("fold-now");
        g.awaitFold();
    }

    public static Built build(Path root, Path copies) {
        Retention retention = Retention.DEFAULTS.withJournalBytes(0).withJournalArchive(copies);
        Options options = Options.defaults().withFolding(3_600_000, 5, 1L << 40).withCheckpointEvery(8).withRetention(retention);
        Palisade.create(root, Catalog.fromJson(JournalAckTest.CATALOG), options).close();
        StepClock clock = new StepClock(System.currentTimeMillis() + 60_000L);
        long point = -1;
        try (Graph g = Palisade.open(root, options, false, Palisade.Wiring.standard(options).withJournalClock(clock))) {
            for (int f = 0; f < 4; f++) {
                for (int i = 0; i < 5; i++) {
                    g.upsert("main", "person", List.of(Row.of("id", "p" + i, "age", (long) (f * 10 + i))));
                }
                foldNow(g);
                if (f == 0) {
                    point = g.state().lastSequence();
                }
                clock.advance(FIVE_MINUTES);
            }
            // two rounds a retention window apart: the writer's older anchor checkpoint (the bound of what may leave)
            // is then past the four files
            for (int round = 0; round < 2; round++) {
                clock.advance(3 * FIVE_MINUTES);
                for (int i = 0; i < 20; i++) {
                    g.upsert("main", "person", List.of(Row.of("id", "q" + i, "age", (long) (round * 100 + i))));
                }
                foldNow(g);
            }
        }
        return new Built(point, 25);
    }
}
