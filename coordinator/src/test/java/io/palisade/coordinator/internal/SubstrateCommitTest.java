package io.palisade.coordinator.internal;

import io.palisade.coordinator.Graph;
import io.palisade.coordinator.Internals;
import io.palisade.coordinator.Options;
import io.palisade.coordinator.Rows;

import io.palisade.fencing.CommitStateUnknownException;
import io.palisade.fencing.ForeignCommitException;
import io.palisade.fencing.GraphRefusedException;
import io.palisade.fencing.KeyConflictException;
import io.palisade.fencing.PalisadeException;
import io.palisade.heads.Pin;
import io.palisade.journal.Durability;
import io.palisade.journal.IntentOutcome;
import io.palisade.journal.JournalEvent;
import io.palisade.journal.JournalEvent.ForeignCommitFound;
import io.palisade.journal.JournalEvent.IntentCompleted;
import io.palisade.journal.TableHead;
import io.palisade.substrate.KeyedTable;
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
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The substrate-commit stage alone: ops whose intents are journaled (Phase A through {@link JournalPhases}) are
 * committed by {@link SubstrateCommit#commit} on the simulated store, and the {@link SubstrateCommit.Result} is
 * checked; the stage itself completes no future. The graph's committer is manual and never stepped meanwhile.
 */
class SubstrateCommitTest {
    @TempDir
    Path dir;

    private final BufferAllocator allocator = new RootAllocator();
    private final List<VectorSchemaRoot> batches = new ArrayList<>();
    private final SimulatedTableStore store = new SimulatedTableStore();
    private Graph g;
    private JournalPhases journal;
    private SubstrateCommit substrate;

    @BeforeEach
    void open() {
        g = Internals.createStepped(dir.resolve("g"), Rows.catalog(), Options.defaults().withDurability(Durability.PROCESS_CRASH), store);
        try (VectorSchemaRoot existing = Rows.people(allocator, "k6", 1)) {
            g.upsert("main", "person", existing);
        }
        journal = new JournalPhases(Internals.engine(g).context());
        substrate = new SubstrateCommit(Internals.engine(g).context(), journal);
    }

    @AfterEach
    void close() {
        if (g != null) {
            g.close();
        }
        batches.forEach(VectorSchemaRoot::close);
        allocator.close();
    }

    /** A strict insert of {@code ids}, validated and given an intent id as the fence would. */
    private Fence.Admitted insert(String... ids) {
        Object[] pairs = new Object[ids.length * 2];
        for (int i = 0; i < ids.length; i++) {
            pairs[2 * i] = ids[i];
            pairs[2 * i + 1] = i;
        }
        VectorSchemaRoot rows = Rows.people(allocator, pairs);
        batches.add(rows);
        WriteOp op = new WriteOp.Insert(WriteOp.Submission.of("main", "person", head().version(), Optional.empty()), rows);
        return new Fence.Admitted(op, "i-" + UUID.randomUUID(), BatchValidation.validate(g.catalog().require("person"), op),
                null);
    }

    private TableHead head() {
        return g.state().head("main", "person").orElseThrow();
    }

    /** Journals the ops' intents (Phase A), then commits them on the head. */
    private SubstrateCommit.Result commit(Fence.Admitted... ops) {
        Pin pin = g.state().pin("main", "person").orElseThrow();
        journal.appendIntents(journal.intents(List.of(ops), pin.head(), pin.head().tableBranch(), g.state().lastSequence()));
        return substrate.commit(g.catalog().require("person"), List.of(ops), substrate.base(pin, "person", pin.head().tableBranch()));
    }

    private static void assertNotDone(Fence.Admitted... ops) {
        for (Fence.Admitted op : ops) {
            assertThat(op.op().future()).isNotDone();
        }
    }

    /** The ops {@code result} names as losers, in order. */
    private static List<Fence.Admitted> losers(SubstrateCommit.Result result) {
        return result.losers().stream().map(Lost::op).toList();
    }

    /** Why {@code result} says the loser {@code op} lost (null when it names no such loser). */
    private static PalisadeException failure(SubstrateCommit.Result result, Fence.Admitted op) {
        return result.losers().stream().filter(l -> l.op() == op).map(Lost::failure).findFirst().orElse(null);
    }

    @Test
    void keysAlreadyPresentFailOnlyTheOpsThatOwnThemAndTheRestCommitAtBasePlusOne() {
        long base = head().version();
        Fence.Admitted survivor = insert("k1", "k2");
        Fence.Admitted loser = insert("k6", "k7");
        SubstrateCommit.Result result = commit(survivor, loser);

        assertThat(result).isInstanceOfSatisfying(SubstrateCommit.Result.Committed.class, c -> {
            assertThat(c.base()).isEqualTo(new TableRef(TableRef.MAIN, base));
            assertThat(c.achieved()).isEqualTo(new TableRef(TableRef.MAIN, base + 1));
            assertThat(c.committed()).containsExactly(survivor);
            assertThat(losers(c)).containsExactly(loser);
            // the loser's completion was journaled before the survivor was committed again
            assertThat(c.records()).isEmpty();
        });
        assertThat(failure(result, loser)).isInstanceOfSatisfying(KeyConflictException.class,
                e -> assertThat(e.keys()).containsExactly("k6"));
        assertThat(g.state().openIntents()).extracting(i -> i.recorded().intentId()).containsExactly(survivor.intentId());
        assertNotDone(survivor, loser);
        assertThat(g.metrics().snapshot().keyConflicts()).isEqualTo(1);
    }

    @Test
    void whenEveryOpLosesNothingIsCommittedAndTheirCompletionsAreReturned() {
        Fence.Admitted loser = insert("k6");
        SubstrateCommit.Result result = commit(loser);

        assertThat(result).isInstanceOfSatisfying(SubstrateCommit.Result.NothingCommitted.class, n -> {
            assertThat(losers(n)).containsExactly(loser);
            assertThat(n.records()).singleElement().isInstanceOfSatisfying(IntentCompleted.class, ic -> {
                assertThat(ic.intentId()).isEqualTo(loser.intentId());
                assertThat(ic.outcome()).isEqualTo(IntentOutcome.KEY_CONFLICT);
                assertThat(ic.conflictingKeys()).containsExactly("k6");
            });
        });
        assertNotDone(loser);
    }

    /**
     * A grouped strict insert whose commit finds keys of several of its ops present fails each loser naming
     * only its OWN keys, in its reason as in its conflicting keys (docs/conflict-resolution.md "Conflicts and retries:
     * definitions"); the group's other keys are never attributed to it.
     */
    @Test
    void eachLoserOfAGroupNamesOnlyItsOwnKeysInItsReasonAndConflictingKeys() {
        try (VectorSchemaRoot existing = Rows.people(allocator, "k8", 2)) {
            g.upsert("main", "person", existing);
        }
        Fence.Admitted a = insert("k6", "k7");
        Fence.Admitted b = insert("k8", "k9");
        SubstrateCommit.Result result = commit(a, b);

        assertThat(result).isInstanceOfSatisfying(SubstrateCommit.Result.NothingCommitted.class, n -> {
            assertThat(losers(n)).containsExactlyInAnyOrder(a, b);
            assertThat(n.records()).hasSize(2).allSatisfy(r -> assertThat(r).isInstanceOfSatisfying(IntentCompleted.class, ic -> {
                boolean isA = ic.intentId().equals(a.intentId());
                String own = isA ? "k6" : "k8";
                String other = isA ? "k8" : "k6";
                assertThat(ic.outcome()).isEqualTo(IntentOutcome.KEY_CONFLICT);
                assertThat(ic.conflictingKeys()).containsExactly(own);
                assertThat(ic.reason()).contains("1 key already present [" + own + "]").doesNotContain(other);
            }));
        });
        assertThat(failure(result, a)).isInstanceOfSatisfying(KeyConflictException.class,
                e -> assertThat(e.getMessage()).doesNotContain("k8"));
    }

    @Test
    void aCommitRebasedOverAForeignVersionIsRacedNotCommittedAndRefusesTheTable() {
        long base = head().version();
        try (KeyedTable foreign = store.openKeyed("person", store.latest("person", TableRef.MAIN));
             VectorSchemaRoot rows = Rows.people(allocator, "foreign-1", 9)) {
            foreign.upsert(rows, foreign.mergePath());
        }
        Fence.Admitted op = insert("k1");
        SubstrateCommit.Result result = commit(op);

        assertThat(result).isInstanceOfSatisfying(SubstrateCommit.Result.Raced.class, r -> {
            assertThat(r.raced()).containsExactly(op);
            assertThat(losers(r)).isEmpty();
            assertThat(r.failure().situation()).isEqualTo(ForeignCommitException.Situation.RACED_WRITE);
            assertThat(r.failure().foreignVersions()).containsExactly(base + 1);
            List<JournalEvent> records = r.records();
            assertThat(records.get(0)).isInstanceOfSatisfying(ForeignCommitFound.class,
                    f -> assertThat(f.achievedVersion()).isEqualTo(base + 2));
            assertThat(records.get(1)).isInstanceOfSatisfying(IntentCompleted.class,
                    ic -> assertThat(ic.outcome()).isEqualTo(IntentOutcome.FOREIGN_COMMIT));
        });
        assertNotDone(op);
        assertThat(Internals.engine(g).context().refusals().foreignRefusal("main", "person")).isNotNull();
        assertThat(Internals.engine(g).context().refusals().refusal("main", "person")).containsInstanceOf(ForeignCommitException.class);
        assertThat(Internals.engine(g).context().refusals().refusal("dev", "person")).isEmpty();
    }

    @Test
    void aCommitOfUnknownOutcomePoisonsTheTable() {
        store.injectOnNextCommit("person", SimulatedTableStore.Fault.FAIL_AFTER_COMMIT);
        Fence.Admitted op = insert("k1");
        SubstrateCommit.Result result = commit(op);

        assertThat(result).isInstanceOfSatisfying(SubstrateCommit.Result.Unknown.class, u -> {
            assertThat(u.unknown()).containsExactly(op);
            assertThat(u.failure()).isInstanceOf(CommitStateUnknownException.class);
        });
        assertNotDone(op);
        assertThat(Internals.engine(g).context().refusals().poisoned("main", "person")).isTrue();
        assertThat(Internals.engine(g).context().refusals().refusal("main", "person")).containsInstanceOf(GraphRefusedException.class);
    }

    @Test
    void aRetryableWriteConflictIsRetriedAndTheCommitStillReachesBasePlusOne() {
        long base = head().version();
        store.injectOnNextCommit("person", SimulatedTableStore.Fault.WRITE_CONFLICT);
        Fence.Admitted op = insert("k1");
        SubstrateCommit.Result result = commit(op);

        assertThat(result).isInstanceOfSatisfying(SubstrateCommit.Result.Committed.class,
                c -> assertThat(c.achieved().version()).isEqualTo(base + 1));
        assertThat(g.metrics().snapshot().writeConflicts()).isEqualTo(1);
        assertThat(g.metrics().snapshot().retries()).isEqualTo(1);
    }
}
