package io.palisade.journal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.locks.LockSupport;

/**
 * Reads records in sequence order, each checked (CRC32C, hash chain, sequence, epoch) before it is
 * returned. A reading cursor stops at the current end; a following cursor (tailer) also picks up
 * records and segments appended later. Not thread-safe; close it when done.
 */
public final class JournalCursor implements AutoCloseable {
    private final RecordStream chain;

    JournalCursor(RecordStream chain) {
        this.chain = chain;
    }

    /**
     * The next record, or {@code null} when none is available now.
     *
     * @throws io.palisade.fencing.JournalCorruptedException on a bad record followed by good ones, a broken
     *         chain, a gap, or a record this build cannot read
     */
    public JournalRecord poll() {
        return chain.poll();
    }

    /** The next record, waiting up to {@code timeout} for one; {@code null} on timeout. */
    public JournalRecord take(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        long park = 1_000;
        while (true) {
            JournalRecord r = chain.poll();
            if (r != null) {
                return r;
            }
            if (System.nanoTime() - deadline >= 0) {
                return null;
            }
            LockSupport.parkNanos(park);
            park = Math.min(park * 2, 1_000_000);
            if (Thread.currentThread().isInterrupted()) {
                return null;
            }
        }
    }

    /** Every record available now. */
    public List<JournalRecord> drain() {
        List<JournalRecord> out = new ArrayList<>();
        JournalRecord r;
        while ((r = chain.poll()) != null) {
            out.add(r);
        }
        return out;
    }

    /** The sequence the next record will hold. */
    public long nextSequence() {
        return chain.expectedSequence();
    }

    /** A torn tail at the journal end that no writer has cut yet (reading stopped before it). */
    public Optional<TornTail> openTail() {
        return Optional.ofNullable(chain.openTail());
    }

    /** Torn tails skipped so far because a later writer cut them. */
    public List<TornTail> cutTails() {
        return chain.cutTails();
    }

    @Override
    public void close() {
        chain.close();
    }
}
