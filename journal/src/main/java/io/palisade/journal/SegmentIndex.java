package io.palisade.journal;

import net.openhft.chronicle.queue.ExcerptTailer;
import net.openhft.chronicle.queue.RollCycle;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueue;

import java.util.NavigableSet;

/**
 * Index arithmetic inside one segment. A segment's good records are dense: its j-th data excerpt holds
 * sequence {@code firstSequence + j} (a bad excerpt can only be at the segment's tail), so finding a
 * sequence is arithmetic over Chronicle's per-cycle excerpt counts, not a scan.
 */
final class SegmentIndex {
    private SegmentIndex() {
    }

    /** Number of data excerpts in the queue. */
    static long count(SingleChronicleQueue queue, ExcerptTailer tailer) {
        if (queue.firstIndex() == Long.MAX_VALUE) {
            return 0;
        }
        long total = 0;
        for (long cycle : cycles(queue)) {
            total += tailer.excerptsInCycle((int) cycle);
        }
        return total;
    }

    /**
     * Moves {@code tailer} so that its next read returns the {@code j}-th data excerpt; {@code j} equal to the
     * count positions it at the end. Returns false when {@code j} is beyond the end.
     */
    static boolean moveTo(SingleChronicleQueue queue, ExcerptTailer tailer, long j) {
        if (j == 0) {
            tailer.toStart();
            return true;
        }
        if (queue.firstIndex() == Long.MAX_VALUE) {
            return false;
        }
        RollCycle rc = queue.rollCycle();
        long remaining = j;
        for (long cycle : cycles(queue)) {
            long n = tailer.excerptsInCycle((int) cycle);
            if (remaining < n) {
                return tailer.moveToIndex(rc.toIndex((int) cycle, remaining));
            }
            remaining -= n;
        }
        if (remaining == 0) {
            tailer.toEnd();
            return true;
        }
        return false;
    }

    private static NavigableSet<Long> cycles(SingleChronicleQueue queue) {
        return queue.listCyclesBetween(queue.firstCycle(), queue.lastCycle());
    }
}
