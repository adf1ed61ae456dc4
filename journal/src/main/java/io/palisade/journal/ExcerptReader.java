package io.palisade.journal;

import net.openhft.chronicle.bytes.Bytes;
import net.openhft.chronicle.queue.ExcerptTailer;
import net.openhft.chronicle.wire.DocumentContext;

/** Copies data excerpts of one Chronicle tailer into a reusable array. Not thread-safe. */
final class ExcerptReader {
    /** {@link #next()}: no excerpt is present now. */
    static final int NONE = -1;

    private final ExcerptTailer tailer;
    private byte[] buffer = new byte[512];
    private long index = -1;
    private long end = -1;

    ExcerptReader(ExcerptTailer tailer) {
        this.tailer = tailer;
    }

    ExcerptTailer tailer() {
        return tailer;
    }

    /** Length of the next data excerpt, copied into {@link #buffer()}, or {@link #NONE}. May throw what Chronicle throws. */
    int next() {
        try (DocumentContext dc = tailer.readingDocument()) {
            if (!dc.isPresent()) {
                return NONE;
            }
            Bytes<?> b = dc.wire().bytes();
            long n = b.readRemaining();
            if (n > Integer.MAX_VALUE - 16) {
                throw new IllegalStateException("excerpt of " + n + " bytes");
            }
            if (n > buffer.length) {
                buffer = new byte[(int) Math.max(n, buffer.length * 2L)];
            }
            end = b.readLimit(); // the excerpt's end in its cycle file: the bytes are a view of the mapped file
            b.read(buffer, 0, (int) n);
            index = dc.index();
            return (int) n;
        }
    }

    byte[] buffer() {
        return buffer;
    }

    /** The byte position in its cycle file at which the excerpt last returned ends. */
    long endPosition() {
        return end;
    }

    /** Chronicle index of the excerpt last returned. */
    long index() {
        return index;
    }
}
