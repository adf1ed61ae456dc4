package io.palisade.coordinator;

import java.util.List;
import java.util.SortedMap;

/**
 * What one run of {@link PkMigration#run} found and did.
 *
 * @param status          how it ended
 * @param migrationId     the migration's id (null for {@link Status#ALREADY_FENCING} without a journaled migration)
 * @param ownerToken      the owner token of the claim this run held
 * @param resumed         whether this run resumed an interrupted migration (its stale claim replaced)
 * @param classifications how the units of a resumed migration were found, one line per unit
 * @param units           every unit, in plan order
 * @param verifiedBranches graph branch → verification digest (after re-enumeration)
 * @param refusals        why the migration refused (empty unless {@link Status#REFUSED})
 */
public record MigrationReport(Status status, String migrationId, String ownerToken, boolean resumed,
                              List<String> classifications, List<Unit> units, SortedMap<String, String> verifiedBranches,
                              List<Refusal> refusals) {

    public enum Status {
        /** The stamp was written by this run: every branch is PK-annotated and verified. */
        COMPLETED,
        /** The graph already had the fencing stamp; nothing was done. */
        ALREADY_FENCING,
        /** The migration refused before the stamp (see {@link #refusals}); the graph stays pre-fencing. */
        REFUSED
    }

    /** One migrated unit: a pinned table image of one graph branch. */
    public record Unit(String unitId, String graphBranch, String table, String pinnedTableBranch, long pinnedVersion,
                       boolean lazyInherited, String tableBranch, long installedVersion, boolean alreadyPresent,
                       String rowsDigest) {
    }

    /**
     * Why one unit refused: duplicate or null ids in the pinned image, a different PK, a fork or version no
     * journaled unit explains.
     *
     * @param ids the offending ids (at most {@link MigrationOptions#maxReportedIds()}), empty when not about ids
     */
    public record Refusal(String graphBranch, String table, String tableBranch, long version, String reason,
                          List<String> ids) {
        @Override
        public String toString() {
            return "table '" + table + "' on graph branch '" + graphBranch + "' (" + tableBranch + "@" + version + "): "
                    + reason + (ids.isEmpty() ? "" : " " + ids) + (reason.contains("duplicate id")
                    ? "; remove the extra rows with `palisade repair GRAPH --table " + table + " --duplicates "
                    + "keep-newest|keep-oldest` (docs/recovery.md \"Repair\"), then run migrate pk again" : "");
        }
    }

    public MigrationReport {
        classifications = List.copyOf(classifications);
        units = List.copyOf(units);
        verifiedBranches = java.util.Collections.unmodifiableSortedMap(new java.util.TreeMap<>(verifiedBranches));
        refusals = List.copyOf(refusals);
    }

    /** A plain-text rendering for operators (the CLI prints it). */
    public String describe() {
        StringBuilder sb = new StringBuilder();
        sb.append("migrate pk: ").append(status);
        if (migrationId != null) {
            sb.append(" (migration ").append(migrationId).append(resumed ? ", resumed" : "").append(')');
        }
        sb.append('\n');
        for (String c : classifications) {
            sb.append("  classified: ").append(c).append('\n');
        }
        for (Unit u : units) {
            sb.append("  unit ").append(u.unitId()).append(": ").append(u.graphBranch()).append('/').append(u.table())
                    .append(" pinned ").append(u.pinnedTableBranch()).append('@').append(u.pinnedVersion())
                    .append(u.lazyInherited() ? " (lazy, forked to " + u.tableBranch() + ")" : " (owned)")
                    .append(" -> PK at ").append(u.tableBranch()).append('@').append(u.installedVersion())
                    .append(u.alreadyPresent() ? " (already present)" : "").append('\n');
        }
        verifiedBranches.forEach((b, d) -> sb.append("  verified branch ").append(b).append(" digest ").append(d).append('\n'));
        for (Refusal r : refusals) {
            sb.append("  REFUSED: ").append(r).append('\n');
        }
        return sb.toString();
    }
}
