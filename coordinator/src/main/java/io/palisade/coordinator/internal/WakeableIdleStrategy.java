package io.palisade.coordinator.internal;

import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.IdleStrategy;

import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;

/**
 * The committer's idle strategy. After a cycle without work it spins, yields, then backs off in timed parks that
 * double from {@code minBackoffNanos} to {@code maxBackoffNanos}, as Agrona's {@code BackoffIdleStrategy} does: under
 * load the next submission lands within a back-off, and no submitter pays for waking the committer. Once it has been
 * idle for {@code backoffForNanos} it parks until a submission wakes it ({@link #wake}) or the park's limit passes
 * ({@code parkNanos}, asked before each such park: short while a timed duty of the committer's cycle is pending, such
 * as a fold due by the age of its oldest write; long when nothing but a wake-up can bring work). An idle graph's
 * committer then costs no CPU between submissions, and a submission to it is taken up when its wake-up lands.
 *
 * <p>No wake-up is lost: a submitter makes its work visible ({@code hasWork} turns true), then reads {@link #parked}
 * in {@link #wake}; the committer writes {@link #parked}, then reads {@code hasWork}, then parks. Both pairs are
 * volatile accesses, so at least one side sees the other's write: the committer does not park, or the submitter
 * unparks it (an unpark before the park makes the park return at once). A back-off park needs no wake-up: it ends by
 * itself within {@code maxBackoffNanos}.
 */
final class WakeableIdleStrategy implements IdleStrategy {
    /** Agrona's back-off (spins, yields, timed parks doubling from min to max), the first phase. */
    private final BackoffIdleStrategy backoff;
    private final long backoffForNanos;
    private final LongSupplier parkNanos;
    private final BooleanSupplier hasWork;
    /** The committer's thread while it parks until woken or is about to; read by every submission. */
    private final Parked parked = new Parked();
    /** Set by {@link #stop}: no more parks, so the agent's runner sees its stop at once. */
    private volatile boolean stopping;
    /** When the current idleness began ({@link System#nanoTime()}); 0 while there was work. */
    private long idleSince;
    /** Parks until woken begun (written by the idle thread only). */
    private volatile long parks;

    /**
     * @param maxSpins        busy spins after a cycle without work
     * @param maxYields       then yields
     * @param minBackoffNanos then timed parks, the first this long, each next twice as long ...
     * @param maxBackoffNanos ... up to this long
     * @param backoffForNanos for this long since the idleness began; then parks until {@link #wake}
     * @param parkNanos       the limit of a park until woken (asked on the idle thread before each)
     * @param hasWork         whether work is waiting (read after announcing a park until woken)
     */
    WakeableIdleStrategy(int maxSpins, int maxYields, long minBackoffNanos, long maxBackoffNanos, long backoffForNanos,
                         LongSupplier parkNanos, BooleanSupplier hasWork) {
        if (maxSpins < 0 || maxYields < 0 || minBackoffNanos < 1 || maxBackoffNanos < minBackoffNanos
                || backoffForNanos < 0) {
            throw new IllegalArgumentException("maxSpins >= 0, maxYields >= 0, 1 <= minBackoffNanos <= maxBackoffNanos, "
                    + "backoffForNanos >= 0");
        }
        this.backoff = new BackoffIdleStrategy(maxSpins, maxYields, minBackoffNanos, maxBackoffNanos);
        this.backoffForNanos = backoffForNanos;
        this.parkNanos = parkNanos;
        this.hasWork = hasWork;
    }

    @Override
    public void idle(int workCount) {
        if (workCount > 0) {
            reset();
        } else {
            idle();
        }
    }

    @Override
    public void idle() {
        long now = System.nanoTime();
        if (idleSince == 0) {
            idleSince = now;
        }
        if (now - idleSince < backoffForNanos) {
            backoff.idle();
            return;
        }
        parked.thread = Thread.currentThread();
        try {
            if (!stopping && !hasWork.getAsBoolean()) {
                parks++;
                LockSupport.parkNanos(this, Math.max(1, parkNanos.getAsLong()));
            }
        } finally {
            parked.thread = null;
        }
    }

    @Override
    public void reset() {
        backoff.reset();
        idleSince = 0;
    }

    /** Called by a submitter after its work became visible: unparks the committer if it parks until woken. */
    void wake() {
        Thread t = parked.thread;
        if (t != null) {
            LockSupport.unpark(t);
        }
    }

    /** Before the agent's runner is closed: parks no more until woken, and ends such a park in progress. */
    void stop() {
        stopping = true;
        wake();
    }

    /** The parks until woken begun so far (tests, diagnostics). */
    long parks() {
        return parks;
    }

    /** Whether the committer's thread parks until woken, or is about to (tests). */
    boolean parking() {
        return parked.thread != null;
    }

    @Override
    public String alias() {
        return "wakeable";
    }

    /** Cache-line padding before {@link ParkedField#thread}: the committer writes its neighbours while it idles. */
    abstract static class ParkedPad {
        long p01, p02, p03, p04, p05, p06, p07, p08;
    }

    /** The parked thread. */
    abstract static class ParkedField extends ParkedPad {
        volatile Thread thread;
    }

    /** The parked thread alone on its cache line (padding after it too), read by every submission. */
    static final class Parked extends ParkedField {
        long q01, q02, q03, q04, q05, q06, q07, q08;
    }
}
