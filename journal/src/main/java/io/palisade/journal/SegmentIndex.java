package io.palisade.journal;

import net.openhft.chronicle.queue.ExcerptTailer;
import net.openhft.chronicle.queue.RollCycle;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueue;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.NavigableSet;

/**
 * Index arithmetic inside one segment. A segment's good records are dense: its j-th data excerpt holds
 * sequence {@code firstSequence + j} (a bad excerpt can only be at the segment's tail), so finding a
 * sequence is arithmetic over Chronicle's per-cycle excerpt counts, not a scan.
 */
final class SegmentIndex {
    private SegmentIndex() {
    }

    /**
     * Excerpt counts of closed cycles (every cycle of a segment but its last), by segment directory and cycle: a closed
     * cycle's count never changes (the row release rewrites a file with the same excerpts), so positioning in a long
     * segment of many five-minute files is arithmetic, not one file mapping per cycle. Bounded, least recently used out.
     */
    private static final int CACHED_CYCLES = 65_536;
    private static final Map<String, Long> CLOSED_COUNTS = Collections.synchronizedMap(
            new LinkedHashMap<>(1024, 0.75f, true) {
                @Override
                protected boolean removeEldestEntry(Map.Entry<String, Long> eldest) {
                    return size() > CACHED_CYCLES;
                }
            });

    /** Number of data excerpts in the queue. */
    static long count(SingleChronicleQueue queue, ExcerptTailer tailer) {
        if (queue.firstIndex() == Long.MAX_VALUE) {
            return 0;
        }
        long total = 0;
        NavigableSet<Long> cycles = cycles(queue);
        for (long cycle : cycles) {
            total += excerptsInCycle(queue, tailer, cycle, cycles.last());
        }
        return total;
    }

    /** The data excerpts of one cycle; cached when the cycle is not the segment's last. */
    static long excerptsInCycle(SingleChronicleQueue queue, ExcerptTailer tailer, long cycle, long lastCycle) {
        if (cycle >= lastCycle) {
            return tailer.excerptsInCycle((int) cycle);
        }
        String key = queue.file().getPath() + '#' + cycle;
        Long n = CLOSED_COUNTS.get(key);
        if (n == null) {
            n = tailer.excerptsInCycle((int) cycle);
            CLOSED_COUNTS.put(key, n);
        }
        return n;
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
        NavigableSet<Long> cycles = cycles(queue);
        for (long cycle : cycles) {
            long n = excerptsInCycle(queue, tailer, cycle, cycles.last());
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

    static NavigableSet<Long> cycles(SingleChronicleQueue queue) {
        return queue.listCyclesBetween(queue.firstCycle(), queue.lastCycle());
    }
}
