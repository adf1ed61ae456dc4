package io.palisade.coordinator;

import io.palisade.journal.JournalCursor;
import io.palisade.journal.JournalEvent;
import io.palisade.journal.JournalReader;
import io.palisade.journal.JournalRecord;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The heads state does not grow with history: completed intents leave it once a checkpoint covers them, and
 * idempotency keys are remembered under {@link Idempotency}'s window (a count and a time bound), each expiry journaled.
 * A repeat inside the window gets the first receipt; a repeat after it is a new write.
 */
class BoundedHeadsStateTest extends GraphTestSupport {

    private Receipt upsert(Graph g, String branch, String id, long age, String key) {
        try (VectorSchemaRoot r = Rows.people(allocator, id, age)) {
            return key == null ? g.upsert(branch, "person", r)
                    : g.upsert(branch, "person", r, WriteOptions.idempotencyKey(key));
        }
    }

    private static Map<String, Object> ages(List<Map<String, Object>> rows) {
        Map<String, Object> out = new TreeMap<>();
        rows.forEach(r -> assertThat(out.put((String) r.get("id"), r.get("age"))).as("id %s once", r.get("id")).isNull());
        return out;
    }

    private static List<JournalEvent.ReceiptsExpired> expiries(Path graph) {
        List<JournalEvent.ReceiptsExpired> out = new ArrayList<>();
        try (JournalReader r = JournalReader.open(graph.resolve("_palisade")); JournalCursor c = r.read(0)) {
            for (JournalRecord rec = c.poll(); rec != null; rec = c.poll()) {
                if (rec.event() instanceof JournalEvent.ReceiptsExpired x) {
                    out.add(x);
                }
            }
        }
        return out;
    }

    @Test
    void completedIntentsLeaveTheStateOnceACheckpointCoversThem() {
        Path p = dir.resolve("g");
        Options opts = Options.defaults().withCheckpointEvery(16).withIndexRefreshEvery(0);
        List<Receipt> receipts = new ArrayList<>();
        try (Graph g = Palisade.create(p, Rows.catalog(), opts)) {
            for (int i = 0; i < 60; i++) {
                receipts.add(upsert(g, "main", "k" + (i % 7), i, null));
                // a checkpoint every 16 records forgets what it covers: never more than one interval's completions
                assertThat(g.state().completedCount()).as("completed intents kept after write %d", i)
                        .isLessThanOrEqualTo(16);
            }
            long covered = g.state().lastCheckpointSequence();
            assertThat(covered).isGreaterThan(0);
            for (Receipt r : receipts) {
                // a write's intent is known exactly while no checkpoint covers its completion
                assertThat(g.state().completedIntent(r.intent()).isPresent()).as("intent completed at %d, checkpoint "
                        + "through %d", r.seq(), covered).isEqualTo(r.seq() > covered);
            }
            assertThat(receipts.stream().filter(r -> r.seq() <= covered)).as("writes a checkpoint covered").isNotEmpty();
            // the writes a checkpoint covered, and the table's creation and automatic compactions it covered
            assertThat(g.metrics().completedIntentsForgotten()).as("forgotten, by the metrics")
                    .isGreaterThanOrEqualTo(receipts.stream().filter(r -> r.seq() <= covered).count());
        }
        try (Graph g = Palisade.open(p, opts)) {
            assertThat(g.state().completedCount()).as("after reopen").isLessThanOrEqualTo(16);
            assertThat(g.scan("main", "person")).hasSize(7);
        }
    }

    @Test
    void aBranchMergesEveryChangeEvenWhenCheckpointsForgotItsIntents() {
        Path p = dir.resolve("g");
        Options opts = Options.defaults().withCheckpointEvery(4).withIndexRefreshEvery(0);
        try (Graph g = Palisade.create(p, Rows.catalog(), opts)) {
            upsert(g, "main", "a", 1, null);
            upsert(g, "main", "b", 2, null);
            g.createBranch("dev", "main");
            for (int i = 0; i < 12; i++) { // many checkpoints after the branch's writes
                upsert(g, "dev", "d" + i, 100 + i, null);
            }
            upsert(g, "dev", "a", 10, null);
            upsert(g, "main", "m", 3, null);
            assertThat(g.state().completedCount()).isLessThanOrEqualTo(4);
            MergeResult m = g.merge("dev", "main");
            assertThat(m.inserted()).as("keys inserted on dev").isEqualTo(12);
            assertThat(m.updated()).as("keys updated on dev").isEqualTo(1);
            Map<String, Object> main = ages(g.scan("main", "person"));
            assertThat(main).containsEntry("a", 10L).containsEntry("b", 2L).containsEntry("m", 3L)
                    .containsEntry("d0", 100L).containsEntry("d11", 111L).hasSize(3 + 12);
        }
    }

    @Test
    void onlyTheNewestKeysAreRememberedAndAnOlderRepeatIsANewWrite() {
        Path p = dir.resolve("g");
        Options opts = Options.defaults().withCheckpointEvery(8).withIndexRefreshEvery(0)
                .withIdempotency(Idempotency.DEFAULTS.withMaxKeys(3));
        List<Receipt> first = new ArrayList<>();
        try (Graph g = Palisade.create(p, Rows.catalog(), opts)) {
            for (int i = 0; i < 10; i++) {
                first.add(upsert(g, "main", "k" + i, i, "key-" + i));
            }
        } // close checkpoints, and expires the keys beyond the newest 3
        List<JournalEvent.ReceiptsExpired> expired = expiries(p);
        assertThat(expired).as("journaled expiries").isNotEmpty()
                .allSatisfy(x -> assertThat(x.rule()).contains("the newest 3 at most"));
        try (Graph g = Palisade.open(p, opts)) {
            assertThat(g.state().receiptCount()).as("keys remembered").isEqualTo(3);
            assertThat(g.metrics().idempotencyKeysForgotten()).as("nothing forgotten by this process yet").isZero();
            for (int i = 7; i < 10; i++) {
                assertThat(upsert(g, "main", "k" + i, i, "key-" + i)).as("a repeat of key-%d", i)
                        .isEqualTo(first.get(i));
            }
            Receipt again = upsert(g, "main", "k0", 1000, "key-0");
            assertThat(again.intent()).as("a repeat of a forgotten key is a new write").isNotEqualTo(first.get(0).intent());
            assertThat(again.seq()).isGreaterThan(first.getLast().seq());
            Map<String, Object> rows = ages(g.scan("main", "person"));
            assertThat(rows).containsEntry("k0", 1000L).containsEntry("k9", 9L).containsEntry("k7", 7L).hasSize(10);
            // the forgotten key is remembered again, from its new write
            assertThat(upsert(g, "main", "k0", 1000, "key-0")).isEqualTo(again);
            assertThat(ages(g.scan("main", "person"))).containsEntry("k0", 1000L);
        }
    }

    @Test
    void aKeyIsForgottenOnceItsWindowHasPassed() {
        Path p = dir.resolve("g");
        Options opts = Options.defaults().withCheckpointEvery(1).withIndexRefreshEvery(0)
                .withIdempotency(Idempotency.DEFAULTS.withWindow(Duration.ofHours(1)));
        try (Graph g = Palisade.create(p, Rows.catalog(), opts)) {
            Receipt a = upsert(g, "main", "a", 1, "key-a");
            upsert(g, "main", "x", 1, null); // a checkpoint inside the window forgets nothing
            assertThat(upsert(g, "main", "a", 1, "key-a")).as("a repeat inside the window").isEqualTo(a);
            g.engine().clock(() -> System.currentTimeMillis() + Duration.ofMinutes(61).toMillis());
            upsert(g, "main", "y", 1, null); // the next checkpoint sees key-a's window passed
            assertThat(g.state().receipt("key-a")).as("key-a after its window").isEmpty();
            assertThat(g.metrics().idempotencyKeysForgotten()).isEqualTo(1);
            Receipt b = upsert(g, "main", "b", 1, "key-b"); // issued at the moved clock: inside its own window
            upsert(g, "main", "z", 1, null);
            assertThat(upsert(g, "main", "b", 1, "key-b")).isEqualTo(b);
            Receipt again = upsert(g, "main", "a", 3, "key-a");
            assertThat(again.intent()).as("a repeat after the window is a new write").isNotEqualTo(a.intent());
            assertThat(ages(g.scan("main", "person"))).containsEntry("a", 3L).containsEntry("b", 1L);
        }
        assertThat(expiries(p)).hasSize(1).allSatisfy(x -> assertThat(x.rule()).contains("1 h"));
    }
}
