package io.palisade.heads;

import java.util.Collections;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Progress of one PK migration (RFC-023 §8), kept simply: the claim, its units by id, the branches
 * verified after re-enumeration, the stamp once written, the refusal if any. Maps are immutable
 * sorted copies (a migration has few units; copy-on-write is cheap enough).
 *
 * @param stampWritten  the stamp written by this migration (-1 until written)
 * @param refusedReason nullable: why the migration refused
 */
public record MigrationProgress(String migrationId, String ownerToken, int fromStamp, int toStamp, long claimedAt,
                                SortedMap<String, MigrationUnit> units, SortedMap<String, String> verifiedBranches,
                                int stampWritten, String refusedReason) {
    public MigrationProgress {
        Objects.requireNonNull(migrationId, "migrationId");
        Objects.requireNonNull(ownerToken, "ownerToken");
        units = Collections.unmodifiableSortedMap(new TreeMap<>(units));
        verifiedBranches = Collections.unmodifiableSortedMap(new TreeMap<>(verifiedBranches));
    }

    static MigrationProgress claimed(String id, String owner, int from, int to, long seq) {
        return new MigrationProgress(id, owner, from, to, seq, new TreeMap<>(), new TreeMap<>(), -1, null);
    }

    MigrationProgress withUnit(MigrationUnit unit) {
        TreeMap<String, MigrationUnit> u = new TreeMap<>(units);
        u.put(unit.unitId(), unit);
        return new MigrationProgress(migrationId, ownerToken, fromStamp, toStamp, claimedAt, u, verifiedBranches,
                stampWritten, refusedReason);
    }

    MigrationProgress withVerified(String branch, String digest) {
        TreeMap<String, String> v = new TreeMap<>(verifiedBranches);
        v.put(branch, digest);
        return new MigrationProgress(migrationId, ownerToken, fromStamp, toStamp, claimedAt, units, v,
                stampWritten, refusedReason);
    }

    MigrationProgress withStamp(int stamp) {
        return new MigrationProgress(migrationId, ownerToken, fromStamp, toStamp, claimedAt, units, verifiedBranches,
                stamp, refusedReason);
    }

    MigrationProgress refused(String reason) {
        return new MigrationProgress(migrationId, ownerToken, fromStamp, toStamp, claimedAt, units, verifiedBranches,
                stampWritten, reason);
    }

    /** Whether the migration ended: stamp written or refused. */
    public boolean finished() {
        return stampWritten >= 0 || refusedReason != null;
    }
}
