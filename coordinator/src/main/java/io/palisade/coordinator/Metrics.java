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
