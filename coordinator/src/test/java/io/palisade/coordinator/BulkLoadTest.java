package io.palisade.coordinator;

import io.palisade.fencing.KeyConflictException;
import io.palisade.journal.IntentOutcome;
import io.palisade.journal.JournalCursor;
import io.palisade.journal.JournalEvent;
import io.palisade.journal.JournalReader;
import io.palisade.journal.JournalRecord;
import io.palisade.journal.LogicalOperation;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class BulkLoadTest extends GraphTestSupport {
    static List<JournalEvent> events(Path graph) {
        List<JournalEvent> out = new ArrayList<>();
        try (JournalReader r = JournalReader.open(graph.resolve("_palisade")); JournalCursor c = r.read(0)) {
            for (JournalRecord rec = c.poll(); rec != null; rec = c.poll()) {
                out.add(rec.event());
            }
        }
        return out;
    }

    static List<String> ids(List<Map<String, Object>> rows) {
        return rows.stream().map(r -> (String) r.get("id")).sorted().toList();
    }

    @Test
    void appendLoadCommitsBoundedBatchesAsOneIntentAndPublishesOnce() {
        Path p = dir.resolve("g");
        List<Long> headsSeenDuringLoad = new ArrayList<>();
        List<Integer> rowsSeenDuringLoad = new ArrayList<>();
        Receipt r;
        try (Graph g = Palisade.create(p, Rows.catalog(), Options.defaults());
             VectorSchemaRoot base = Rows.people(allocator, "base", 1)) {
            g.insert("main", "person", base);
            long baseVersion = g.state().head("main", "person").orElseThrow().version();
            // reader batches of 4 rows re-batched into commits of 3: 10 rows -> 4 batches
            try (PeopleReader in = new PeopleReader(allocator, PeopleReader.ids("k", 10), 7, 4, b -> {
                headsSeenDuringLoad.add(g.state().head("main", "person").orElseThrow().version());
                rowsSeenDuringLoad.add(g.scan("main", "person").size());
            })) {
                r = g.load("main", "person", in, LoadMode.APPEND, 3);
            }
            assertThat(r.rows()).isEqualTo(10);
            // two table versions per batch: the fenced merge-insert, then the id index extended over it
            assertThat(r.version()).isEqualTo(baseVersion + 8);
            assertThat(headsSeenDuringLoad).containsOnly(baseVersion);
            assertThat(rowsSeenDuringLoad).containsOnly(1);
            assertThat(g.state().head("main", "person").orElseThrow().version()).isEqualTo(baseVersion + 8);
            List<Map<String, Object>> rows = g.scan("main", "person");
            assertThat(ids(rows)).hasSize(11).doesNotHaveDuplicates().contains("base", "k0", "k9");
        }
        List<JournalEvent> ev = events(p);
        List<JournalEvent.IntentRecorded> intents = ev.stream().filter(e -> e instanceof JournalEvent.IntentRecorded ir
                && ir.intentId().equals(r.intent())).map(e -> (JournalEvent.IntentRecorded) e).toList();
        assertThat(intents).hasSize(1);
        assertThat(intents.get(0).operation()).isEqualTo(LogicalOperation.INSERT);
        List<JournalEvent.LoadProgress> progress = ev.stream().filter(e -> e instanceof JournalEvent.LoadProgress lp
                && lp.intentId().equals(r.intent())).map(e -> (JournalEvent.LoadProgress) e).toList();
        assertThat(progress).extracting(JournalEvent.LoadProgress::batchIndex).containsExactly(-1, 0, 0, 1, 1, 2, 2, 3, 3);
        assertThat(progress.get(8).rows()).isEqualTo(10);
        assertThat(progress.get(8).achievedVersion()).isEqualTo(r.version());
        for (int i = 1; i < progress.size(); i++) {
            // every version the load made is journaled, one progress record each
            assertThat(progress.get(i).achievedVersion()).isEqualTo(progress.get(i - 1).achievedVersion() + 1);
            if (i % 2 == 1) {
                assertThat(progress.get(i).batchKeys().size()).isBetween(1, 3); // the batch's merge-insert
            } else {
                assertThat(progress.get(i).batchKeys()).isNull(); // its index extension
            }
        }
        int at = ev.indexOf(intents.get(0));
        long publications = ev.subList(at, ev.size()).stream().filter(e -> e instanceof JournalEvent.HeadPublished hp
                && hp.transitions().get(0).table().equals("person")).count();
        assertThat(publications).isEqualTo(1); // the load publishes once, at its end
    }

    @Test
    void withoutAnIdIndexTheLoadTakesTheFencedV2PathOneVersionPerBatch() {
        Path p = dir.resolve("g");
        Receipt r;
        long baseVersion;
        try (Graph g = Palisade.create(p, Rows.catalog(), Options.defaults().withIndexedMerge(false));
             VectorSchemaRoot base = Rows.people(allocator, "base", 1)) {
            g.insert("main", "person", base);
            baseVersion = g.state().head("main", "person").orElseThrow().version();
            try (PeopleReader in = new PeopleReader(allocator, PeopleReader.ids("k", 10), 7, 4, b -> { })) {
                r = g.load("main", "person", in, LoadMode.APPEND, 3);
            }
            assertThat(ids(g.scan("main", "person"))).hasSize(11).doesNotHaveDuplicates();
        }
        assertThat(r.version()).isEqualTo(baseVersion + 4);
        List<JournalEvent.LoadProgress> progress = events(p).stream().filter(e -> e instanceof JournalEvent.LoadProgress lp
                && lp.intentId().equals(r.intent())).map(e -> (JournalEvent.LoadProgress) e).toList();
        assertThat(progress).extracting(JournalEvent.LoadProgress::batchIndex).containsExactly(-1, 0, 1, 2, 3);
        assertThat(progress.subList(1, 5)).allSatisfy(lp -> assertThat(lp.batchKeys()).isNotNull());
    }

    @Test
    void strictLoadOfAKeyAlreadyPresentFailsNamingItAndRollsBack() {
        try (Graph g = Palisade.create(dir.resolve("g"), Rows.catalog(), Options.defaults());
             VectorSchemaRoot base = Rows.people(allocator, "k7", 1)) {
            g.insert("main", "person", base);
            try (PeopleReader in = new PeopleReader(allocator, PeopleReader.ids("k", 10), 7, 2, b -> { })) {
                assertThatThrownBy(() -> g.load("main", "person", in, LoadMode.APPEND, 2))
                        .isInstanceOf(KeyConflictException.class)
                        .satisfies(e -> assertThat(((KeyConflictException) e).keys()).containsExactly("k7"));
            }
            List<Map<String, Object>> rows = g.scan("main", "person");
            assertThat(rows).hasSize(1);
            assertThat(rows.get(0).get("age")).isEqualTo(1L);
            assertThat(g.state().openIntents()).isEmpty();
            // the graph stays writable and a later load works from the restored state
            try (PeopleReader in = new PeopleReader(allocator, PeopleReader.ids("n", 5), 7, 5, b -> { })) {
                g.load("main", "person", in, LoadMode.APPEND, 2);
            }
            assertThat(ids(g.scan("main", "person"))).hasSize(6).doesNotHaveDuplicates();
        }
        assertThat(events(dir.resolve("g")).stream().filter(e -> e instanceof JournalEvent.IntentCompleted c
                && c.outcome() == IntentOutcome.KEY_CONFLICT).map(e -> ((JournalEvent.IntentCompleted) e).conflictingKeys()))
                .containsExactly(List.of("k7"));
    }

    @Test
    void strictLoadOfOneKeyTwiceAcrossBatchesFailsBeforePublishing() {
        try (Graph g = Palisade.create(dir.resolve("g"), Rows.catalog(), Options.defaults())) {
            long before = g.state().head("main", "person").orElseThrow().version();
            List<String> keys = List.of("a", "b", "c", "d", "b", "e");
            try (PeopleReader in = new PeopleReader(allocator, keys, 7, 2, b -> { })) {
                assertThatThrownBy(() -> g.load("main", "person", in, LoadMode.APPEND, 2))
                        .isInstanceOf(KeyConflictException.class)
                        .satisfies(e -> assertThat(((KeyConflictException) e).keys()).containsExactly("b"));
            }
            assertThat(g.scan("main", "person")).isEmpty();
            assertThat(g.state().head("main", "person").orElseThrow().version()).isGreaterThan(before);
        }
    }

    @Test
    void strictLoadOfOneKeyTwiceInsideABatchFailsNamingIt() {
        try (Graph g = Palisade.create(dir.resolve("g"), Rows.catalog(), Options.defaults())) {
            List<String> keys = List.of("a", "b", "c", "c");
            try (PeopleReader in = new PeopleReader(allocator, keys, 7, 4, b -> { })) {
                assertThatThrownBy(() -> g.load("main", "person", in, LoadMode.APPEND, 4))
                        .isInstanceOf(KeyConflictException.class)
                        .satisfies(e -> assertThat(((KeyConflictException) e).keys()).containsExactly("c"));
            }
            assertThat(g.scan("main", "person")).isEmpty();
        }
    }

    @Test
    void mergeLoadUpdatesExistingRowsAndTheLaterBatchWins() {
        try (Graph g = Palisade.create(dir.resolve("g"), Rows.catalog(), Options.defaults());
             VectorSchemaRoot base = Rows.people(allocator, "a", 1, "z", 1)) {
            g.insert("main", "person", base);
            List<String> keys = List.of("a", "b", "c", "a");
            Receipt r;
            try (PeopleReader in = new PeopleReader(allocator, keys, 9, 2, b -> { })) {
                r = g.load("main", "person", in, LoadMode.MERGE, 2);
            }
            assertThat(r.rows()).isEqualTo(4);
            List<Map<String, Object>> rows = g.scan("main", "person");
            assertThat(ids(rows)).containsExactly("a", "b", "c", "z");
            assertThat(rows.stream().filter(x -> x.get("id").equals("a")).findFirst().orElseThrow().get("age")).isEqualTo(9L);
        }
        assertThat(events(dir.resolve("g")).stream().filter(e -> e instanceof JournalEvent.IntentRecorded ir
                && ir.operation() == LogicalOperation.UPSERT)).hasSize(1);
    }

    @Test
    void loadOnALazyBranchForksOnceAndLeavesMainUntouched() {
        try (Graph g = Palisade.create(dir.resolve("g"), Rows.catalog(), Options.defaults());
             VectorSchemaRoot base = Rows.people(allocator, "a", 1)) {
            g.insert("main", "person", base);
            g.createBranch("dev", "main");
            try (PeopleReader in = new PeopleReader(allocator, PeopleReader.ids("d", 5), 2, 5, b -> { })) {
                g.load("dev", "person", in, LoadMode.APPEND, 2);
            }
            assertThat(ids(g.scan("dev", "person"))).hasSize(6);
            assertThat(ids(g.scan("main", "person"))).containsExactly("a");
        }
    }
}
