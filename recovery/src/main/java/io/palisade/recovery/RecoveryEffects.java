package io.palisade.recovery;

import io.palisade.heads.HeadsState;
import io.palisade.journal.JournalEvent;
import io.palisade.journal.JournalReader;
import io.palisade.substrate.DamagedVersion;
import io.palisade.substrate.TableRef;
import io.palisade.substrate.TableStore;

import java.nio.file.Path;
import java.util.List;

/**
 * Where recovery's effects go: the journal and the table files ({@link JournalEffects}, a run), or nowhere
 * ({@link DryRunEffects}, a dry run). Every decision of recovery goes through one of these, so a dry run decides
 * exactly what a run would.
 */
sealed interface RecoveryEffects permits JournalEffects, DryRunEffects {
    /** A reader of the journal (closed by the caller). */
    JournalReader reader();

    Path palisadeDirectory();

    /** Appends {@code events} (one synced batch) and folds them onto {@code state}. */
    HeadsState fold(HeadsState state, List<JournalEvent> events);

    void makeDurable(TableStore store, String table, String branch, long afterVersion, long upToVersion);

    void setAside(TableStore store, String table, DamagedVersion version, Path destination);

    TableRef restore(TableStore store, String table, TableRef to);
}
