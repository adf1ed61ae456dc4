package io.palisade.heads;

import io.palisade.fencing.KeyFilter;
import io.palisade.journal.ExpectedBase;
import io.palisade.journal.HeadTransition;
import io.palisade.journal.IntentOutcome;
import io.palisade.journal.JournalEvent;
import io.palisade.journal.JournalEvent.GraphBranchCreated;
import io.palisade.journal.JournalEvent.HeadPublished;
import io.palisade.journal.JournalEvent.IntentCompleted;
import io.palisade.journal.JournalEvent.IntentRecorded;
import io.palisade.journal.JournalEvent.TableCommitted;
import io.palisade.journal.JournalEvent.WriterStarted;
import io.palisade.journal.LogicalOperation;
import io.palisade.journal.TableHead;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;

import static io.palisade.heads.Log.head;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The heads fold of journal-ack writes and folds (docs/journal-ack.md). */
class FoldMarkTest {
    Log log;

    @TempDir
    Path dir;

    @BeforeEach
    void start() {
        log = new Log();
        log.add(new WriterStarted(1, "owner", 1, "host", "test", 2));
        log.write("create", null, "main", "person", null, head("main", 1));
    }

    /** A journal-ack write of {@code keys}: intent, rows, JOURNALED; returns the acknowledgement's sequence. */
    long ack(String id, LogicalOperation op, String idempotencyKey, String... keys) {
        TableHead h = log.state.head("main", "person").orElseThrow();
        log.add(new IntentRecorded(id, idempotencyKey, op, "main", "person", new ExpectedBase("main", h.version(), 1, 0),
                new byte[] {1}, KeyFilter.ofStrings(0, List.of(keys)), new HeadTransition("main", "person", h, h)));
        log.add(new JournalEvent.RowsRecorded(id, "main", "person", op == LogicalOperation.DELETE ? 0 : keys.length,
                new byte[] {9, 9}));
        return log.add(new IntentCompleted(id, IntentOutcome.JOURNALED, "", null, List.of()));
    }

    /** A journal-ack write of {@code keys} in one {@code write_journaled} record; returns its sequence. */
    long ackInOneRecord(String id, LogicalOperation op, String idempotencyKey, String... keys) {
        TableHead h = log.state.head("main", "person").orElseThrow();
        return log.add(new JournalEvent.WriteJournaled(new IntentRecorded(id, idempotencyKey, op, "main", "person",
                new ExpectedBase("main", h.version(), 1, 0), new byte[] {1}, KeyFilter.ofStrings(0, List.of(keys)),
                new HeadTransition("main", "person", h, h)), op == LogicalOperation.DELETE ? 0 : keys.length,
                new byte[] {9, 9}));
    }

    @Test
    void aWriteInOneRecordIsRecordedAcknowledgedAndFoldedLikeItsThreeRecords() {
        long first = ackInOneRecord("w1", LogicalOperation.UPSERT, "k1", "a");
        long second = ack("w2", LogicalOperation.DELETE, null, "b"); // the two forms in one journal
        long third = ackInOneRecord("w3", LogicalOperation.INSERT, null, "c");
        FoldMark m = log.state.foldMark("main", "person");
        assertThat(m.unfolded()).isEqualTo(3);
        assertThat(m.oldestSequence()).isEqualTo(first); // the record is the intent's too
        assertThat(m.newestSequence()).isEqualTo(third);
        assertThat(second).isBetween(first + 3, third - 1);
        assertThat(log.state.openIntents()).isEmpty();
        assertThat(log.state.receipt("k1")).get().extracting(IntentReceipt::outcome, IntentReceipt::version,
                IntentReceipt::completionSequence).containsExactly(IntentOutcome.JOURNALED, 1L, first);
        assertThat(log.state.completedIntent("w3")).get().extracting(CompletedIntent::outcome)
                .isEqualTo(IntentOutcome.JOURNALED);

        planFold("f1", third, 3);
        commitFold("f1");
        assertThat(log.state.foldMark("main", "person").unfolded()).isZero();
        assertThat(log.state.head("main", "person")).contains(head("main", 2));
        assertThat(HeadsState.replay(HeadsState.empty(), log.records)).isEqualTo(log.state);
    }

    @Test
    void aWriteInOneRecordOfAnOperationThatIsNotJournaledIsRefused() {
        TableHead h = log.state.head("main", "person").orElseThrow();
        assertThatThrownBy(() -> log.add(new JournalEvent.WriteJournaled(new IntentRecorded("o1", null,
                LogicalOperation.OVERWRITE, "main", "person", new ExpectedBase("main", 1, 1, 0), new byte[] {1}, null,
                new HeadTransition("main", "person", h, h)), 1, new byte[0])))
                .isInstanceOf(IllegalTransitionException.class);
        assertThat(log.state.openIntents()).isEmpty();
    }

    /** A fold of the whole tail to the next version; returns its plan. */
    JournalEvent.FoldPlanned planFold(String id, long through, int writes) {
        TableHead h = log.state.head("main", "person").orElseThrow();
        TableHead to = head("main", h.version() + 1);
        log.add(new IntentRecorded(id, null, LogicalOperation.FOLD, "main", "person", new ExpectedBase("main", h.version(), 1, 0),
                new byte[] {1}, KeyFilter.ofStrings(0, List.of("a")), new HeadTransition("main", "person", h, to)));
        JournalEvent.FoldPlanned plan = new JournalEvent.FoldPlanned(id, "main", "person", through, writes, null);
        log.add(plan);
        return plan;
    }

    void commitFold(String id) {
        TableHead h = log.state.head("main", "person").orElseThrow();
        TableHead to = head("main", h.version() + 1);
        log.add(new TableCommitted(List.of(id), "main", "person", "main", to.version()));
        log.add(new HeadPublished(List.of(new HeadTransition("main", "person", h, to))));
        log.add(new IntentCompleted(id, IntentOutcome.COMMITTED, "", null, List.of()));
    }

    @Test
    void acknowledgedWritesAreUnfoldedUntilAFoldCoveringThemCommits() {
        assertThat(log.state.foldMark("main", "person")).isEqualTo(FoldMark.NONE);
        long first = log.next();
        ack("w1", LogicalOperation.UPSERT, null, "a");
        long second = ack("w2", LogicalOperation.DELETE, "k2", "b");
        FoldMark m = log.state.foldMark("main", "person");
        assertThat(m.unfolded()).isEqualTo(2);
        assertThat(m.oldestSequence()).isEqualTo(first); // the first write's intent record: replay reads from there
        assertThat(m.newestSequence()).isEqualTo(second);
        assertThat(log.state.unfoldedTables("main")).containsOnlyKeys("person");
        assertThat(log.state.head("main", "person")).contains(head("main", 1)); // the table has not moved
        assertThat(log.state.receipt("k2")).get().extracting(IntentReceipt::outcome, IntentReceipt::version)
                .containsExactly(IntentOutcome.JOURNALED, 1L);

        planFold("f1", second, 2);
        assertThat(log.state.foldPlan("f1")).isPresent();
        commitFold("f1");
        FoldMark after = log.state.foldMark("main", "person");
        assertThat(after).isEqualTo(new FoldMark(second, 0, -1, -1, -1));
        assertThat(log.state.unfoldedTables("main")).isEmpty();
        assertThat(log.state.foldPlan("f1")).isEmpty();
        assertThat(log.state.head("main", "person")).contains(head("main", 2));
        assertThat(HeadsState.replay(HeadsState.empty(), log.records)).isEqualTo(log.state);
    }

    @Test
    void anAbortedFoldLeavesTheTailUnfolded() {
        long s = ack("w1", LogicalOperation.INSERT, null, "a");
        planFold("f1", s, 1);
        log.add(new IntentCompleted("f1", IntentOutcome.ABORTED, "no effect", null, List.of()));
        assertThat(log.state.foldMark("main", "person").unfolded()).isEqualTo(1);
        assertThat(log.state.foldPlan("f1")).isEmpty();
    }

    @Test
    void aFoldPlanThatDoesNotCoverTheWholeTailIsRefused() {
        ack("w1", LogicalOperation.UPSERT, null, "a");
        long s2 = ack("w2", LogicalOperation.UPSERT, null, "b");
        assertThatThrownBy(() -> planFold("f1", s2, 1)).isInstanceOf(IllegalTransitionException.class)
                .hasMessageContaining("covers 1 writes").hasMessageContaining("2 unfolded");
    }

    @Test
    void onlyInsertsUpsertsAndDeletesAreJournaled() {
        TableHead h = log.state.head("main", "person").orElseThrow();
        log.add(new IntentRecorded("o1", null, LogicalOperation.OVERWRITE, "main", "person", new ExpectedBase("main", 1, 1, 0),
                new byte[] {1}, null, new HeadTransition("main", "person", h, head("main", 2))));
        assertThatThrownBy(() -> log.add(new IntentCompleted("o1", IntentOutcome.JOURNALED, "", null, List.of())))
                .isInstanceOf(IllegalTransitionException.class).hasMessageContaining("only inserts, upserts and deletes");
        assertThatThrownBy(() -> log.add(new JournalEvent.RowsRecorded("o1", "main", "person", 1, new byte[0])))
                .isInstanceOf(IllegalTransitionException.class);
    }

    @Test
    void aBranchIsNotCreatedFromATableWithUnfoldedWrites() {
        ack("w1", LogicalOperation.UPSERT, null, "a");
        assertThatThrownBy(() -> log.add(new GraphBranchCreated("dev", "main", log.next() - 1)))
                .isInstanceOf(IllegalTransitionException.class).hasMessageContaining("unfolded");
    }

    @Test
    void foldMarksAndOpenFoldPlansSurviveACheckpoint() {
        long s = ack("w1", LogicalOperation.UPSERT, null, "a");
        planFold("f1", s, 1);
        Checkpoints cps = Checkpoints.of(dir);
        cps.write(log.state);
        HeadsState loaded = Checkpoints.loadNewestValid(dir.resolve("checkpoints")).checkpoint().orElseThrow().state();
        assertThat(loaded).isEqualTo(log.state);
        assertThat(loaded.foldMark("main", "person").unfolded()).isEqualTo(1);
        assertThat(loaded.foldPlan("f1")).isPresent();
        assertThat(loaded.digest()).isEqualTo(log.state.digest());
    }

    @Test
    void aStateWithoutJournalAckTablesKeepsItsDigest() {
        HeadsState plain = log.state;
        ack("w1", LogicalOperation.UPSERT, null, "a");
        assertThat(log.state.digest()).isNotEqualTo(plain.digest()); // the unfolded write is part of the state
    }

    @Test
    void writesAcknowledgedWhileAFoldRunsStayUnfoldedAboveItsWatermark() {
        long s1 = ack("w1", LogicalOperation.UPSERT, null, "a");
        long s2 = ack("w2", LogicalOperation.UPSERT, null, "b");
        planFold("f1", s2, 2);
        long r3 = log.next();
        ack("w3", LogicalOperation.UPSERT, "k3", "a"); // acknowledged while the fold's Lance commit runs
        long s4 = ack("w4", LogicalOperation.DELETE, null, "c");
        assertThat(log.state.foldMark("main", "person").unfolded()).isEqualTo(4);
        Checkpoints cps = Checkpoints.of(dir);
        cps.write(log.state);
        assertThat(Checkpoints.loadNewestValid(dir.resolve("checkpoints")).checkpoint().orElseThrow().state())
                .isEqualTo(log.state);

        commitFold("f1");
        FoldMark after = log.state.foldMark("main", "person");
        assertThat(after).isEqualTo(new FoldMark(s2, 2, r3, 1_000L * (r3 + 2), s4));
        assertThat(log.state.unfoldedTables("main")).containsOnlyKeys("person");
        assertThat(HeadsState.replay(HeadsState.empty(), log.records)).isEqualTo(log.state);
        assertThat(s1).isLessThan(s2);

        planFold("f2", s4, 2); // the next fold takes the rest
        commitFold("f2");
        assertThat(log.state.foldMark("main", "person")).isEqualTo(new FoldMark(s4, 0, -1, -1, -1));
    }

    @Test
    void anAbortedFoldKeepsTheWritesAcknowledgedDuringItUnfolded() {
        long s1 = ack("w1", LogicalOperation.UPSERT, null, "a");
        planFold("f1", s1, 1);
        long s2 = ack("w2", LogicalOperation.UPSERT, null, "b");
        log.add(new IntentCompleted("f1", IntentOutcome.ABORTED, "no effect", null, List.of()));
        FoldMark m = log.state.foldMark("main", "person");
        assertThat(m.unfolded()).isEqualTo(2);
        assertThat(m.newestSequence()).isEqualTo(s2);
        planFold("f2", s2, 2);
        commitFold("f2");
        assertThat(log.state.foldMark("main", "person").unfolded()).isZero();
    }

    @Test
    void aSecondFoldOfATableIsNotPlannedWhileOneIsOpen() {
        long s1 = ack("w1", LogicalOperation.UPSERT, null, "a");
        planFold("f1", s1, 1);
        long s2 = ack("w2", LogicalOperation.UPSERT, null, "b");
        assertThatThrownBy(() -> planFold("f2", s2, 2)).isInstanceOf(IllegalTransitionException.class)
                .hasMessageContaining("while the fold f1 of the table is open");
    }
}
