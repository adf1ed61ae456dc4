package io.palisade.coordinator;

import io.palisade.coordinator.internal.Repairer;
import io.palisade.journal.Durability;
import io.palisade.journal.JournalEvent.DuplicatesRepaired;
import io.palisade.journal.JournalEvent.HeadPublished;
import io.palisade.journal.JournalEvent.IntentCompleted;
import io.palisade.journal.JournalEvent.IntentRecorded;
import io.palisade.journal.JournalEvent.TableCommitted;
import io.palisade.journal.RemovedRow;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * {@code palisade repair GRAPH --table T --duplicates keep-newest|keep-oldest|fail} (docs/recovery.md "Repair"):
 * makes a keyed table whose image breaks the key contract usable again, through a journaled intent like every
 * write. It serves two situations:
 * <ul>
 *   <li>a fencing graph whose adoption of foreign versions was refused (duplicated ids, a stripped primary key):
 *       the repair adopts the foreign versions of T and, in the same commit, removes the extra rows and
 *       re-installs the primary key {@code id};</li>
 *   <li>a pre-fencing graph whose {@code migrate pk} refused duplicated historical ids (RFC-023 §12 gate 3): the
 *       repair removes the extra rows of graph branch main's image; {@code migrate pk} then installs the key.</li>
 * </ul>
 *
 * <p>Which row of a duplicated id is kept: {@code keep-newest} keeps the row with the highest Lance row address
 * (fragment id &lt;&lt; 32 | offset: the row in the most recently written fragment, or later in the same fragment;
 * a compaction rewrites fragments, so after one "newest" means most recently rewritten), {@code keep-oldest} the
 * lowest. {@code fail} changes nothing when an id is duplicated and names the keys.
 *
 * <p>Pipeline (crash-safe like every intent): Phase A {@code IntentRecorded} (operation REPAIR, expected base the
 * image's version, key filter the duplicated ids) and {@link DuplicatesRepaired} (every removed row's key, row
 * address and values) in one synced batch ({@code repair-after-intent}); Phase B one Lance commit, an Overwrite
 * of the kept rows ({@code repair-after-commit}); Phases C/D {@code TableCommitted}, {@code HeadPublished} and
 * {@code IntentCompleted} in one synced batch. Killed before the commit, recovery completes the intent ABORTED
 * (the image is unchanged, the foreign versions pending again); after it, recovery rolls it forward and publishes
 * the repaired version. A repair run again first runs recovery when intents are open.
 */
public final class Repair {
    static {
        System.setProperty("chronicle.analytics.disable", "true");
    }


    /** Crash point after the repair's intent and removed rows are durable, before the Lance commit. */
    public static final String AFTER_INTENT = "repair-after-intent";
    /** Crash point after the Lance commit, before the head is published. */
    public static final String AFTER_COMMIT = "repair-after-commit";

    /** What to do with the rows of a duplicated id. */
    public enum Duplicates {
        KEEP_NEWEST("keep-newest"), KEEP_OLDEST("keep-oldest"), FAIL("fail");

        private final String cliName;

        Duplicates(String cliName) {
            this.cliName = cliName;
        }

        public String cliName() {
            return cliName;
        }
    }

    /** What to repair: {@code table} on {@code graphBranch} (main unless given). */
    public record Request(String table, String graphBranch, Duplicates duplicates, Durability durability) {
        public static Request of(String table, Duplicates duplicates) {
            return new Request(table, "main", duplicates, Durability.POWER_LOSS);
        }
    }

    /** What the repair found and did. */
    public enum Status { REPAIRED, NOTHING_TO_REPAIR }

    /**
     * @param intentId        the repair's intent (null when nothing was journaled)
     * @param journalVersion  the published head before the repair
     * @param imageVersion    the version repaired (the table branch's newest)
     * @param version         the published head after the repair
     * @param adoptedVersions foreign versions adopted by the repair
     * @param duplicatedKeys  distinct ids held more than once in the image
     * @param removed         every removed row
     * @param seq             journal sequence of the completion (-1 when nothing was journaled)
     * @param recovered       what recovery did first (empty when nothing was open)
     */
    public record Report(Status status, String intentId, String table, String graphBranch, String tableBranch,
                         long journalVersion, long imageVersion, long version, List<Long> adoptedVersions,
                         boolean primaryKeyReinstalled, String policy, long duplicatedKeys, List<RemovedRow> removed,
                         long seq, String recovered) {
        public Report {
            adoptedVersions = List.copyOf(adoptedVersions);
            removed = List.copyOf(removed);
        }
    }

    private Repair() {
    }

    /** Runs the repair of the graph at {@code root}; takes the writer lease for its duration. */
    public static Report run(Path root, Request request) {
        return run(root, request, Map.of());
    }

    /**
     * {@link #run(Path, Request)} on a graph whose tables are on an object store: {@code storageOptions} are added to
     * those of {@code PALISADE_STORAGE_FILE} and {@code PALISADE_STORAGE_*} ({@link TableLocation}); ignored for
     * tables on local disk.
     */
    public static Report run(Path root, Request request, Map<String, String> storageOptions) {
        return Repairer.run(root, request, storageOptions);
    }
}
