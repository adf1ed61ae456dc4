package io.palisade.heads;

import io.palisade.journal.ExpectedBase;
import io.palisade.journal.HeadTransition;
import io.palisade.journal.IntentOutcome;
import io.palisade.journal.JournalEvent;
import io.palisade.journal.JournalEvent.HeadPublished;
import io.palisade.journal.JournalEvent.IntentCompleted;
import io.palisade.journal.JournalEvent.IntentRecorded;
import io.palisade.journal.JournalEvent.TableCommitted;
import io.palisade.journal.JournalRecord;
import io.palisade.journal.LogicalOperation;
import io.palisade.journal.TableHead;

import java.util.ArrayList;
import java.util.List;

/** A hand-written journal for tests: dense sequences, each record folded as it is added. */
final class Log {
    final List<JournalRecord> records = new ArrayList<>();
    HeadsState state = HeadsState.empty();

    static TableHead head(String tableBranch, long version) {
        return new TableHead(tableBranch, version, 1, 0);
    }

    long next() {
        return records.size();
    }

    JournalRecord record(JournalEvent e) {
        return new JournalRecord(next(), 1_000L * next(), 1, e);
    }

    /** Appends and folds; returns the record's sequence. */
    long add(JournalEvent e) {
        JournalRecord r = record(e);
        state = state.apply(r);
        records.add(r);
        return r.sequence();
    }

    static IntentRecorded intent(String id, String key, String branch, String table, TableHead from, TableHead to) {
        ExpectedBase base = from == null ? new ExpectedBase(to.tableBranch(), 0, 0, 0)
                : new ExpectedBase(from.tableBranch(), from.version(), from.schemaId(), 0);
        return new IntentRecorded(id, key, LogicalOperation.UPSERT, branch, table, base, new byte[] {7}, null,
                new HeadTransition(branch, table, from, to));
    }

    /** Phases A-D of one successful write; returns the completion's sequence. */
    long write(String id, String key, String branch, String table, TableHead from, TableHead to) {
        add(intent(id, key, branch, table, from, to));
        add(new TableCommitted(List.of(id), branch, table, to.tableBranch(), to.version()));
        add(new HeadPublished(List.of(new HeadTransition(branch, table, from, to))));
        return add(new IntentCompleted(id, IntentOutcome.COMMITTED, "", null, List.of()));
    }
}
