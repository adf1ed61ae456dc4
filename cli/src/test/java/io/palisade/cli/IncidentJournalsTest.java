package io.palisade.cli;

import io.palisade.journal.IntentOutcome;
import io.palisade.journal.JournalEvent;
import io.palisade.journal.JournalRecord;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The small incident graph holds every kind of event the incident tools must explain. */
class IncidentJournalsTest {
    @Test
    void theSmallIncidentHoldsConflictsGroupsAKillARecoveryABranchARetryAndAMergeConflict() {
        IncidentJournals.Incident i = IncidentJournals.of(IncidentJournals.SMALL_EVENTS);
        List<JournalRecord> all = Cli.records(i.graph(), 0);
        assertThat(all.size()).isEqualTo(i.events()).isGreaterThanOrEqualTo(IncidentJournals.SMALL_EVENTS);
        Map<String, Integer> kinds = new HashMap<>();
        int groups = 0;
        int keyConflicts = 0;
        int idem = 0;
        for (JournalRecord r : all) {
            kinds.merge(r.event().getClass().getSimpleName(), 1, Integer::sum);
            if (r.event() instanceof JournalEvent.TableCommitted c && c.intentIds().size() > 1) {
                groups++;
            }
            if (r.event() instanceof JournalEvent.IntentCompleted c && c.outcome() == IntentOutcome.KEY_CONFLICT) {
                keyConflicts++;
            }
            if (r.event() instanceof JournalEvent.IntentRecorded c && IncidentJournals.RETRY_KEY.equals(c.idempotencyKey())) {
                idem++;
            }
        }
        assertThat(kinds).containsKeys("WriterStarted", "RecoveryStarted", "RecoveryFinished", "GraphBranchCreated",
                "WriteJournaled", "FoldPlanned");
        assertThat(groups).as("group commits").isPositive();
        assertThat(keyConflicts).as("key conflicts").isGreaterThan(1);
        assertThat(idem).as("intents with the reused idempotency key").isEqualTo(2);
        // the writer child that died at its crash point started a session of its own, and the next open recovered it
        assertThat(all).anyMatch(r -> r.event() instanceof JournalEvent.WriterStarted w && w.pid() == i.killedPid());
        // the build is reused within the JVM
        assertThat(IncidentJournals.of(IncidentJournals.SMALL_EVENTS)).isSameAs(i);
    }
}
