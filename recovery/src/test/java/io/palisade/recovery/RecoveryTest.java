package io.palisade.recovery;

import io.palisade.fencing.GraphRefusedException;
import io.palisade.fencing.action.ActionCodec;
import io.palisade.heads.HeadsReplayer;
import io.palisade.heads.HeadsState;
import io.palisade.journal.Durability;
import io.palisade.journal.ExpectedBase;
import io.palisade.journal.HeadTransition;
import io.palisade.journal.IntentOutcome;
import io.palisade.journal.Journal;
import io.palisade.journal.JournalEvent;
import io.palisade.journal.JournalEvent.HeadPublished;
import io.palisade.journal.JournalEvent.IntentCompleted;
import io.palisade.journal.JournalEvent.IntentRecorded;
import io.palisade.journal.JournalEvent.TableCommitted;
import io.palisade.journal.JournalOptions;
import io.palisade.journal.LogicalOperation;
import io.palisade.journal.RecoveryClassification.Kind;
import io.palisade.journal.TableHead;
import io.palisade.substrate.ArrowRows;
import io.palisade.substrate.KeyedTable;
import io.palisade.substrate.MergePath;
import io.palisade.substrate.TableKind;
import io.palisade.substrate.TableRef;
import io.palisade.substrate.sim.SimulatedTableStore;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** DESIGN §5's classification over hand-built journals and a simulated substrate. */
class RecoveryTest {
    static {
        System.setProperty("chronicle.analytics.disable", "true");
    }

    private static final Schema PERSON = new Schema(List.of(
            new Field("id", FieldType.notNullable(new ArrowType.Utf8()), null),
            new Field("age", FieldType.nullable(new ArrowType.Int(64, true)), null)));

    @TempDir
    Path dir;
    BufferAllocator allocator;
    SimulatedTableStore store;
    Journal journal;

    @BeforeEach
    void setUp() {
        allocator = new RootAllocator();
        store = new SimulatedTableStore();
        store.createKeyed("person", TableKind.NODE, PERSON).close();
        journal = Journal.open(dir, JournalOptions.defaults());
        // the table's creation, committed: head main@1
        String create = "i-create";
        TableHead v1 = new TableHead(TableRef.MAIN, 1, 0, 0);
        journal.appendBatch(List.of(
                new IntentRecorded(create, null, LogicalOperation.CREATE_TABLE, HeadsState.MAIN, "person",
                        new ExpectedBase(TableRef.MAIN, 0, 0, 0), ActionCodec.encode(List.of()), null,
                        new HeadTransition(HeadsState.MAIN, "person", null, v1)),
                new TableCommitted(List.of(create), HeadsState.MAIN, "person", TableRef.MAIN, 1),
                new HeadPublished(List.of(new HeadTransition(HeadsState.MAIN, "person", null, v1))),
                new IntentCompleted(create, IntentOutcome.COMMITTED, "", null, List.of())), Durability.POWER_LOSS);
    }

    @AfterEach
    void tearDown() {
        journal.close();
        store.close();
        allocator.close();
    }

    private IntentRecorded intent(String id) {
        TableHead v1 = new TableHead(TableRef.MAIN, 1, 0, 0);
        return new IntentRecorded(id, null, LogicalOperation.UPSERT, HeadsState.MAIN, "person",
                new ExpectedBase(TableRef.MAIN, 1, 0, journal.endSequence() - 1), ActionCodec.encode(List.of()), null,
                new HeadTransition(HeadsState.MAIN, "person", v1, new TableHead(TableRef.MAIN, 2, 0, 0)));
    }

    private void commitOneRow() {
        List<Map<String, Object>> rows = new ArrayList<>();
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("id", "alice");
        r.put("age", 30L);
        rows.add(r);
        try (KeyedTable t = store.openKeyed("person", store.latest("person", TableRef.MAIN));
             VectorSchemaRoot root = VectorSchemaRoot.create(PERSON, allocator)) {
            ArrowRows.fill(root, rows);
            t.upsert(root, MergePath.V2_FENCED);
        }
    }

    private HeadsState replayed() {
        return HeadsReplayer.of(dir).replay().state();
    }

    private void assertSecondRunChangesNothing(RecoveryReport first) {
        RecoveryReport again = Recovery.run(journal, replayed(), store, false);
        assertThat(again.changedAnything()).isFalse();
        assertThat(again.headsDigest()).isEqualTo(first.headsDigest());
        assertThat(HeadsReplayer.of(dir).fullReplay().digest()).isEqualTo(first.headsDigest());
    }

    @Test
    void intentWithoutSubstrateEffectIsAborted() {
        journal.append(intent("i-1"), Durability.POWER_LOSS);
        RecoveryReport r = Recovery.run(journal, replayed(), store, false);
        assertThat(r.classifications()).extracting(c -> c.kind()).containsExactly(Kind.NO_EFFECT_ABORTED);
        assertThat(r.state().completedIntent("i-1").orElseThrow().outcome()).isEqualTo(IntentOutcome.ABORTED);
        assertThat(r.state().head("main", "person").orElseThrow().version()).isEqualTo(1);
        assertSecondRunChangesNothing(r);
    }

    @Test
    void effectWithoutPublishedHeadIsRolledForward() {
        journal.append(intent("i-1"), Durability.POWER_LOSS);
        commitOneRow();
        RecoveryReport r = Recovery.run(journal, replayed(), store, false);
        assertThat(r.classifications()).extracting(c -> c.kind()).containsExactly(Kind.EFFECT_ROLLED_FORWARD);
        assertThat(r.state().head("main", "person").orElseThrow().version()).isEqualTo(2);
        assertThat(r.toJson()).contains("EFFECT_ROLLED_FORWARD").contains(r.headsDigest());
        assertSecondRunChangesNothing(r);
    }

    @Test
    void tableCommittedWithoutHeadPublishedRollsForwardWithoutCommittingTwice() {
        // a Phase C/D batch killed after its TableCommitted record: journaling a second one would be an
        // illegal transition and make the journal unreplayable
        journal.append(intent("i-1"), Durability.POWER_LOSS);
        commitOneRow();
        journal.append(new TableCommitted(List.of("i-1"), "main", "person", TableRef.MAIN, 2), Durability.POWER_LOSS);
        RecoveryReport r = Recovery.run(journal, replayed(), store, false);
        assertThat(r.classifications()).extracting(c -> c.kind()).containsExactly(Kind.EFFECT_ROLLED_FORWARD);
        assertThat(r.state().head("main", "person").orElseThrow().version()).isEqualTo(2);
        assertThat(HeadsReplayer.of(dir).fullReplay()).isEqualTo(r.state());
        assertSecondRunChangesNothing(r);
    }

    @Test
    void publishedHeadWithoutCompletionIsCommitted() {
        IntentRecorded i = intent("i-1");
        journal.append(i, Durability.POWER_LOSS);
        commitOneRow();
        journal.appendBatch(List.of(new TableCommitted(List.of("i-1"), "main", "person", TableRef.MAIN, 2),
                new HeadPublished(List.of(new HeadTransition("main", "person", i.intendedTransition().from(),
                        new TableHead(TableRef.MAIN, 2, 0, 0))))), Durability.POWER_LOSS);
        RecoveryReport r = Recovery.run(journal, replayed(), store, false);
        assertThat(r.classifications()).extracting(c -> c.kind()).containsExactly(Kind.PUBLISHED_COMPLETED);
        assertThat(r.state().completedIntent("i-1").orElseThrow().outcome()).isEqualTo(IntentOutcome.COMMITTED);
        assertSecondRunChangesNothing(r);
    }

    @Test
    void recoveryKilledBeforeItsFinishIsClosedByTheNextRun() {
        journal.append(new JournalEvent.RecoveryStarted("recovery-killed", -1, journal.endSequence() - 1),
                Durability.POWER_LOSS);
        RecoveryReport r = Recovery.run(journal, replayed(), store, false);
        assertThat(r.closedRecovery()).isEqualTo("recovery-killed");
        assertThat(r.state().openRecovery()).isEmpty();
        assertSecondRunChangesNothing(r);
    }

    @Test
    void foreignVersionIsRefusedNamingTableBranchAndVersionAndNothingIsJournaled() {
        commitOneRow();
        long end = journal.endSequence();
        assertThatThrownBy(() -> Recovery.run(journal, replayed(), store, false))
                .isInstanceOf(GraphRefusedException.class)
                .hasMessageContaining("table 'person'").hasMessageContaining("table branch 'main'")
                .hasMessageContaining("version 2");
        assertThat(journal.endSequence()).isEqualTo(end);
        RecoveryReport adopted = Recovery.run(journal, replayed(), store, true);
        assertThat(adopted.classifications()).extracting(c -> c.kind()).containsExactly(Kind.FOREIGN_COMMIT);
        assertThat(adopted.state().head("main", "person").orElseThrow().version()).isEqualTo(2);
        assertSecondRunChangesNothing(adopted);
    }
}
