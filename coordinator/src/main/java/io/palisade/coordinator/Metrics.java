package io.palisade.coordinator;

import io.palisade.coordinator.internal.Counters;
import io.palisade.coordinator.internal.KeyBloom;
import io.palisade.coordinator.internal.KeyPresence;

/**
 * What a graph has done so far, read-only: commits, conflicts by kind, retries, group sizes, phase latencies, folds
 * and back-pressure. Every method reads the live counters of the graph's engine; {@link #snapshot()} copies them for
 * reporting.
 */
public final class Metrics {
    private final Counters c;

    Metrics(Counters counters) {
        this.c = counters;
    }

    /**
     * Journal-ack acknowledgement groups that waited for a fold of their table because the unfolded rows were past
     * {@link Options#maxUnfoldedBytes()} or the table's fold lag past {@link Options#maxFoldLagMillis()}.
     */
    public long backPressureWaits() {
        return c.backPressureWaits.sum();
    }

    /** Wall time the committer spent folding for those back-pressured groups (the writers' extra wait). */
    public long backPressureNanos() {
        return c.backPressureNanos.sum();
    }

    /** Wall time spent in committed folds, from building their rows out of the tail to their publication. */
    public long foldNanos() {
        return c.foldNanos.sum();
    }

    /** Rows the committed folds wrote (the newest row of each upserted key; deletes not counted). */
    public long foldedRows() {
        return c.foldedRows.sum();
    }

    /**
     * Bytes of a journal-ack table's negative key filter sized for {@code keys} keys at the false-positive rate the
     * coordinator uses ({@code KeyPresence.FPP}); the coordinator sizes a table's filter for twice its keys (at least
     * 65,536) so that it can grow before a rebuild ({@link #keyFilterBytesForTable}).
     */
    public static long keyFilterBytes(long keys) {
        return KeyBloom.forCapacity(keys, KeyPresence.FPP).bytes();
    }

    /** Bytes of the negative key filter the coordinator builds for a journal-ack table holding {@code keys} keys. */
    public static long keyFilterBytesForTable(long keys) {
        return keyFilterBytes(KeyPresence.capacityFor(keys));
    }

    /** Writes acknowledged from the journal (journal-ack tables). */
    public long journalAcks() {
        return c.journalAcks.sum();
    }

    /** Folds committed to journal-ack tables. */
    public long folds() {
        return c.folds.sum();
    }

    /** Journal-ack writes the folds committed. */
    public long foldedWrites() {
        return c.foldedWrites.sum();
    }

    /** Strict-insert keys looked up in a table because its negative key filter could not rule them out. */
    public long keyLookups() {
        return c.keyLookups.sum();
    }

    /** Keys looked up although the table did not hold them (the negative filter's false positives). */
    public long keyFilterFalsePositives() {
        return c.keyFilterFalsePositives.sum();
    }

    /** Commits (writes, maintenance, bulk-load batches) that Lance rebased over a foreign version: none acknowledged. */
    public long foreignCommits() {
        return c.foreignCommits.sum();
    }

    /**
     * Maintenance operations (index optimise, compaction; explicit or automatic) that completed, no-ops
     * included. They are not in {@link Snapshot#commits()}, the group sizes or the phase latencies, which
     * describe writes.
     */
    public long maintenanceCommits() {
        return c.maintenanceCommits.sum();
    }

    /** Index optimises the committer ran by itself ({@link Options#indexRefreshEvery()}) and that completed. */
    public long autoIndexRefreshes() {
        return c.autoIndexRefreshes.sum();
    }

    /** Automatic index optimises that failed (logged; the writes that triggered them are unaffected). */
    public long autoIndexRefreshFailures() {
        return c.autoIndexRefreshFailures.sum();
    }

    /** Compactions the committer ran by itself ({@link Compaction}) and that completed. */
    public long autoCompactions() {
        return c.autoCompactions.sum();
    }

    /** Automatic compactions that failed (logged; the writes that triggered them are unaffected). */
    public long autoCompactionFailures() {
        return c.autoCompactionFailures.sum();
    }

    /** Table versions removed by retention ({@link Retention}). */
    public long versionsExpired() {
        return c.versionsExpired.sum();
    }

    /** Bytes removed with them. */
    public long expiredBytes() {
        return c.expiredBytes.sum();
    }

    /** Idempotency keys forgotten under the idempotency window ({@link Idempotency}). */
    public long idempotencyKeysForgotten() {
        return c.keysForgotten.sum();
    }

    /**
     * Completed intents the heads state forgot because a checkpoint covered them (their records stay in the journal):
     * with {@link Graph#state()}'s {@code completedCount()} and {@code receiptCount()}, what keeps its memory flat.
     */
    public long completedIntentsForgotten() {
        return c.intentsForgotten.sum();
    }

    /** Removals of old versions that failed (logged; the next removal of the table branch retries). */
    public long expiryFailures() {
        return c.expiryFailures.sum();
    }

    /**
     * Committer time spent in maintenance commits (compaction and index optimise, from their intent to their
     * publication), in nanoseconds: every write queued meanwhile waits for it.
     */
    public long maintenanceNanos() {
        return c.maintenanceNanos.sum();
    }

    /** The longest single maintenance commit on the committer, in nanoseconds: the most a write waited for one. */
    public long maintenanceMaxNanos() {
        return c.maintenanceMaxNanos.get();
    }

    /** How often a maintenance plan was judged against a winner and made again from the head. */
    public long maintenanceReplans() {
        return c.maintenanceReplans.sum();
    }

    /** An immutable snapshot. Mean latencies are per substrate commit (group). */
    public record Snapshot(long commits, long substrateCommits, long keyConflicts, long writeConflicts,
                           long validationFailures, long retries, long idempotentReplays, long largestGroup,
                           double meanGroupSize, double meanPhaseAMicros, double meanPhaseBMicros, double meanPhaseCDMicros) {
    }

    public Snapshot snapshot() {
        long groups = Math.max(1, c.substrateCommits.sum());
        return new Snapshot(c.commits.sum(), c.substrateCommits.sum(), c.keyConflicts.sum(), c.writeConflicts.sum(),
                c.validationFailures.sum(), c.retries.sum(), c.idempotentReplays.sum(), c.largestGroup.get(),
                (double) c.commits.sum() / groups, c.phaseANanos.sum() / 1e3 / groups, c.phaseBNanos.sum() / 1e3 / groups,
                c.phaseCDNanos.sum() / 1e3 / groups);
    }
}
