package io.palisade.coordinator.internal;

import java.util.ArrayDeque;
import java.util.Set;
import java.util.TreeSet;

/**
 * The heads checkpoints the graph keeps as anchors for reading its past (beside the newest few a load falls back
 * through): a checkpoint becomes an anchor when it is at least a quarter of the retention window younger than the
 * newest anchor, and an anchor is let go once a younger one is older than the window too. While the local journal
 * still holds the records after them (it is under its byte budget, docs/journal.md "File retention"), every point of
 * the window is rebuilt from an anchor at or before it, replaying at most a quarter window of records.
 *
 * <pre>
 *   time ──────────────────────────────────────────────────────────────▶ now
 *          │◀───────────────────── window ─────────────────────▶│
 *     A0        A1        A2        A3        A4        A5
 *     ╳         ▲ older anchor: the newest one at least a window old
 *               (A0 is let go: A1 is older than the window too)
 * </pre>
 *
 * <p>Invariants, for checkpoint times that never decrease: the anchors are in ascending sequence and time; at most
 * one of them but the newest is older than the window; the older anchor is never the newest; every point inside the
 * window lies after the {@link #older older anchor}, which is at most a window, plus a quarter window, plus one
 * checkpoint interval old. At most six anchors are kept while checkpoints come more often than every quarter window.
 */
final class RetentionAnchors {
    /** One anchor: a checkpoint's sequence and its record's time. */
    record Anchor(long sequence, long nanos) {
    }

    private final long windowNanos;
    private final ArrayDeque<Anchor> anchors = new ArrayDeque<>();

    /** @param windowNanos the retention window, {@code >= 0} */
    RetentionAnchors(long windowNanos) {
        if (windowNanos < 0) {
            throw new IllegalArgumentException("the retention window must not be negative, not " + windowNanos + " ns");
        }
        this.windowNanos = windowNanos;
    }

    /**
     * A checkpoint at {@code sequence}, whose record's time is {@code nanos}, is durable: it becomes an anchor when it
     * is a quarter window younger than the newest one (or is the first), and anchors no longer needed are let go.
     */
    void checkpointed(long sequence, long nanos) {
        Anchor last = anchors.peekLast();
        if (last == null || (nanos - last.nanos() >= windowNanos / 4 && sequence > last.sequence())) {
            anchors.addLast(new Anchor(sequence, nanos));
        }
        prune(nanos);
    }

    /** Takes over an anchor an earlier writer kept (its checkpoints, oldest first). */
    void takeOver(long sequence, long nanos) {
        Anchor last = anchors.peekLast();
        if (last == null || (sequence > last.sequence() && nanos >= last.nanos())) {
            anchors.addLast(new Anchor(sequence, nanos));
        }
    }

    /**
     * Lets go every anchor but the newest one older than the window, and the younger ones; the newest two always stay.
     */
    private void prune(long nowNanos) {
        while (anchors.size() >= 3) {
            Anchor first = anchors.pollFirst();
            Anchor second = anchors.peekFirst();
            if (second.nanos() > nowNanos - windowNanos) {
                anchors.addFirst(first);
                return;
            }
        }
    }

    /**
     * The newest anchor at least a window old at {@code nowNanos} other than the newest anchor, or -1 when there is none
     * yet: every point inside the window lies after it, so the anchors cover the window from here on.
     */
    long older(long nowNanos) {
        long older = -1;
        int left = anchors.size() - 1;
        for (Anchor a : anchors) {
            if (left-- == 0) {
                break;
            }
            if (a.nanos() <= nowNanos - windowNanos) {
                older = a.sequence();
            }
        }
        return older;
    }

    /**
     * Lets go every anchor before {@code sequence}: the journal's file retention moved the records after them out, so
     * no read replays from them any more.
     */
    void dropBefore(long sequence) {
        while (!anchors.isEmpty() && anchors.peekFirst().sequence() < sequence) {
            anchors.pollFirst();
        }
    }

    /** The sequences of every anchor kept, ascending. */
    Set<Long> sequences() {
        Set<Long> out = new TreeSet<>();
        anchors.forEach(a -> out.add(a.sequence()));
        return out;
    }

    /** Forgets every anchor (the kept checkpoints' times could not be read). */
    void clear() {
        anchors.clear();
    }
}
