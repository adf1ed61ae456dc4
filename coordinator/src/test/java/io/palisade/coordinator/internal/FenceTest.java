package io.palisade.coordinator.internal;

import io.palisade.coordinator.Graph;
import io.palisade.coordinator.Internals;
import io.palisade.coordinator.Options;
import io.palisade.coordinator.Receipt;
import io.palisade.coordinator.Rows;
import io.palisade.coordinator.WriteOptions;

import io.palisade.fencing.KeyConflictException;
import io.palisade.fencing.KeyFilter;
import io.palisade.fencing.ValidationException;
import io.palisade.fencing.conflict.Conflict;
import io.palisade.journal.Durability;
import io.palisade.journal.IntentOutcome;
import io.palisade.journal.JournalEvent.IntentCompleted;
import io.palisade.journal.JournalEvent.IntentRecorded;
import io.palisade.journal.TableHead;
import io.palisade.substrate.TableRef;
import io.palisade.substrate.sim.SimulatedTableStore;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletionException;
import java.util.function.BiFunction;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The fence alone ({@link Fence#admit}, {@link Fence#keyCollision}): a graph over the simulated store with a manual
 * committer that nobody steps while a test fences its ops, so that only the fence decides them.
 */
class FenceTest {
    @TempDir
    Path dir;

    private final BufferAllocator allocator = new RootAllocator();
    private final List<VectorSchemaRoot> batches = new ArrayList<>();
    private Graph g;
    private Fence fence;
    private long head;

    @BeforeEach
    void open() {
        SimulatedTableStore store = new SimulatedTableStore();
        g = Internals.createStepped(dir.resolve("g"), Rows.catalog(), Options.defaults().withDurability(Durability.PROCESS_CRASH), store);
        fence = new Fence(Internals.engine(g).context(), new JournalPhases(Internals.engine(g).context()));
        head = g.state().head("main", "person").orElseThrow().version();
    }

    @AfterEach
    void close() {
        if (g != null) {
            g.close();
        }
        batches.forEach(VectorSchemaRoot::close);
        allocator.close();
    }

    private WriteOp op(BiFunction<WriteOp.Submission, VectorSchemaRoot, WriteOp> kind, long base,
                       Optional<String> idempotencyKey, Object... idAgePairs) {
        VectorSchemaRoot rows = Rows.people(allocator, idAgePairs);
        batches.add(rows);
        WriteOp op = kind.apply(WriteOp.Submission.of("main", "person", base, idempotencyKey), rows);
        // as Graph makes them: a write with an idempotency key carries its request's digest
        return idempotencyKey.isEmpty() ? op : kind.apply(op.submission().withRequestDigest(RequestDigest.of(op)), rows);
    }

    private WriteOp upsert(Object... idAgePairs) {
        return op(WriteOp.Upsert::new, head, Optional.empty(), idAgePairs);
    }

    private WriteOp insert(long base, Object... idAgePairs) {
        return op(WriteOp.Insert::new, base, Optional.empty(), idAgePairs);
    }

    /** The ops the fence accepted, in order. */
    private static List<WriteOp> accepted(Fence.Admission adm) {
        return adm.accepted().stream().map(Fence.Admitted::op).toList();
    }

    /** The intent id the fence gave {@code op} (accepted or rejected), null when it gave none. */
    private static String intentId(Fence.Admission adm, WriteOp op) {
        return java.util.stream.Stream.concat(adm.accepted().stream(), adm.rejected().stream().map(Lost::op))
                .filter(a -> a.op() == op).map(Fence.Admitted::intentId).findFirst().orElse(null);
    }

    /** The key filter the fence validated for the accepted {@code op}. */
    private static KeyFilter keys(Fence.Admission adm, WriteOp op) {
        return adm.accepted().stream().filter(a -> a.op() == op).map(Fence.Admitted::keys).findFirst().orElseThrow();
    }

    private Fence.Admission admit(WriteOp... ops) {
        return fence.admit(List.of(ops), g.catalog().require("person"), g.state().pin("main", "person").orElseThrow(),
                g.state());
    }

    /** Remembers a commit of {@code op} (given intent id {@code intent}) from {@code head} to {@code head + 1}. */
    private void remember(WriteOp op, String intent) {
        Fence.Admitted committed = new Fence.Admitted(op, intent, BatchValidation.validate(g.catalog().require("person"), op),
                null);
        fence.remember("main/person", true, new TableRef(TableRef.MAIN, head), new TableRef(TableRef.MAIN, head + 1),
                List.of(committed), List.of());
    }

    @Test
    void opsSharingAKeyWithAnAcceptedOrADeferredOpAreDeferredInQueueOrder() {
        WriteOp a = upsert("k1", 1);
        WriteOp b = upsert("k1", 2, "k2", 2); // shares k1 with a
        WriteOp c = upsert("k2", 3);          // shares k2 only with the deferred b: must not overtake it
        WriteOp d = upsert("k3", 4);
        Fence.Admission adm = admit(a, b, c, d);

        assertThat(accepted(adm)).containsExactly(a, d);
        assertThat(adm.deferred()).containsExactly(b, c);
        assertThat(adm.rejections()).isEmpty();
        for (WriteOp op : List.of(a, b, c, d)) {
            assertThat(op.future()).isNotDone();
        }
        assertThat(intentId(adm, a)).isNotNull().isNotEqualTo(intentId(adm, d));
        assertThat(keys(adm, a).keys()).containsExactly("k1");
    }

    @Test
    void aStrictInsertOfAKeyAnEarlierInsertOfTheGroupHoldsIsDeferredNotRejected() {
        WriteOp a = insert(head, "k1", 1);
        WriteOp b = insert(head, "k1", 2);
        Fence.Admission adm = admit(a, b);

        assertThat(accepted(adm)).containsExactly(a);
        assertThat(adm.deferred()).containsExactly(b);
        assertThat(adm.rejections()).isEmpty();
        assertThat(b.future()).isNotDone();
        assertThat(g.metrics().snapshot().keyConflicts()).isZero();
    }

    @Test
    void aStrictInsertCollidingWithARememberedCommitSinceItsBaseIsRejectedNamingTheWinner() {
        remember(upsert("k1", 1), "i-winner");
        WriteOp stale = insert(head, "k1", 2, "k9", 2); // based before the winner
        WriteOp fresh = insert(head + 1, "k1", 3);      // based on the winner: not the fence's to refuse
        WriteOp other = insert(head, "k8", 4);          // no shared key
        Fence.Admission adm = admit(stale, fresh, other);

        assertThat(accepted(adm)).containsExactly(fresh, other);
        assertThat(adm.deferred()).isEmpty();
        // the writer is answered by the committer once the rejection's records are journaled, not by the fence
        assertThat(stale.future()).isNotDone();
        assertThat(adm.rejected()).singleElement().satisfies(l -> {
            assertThat(l.op().op()).isSameAs(stale);
            assertThat(l.failure()).isInstanceOfSatisfying(KeyConflictException.class, e -> {
                assertThat(e.keys()).containsExactly("k1");
                assertThat(e.winningIntent()).contains("i-winner");
            });
        });
        // the rejection is journaled as an intent that leaves the head as it is, completed KEY_CONFLICT
        assertThat(adm.rejections()).hasSize(2);
        IntentRecorded recorded = (IntentRecorded) adm.rejections().get(0);
        TableHead h = g.state().head("main", "person").orElseThrow();
        assertThat(recorded.intentId()).isEqualTo(intentId(adm, stale));
        assertThat(recorded.intendedTransition().from()).isEqualTo(h);
        assertThat(recorded.intendedTransition().to()).isEqualTo(h);
        IntentCompleted completed = (IntentCompleted) adm.rejections().get(1);
        assertThat(completed.outcome()).isEqualTo(IntentOutcome.KEY_CONFLICT);
        assertThat(completed.conflictingIntent()).isEqualTo("i-winner");
        assertThat(completed.conflictingKeys()).containsExactly("k1");
        assertThat(g.metrics().snapshot().keyConflicts()).isEqualTo(1);
    }

    @Test
    void keyCollisionAnswersWhetherKeysCollideWithAnythingPublishedSinceAVersion() {
        remember(upsert("k1", 1, "k2", 1), "i-winner");
        WriteOp probe = upsert("k2", 0, "k5", 0);
        KeyFilter probeKeys = BatchValidation.validate(g.catalog().require("person"), probe);

        Optional<Conflict> since = fence.keyCollision("main/person", "i-probe", probeKeys, head);
        assertThat(since).hasValueSatisfying(c -> {
            assertThat(c.winnerId()).isEqualTo("i-winner");
            assertThat(c.keys()).containsExactly("k2");
        });
        assertThat(fence.keyCollision("main/person", "i-probe", probeKeys, head + 1)).isEmpty();
        assertThat(fence.keyCollision("dev/person", "i-probe", probeKeys, head)).isEmpty();
    }

    /**
     * The fence's memory of published commits is bounded by the keys they hold, not only by their number: a
     * journal-ack table's folds touch thousands of keys each, and 4,096 of them held hundreds of MiB (the 30-minute
     * journal-ack soak's heap grew with its folds). The newest commit is kept whatever its size.
     */
    @Test
    void theMemoryOfCommitsIsBoundedByTheKeysTheyHold() {
        int perCommit = 50_000;
        for (int c = 0; c < 8; c++) {
            remember(deleteOf("c" + c + "-", perCommit), "i-" + c);
            assertThat(fence.remembered("main/person")[1]).isLessThanOrEqualTo(Fence.RECENT_KEYS);
        }
        long kept = Fence.RECENT_KEYS / perCommit;
        assertThat(fence.remembered("main/person")).containsExactly(kept, kept * perCommit);
        remember(deleteOf("big-", (int) Fence.RECENT_KEYS + 1), "i-big");
        assertThat(fence.remembered("main/person")).containsExactly(1L, Fence.RECENT_KEYS + 1);
        remember(deleteOf("small-", 10), "i-small");
        assertThat(fence.remembered("main/person")).containsExactly(1L, 10L);
    }

    private WriteOp deleteOf(String prefix, int n) {
        List<String> keys = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            keys.add(prefix + i);
        }
        return new WriteOp.Delete(WriteOp.Submission.of("main", "person", head, Optional.empty()),
                KeyFilter.ofStrings(g.catalog().require("person").idFieldId(), keys));
    }

    @Test
    void aRememberedDeleteIsNoWinnerOfTheStrictInsertCheck() {
        WriteOp delete = new WriteOp.Delete(WriteOp.Submission.of("main", "person", head, Optional.empty()),
                io.palisade.fencing.KeyFilter.ofStrings(g.catalog().require("person").idFieldId(), List.of("k1")));
        remember(delete, "i-delete");
        WriteOp reinsert = insert(head, "k1", 1);
        assertThat(accepted(admit(reinsert))).containsExactly(reinsert);
    }

    @Test
    void anIdempotencyTwinInTheGroupIsAnsweredWithItsTwinsOutcome() {
        WriteOp a = op(WriteOp.Upsert::new, head, Optional.of("req-1"), "k1", 1);
        WriteOp twin = op(WriteOp.Upsert::new, head, Optional.of("req-1"), "k1", 1);
        WriteOp b = op(WriteOp.Upsert::new, head, Optional.of("req-2"), "k3", 3);
        WriteOp failingTwin = op(WriteOp.Upsert::new, head, Optional.of("req-2"), "k3", 3);
        WriteOp notATwin = op(WriteOp.Upsert::new, head, Optional.of("req-2"), "k4", 4); // the key, another request
        Fence.Admission adm = admit(a, twin, b, failingTwin, notATwin);

        assertThat(accepted(adm)).containsExactly(a, b);
        assertThatThrownBy(notATwin.future()::join).cause().isInstanceOfSatisfying(
                io.palisade.fencing.IdempotencyMismatchException.class,
                e -> assertThat(e.firstIntent()).isEqualTo(intentId(adm, b)));
        assertThat(adm.deferred()).isEmpty();
        assertThat(intentId(adm, twin)).isNull(); // never validated nor journaled: it is its twin
        assertThat(twin.future()).isNotDone();
        Receipt first = new Receipt(intentId(adm, a), 42, "person", "main", head + 1, 1);
        a.future().complete(first);
        assertThat(twin.future().join()).isSameAs(first);
        b.future().completeExceptionally(new KeyConflictException("person", List.of("k3"), 1, null));
        assertThatThrownBy(failingTwin.future()::join).isInstanceOf(CompletionException.class)
                .cause().isInstanceOf(KeyConflictException.class);
        assertThat(g.metrics().snapshot().idempotentReplays()).isEqualTo(2);
    }

    @Test
    void anAnsweredIdempotencyKeyReplaysTheFirstReceipt() {
        Receipt first;
        try (VectorSchemaRoot rows = Rows.people(allocator, "k1", 1)) {
            first = g.upsert("main", "person", rows, WriteOptions.idempotencyKey("req-1"));
        }
        WriteOp again = op(WriteOp.Upsert::new, first.version(), Optional.of("req-1"), "k1", 1);
        Fence.Admission adm = admit(again);

        assertThat(accepted(adm)).isEmpty();
        assertThat(adm.rejections()).isEmpty();
        assertThat(again.future().join()).isEqualTo(first);
    }

    @Test
    void anInvalidOpFailsAloneAndNothingOfItIsJournaled() {
        WriteOp invalid = upsert("k1", 1, "k1", 2); // a repeated id
        WriteOp valid = upsert("k2", 1);
        Fence.Admission adm = admit(invalid, valid);

        assertThat(accepted(adm)).containsExactly(valid);
        assertThat(adm.rejections()).isEmpty();
        assertThatThrownBy(invalid.future()::join).cause().isInstanceOf(ValidationException.class);
    }
}
