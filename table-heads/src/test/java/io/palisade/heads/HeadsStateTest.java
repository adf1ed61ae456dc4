package io.palisade.heads;

import io.palisade.fencing.JournalCorruptedException;
import io.palisade.journal.HeadTransition;
import io.palisade.journal.IntentOutcome;
import io.palisade.journal.JournalEvent.GraphBranchCreated;
import io.palisade.journal.JournalEvent.GraphBranchDeleted;
import io.palisade.journal.JournalEvent.HeadPublished;
import io.palisade.journal.JournalEvent.IntentCompleted;
import io.palisade.journal.JournalEvent.MigrationClaimed;
import io.palisade.journal.JournalEvent.MigrationPkInstalled;
import io.palisade.journal.JournalEvent.MigrationStampWritten;
import io.palisade.journal.JournalEvent.MigrationUnitForked;
import io.palisade.journal.JournalEvent.MigrationUnitPlanned;
import io.palisade.journal.JournalEvent.MigrationUnitPublished;
import io.palisade.journal.JournalEvent.TableCommitted;
import io.palisade.journal.JournalEvent.WriterStarted;
import io.palisade.journal.JournalRecord;
import io.palisade.journal.TableHead;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.List;

import static io.palisade.heads.Log.head;
import static io.palisade.heads.Log.intent;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class HeadsStateTest {
    Log log;

    @BeforeEach
    void start() {
        log = new Log();
        log.add(new WriterStarted(1, "owner", 1, "host", "test", 2));
    }

    @Test
    void foldOfHandWrittenSequenceGivesExpectedHeads() {
        log.write("i1", null, "main", "person", null, head("main", 1));
        log.write("i2", null, "main", "knows", null, head("main", 1));
        log.write("i3", null, "main", "person", head("main", 1), head("main", 2));
        log.add(new GraphBranchCreated("dev", "main", log.next() - 1));
        log.write("i4", null, "main", "person", head("main", 2), head("main", 3));

        HeadsState s = log.state;
        assertThat(s.lastSequence()).isEqualTo(log.next() - 1);
        assertThat(s.formatStamp()).isEqualTo(2);
        assertThat(s.writerEpoch()).isEqualTo(1);
        assertThat(s.head("main", "person")).contains(head("main", 3));
        assertThat(s.head("main", "knows")).contains(head("main", 1));
        assertThat(s.head("dev", "person")).contains(head("main", 2)); // pinned as of creation
        assertThat(s.head("dev", "city")).isEmpty();
        assertThat(s.branches()).containsOnlyKeys("main", "dev");
        assertThat(s.branch("dev")).get().extracting(GraphBranch::parent, GraphBranch::fromSequence)
                .containsExactly("main", 12L);
        assertThat(s.openIntents()).isEmpty();
        assertThat(s.completedCount()).isEqualTo(4);
        assertThat(s.completedIntent("i3")).get().extracting(CompletedIntent::outcome).isEqualTo(IntentOutcome.COMMITTED);
        assertThat(HeadsState.replay(HeadsState.empty(), log.records)).isEqualTo(s);
    }

    @Test
    void lazyBranchInheritsThenOwnsAfterItsFirstPublishedTransition() {
        log.write("i1", null, "main", "person", null, head("main", 1));
        log.add(new GraphBranchCreated("dev", "main", log.next() - 1));
        Pin inherited = log.state.pin("dev", "person").orElseThrow();
        assertThat(inherited.owned()).isFalse();
        assertThat(inherited.inheritedFrom()).isEqualTo("main");
        assertThat(inherited.head()).isEqualTo(head("main", 1));

        log.add(new GraphBranchCreated("dev2", "dev", log.next() - 1)); // inherits the inherited pin
        assertThat(log.state.pin("dev2", "person")).get().extracting(Pin::inheritedFrom).isEqualTo("dev");

        log.write("i2", null, "dev", "person", head("main", 1), head("dev", 2)); // first write forks
        Pin owned = log.state.pin("dev", "person").orElseThrow();
        assertThat(owned.owned()).isTrue();
        assertThat(owned.head()).isEqualTo(head("dev", 2));
        assertThat(log.state.head("main", "person")).contains(head("main", 1));
        assertThat(log.state.pin("dev2", "person")).get().extracting(Pin::head).isEqualTo(head("main", 1));
        assertThat(log.state.pin("dev2", "person").orElseThrow().owned()).isFalse();
    }

    @Test
    void openIntentsTrackThePhaseReached() {
        log.write("i0", null, "main", "person", null, head("main", 1));
        log.add(intent("i1", null, "main", "person", head("main", 1), head("main", 2)));
        log.add(intent("i2", null, "main", "knows", null, head("main", 1)));
        log.add(intent("i3", null, "main", "city", null, head("main", 1)));
        assertThat(log.state.openIntent("i1")).get().extracting(OpenIntent::phase).isEqualTo(IntentPhase.RECORDED);

        log.add(new TableCommitted(List.of("i1"), "main", "person", "main", 2));
        assertThat(log.state.openIntent("i1")).get().extracting(OpenIntent::phase, OpenIntent::committedVersion)
                .containsExactly(IntentPhase.TABLE_COMMITTED, 2L);

        // a roll-forward publishes i2's intended head without a journaled table commit
        log.add(new HeadPublished(List.of(new HeadTransition("main", "person", head("main", 1), head("main", 2)),
                new HeadTransition("main", "knows", null, head("main", 1)))));
        assertThat(log.state.openIntent("i1")).get().extracting(OpenIntent::phase).isEqualTo(IntentPhase.HEAD_PUBLISHED);
        assertThat(log.state.openIntent("i2")).get().extracting(OpenIntent::phase).isEqualTo(IntentPhase.HEAD_PUBLISHED);
        assertThat(log.state.openIntent("i3")).get().extracting(OpenIntent::phase).isEqualTo(IntentPhase.RECORDED);
        assertThat(log.state.openIntents()).extracting(OpenIntent::intentId).containsExactly("i1", "i2", "i3");
        assertThat(log.state.openIntent("i1").orElseThrow().recorded().intendedTransition().to())
                .isEqualTo(head("main", 2));

        log.add(new IntentCompleted("i2", IntentOutcome.ROLLED_FORWARD, "", null, List.of()));
        log.add(new IntentCompleted("i3", IntentOutcome.ABORTED, "no effect", null, List.of()));
        assertThat(log.state.openIntents()).extracting(OpenIntent::intentId).containsExactly("i1");
        assertThat(log.state.completedIntent("i3")).get().extracting(CompletedIntent::outcome, CompletedIntent::applied)
                .containsExactly(IntentOutcome.ABORTED, false);
    }

    @Test
    void groupCommitMarksEveryIntentOfTheGroup() {
        log.add(intent("g1", null, "main", "person", null, head("main", 1)));
        log.add(intent("g2", null, "main", "person", null, head("main", 1)));
        log.add(new TableCommitted(List.of("g1", "g2"), "main", "person", "main", 1));
        log.add(new HeadPublished(List.of(new HeadTransition("main", "person", null, head("main", 1)))));
        assertThat(log.state.openIntents()).extracting(OpenIntent::phase)
                .containsOnly(IntentPhase.HEAD_PUBLISHED);
        log.add(new IntentCompleted("g1", IntentOutcome.COMMITTED, "", null, List.of()));
        log.add(new IntentCompleted("g2", IntentOutcome.COMMITTED, "", null, List.of()));
        assertThat(log.state.completedIntent("g2")).get().extracting(CompletedIntent::publishedHead)
                .isEqualTo(head("main", 1));
    }

    @Test
    void idempotencyKeyReturnsTheFirstReceipt() {
        long done = log.write("i1", "client-7", "main", "person", null, head("main", 1));
        IntentReceipt r = log.state.receipt("client-7").orElseThrow();
        assertThat(r).isEqualTo(new IntentReceipt("i1", done, "main", "person", "main", 1, IntentOutcome.COMMITTED, -1, null));

        log.write("i2", null, "main", "person", head("main", 1), head("main", 2));
        assertThat(log.state.receipt("client-7")).contains(r); // later writes do not replace it

        long at = log.next();
        assertThatThrownBy(() -> log.add(intent("i3", "client-7", "main", "person", head("main", 2), head("main", 3))))
                .isInstanceOf(IllegalTransitionException.class)
                .hasMessageContaining("sequence " + at).hasMessageContaining("client-7").hasMessageContaining("i1");
        assertThat(log.state.receipt("client-7")).contains(r);
    }

    @Test
    void keyOfAFailedIntentIssuesNoReceiptAndMayBeRetried() {
        log.add(intent("i1", "k", "main", "person", null, head("main", 1)));
        assertThatThrownBy(() -> log.add(intent("i2", "k", "main", "knows", null, head("main", 1))))
                .isInstanceOf(IllegalTransitionException.class).hasMessageContaining("open intent i1");
        log.add(new IntentCompleted("i1", IntentOutcome.KEY_CONFLICT, "dup", "i0", List.of("a")));
        assertThat(log.state.receipt("k")).isEmpty();
        log.write("i2", "k", "main", "person", null, head("main", 1));
        assertThat(log.state.receipt("k")).get().extracting(IntentReceipt::intentId).isEqualTo("i2");
    }

    @Test
    void mismatchedHeadPublishedIsRejectedNamingSequenceBranchAndTable() {
        log.write("i1", null, "main", "person", null, head("main", 1));
        log.write("i2", null, "main", "person", head("main", 1), head("main", 2));
        HeadsState before = log.state;
        long at = log.next();
        JournalRecord stale = log.record(new HeadPublished(List.of(
                new HeadTransition("main", "person", head("main", 1), head("main", 3)))));
        assertThatThrownBy(() -> before.apply(stale))
                .isInstanceOf(IllegalTransitionException.class)
                .isInstanceOf(JournalCorruptedException.class)
                .hasMessageContaining("sequence " + at)
                .hasMessageContaining("branch 'main'")
                .hasMessageContaining("table 'person'")
                .satisfies(e -> {
                    IllegalTransitionException x = (IllegalTransitionException) e;
                    assertThat(x.sequence()).isEqualTo(at);
                    assertThat(x.graphBranch()).isEqualTo("main");
                    assertThat(x.table()).isEqualTo("person");
                });
        assertThat(before.head("main", "person")).contains(head("main", 2)); // unchanged
    }

    @Test
    void headVersionGoingBackwardsOnTheSameTableBranchIsRejected() {
        log.write("i1", null, "main", "person", null, head("main", 5));
        assertThatThrownBy(() -> log.add(new HeadPublished(List.of(
                new HeadTransition("main", "person", head("main", 5), head("main", 4))))))
                .isInstanceOf(IllegalTransitionException.class).hasMessageContaining("backwards");
        log.add(new HeadPublished(List.of(new HeadTransition("main", "person", head("main", 5), head("main", 9)))));
        // a recreated table (new incarnation) may restart its versions, but incarnations never go back
        TableHead recreated = new TableHead("main", 1, 1, 1);
        log.add(new HeadPublished(List.of(new HeadTransition("main", "person", head("main", 9), recreated))));
        assertThat(log.state.head("main", "person")).contains(recreated);
        assertThatThrownBy(() -> log.add(new HeadPublished(List.of(
                new HeadTransition("main", "person", recreated, head("main", 20))))))
                .isInstanceOf(IllegalTransitionException.class).hasMessageContaining("incarnation");
    }

    @Test
    void aMultiTransitionPublishIsAllOrNothing() {
        log.write("i1", null, "main", "person", null, head("main", 1));
        HeadsState before = log.state;
        assertThatThrownBy(() -> log.add(new HeadPublished(List.of(
                new HeadTransition("main", "knows", null, head("main", 1)),
                new HeadTransition("main", "person", null, head("main", 2))))))
                .isInstanceOf(IllegalTransitionException.class).hasMessageContaining("table 'person'");
        assertThat(log.state).isSameAs(before);
        assertThat(before.head("main", "knows")).isEmpty();
    }

    @Test
    void completionsMustMatchThePhaseReached() {
        log.add(intent("i1", null, "main", "person", null, head("main", 1)));
        assertThatThrownBy(() -> log.add(new IntentCompleted("i1", IntentOutcome.COMMITTED, "", null, List.of())))
                .isInstanceOf(IllegalTransitionException.class).hasMessageContaining("never published");
        log.add(new TableCommitted(List.of("i1"), "main", "person", "main", 1));
        assertThatThrownBy(() -> log.add(new IntentCompleted("i1", IntentOutcome.ABORTED, "", null, List.of())))
                .isInstanceOf(IllegalTransitionException.class).hasMessageContaining("substrate effect");
        assertThatThrownBy(() -> log.add(new TableCommitted(List.of("i1"), "main", "person", "main", 1)))
                .isInstanceOf(IllegalTransitionException.class).hasMessageContaining("committed twice");
        assertThatThrownBy(() -> log.add(new TableCommitted(List.of("nope"), "main", "person", "main", 1)))
                .isInstanceOf(IllegalTransitionException.class).hasMessageContaining("not open");
        assertThatThrownBy(() -> log.add(new IntentCompleted("ghost", IntentOutcome.ABORTED, "", null, List.of())))
                .isInstanceOf(IllegalTransitionException.class).hasMessageContaining("never recorded");
        assertThatThrownBy(() -> log.add(intent("i1", null, "main", "knows", null, head("main", 1))))
                .isInstanceOf(IllegalTransitionException.class).hasMessageContaining("recorded twice");
    }

    @Test
    void branchRulesAreEnforced() {
        log.write("i1", null, "main", "person", null, head("main", 1));
        long beforeWrite = log.next() - 1;
        log.write("i2", null, "main", "person", head("main", 1), head("main", 2));
        assertThatThrownBy(() -> log.add(new GraphBranchCreated("old", "main", beforeWrite)))
                .isInstanceOf(IllegalTransitionException.class).hasMessageContaining("changed after");
        assertThatThrownBy(() -> log.add(new GraphBranchCreated("x", "nowhere", log.next() - 1)))
                .isInstanceOf(IllegalTransitionException.class).hasMessageContaining("not live");
        assertThatThrownBy(() -> log.add(new GraphBranchCreated("x", "main", log.next())))
                .isInstanceOf(IllegalTransitionException.class).hasMessageContaining("outside");
        assertThatThrownBy(() -> log.add(new GraphBranchDeleted("main")))
                .isInstanceOf(IllegalTransitionException.class).hasMessageContaining("main");
        log.add(new GraphBranchCreated("dev", "main", log.next() - 1));
        assertThatThrownBy(() -> log.add(new GraphBranchCreated("dev", "main", log.next() - 1)))
                .isInstanceOf(IllegalTransitionException.class).hasMessageContaining("twice");
        log.add(new GraphBranchDeleted("dev"));
        assertThat(log.state.branchLive("dev")).isFalse();
        assertThat(log.state.pins("dev")).isEmpty();
        assertThatThrownBy(() -> log.add(new HeadPublished(List.of(
                new HeadTransition("dev", "person", head("main", 2), head("dev", 3))))))
                .isInstanceOf(IllegalTransitionException.class).hasMessageContaining("not live")
                .hasMessageContaining("branch 'dev'");
    }

    @Test
    void recordsMustBeFoldedDenselyInOrder() {
        JournalRecord skip = new JournalRecord(log.next() + 1, 0, 1, new GraphBranchCreated("b", "main", 0));
        assertThatThrownBy(() -> log.state.apply(skip)).isInstanceOf(IllegalTransitionException.class)
                .hasMessageContaining("expected sequence " + log.next());
    }

    @Test
    void applyLeavesThePreviousStateUnchanged() {
        log.write("i1", "k1", "main", "person", null, head("main", 1));
        HeadsState before = log.state;
        String digest = before.digest();
        log.add(new GraphBranchCreated("dev", "main", log.next() - 1));
        log.write("i2", "k2", "dev", "person", head("main", 1), head("dev", 2));
        assertThat(before.branchLive("dev")).isFalse();
        assertThat(before.receipt("k2")).isEmpty();
        assertThat(before.digest()).isEqualTo(digest).isNotEqualTo(log.state.digest());
        assertThat(HeadsState.replay(HeadsState.empty(), log.records.subList(0, (int) before.lastSequence() + 1)))
                .isEqualTo(before);
    }

    @Test
    void digestDependsOnHeadsAndBranchesOnly() {
        Log a = new Log();
        a.add(new WriterStarted(1, "o", 1, "h", "v", 1));
        a.write("x1", "k", "main", "person", null, head("main", 1));
        Log b = new Log();
        b.add(new WriterStarted(1, "o", 1, "h", "v", 1));
        b.add(intent("y0", null, "main", "person", null, head("main", 1)));
        b.add(new IntentCompleted("y0", IntentOutcome.ABORTED, "", null, List.of()));
        b.write("y1", null, "main", "person", null, head("main", 1));
        assertThat(a.state.digest()).isEqualTo(b.state.digest()).hasSize(64);
        assertThat(a.state).isNotEqualTo(b.state);
        a.write("x2", null, "main", "person", head("main", 1), new TableHead("main", 1, 2, 0)); // schema change only
        assertThat(a.state.digest()).isNotEqualTo(b.state.digest());
    }

    @Test
    void migrationProgressAndStampAreFolded() {
        log.write("i1", null, "main", "person", null, head("main", 1));
        log.add(new GraphBranchCreated("dev", "main", log.next() - 1));
        log.add(new MigrationClaimed("m1", "tok", 2, 3));
        log.add(new MigrationUnitPlanned("m1", "u1", "dev", "person", "main", 1, true));
        assertThatThrownBy(() -> log.add(new MigrationUnitPublished("m1", "u1",
                new HeadTransition("dev", "person", head("main", 1), head("dev", 2)), "d")))
                .isInstanceOf(IllegalTransitionException.class).hasMessageContaining("PLANNED");
        log.add(new MigrationUnitForked("m1", "u1", "dev", 1, 2));
        log.add(new MigrationPkInstalled("m1", "u1", "person", "dev", 3, false));
        assertThat(log.state.migration("m1").orElseThrow().units().get("u1").phase())
                .isEqualTo(MigrationUnit.Phase.INSTALLED);
        log.add(new MigrationUnitPublished("m1", "u1",
                new HeadTransition("dev", "person", head("main", 1), head("dev", 3)), "d"));
        assertThat(log.state.pin("dev", "person")).get().extracting(Pin::owned, Pin::head)
                .containsExactly(true, head("dev", 3));
        log.add(new MigrationStampWritten("m1", 3));
        assertThat(log.state.formatStamp()).isEqualTo(3);
        MigrationProgress m = log.state.migration("m1").orElseThrow();
        assertThat(m.finished()).isTrue();
        assertThat(m.units().get("u1")).extracting(MigrationUnit::phase, MigrationUnit::forkedTableBranch,
                MigrationUnit::installedVersion).containsExactly(MigrationUnit.Phase.PUBLISHED, "dev", 3L);
        assertThatThrownBy(() -> log.add(new MigrationClaimed("m1", "tok2", 3, 4)))
                .isInstanceOf(IllegalTransitionException.class).hasMessageContaining("claimed twice");
        assertThatThrownBy(() -> log.add(new MigrationUnitForked("m9", "u1", "dev", 1, 2)))
                .isInstanceOf(IllegalTransitionException.class).hasMessageContaining("never claimed");
    }
}
