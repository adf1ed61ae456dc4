package io.palisade.coordinator;

import io.palisade.heads.PhaseCrashPoints;
import io.palisade.journal.IntentOutcome;
import io.palisade.journal.JournalEvent;
import io.palisade.journal.JournalReader;
import io.palisade.journal.JournalRecord;
import io.palisade.substrate.KeyedTable;
import io.palisade.substrate.TableRef;
import io.palisade.substrate.lance.LanceTableStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A process death at each crash point of the journal-ack path (docs/crash-points.md): after an acknowledgement's
 * append, and at each step of a fold. The graph runs on the real Lance store with a stepped committer; the crash is
 * the point's listener throwing, the dead process is {@code Engine.abandon()}. After the reopen (recovery runs):
 * every acknowledged write is read back, the table holds each id once after a final fold, and every journaled write
 * was folded by exactly one applied fold.
 */
class JournalAckCrashTest extends GraphTestSupport {
    @AfterEach
    void clearListener() {
        PhaseCrashPoints.listener(null);
    }

    private static Map<String, Object> ages(List<Map<String, Object>> rows) {
        Map<String, Object> out = new TreeMap<>();
        for (Map<String, Object> r : rows) {
            assertThat(out.put((String) r.get("id"), r.get("age"))).as("id %s once", r.get("id")).isNull();
        }
        return out;
    }

    @ParameterizedTest
    @ValueSource(strings = {"after-journal-ack", "after-fold-intent", "after-fold-commit", "before-fold-publish",
            "after-fold-publish"})
    void everyAcknowledgedWriteSurvivesAndIsFoldedExactlyOnce(String point) {
        crashAndReopen(point, false);
    }

    /** Rows folded before the crash in the scan-plan case, and rows of the large write the crashing fold carries. */
    private static final int PRELOAD = 20_000;
    private static final int LARGE = 16_000;

    /**
     * The same with a fold large enough, and without deletes, for Lance's scan plan ({@code MergeCost}: a by-source
     * {@code DeleteIf "false"} with the index present): the table holds 20,000 folded rows, and a 16,000-row write is
     * among the acknowledged ones.
     */
    @ParameterizedTest
    @ValueSource(strings = {"after-fold-intent", "after-fold-commit", "before-fold-publish", "after-fold-publish"})
    void aFoldOnTheScanPlanKilledAtEachPointLosesNothingAndFoldsOnce(String point) {
        assertThat(io.palisade.substrate.MergeCost.scanCheaper(LARGE + 2, PRELOAD)).as("the fold below takes the scan plan")
                .isTrue();
        crashAndReopen(point, true);
    }

    private void crashAndReopen(String point, boolean large) {
        List<LanceTableStore> stores = new ArrayList<>();
        Palisade.Wiring dying = new Palisade.Wiring(tables -> {
            LanceTableStore s = new LanceTableStore(tables.toString());
            stores.add(s);
            return s;
        }, true);
        java.nio.file.Path root = dir.resolve("g");
        Graph g = Palisade.create(root, Catalog.fromJson(JournalAckTest.CATALOG), JournalAckTest.noAutoFold(), dying);
        Map<String, Object> model = new HashMap<>();
        if (large) { // rows folded before the crash: a table the crossover is reached in
            List<Row> pre = new ArrayList<>();
            for (int i = 0; i < PRELOAD; i++) {
                pre.add(Row.of("id", "p" + i, "age", (long) i));
                model.put("p" + i, (long) i);
            }
            g.insert("main", "person", pre);
            g.createBranch("folded", "main"); // a branch is created after its parent's tables are folded
        }
        g.insert("main", "person", List.of(Row.of("id", "a", "age", 1), Row.of("id", "b", "age", 2)));
        g.upsert("main", "person", List.of(Row.of("id", "a", "age", 3)));
        if (large) {
            List<Row> many = new ArrayList<>();
            for (int i = 0; i < LARGE; i++) {
                many.add(Row.of("id", "r" + i, "age", (long) i));
                model.put("r" + i, (long) i);
            }
            g.insert("main", "person", many);
            model.put("b", 2L);
        } else {
            g.delete("main", "person", List.of("b"));
        }
        g.insert("main", "person", List.of(Row.of("id", "c", "age", 4)));
        model.put("a", 3L);
        model.put("c", 4L);
        long head = g.state().head("main", "person").orElseThrow().version();

        PhaseCrashPoints.listener(p -> {
            if (p.equals(point)) {
                throw new Simulation.SimulatedCrash(p);
            }
        });
        CompletableFuture<Receipt> unanswered = null;
        org.apache.arrow.vector.VectorSchemaRoot d = Rows.people(allocator, "d", 5);
        if (point.equals("after-journal-ack")) {
            // the write's records are durable, its receipt never given: it may be in the graph, or not
            unanswered = g.insertAsync("main", "person", d, WriteOptions.NONE);
            assertThatThrownBy(g.engine()::stepCommitter).isInstanceOf(Simulation.SimulatedCrash.class);
        } else {
            // a branch is created after its parent's tables are folded: the fold dies at the point
            assertThatThrownBy(() -> g.createBranch("dev", "main")).isInstanceOf(Simulation.SimulatedCrash.class);
        }
        PhaseCrashPoints.listener(null);
        if (unanswered != null) {
            assertThat(unanswered).isNotDone();
        }
        g.engine().abandon();
        stores.forEach(LanceTableStore::close);
        d.close();

        try (Graph r = Palisade.open(root, JournalAckTest.noAutoFold())) {
            assertThat(r.state().openIntents()).isEmpty();
            Map<String, Object> seen = ages(r.scan("main", "person"));
            if (point.equals("after-journal-ack")) {
                assertThat(seen).containsEntry("d", 5L); // journaled JOURNALED before the crash: part of the graph
                model.put("d", 5L);
            }
            assertThat(seen).isEqualTo(new TreeMap<>(model));
            long folded = r.state().head("main", "person").orElseThrow().version();
            // a fold whose commit landed was rolled forward; one that had none left its writes unfolded
            boolean landed = point.equals("after-fold-commit") || point.equals("before-fold-publish")
                    || point.equals("after-fold-publish");
            assertThat(folded).isEqualTo(landed ? head + 1 : head);
            int acknowledged = point.equals("after-journal-ack") ? 5 : 4;
            assertThat(r.state().foldMark("main", "person").unfolded()).isEqualTo(landed ? 0 : acknowledged);
        }
        // closing folded whatever was left; the Lance table alone now holds the model, each id once
        try (Graph r = Palisade.open(root, JournalAckTest.noAutoFold());
             LanceTableStore s = new LanceTableStore(root.resolve("tables").toString());
             KeyedTable t = s.openKeyed("person", s.latest("person", TableRef.MAIN))) {
            assertThat(r.state().foldMark("main", "person").unfolded()).isZero();
            assertThat(ages(t.scan())).isEqualTo(new TreeMap<>(model));
        }
        assertEveryWriteFoldedOnce(root);
    }

    /** Every JOURNALED write lies in exactly one applied fold's range (previous watermark, watermark]. */
    private static void assertEveryWriteFoldedOnce(java.nio.file.Path root) {
        List<JournalRecord> records;
        try (JournalReader reader = JournalReader.open(root.resolve("_palisade")); var c = reader.read(0)) {
            records = c.drain();
        }
        Map<String, JournalEvent.FoldPlanned> plans = new HashMap<>();
        List<Long> watermarks = new ArrayList<>();
        List<Long> acks = new ArrayList<>();
        for (JournalRecord rec : records) {
            switch (rec.event()) {
                case JournalEvent.FoldPlanned p -> plans.put(p.intentId(), p);
                case JournalEvent.IntentCompleted c when c.outcome() == IntentOutcome.JOURNALED -> acks.add(rec.sequence());
                case JournalEvent.JournaledWrite w -> acks.add(rec.sequence()); // a write in one record
                case JournalEvent.IntentCompleted c when plans.containsKey(c.intentId())
                        && (c.outcome() == IntentOutcome.COMMITTED || c.outcome() == IntentOutcome.ROLLED_FORWARD) ->
                        watermarks.add(plans.get(c.intentId()).throughSequence());
                default -> {
                    // other records do not fold anything (a test's view: the product's switches are exhaustive)
                }
            }
        }
        assertThat(watermarks).isSorted().doesNotHaveDuplicates();
        assertThat(acks).isNotEmpty();
        for (long ack : acks) {
            long covering = 0;
            long previous = -1;
            for (long w : watermarks) {
                if (ack > previous && ack <= w) {
                    covering++;
                }
                previous = w;
            }
            assertThat(covering).as("applied folds covering the write acknowledged at %d", ack).isEqualTo(1);
        }
    }
}
