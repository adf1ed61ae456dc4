package io.palisade.coordinator;

import io.palisade.coordinator.internal.PkMigrator;

import java.nio.file.Path;

/**
 * The all-branch PK migration {@code migrate pk} (RFC-023 §8): upgrades a pre-fencing graph to
 * {@code FormatStamp.FENCING}, journaled and resumable, roll-forward only.
 *
 * <p>Steps, each journaled before the next effect, with the crash point after it:
 * <ol>
 *   <li>claim: a migration claim file created if absent, then {@code MigrationClaimed}
 *       ({@code migration-after-claim});</li>
 *   <li>enumerate every live graph branch and every keyed table it pins, owned or lazily inherited;
 *       validate each pinned image (non-null, unique ids; no PK other than {@code [id]}): any offence
 *       refuses the whole migration before any effect ({@code MigrationRefused}, claim released);</li>
 *   <li>plan: one {@code MigrationUnitPlanned} per unit, in one batch ({@code migration-after-plan});</li>
 *   <li>per lazily inherited unit: fork table branch {@code g-<graph branch>-i<incarnation>} from the exact pinned version
 *       ({@code migration-after-fork-commit}), {@code MigrationUnitForked} ({@code migration-after-fork});</li>
 *   <li>per unit: PK install set-if-absent, the Lance commit carrying the unit id as its intent id
 *       ({@code migration-after-pk-commit}), {@code MigrationPkInstalled} ({@code migration-after-install});</li>
 *   <li>per unit: rows digest of the annotated image checked equal to the pinned image's, then
 *       {@code MigrationUnitPublished} — the migration marker, the head transition and the completion
 *       digest in one record ({@code migration-after-publish});</li>
 *   <li>re-enumerate every live branch and verify each: PK {@code [id]} on every pinned image, every
 *       pin published by this migration ({@code MigrationBranchVerified}, {@code migration-after-verify});</li>
 *   <li>stamp: {@code MigrationStampWritten} ({@code migration-after-stamp-journaled}), then the
 *       format stamp file, last ({@code migration-after-stamp}); then the claim is released.</li>
 * </ol>
 * A re-run after a crash holds the writer lease (so the previous owner is dead), classifies every
 * journaled unit against the store — adopting the exact fork and the exact PK install version a crash
 * left unjournaled, identified by fork version and by the install commit's intent id — then replaces
 * the stale claim and rolls forward. An installed PK is never undone. While the stamp is pre-fencing,
 * {@link Palisade#open} refuses the graph, so no branch, schema or data write can interleave.
 */
public final class PkMigration {
    static {
        System.setProperty("chronicle.analytics.disable", "true");
    }

    private PkMigration() {
    }

    /** Runs (or resumes) the migration of the graph at {@code root}; takes the writer lease for its duration. */
    public static MigrationReport run(Path root, MigrationOptions options) {
        return PkMigrator.run(root, options);
    }
}
