package io.palisade.coordinator;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/** Counters a user can read: commits, conflicts by kind, retries, group sizes, phase latencies. */
public final class Metrics {
    final LongAdder commits = new LongAdder();
    final LongAdder substrateCommits = new LongAdder();
    final LongAdder keyConflicts = new LongAdder();
    final LongAdder writeConflicts = new LongAdder();
    final LongAdder validationFailures = new LongAdder();
    final LongAdder retries = new LongAdder();
    final LongAdder idempotentReplays = new LongAdder();
    final AtomicLong largestGroup = new AtomicLong();
    final LongAdder phaseANanos = new LongAdder();
    final LongAdder phaseBNanos = new LongAdder();
    final LongAdder phaseCDNanos = new LongAdder();
    final LongAdder maintenanceReplans = new LongAdder();
    final LongAdder maintenanceCommits = new LongAdder();
    final LongAdder autoIndexRefreshes = new LongAdder();
    final LongAdder autoIndexRefreshFailures = new LongAdder();
    final LongAdder foreignCommits = new LongAdder();
    /** Journal-ack writes acknowledged from the journal. */
    final LongAdder journalAcks = new LongAdder();
    /** Folds committed, and the journal-ack writes they folded. */
    final LongAdder folds = new LongAdder();
    final LongAdder foldedWrites = new LongAdder();
    /** Strict-insert keys the negative filter could not rule out, and of those the ones the table did not hold. */
    final LongAdder keyLookups = new LongAdder();
    final LongAdder keyFilterFalsePositives = new LongAdder();
    /** Wall time of committed folds (building the fold's rows from the tail through publication), and their rows. */
    final LongAdder foldNanos = new LongAdder();
    final LongAdder foldedRows = new LongAdder();
    /** Acknowledgement groups held back by a fold bound (memory or lag), and the wall time they waited. */
    final LongAdder backPressureWaits = new LongAdder();
    final LongAdder backPressureNanos = new LongAdder();

    /**
     * Journal-ack acknowledgement groups that waited for a fold of their table because the unfolded rows were past
     * {@link Options#maxUnfoldedBytes()} or the table's fold lag past {@link Options#maxFoldLagMillis()}.
     */
    public long backPressureWaits() {
        return backPressureWaits.sum();
    }

    /** Wall time the committer spent folding for those back-pressured groups (the writers' extra wait). */
    public long backPressureNanos() {
        return backPressureNanos.sum();
    }

    /** Wall time spent in committed folds, from building their rows out of the tail to their publication. */
    public long foldNanos() {
        return foldNanos.sum();
    }

    /** Rows the committed folds wrote (the newest row of each upserted key; deletes not counted). */
    public long foldedRows() {
        return foldedRows.sum();
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
        return journalAcks.sum();
    }

    /** Folds committed to journal-ack tables. */
    public long folds() {
        return folds.sum();
    }

    /** Journal-ack writes the folds committed. */
    public long foldedWrites() {
        return foldedWrites.sum();
    }

    /** Strict-insert keys looked up in a table because its negative key filter could not rule them out. */
    public long keyLookups() {
        return keyLookups.sum();
    }

    /** Keys looked up although the table did not hold them (the negative filter's false positives). */
    public long keyFilterFalsePositives() {
        return keyFilterFalsePositives.sum();
    }

    /** Commits (writes, maintenance, bulk-load batches) that Lance rebased over a foreign version: none acknowledged. */
    public long foreignCommits() {
        return foreignCommits.sum();
    }

    /**
     * Maintenance operations (index optimise, compaction; explicit or automatic) that completed, no-ops
     * included. They are not in {@link Snapshot#commits()}, the group sizes or the phase latencies, which
     * describe writes.
     */
    public long maintenanceCommits() {
        return maintenanceCommits.sum();
    }

    /** Index optimises the committer ran by itself ({@link Options#indexRefreshEvery()}) and that completed. */
    public long autoIndexRefreshes() {
        return autoIndexRefreshes.sum();
    }

    /** Automatic index optimises that failed (logged; the writes that triggered them are unaffected). */
    public long autoIndexRefreshFailures() {
        return autoIndexRefreshFailures.sum();
    }

    /** How often a maintenance plan was judged against a winner and made again from the head. */
    public long maintenanceReplans() {
        return maintenanceReplans.sum();
    }

    /** An immutable snapshot. Mean latencies are per substrate commit (group). */
    public record Snapshot(long commits, long substrateCommits, long keyConflicts, long writeConflicts,
                           long validationFailures, long retries, long idempotentReplays, long largestGroup,
                           double meanGroupSize, double meanPhaseAMicros, double meanPhaseBMicros, double meanPhaseCDMicros) {
    }

    public Snapshot snapshot() {
        long groups = Math.max(1, substrateCommits.sum());
        return new Snapshot(commits.sum(), substrateCommits.sum(), keyConflicts.sum(), writeConflicts.sum(),
                validationFailures.sum(), retries.sum(), idempotentReplays.sum(), largestGroup.get(),
                (double) commits.sum() / groups, phaseANanos.sum() / 1e3 / groups, phaseBNanos.sum() / 1e3 / groups,
                phaseCDNanos.sum() / 1e3 / groups);
    }

    void group(int size) {
        largestGroup.accumulateAndGet(size, Math::max);
    }
}
