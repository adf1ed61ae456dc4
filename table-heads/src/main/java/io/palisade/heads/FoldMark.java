package io.palisade.heads;

/**
 * Where the fold of one journal-ack table of one graph branch stands (docs/journal-ack.md): every write
 * acknowledged {@code JOURNALED} at or before {@code foldedThrough} is in the table; the {@code unfolded} writes
 * after it are in the journal only: the oldest was recorded (its {@code IntentRecorded}) at {@code oldestSequence},
 * the newest acknowledged at {@code newestSequence}. Reading the journal from {@code oldestSequence} finds every
 * record of every unfolded write.
 *
 * <p>Invariant: {@code unfolded == 0} exactly when {@code oldestSequence == newestSequence == -1}; otherwise
 * {@code foldedThrough < oldestSequence <= newestSequence}. A fold covers every write unfolded when it was planned;
 * the writes acknowledged while its Lance commit runs stay unfolded above its watermark once it completes.
 *
 * @param foldedThrough  the watermark: the acknowledgement sequence of the newest folded write, -1 before the first fold
 * @param unfolded       acknowledged writes not yet folded
 * @param oldestSequence sequence of the oldest unfolded write's intent record, -1 when none
 * @param oldestNanos    its journal time (epoch nanoseconds), -1 when none: the fold lag is measured from it
 * @param newestSequence acknowledgement sequence of the newest unfolded write, -1 when none
 */
public record FoldMark(long foldedThrough, long unfolded, long oldestSequence, long oldestNanos, long newestSequence) {
    /** No write acknowledged yet. */
    public static final FoldMark NONE = new FoldMark(-1, 0, -1, -1, -1);

    public FoldMark {
        if (unfolded < 0 || (unfolded == 0) != (oldestSequence == -1 && newestSequence == -1)
                || (unfolded > 0 && (oldestSequence <= foldedThrough || newestSequence < oldestSequence))) {
            throw new IllegalArgumentException("inconsistent fold mark: through " + foldedThrough + ", " + unfolded
                    + " unfolded in [" + oldestSequence + ", " + newestSequence + "]");
        }
    }

    /**
     * This mark with one more write, recorded at {@code recordedAt}, acknowledged at {@code sequence}, journal time
     * {@code nanos}.
     */
    FoldMark acknowledged(long recordedAt, long sequence, long nanos) {
        return unfolded == 0 ? new FoldMark(foldedThrough, 1, recordedAt, nanos, sequence)
                : new FoldMark(foldedThrough, unfolded + 1, oldestSequence, oldestNanos, sequence);
    }

    /** Every unfolded write folded; the watermark moves to {@code through}. */
    FoldMark folded(long through) {
        return new FoldMark(through, 0, -1, -1, -1);
    }
}
