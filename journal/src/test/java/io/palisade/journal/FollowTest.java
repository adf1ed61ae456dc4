package io.palisade.journal;

import io.palisade.journal.JournalEvent.GraphBranchCreated;
import io.palisade.journal.JournalEvent.WriterStarted;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

class FollowTest {

    @TempDir
    Path graph;

    @Test
    void followerSeesEveryRecordInOrderWhileTheWriterAppendsAndAcrossWriterSessions() throws Exception {
        Path palisade = graph.resolve("_palisade");
        int perSession = 3000;
        try (Journal first = Journal.open(palisade, JournalOptions.defaults())) {
            JournalReader reader = first.reader();
            CompletableFuture<List<JournalRecord>> followed = CompletableFuture.supplyAsync(() -> {
                List<JournalRecord> got = new ArrayList<>();
                try (JournalCursor c = reader.follow(0)) {
                    // 1 WriterStarted + perSession events, twice
                    while (got.size() < 2 * (perSession + 1)) {
                        JournalRecord r = c.take(Duration.ofSeconds(30));
                        if (r == null) {
                            break;
                        }
                        got.add(r);
                    }
                }
                return got;
            });
            append(first, 0, perSession);
            first.close();
            // A new writer session: the follower moves on to its segment.
            try (Journal second = Journal.open(palisade, JournalOptions.defaults())) {
                append(second, perSession, perSession);
            }
            List<JournalRecord> got = followed.get(60, TimeUnit.SECONDS);
            assertThat(got).hasSize(2 * (perSession + 1));
            for (int i = 0; i < got.size(); i++) {
                assertThat(got.get(i).sequence()).isEqualTo(i);
            }
            assertThat(got.get(0).event()).isInstanceOf(WriterStarted.class);
            assertThat(got.get(perSession + 1).event()).isInstanceOf(WriterStarted.class);
            assertThat(got.get(perSession + 1).writerEpoch()).isEqualTo(2);
            assertThat(got.get(perSession + 2).event()).isEqualTo(new GraphBranchCreated("b" + perSession, "main", perSession));
            assertThat(got.get(got.size() - 1).event())
                    .isEqualTo(new GraphBranchCreated("b" + (2 * perSession - 1), "main", 2 * perSession - 1));
        }
    }

    @Test
    void followerFromTheEndSeesOnlyNewRecords() {
        Path palisade = graph.resolve("_palisade");
        try (Journal j = Journal.open(palisade, JournalOptions.defaults())) {
            append(j, 0, 10);
            try (JournalCursor c = j.reader().follow(j.endSequence())) {
                assertThat(c.poll()).isNull();
                append(j, 10, 2);
                assertThat(c.take(Duration.ofSeconds(10)).event()).isEqualTo(new GraphBranchCreated("b10", "main", 10));
                assertThat(c.take(Duration.ofSeconds(10)).sequence()).isEqualTo(12);
                assertThat(c.poll()).isNull();
            }
        }
    }

    @Test
    void followerFromATimeStartsAtTheFirstRecordAppendedAtOrAfterIt() throws Exception {
        Path palisade = graph.resolve("_palisade");
        try (Journal j = Journal.open(palisade, JournalOptions.defaults())) {
            append(j, 0, 5);
            Thread.sleep(5);
            java.time.Instant cut = java.time.Instant.now();
            Thread.sleep(5);
            j.append(new GraphBranchCreated("late", "main", 0));
            try (JournalCursor c = j.reader().follow(cut)) {
                assertThat(c.take(Duration.ofSeconds(10)).event()).isEqualTo(new GraphBranchCreated("late", "main", 0));
                assertThat(c.poll()).isNull();
                j.append(new GraphBranchCreated("later", "main", 0));
                assertThat(c.take(Duration.ofSeconds(10)).event()).isEqualTo(new GraphBranchCreated("later", "main", 0));
            }
        }
    }

    private static void append(Journal j, int from, int n) {
        List<JournalEvent> batch = new ArrayList<>();
        for (int i = from; i < from + n; i++) {
            GraphBranchCreated e = new GraphBranchCreated("b" + i, "main", i);
            if (i % 3 == 0) {
                j.append(e, i % 2 == 0 ? Durability.PROCESS_CRASH : Durability.POWER_LOSS);
            } else {
                batch.add(e);
                if (batch.size() == 16) {
                    j.appendBatch(batch, Durability.POWER_LOSS);
                    batch.clear();
                }
            }
        }
        j.appendBatch(batch, Durability.PROCESS_CRASH);
    }
}
