package io.palisade.coordinator.internal;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * The counters the engine's stages write as they run: commits, conflicts by kind, retries, group sizes, phase
 * latencies, folds and back-pressure. Thread-safe (adders); the public {@code Metrics} of a graph is a read-only view
 * of them.
 */
public final class Counters {
    public final LongAdder commits = new LongAdder();
    public final LongAdder substrateCommits = new LongAdder();
    public final LongAdder keyConflicts = new LongAdder();
    public final LongAdder writeConflicts = new LongAdder();
    public final LongAdder validationFailures = new LongAdder();
    public final LongAdder retries = new LongAdder();
    public final LongAdder idempotentReplays = new LongAdder();
    public final AtomicLong largestGroup = new AtomicLong();
    public final LongAdder phaseANanos = new LongAdder();
    public final LongAdder phaseBNanos = new LongAdder();
    public final LongAdder phaseCDNanos = new LongAdder();
    public final LongAdder maintenanceReplans = new LongAdder();
    public final LongAdder maintenanceCommits = new LongAdder();
    public final LongAdder autoIndexRefreshes = new LongAdder();
    public final LongAdder autoIndexRefreshFailures = new LongAdder();
    public final LongAdder autoCompactions = new LongAdder();
    public final LongAdder autoCompactionFailures = new LongAdder();
    public final LongAdder versionsExpired = new LongAdder();
    public final LongAdder expiredBytes = new LongAdder();
    public final LongAdder expiryFailures = new LongAdder();
    /** Idempotency keys the idempotency window forgot ({@code receipts_expired}). */
    public final LongAdder keysForgotten = new LongAdder();
    /** Completed intents the heads state forgot because a checkpoint covered them. */
    public final LongAdder intentsForgotten = new LongAdder();
    /** Committer time of maintenance ops (compaction, index optimise), Phase A to publish: writers wait meanwhile. */
    public final LongAdder maintenanceNanos = new LongAdder();
    public final AtomicLong maintenanceMaxNanos = new AtomicLong();
    public final LongAdder foreignCommits = new LongAdder();
    /** Journal-ack writes acknowledged from the journal. */
    public final LongAdder journalAcks = new LongAdder();
    /** Folds committed, and the journal-ack writes they folded. */
    public final LongAdder folds = new LongAdder();
    public final LongAdder foldedWrites = new LongAdder();
    /** Strict-insert keys the negative filter could not rule out, and of those the ones the table did not hold. */
    public final LongAdder keyLookups = new LongAdder();
    public final LongAdder keyFilterFalsePositives = new LongAdder();
    /** Wall time of committed folds (building the fold's rows from the tail through publication), and their rows. */
    public final LongAdder foldNanos = new LongAdder();
    public final LongAdder foldedRows = new LongAdder();
    /** Acknowledgement groups held back by a fold bound (memory or lag), and the wall time they waited. */
    public final LongAdder backPressureWaits = new LongAdder();
    public final LongAdder backPressureNanos = new LongAdder();

    /** Records a substrate commit of {@code size} writes (the largest group so far). */
    public void group(int size) {
        largestGroup.accumulateAndGet(size, Math::max);
    }
}
