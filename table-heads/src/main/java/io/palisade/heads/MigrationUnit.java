package io.palisade.heads;

import io.palisade.journal.TableHead;

import java.util.Objects;

/**
 * Progress of one PK migration unit (RFC-023 §8: one pinned table image of one graph branch).
 * Phases only move forward: {@code PLANNED → [FORKED →] INSTALLED → PUBLISHED}.
 *
 * @param forkedTableBranch nullable: the table branch a lazy-inherited image was forked into
 * @param installedVersion  the table version after the PK install (-1 before)
 * @param publishedHead     nullable: the head published for the unit
 */
public record MigrationUnit(String unitId, String graphBranch, String table, String pinnedTableBranch,
                            long pinnedVersion, boolean lazyInherited, Phase phase, String forkedTableBranch,
                            long installedVersion, TableHead publishedHead) {

    /** Unit phases in order; stable codes used in checkpoints. */
    public enum Phase {
        PLANNED(1), FORKED(2), INSTALLED(3), PUBLISHED(4);

        private final int code;

        Phase(int code) {
            this.code = code;
        }

        public int code() {
            return code;
        }

        static Phase ofCode(int code) {
            for (Phase p : values()) {
                if (p.code == code) {
                    return p;
                }
            }
            return null;
        }
    }

    public MigrationUnit {
        Objects.requireNonNull(unitId, "unitId");
        Objects.requireNonNull(graphBranch, "graphBranch");
        Objects.requireNonNull(table, "table");
        Objects.requireNonNull(pinnedTableBranch, "pinnedTableBranch");
        Objects.requireNonNull(phase, "phase");
    }

    MigrationUnit forked(String tableBranch) {
        return new MigrationUnit(unitId, graphBranch, table, pinnedTableBranch, pinnedVersion, lazyInherited,
                Phase.FORKED, tableBranch, installedVersion, publishedHead);
    }

    MigrationUnit installed(long version) {
        return new MigrationUnit(unitId, graphBranch, table, pinnedTableBranch, pinnedVersion, lazyInherited,
                Phase.INSTALLED, forkedTableBranch, version, publishedHead);
    }

    MigrationUnit published(TableHead head) {
        return new MigrationUnit(unitId, graphBranch, table, pinnedTableBranch, pinnedVersion, lazyInherited,
                Phase.PUBLISHED, forkedTableBranch, installedVersion, head);
    }
}
