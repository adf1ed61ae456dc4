package io.palisade.fencing;

import java.util.List;
import java.util.Objects;

/**
 * A table version the journal published (or a reader was asked to read) has damaged files: its manifest
 * is zero-length or undecodable, or a data, deletion, index or transaction file it names is missing or
 * shorter than recorded. Unlike a torn version <em>above</em> the published head (which recovery sets
 * aside, docs/recovery.md), a damaged published version held acknowledged rows: this is corruption, never
 * invalid input. The CLI exits 7, as for a corrupt journal.
 */
public class TableCorruptedException extends PalisadeException {
    private static final long serialVersionUID = 1L;

    private final String table;
    private final String graphBranch;
    private final String tableBranch;
    private final long version;
    private final List<String> files;
    private final List<String> intentIds;
    private final String reason;

    /**
     * @param table       the table
     * @param graphBranch nullable: the graph branch whose head names the version (null when a reader met it without the journal)
     * @param tableBranch the table branch
     * @param version     the damaged version
     * @param files       the damaged files, each with what is wrong with it
     * @param intentIds   the intents whose commit produced the version (empty when unknown)
     * @param reason      what is wrong, for humans
     */
    public TableCorruptedException(String table, String graphBranch, String tableBranch, long version,
                                   List<String> files, List<String> intentIds, String reason, Throwable cause) {
        super(message(table, graphBranch, tableBranch, version, files, intentIds, reason), cause);
        this.table = Objects.requireNonNull(table, "table");
        this.graphBranch = graphBranch;
        this.tableBranch = Objects.requireNonNull(tableBranch, "tableBranch");
        this.version = version;
        this.files = List.copyOf(files);
        this.intentIds = List.copyOf(intentIds);
        this.reason = Objects.requireNonNull(reason, "reason");
    }

    private static String message(String table, String graphBranch, String tableBranch, long version,
                                  List<String> files, List<String> intentIds, String reason) {
        StringBuilder sb = new StringBuilder("table '").append(table).append("' version ").append(version)
                .append(" of table branch '").append(tableBranch).append('\'');
        if (graphBranch != null) {
            sb.append(" (the published head of graph branch '").append(graphBranch).append("')");
        }
        sb.append(" is damaged: ").append(reason);
        if (!files.isEmpty()) {
            sb.append("; damaged files: ").append(String.join(", ", files));
        }
        if (!intentIds.isEmpty()) {
            sb.append("; its rows were written by intent").append(intentIds.size() == 1 ? " " : "s ")
                    .append(String.join(", ", intentIds));
        } else if (graphBranch != null) {
            sb.append("; no journaled intent names this version");
        }
        sb.append(". Restore the table directory from a backup (see docs/recovery.md)");
        return sb.toString();
    }

    /** A copy naming the graph branch and the intents the journal knows (the substrate does not). */
    public TableCorruptedException withJournal(String graphBranch, List<String> intentIds) {
        return new TableCorruptedException(table, graphBranch, tableBranch, version, files, intentIds,
                reason, getCause() == null ? this : getCause());
    }

    public String table() {
        return table;
    }

    /** Nullable: the graph branch whose published head is damaged. */
    public String graphBranch() {
        return graphBranch;
    }

    public String tableBranch() {
        return tableBranch;
    }

    public long version() {
        return version;
    }

    /** The damaged files, each with what is wrong with it. */
    public List<String> files() {
        return files;
    }

    /** What is wrong, without the table, version and files. */
    public String reason() {
        return reason;
    }

    /** The intents whose commit produced the version (empty when unknown). */
    public List<String> intentIds() {
        return intentIds;
    }
}
