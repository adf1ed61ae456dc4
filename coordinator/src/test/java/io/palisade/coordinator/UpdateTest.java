package io.palisade.coordinator;

import io.palisade.fencing.IdempotencyMismatchException;
import io.palisade.fencing.KeyNotFoundException;
import io.palisade.fencing.ValidationException;
import io.palisade.journal.JournalEvent;
import io.palisade.journal.JournalEvent.IntentRecorded;
import io.palisade.journal.LogicalOperation;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Updates (docs/coordinator.md "Updates"): the columns a change names change, the others keep their values; every key
 * must be held; the committer resolves the rows as the update commits, so no concurrent write of the key is lost. On
 * both ack modes.
 */
class UpdateTest extends GraphTestSupport {
    private static String catalog(String ack) {
        return """
                {"tables": [{"name": "person", "kind": "node", "ack": "%s", "columns": [
                  {"name": "id", "type": "string"},
                  {"name": "name", "type": "string", "nullable": true},
                  {"name": "age", "type": "int64", "nullable": true},
                  {"name": "city", "type": "string", "nullable": false},
                  {"name": "score", "type": "float32", "nullable": true},
                  {"name": "seen", "type": "timestamp", "nullable": true},
                  {"name": "emb", "type": {"vector": "float32", "dim": 2}, "nullable": true}]}]}
                """.formatted(ack);
    }

    /** Folds only when asked (close, awaitFold): the updates meet unfolded writes. */
    private static Options options(String ack) {
        return ack.equals("journal") ? Options.defaults().withFolding(3_600_000, 1_000_000, 1L << 40) : Options.defaults();
    }

    private Graph create(String ack) {
        return Palisade.create(dir.resolve("g"), Catalog.fromJson(catalog(ack)), options(ack));
    }

    private static Row alice() {
        return Row.of("id", "alice", "name", "Alice", "age", 30L, "city", "Oslo", "score", 1.5f, "seen", 1_000_000L,
                "emb", List.of(0.25f, 0.5f));
    }

    @ParameterizedTest
    @ValueSource(strings = {"table", "journal"})
    void anUpdateChangesTheNamedColumnsAndKeepsTheOthers(String ack) {
        try (Graph g = create(ack)) {
            g.insert("main", "person", List.of(alice(), Row.of("id", "bob", "city", "Rome")));
            Receipt r = g.update("main", "person", List.of(Row.of("id", "alice", "age", 41)));
            assertThat(r.rows()).isEqualTo(1);
            Row a = g.get("main", "person", List.of("alice")).get("alice");
            assertThat(a.asMap()).containsEntry("name", "Alice").containsEntry("age", 41L).containsEntry("city", "Oslo")
                    .containsEntry("score", 1.5f).containsEntry("seen", 1_000_000L);
            assertThat(List.copyOf((List<?>) a.asMap().get("emb"))).isEqualTo(List.of(0.25f, 0.5f));
            // a column named with null becomes null; an upsert, by contrast, writes the whole row
            g.update("main", "person", List.of(Row.of("id", "alice", "name", null)));
            assertThat(g.get("main", "person", List.of("alice")).get("alice").asMap())
                    .containsEntry("name", null).containsEntry("age", 41L);
            assertThat(g.get("main", "person", List.of("bob")).get("bob").asMap()).containsEntry("city", "Rome")
                    .containsEntry("age", null);
            g.awaitFold();
            assertThat(g.get("main", "person", List.of("alice")).get("alice").asMap())
                    .containsEntry("name", null).containsEntry("age", 41L).containsEntry("city", "Oslo");
        }
        List<IntentRecorded> updates = BulkLoadTest.events(dir.resolve("g")).stream()
                .map(e -> e instanceof JournalEvent.JournaledWrite w ? w.intent() : e) // a journal-ack write's intent
                .filter(e -> e instanceof IntentRecorded ir && ir.operation() == LogicalOperation.UPDATE)
                .map(e -> (IntentRecorded) e).toList();
        assertThat(updates).hasSize(2);
    }

    @ParameterizedTest
    @ValueSource(strings = {"table", "journal"})
    void anUpdateOfAnAbsentKeyIsRefusedWholeAndWritesNothing(String ack) {
        try (Graph g = create(ack)) {
            g.insert("main", "person", List.of(alice()));
            g.delete("main", "person", List.of("alice"));
            g.insert("main", "person", List.of(Row.of("id", "bob", "city", "Rome", "age", 7L)));
            long seq = g.state().lastSequence();
            long version = g.state().head("main", "person").orElseThrow().version();
            assertThatThrownBy(() -> g.update("main", "person", List.of(Row.of("id", "bob", "age", 8),
                    Row.of("id", "alice", "age", 1), Row.of("id", "zed", "age", 2))))
                    .isInstanceOf(KeyNotFoundException.class)
                    .hasMessageContaining("2 keys are not in the table [alice, zed]")
                    .satisfies(e -> assertThat(((KeyNotFoundException) e).keys()).containsExactly("alice", "zed"));
            assertThat(g.state().lastSequence()).isEqualTo(seq);
            assertThat(g.state().head("main", "person").orElseThrow().version()).isEqualTo(version);
            assertThat(g.get("main", "person", List.of("bob")).get("bob").asMap()).containsEntry("age", 7L);
            assertThat(g.get("main", "person", List.of("alice"))).isEmpty();
        }
    }

    @Test
    void badChangesAreValidationErrors() {
        try (Graph g = create("table")) {
            g.insert("main", "person", List.of(alice()));
            long seq = g.state().lastSequence();
            assertThatThrownBy(() -> g.update("main", "person", List.of(Row.of("age", 3))))
                    .isInstanceOf(ValidationException.class).hasMessageContaining("names no id");
            assertThatThrownBy(() -> g.update("main", "person", List.of(Row.of("id", "alice", "age", 3),
                    Row.of("id", "alice", "age", 4)))).isInstanceOf(ValidationException.class)
                    .hasMessageContaining("names id 'alice' again");
            assertThatThrownBy(() -> g.update("main", "person", List.of(Row.of("id", "alice", "city", null))))
                    .isInstanceOf(ValidationException.class).hasMessageContaining("sets non-null column 'city' to null");
            assertThatThrownBy(() -> g.update("main", "person", List.of(Row.of("id", "alice", "agee", 3))))
                    .isInstanceOf(ValidationException.class).hasMessageContaining("has no column 'agee'");
            assertThatThrownBy(() -> g.update("main", "person", List.of(Row.of("id", "alice", "age", "old"))))
                    .isInstanceOf(ValidationException.class).hasMessageContaining("age");
            assertThatThrownBy(() -> g.update("main", "person", List.of()))
                    .isInstanceOf(ValidationException.class).hasMessageContaining("names no rows");
            assertThat(g.state().lastSequence()).isEqualTo(seq);
        }
    }

    /**
     * Two writers update different columns of one row, each many times, concurrently: every update applies on top of
     * the one committed before it, so the row ends with both writers' last values. A read-modify-write by the writers
     * themselves would lose one writer's columns whenever the two interleave.
     */
    @ParameterizedTest
    @ValueSource(strings = {"table", "journal"})
    void concurrentUpdatesOfOneRowLoseNoColumn(String ack) throws Exception {
        int rounds = 40;
        try (Graph g = create(ack)) {
            g.insert("main", "person", List.of(Row.of("id", "k", "city", "c0", "age", 0L)));
            ExecutorService pool = Executors.newFixedThreadPool(2);
            CountDownLatch start = new CountDownLatch(1);
            try {
                Future<?> ages = pool.submit(() -> {
                    start.await();
                    for (int i = 1; i <= rounds; i++) {
                        g.update("main", "person", List.of(Row.of("id", "k", "age", (long) i)));
                    }
                    return null;
                });
                Future<?> cities = pool.submit(() -> {
                    start.await();
                    for (int i = 1; i <= rounds; i++) {
                        g.update("main", "person", List.of(Row.of("id", "k", "city", "c" + i)));
                    }
                    return null;
                });
                start.countDown();
                ages.get();
                cities.get();
            } finally {
                pool.shutdownNow();
            }
            assertThat(g.get("main", "person", List.of("k")).get("k").asMap())
                    .containsEntry("age", (long) rounds).containsEntry("city", "c" + rounds);
        }
    }

    /** Updates queued in one group with an upsert and a delete of the same key apply in queue order. */
    @ParameterizedTest
    @ValueSource(strings = {"table", "journal"})
    void updatesApplyInQueueOrderWithOtherWritesOfTheKey(String ack) {
        try (Graph g = create(ack);
             org.apache.arrow.vector.VectorSchemaRoot upsert = io.palisade.coordinator.internal.BatchValidation.batch(
                     Catalog.fromJson(catalog(ack)).require("person"), List.of(Row.of("id", "k", "city", "b")), allocator)) {
            g.insert("main", "person", List.of(Row.of("id", "k", "city", "a", "age", 1L)));
            List<CompletableFuture<Receipt>> fs = new ArrayList<>();
            fs.add(g.updateAsync("main", "person", List.of(Row.of("id", "k", "age", 2L)), WriteOptions.NONE));
            fs.add(g.upsertAsync("main", "person", upsert, WriteOptions.NONE));
            fs.add(g.updateAsync("main", "person", List.of(Row.of("id", "k", "age", 3L)), WriteOptions.NONE));
            fs.add(g.deleteAsync("main", "person", List.of("k"), WriteOptions.NONE));
            fs.add(g.updateAsync("main", "person", List.of(Row.of("id", "k", "age", 4L)), WriteOptions.NONE));
            assertThat(fs.get(0).join().rows()).isEqualTo(1);
            fs.get(1).join();
            fs.get(2).join();
            fs.get(3).join();
            assertThatThrownBy(fs.get(4)::join).hasCauseInstanceOf(KeyNotFoundException.class);
            assertThat(g.get("main", "person", List.of("k"))).isEmpty();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"table", "journal"})
    void anIdempotencyKeyNamesOneUpdateAcrossAReopen(String ack) {
        Path p = dir.resolve("g");
        Receipt first;
        try (Graph g = create(ack)) {
            g.insert("main", "person", List.of(alice()));
            first = g.update("main", "person", List.of(Row.of("id", "alice", "age", 50)), WriteOptions.idempotencyKey("u1"));
            assertThat(g.update("main", "person", List.of(Row.of("id", "alice", "age", 50L)),
                    WriteOptions.idempotencyKey("u1"))).isEqualTo(first);
        }
        try (Graph g = Palisade.open(p, options(ack))) {
            // the same write (a journal-ack receipt now says it is folded: the close folded it)
            Receipt again = g.update("main", "person", List.of(Row.of("id", "alice", "age", 50L)),
                    WriteOptions.idempotencyKey("u1"));
            assertThat(again.intent()).isEqualTo(first.intent());
            assertThat(again.seq()).isEqualTo(first.seq());
            // the same key with another change, or the same values as an upsert, is another request
            assertThatThrownBy(() -> g.update("main", "person", List.of(Row.of("id", "alice", "age", 51L)),
                    WriteOptions.idempotencyKey("u1"))).isInstanceOf(IdempotencyMismatchException.class);
            assertThatThrownBy(() -> g.update("main", "person", List.of(Row.of("id", "alice", "age", 50L, "name", null)),
                    WriteOptions.idempotencyKey("u1"))).isInstanceOf(IdempotencyMismatchException.class);
            assertThat(g.get("main", "person", List.of("alice")).get("alice").asMap()).containsEntry("age", 50L)
                    .containsEntry("name", "Alice");
        }
    }

    /** A journal-ack update's whole new row is in the journal: a reopen without a fold reads it back. */
    @Test
    void aJournalAckUpdateSurvivesAReopenBeforeItsFold() {
        Path p = dir.resolve("g");
        try (Graph g = create("journal")) {
            g.insert("main", "person", List.of(alice()));
            g.awaitFold();
            g.update("main", "person", List.of(Row.of("id", "alice", "city", "Bergen")));
            assertThat(g.state().head("main", "person")).isPresent();
            long unfolded = BulkLoadTest.events(p).stream().filter(e -> e instanceof JournalEvent.WriteJournaled).count();
            assertThat(unfolded).isEqualTo(2);
        }
        try (Graph g = Palisade.open(p, options("journal"))) {
            Map<String, Object> a = g.get("main", "person", List.of("alice")).get("alice").asMap();
            assertThat(a).containsEntry("city", "Bergen").containsEntry("name", "Alice").containsEntry("age", 30L);
        }
    }
}
