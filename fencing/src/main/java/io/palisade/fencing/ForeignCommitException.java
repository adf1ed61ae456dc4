package io.palisade.fencing;

import java.util.List;
import java.util.Objects;

/**
 * A table branch holds a version that no journaled intent explains: a Lance writer other than this graph's
 * committer (a foreign commit) wrote to the table directory. The graph's promise — every table version
 * explained by the journal, no silent duplicate id — cannot be kept for that table until an operator decides,
 * so the table is refused (docs/recovery.md "Foreign commits"). The CLI exits 8.
 *
 * <p>Three situations, told apart by {@link #situation()}:
 * <ul>
 *   <li>{@link Situation#RACED_WRITE}: a write of this graph committed, but Lance rebased it over a foreign
 *       version (the version it achieved is not its base + 1). The write is <em>not acknowledged</em>; its
 *       rows are in the achieved version, which the journal records together with the foreign versions
 *       below it. Where the write inserted keys into a keyed table, {@link #duplicatesChecked()} is true and
 *       {@link #duplicateKeys()} names the keys of the write that the achieved version now holds more than
 *       once (empty: the write's keys are each held once).</li>
 *   <li>{@link Situation#PENDING}: opening the graph found a foreign version above a published head.</li>
 *   <li>{@link Situation#ADOPTION_REFUSED}: the operator asked to adopt the foreign versions, but the adopted
 *       image breaks the table's contract (a duplicate or null id, a stripped primary key); nothing was
 *       published.</li>
 * </ul>
 * A subclass of {@link GraphRefusedException}: code that treats every refusal alike keeps working.
 */
public class ForeignCommitException extends GraphRefusedException {
    private static final long serialVersionUID = 1L;

    /** Why the foreign version surfaced. */
    public enum Situation { RACED_WRITE, PENDING, ADOPTION_REFUSED }

    private final Situation situation;
    private final String table;
    private final String graphBranch;
    private final String tableBranch;
    private final long journalVersion;
    private final long latestVersion;
    private final List<Long> foreignVersions;
    private final List<String> intentIds;
    private final boolean duplicatesChecked;
    private final List<String> duplicateKeys;

    /**
     * @param situation         why it surfaced
     * @param table             the table
     * @param graphBranch       the graph branch whose head the versions are above
     * @param tableBranch       the table branch holding them
     * @param journalVersion    the version the journal knows (the published head, or the write's base)
     * @param latestVersion     the table branch's version now (for a raced write: the version it achieved)
     * @param foreignVersions   the versions no journaled intent explains, ascending
     * @param intentIds         for a raced write, its intents (not acknowledged); else empty
     * @param duplicatesChecked whether the keys of the write (or of the adopted image) were checked for duplicates
     * @param duplicateKeys     a sample of the duplicated keys found (empty when none or not checked)
     * @param message           the whole message, for the person reading it
     */
    public ForeignCommitException(Situation situation, String table, String graphBranch, String tableBranch,
                                  long journalVersion, long latestVersion, List<Long> foreignVersions,
                                  List<String> intentIds, boolean duplicatesChecked, List<String> duplicateKeys,
                                  String message) {
        super(message);
        this.situation = Objects.requireNonNull(situation, "situation");
        this.table = Objects.requireNonNull(table, "table");
        this.graphBranch = graphBranch;
        this.tableBranch = Objects.requireNonNull(tableBranch, "tableBranch");
        this.journalVersion = journalVersion;
        this.latestVersion = latestVersion;
        this.foreignVersions = List.copyOf(foreignVersions);
        this.intentIds = List.copyOf(intentIds);
        this.duplicatesChecked = duplicatesChecked;
        this.duplicateKeys = List.copyOf(duplicateKeys);
    }

    public Situation situation() {
        return situation;
    }

    public String table() {
        return table;
    }

    /** Nullable: the graph branch (null when the substrate met the version without the journal). */
    public String graphBranch() {
        return graphBranch;
    }

    public String tableBranch() {
        return tableBranch;
    }

    /** The version the journal knows: the published head, or the raced write's base. */
    public long journalVersion() {
        return journalVersion;
    }

    /** The table branch's version now; for a raced write, the version it achieved. */
    public long latestVersion() {
        return latestVersion;
    }

    /** The versions no journaled intent explains, ascending. */
    public List<Long> foreignVersions() {
        return foreignVersions;
    }

    /** For a raced write: its intents, none acknowledged. Empty otherwise. */
    public List<String> intentIds() {
        return intentIds;
    }

    /** Whether {@link #duplicateKeys()} is the result of an exact check (false: not checked, not a keyed insert). */
    public boolean duplicatesChecked() {
        return duplicatesChecked;
    }

    /** A sample of the keys held more than once (empty when none were found or none were checked). */
    public List<String> duplicateKeys() {
        return duplicateKeys;
    }
}
