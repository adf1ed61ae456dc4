package io.palisade.heads;

import io.palisade.journal.JournalEvent.MigrationBranchVerified;
import io.palisade.journal.JournalEvent.MigrationClaimed;
import io.palisade.journal.JournalEvent.MigrationPkInstalled;
import io.palisade.journal.JournalEvent.MigrationRefused;
import io.palisade.journal.JournalEvent.MigrationStampWritten;
import io.palisade.journal.JournalEvent.MigrationUnitForked;
import io.palisade.journal.JournalEvent.MigrationUnitPlanned;
import io.palisade.journal.JournalEvent.MigrationUnitPublished;

import java.util.List;

/**
 * The PK migration steps of {@link HeadsReducer}: how the journal claims a migration, moves its units along, records
 * verified branches and the new format stamp, or refuses it. Owns the migration progress of a {@link HeadsDraft}
 * (and the format stamp a migration writes; a unit's publication moves its head through
 * {@link HeadsReducer#publish}).
 *
 * <p>Invariants: a migration is claimed once and every other migration record names a claimed one; a unit is planned
 * once and moves forward only: planned, [forked,] installed, published.
 */
final class MigrationSteps {
    private MigrationSteps() {
    }

    static void migrationClaimed(HeadsDraft d, MigrationClaimed e) {
        if (d.migrations.containsKey(e.migrationId())) {
            throw d.fail(null, null, "migration " + e.migrationId() + " claimed twice");
        }
        d.migrations = d.migrations.put(e.migrationId(), MigrationProgress.claimed(e.migrationId(), e.ownerToken(),
                e.fromStamp(), e.toStamp(), d.seq));
    }

    static void unitPlanned(HeadsDraft d, MigrationUnitPlanned e) {
        MigrationProgress m = migration(d, e.migrationId(), e.graphBranch(), e.table());
        if (m.units().containsKey(e.unitId())) {
            throw d.fail(e.graphBranch(), e.table(), "migration " + e.migrationId() + " unit " + e.unitId()
                    + " planned twice");
        }
        d.migrations = d.migrations.put(m.migrationId(), m.withUnit(new MigrationUnit(e.unitId(), e.graphBranch(),
                e.table(), e.pinnedTableBranch(), e.pinnedVersion(), e.lazyInherited(), MigrationUnit.Phase.PLANNED,
                null, -1, null)));
    }

    static void unitForked(HeadsDraft d, MigrationUnitForked e) {
        MigrationProgress m = migration(d, e.migrationId(), null, null);
        MigrationUnit u = unit(d, m, e.unitId(), MigrationUnit.Phase.PLANNED);
        d.migrations = d.migrations.put(m.migrationId(), m.withUnit(u.forked(e.tableBranch())));
    }

    static void pkInstalled(HeadsDraft d, MigrationPkInstalled e) {
        MigrationProgress m = migration(d, e.migrationId(), null, e.table());
        MigrationUnit u = unit(d, m, e.unitId(), MigrationUnit.Phase.PLANNED, MigrationUnit.Phase.FORKED);
        d.migrations = d.migrations.put(m.migrationId(), m.withUnit(u.installed(e.achievedVersion())));
    }

    static void unitPublished(HeadsDraft d, MigrationUnitPublished e) {
        MigrationProgress m = migration(d, e.migrationId(), e.transition().graphBranch(), e.transition().table());
        MigrationUnit u = unit(d, m, e.unitId(), MigrationUnit.Phase.INSTALLED);
        HeadsReducer.publish(d, e.transition());
        d.migrations = d.migrations.put(m.migrationId(), m.withUnit(u.published(e.transition().to())));
    }

    static void branchVerified(HeadsDraft d, MigrationBranchVerified e) {
        MigrationProgress m = migration(d, e.migrationId(), e.graphBranch(), null);
        d.migrations = d.migrations.put(m.migrationId(), m.withVerified(e.graphBranch(), e.digest()));
    }

    static void stampWritten(HeadsDraft d, MigrationStampWritten e) {
        MigrationProgress m = migration(d, e.migrationId(), null, null);
        d.migrations = d.migrations.put(m.migrationId(), m.withStamp(e.stamp()));
        d.formatStamp = e.stamp();
    }

    static void migrationRefused(HeadsDraft d, MigrationRefused e) {
        MigrationProgress m = migration(d, e.migrationId(), e.graphBranch(), e.table());
        d.migrations = d.migrations.put(m.migrationId(), m.refused(e.reason()));
    }

    private static MigrationProgress migration(HeadsDraft d, String id, String branch, String table) {
        MigrationProgress m = d.migrations.get(id);
        if (m == null) {
            throw d.fail(branch, table, "migration " + id + " was never claimed");
        }
        return m;
    }

    private static MigrationUnit unit(HeadsDraft d, MigrationProgress m, String unitId, MigrationUnit.Phase... allowed) {
        MigrationUnit u = m.units().get(unitId);
        if (u == null) {
            throw d.fail(null, null, "migration " + m.migrationId() + " unit " + unitId + " was never planned");
        }
        for (MigrationUnit.Phase a : allowed) {
            if (u.phase() == a) {
                return u;
            }
        }
        throw d.fail(u.graphBranch(), u.table(), "migration " + m.migrationId() + " unit " + unitId + " is "
                + u.phase() + ", expected one of " + List.of(allowed));
    }
}
