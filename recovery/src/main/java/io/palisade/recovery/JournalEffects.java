package io.palisade.recovery;

import io.palisade.heads.HeadsState;
import io.palisade.journal.Durability;
import io.palisade.journal.Journal;
import io.palisade.journal.JournalEvent;
import io.palisade.journal.JournalReader;
import io.palisade.journal.JournalRecord;
import io.palisade.substrate.DamagedVersion;
import io.palisade.substrate.TableRef;
import io.palisade.substrate.TableStore;

import java.nio.file.Path;
import java.util.List;

/**
 * A real run's effects: each fold is one batch appended to the journal at {@link Durability#POWER_LOSS} before the
 * state moves, and the table files are made durable, set aside and restored in the store.
 */
record JournalEffects(Journal journal) implements RecoveryEffects {
    @Override
    public JournalReader reader() {
        return journal.reader();
    }

    @Override
    public Path palisadeDirectory() {
        return journal.palisadeDirectory();
    }

    @Override
    public HeadsState fold(HeadsState state, List<JournalEvent> events) {
        long first = journal.appendBatch(events, Durability.POWER_LOSS);
        HeadsState s = state;
        long now = System.currentTimeMillis() * 1_000_000L;
        for (int i = 0; i < events.size(); i++) {
            s = s.apply(new JournalRecord(first + i, now, journal.epoch(), events.get(i)));
        }
        return s;
    }

    @Override
    public void makeDurable(TableStore store, String table, String branch, long afterVersion, long upToVersion) {
        store.makeDurable(table, branch, afterVersion, upToVersion);
    }

    @Override
    public void setAside(TableStore store, String table, DamagedVersion version, Path destination) {
        store.setAside(table, version, destination);
    }

    @Override
    public TableRef restore(TableStore store, String table, TableRef to) {
        return store.restore(table, to);
    }
}
