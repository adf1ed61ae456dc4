package io.palisade.recovery;

import io.palisade.heads.HeadsState;
import io.palisade.journal.JournalEvent;
import io.palisade.journal.JournalReader;
import io.palisade.journal.JournalRecord;
import io.palisade.substrate.DamagedVersion;
import io.palisade.substrate.TableRef;
import io.palisade.substrate.TableStore;

import java.nio.file.Path;
import java.util.List;

/**
 * A dry run's effects: folds in memory what a run would append, numbering the records from the journal's end on,
 * and touches no file (journal or table).
 */
final class DryRunEffects implements RecoveryEffects {
    private final Path palisadeDir;
    private final long epoch;
    private long next;

    DryRunEffects(Path palisadeDir, long firstSequence, long epoch) {
        this.palisadeDir = palisadeDir;
        this.next = firstSequence;
        this.epoch = epoch;
    }

    @Override
    public JournalReader reader() {
        return JournalReader.open(palisadeDir);
    }

    @Override
    public Path palisadeDirectory() {
        return palisadeDir;
    }

    @Override
    public HeadsState fold(HeadsState state, List<JournalEvent> events) {
        HeadsState s = state;
        long now = System.currentTimeMillis() * 1_000_000L;
        for (JournalEvent e : events) {
            s = s.apply(new JournalRecord(next++, now, epoch, e));
        }
        return s;
    }

    @Override
    public void makeDurable(TableStore store, String table, String branch, long afterVersion, long upToVersion) {
        // a dry run makes nothing durable
    }

    @Override
    public void setAside(TableStore store, String table, DamagedVersion version, Path destination) {
        // a dry run moves no file
    }

    @Override
    public TableRef restore(TableStore store, String table, TableRef to) {
        // the Restore commit a run would make: the next version of the branch
        return new TableRef(to.branch(), store.latest(table, to.branch()).version() + 1);
    }
}
