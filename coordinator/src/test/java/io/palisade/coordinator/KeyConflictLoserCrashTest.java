package io.palisade.coordinator;

import io.palisade.fencing.KeyConflictException;
import io.palisade.heads.PhaseCrashPoints;
import io.palisade.journal.Durability;
import io.palisade.substrate.sim.SimulatedTableStore;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A strict insert that loses a key conflict inside a group whose other writes then commit: a crash right
 * after the survivors' substrate commit must not let recovery roll the loser forward with them (the
 * deterministic simulation's seed 20 found it). Runs over the simulated store with a stepped committer.
 */
class KeyConflictLoserCrashTest {
    @TempDir
    Path dir;

    private final BufferAllocator allocator = new RootAllocator();

    @AfterEach
    void tearDown() {
        PhaseCrashPoints.listener(null);
        allocator.close();
    }

    @Test
    void theLoserOfAGroupKeyConflictStaysRefusedAfterACrashAfterTheSurvivorsCommit() {
        SimulatedTableStore store = new SimulatedTableStore();
        Palisade.Wiring wiring = new Palisade.Wiring(tables -> store, true);
        Options options = Options.defaults().withDurability(Durability.PROCESS_CRASH);
        Path root = dir.resolve("g");
        Graph g = Palisade.create(root, Rows.catalog(), options, wiring);
        try (VectorSchemaRoot existing = Rows.people(allocator, "k6", 1)) {
            g.upsert("main", "person", existing);
        }
        PhaseCrashPoints.listener(point -> {
            if (point.equals("after-substrate-commit")) {
                throw new Simulation.SimulatedCrash(point);
            }
        });
        try (VectorSchemaRoot survivor = Rows.people(allocator, "k1", 2);
             VectorSchemaRoot loser = Rows.people(allocator, "k6", 3)) {
            CompletableFuture<Receipt> a = g.insertAsync("main", "person", survivor, WriteOptions.idempotencyKey("a"));
            CompletableFuture<Receipt> b = g.insertAsync("main", "person", loser, WriteOptions.idempotencyKey("b"));
            assertThatThrownBy(g.engine()::stepCommitter).isInstanceOf(Simulation.SimulatedCrash.class); // one group: a and b
            assertThat(a).isNotDone();
            assertThat(b).isNotDone();
        }
        PhaseCrashPoints.listener(null);
        g.engine().abandon();

        try (Graph reopened = Palisade.open(root, options, false, wiring)) {
            assertThat(reopened.state().receipt("a")).isPresent(); // rolled forward
            assertThat(reopened.state().receipt("b")).isEmpty();
            assertThat(reopened.state().openIntents()).isEmpty();
            Map<String, Long> rows = new TreeMap<>();
            reopened.scan("main", "person").forEach(r -> rows.put((String) r.get("id"), (Long) r.get("age")));
            assertThat(rows).isEqualTo(Map.of("k1", 2L, "k6", 1L));
            assertThat(reopened.recoveryReport().classifications()).hasSize(1);
            // a retry of the loser with its idempotency key is refused again, not answered with a receipt
            try (VectorSchemaRoot retry = Rows.people(allocator, "k6", 3)) {
                assertThatThrownBy(() -> reopened.insert("main", "person", retry, WriteOptions.idempotencyKey("b")))
                        .isInstanceOf(KeyConflictException.class);
            }
        }
    }
}
