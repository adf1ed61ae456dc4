package io.palisade.coordinator;

import io.palisade.heads.PhaseCrashPoints;
import io.palisade.journal.Durability;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A graph branch of a graph branch whose table is forked already: its first write forks the parent's table branch,
 * which through a branch also rebuilds the {@code id} index (one CreateIndex version above the fork). A crash right
 * after that fork, before the write's Lance commit, leaves the intent open over a table branch one version past its
 * pin. Recovery must find that the write never ran: no receipt, the branch reads what it read, and a retry with the
 * same idempotency key writes. (Recovery took that version for the write's commit: an upsert was marked rolled forward
 * without its rows, so its retry got a receipt and the write was lost; an insert refused the graph as foreign.)
 */
class ForkThroughBranchCrashTest {
    @TempDir
    Path dir;

    private final org.apache.arrow.memory.BufferAllocator allocator = new org.apache.arrow.memory.RootAllocator();

    @AfterEach
    void tearDown() {
        PhaseCrashPoints.listener(null);
        allocator.close();
    }

    @ParameterizedTest
    @ValueSource(strings = {"upsert", "update", "insert"})
    void aWriteInterruptedAfterAForkThroughABranchIsNotRolledForward(String kind) {
        run(kind, "after-fork");
    }

    /** The same write interrupted after its Lance commit (two versions above the pin) is rolled forward, not foreign. */
    @ParameterizedTest
    @ValueSource(strings = {"upsert", "update", "insert"})
    void aWriteInterruptedAfterItsCommitOnAForkThroughABranchIsRolledForward(String kind) {
        run(kind, "after-substrate-commit");
    }

    private void run(String kind, String crashAt) {
        Options options = Options.defaults().withDurability(Durability.PROCESS_CRASH);
        Palisade.Wiring wiring = new Palisade.Wiring(tables -> TableLocation.of(tables.getParent(), Map.of()).open(false), true);
        Path root = dir.resolve("g");
        Graph g = Palisade.create(root, Rows.catalog(), options, wiring);
        g.insert("main", "person", List.of(Row.of("id", "a", "age", 1), Row.of("id", "b", "age", 2)));
        g.createBranch("b1", "main");
        g.upsert("b1", "person", List.of(Row.of("id", "a", "age", 10))); // b1 owns a fork of main's table
        g.createBranch("b2", "b1");
        PhaseCrashPoints.listener(point -> {
            if (point.equals(crashAt)) {
                throw new Simulation.SimulatedCrash(point);
            }
        });
        try (org.apache.arrow.vector.VectorSchemaRoot a99 = Rows.people(allocator, "a", 99);
             org.apache.arrow.vector.VectorSchemaRoot c99 = Rows.people(allocator, "c", 99)) {
            CompletableFuture<Receipt> w = switch (kind) {
                case "upsert" -> g.upsertAsync("b2", "person", a99, WriteOptions.idempotencyKey("w"));
                case "update" -> g.updateAsync("b2", "person", List.of(Row.of("id", "a", "age", 99)),
                        WriteOptions.idempotencyKey("w"));
                default -> g.insertAsync("b2", "person", c99, WriteOptions.idempotencyKey("w"));
            };
            assertThatThrownBy(g.engine()::stepCommitter).isInstanceOf(Simulation.SimulatedCrash.class);
            assertThat(w).isNotDone();
        }
        PhaseCrashPoints.listener(null);
        g.engine().abandon();

        try (Graph reopened = Palisade.open(root, options, false, wiring)) {
            assertThat(reopened.state().openIntents()).isEmpty();
            String changed = kind.equals("insert") ? "c" : "a";
            if (crashAt.equals("after-substrate-commit")) {
                assertThat(reopened.state().receipt("w")).as("the committed write is rolled forward").isPresent();
                assertThat(ages(reopened, "b2")).containsEntry(changed, 99L).containsEntry("b", 2L);
                assertThat(ages(reopened, "b1")).isEqualTo(Map.of("a", 10L, "b", 2L));
                return;
            }
            assertThat(reopened.state().receipt("w")).as("the interrupted write never ran").isEmpty();
            assertThat(ages(reopened, "b2")).isEqualTo(Map.of("a", 10L, "b", 2L));
            Receipt retry = switch (kind) {
                case "upsert" -> reopened.upsert("b2", "person", List.of(Row.of("id", "a", "age", 99)),
                        WriteOptions.idempotencyKey("w"));
                case "update" -> reopened.update("b2", "person", List.of(Row.of("id", "a", "age", 99)),
                        WriteOptions.idempotencyKey("w"));
                default -> reopened.insert("b2", "person", List.of(Row.of("id", "c", "age", 99)),
                        WriteOptions.idempotencyKey("w"));
            };
            assertThat(retry.rows()).isEqualTo(1);
            assertThat(ages(reopened, "b2")).containsEntry(changed, 99L);
            assertThat(ages(reopened, "b1")).isEqualTo(Map.of("a", 10L, "b", 2L));
        }
    }

    private static Map<String, Long> ages(Graph g, String branch) {
        Map<String, Long> out = new TreeMap<>();
        g.scan(branch, "person").forEach(r -> out.put((String) r.get("id"), (Long) r.get("age")));
        return out;
    }
}
