package io.palisade.journal;

import io.palisade.journal.codec.RecordCodec;
import net.openhft.chronicle.queue.ExcerptTailer;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueue;

import java.nio.file.Path;

/** Reads the Chronicle segments of {@code <graph>/_palisade/journal/}; its own Chronicle handles per stream. */
final class ChronicleSource implements RecordSource {
    static {
        ChronicleSupport.disableAnalytics();
    }

    private final Path journalDir;

    ChronicleSource(Path journalDir) {
        this.journalDir = journalDir;
    }

    @Override
    public RecordStream open(long fromSequence, boolean follow) {
        return new ChainReader(journalDir, fromSequence, follow);
    }

    @Override
    public long endSequence() {
        long[] epochs = Segments.ready(journalDir);
        RecordCodec codec = new RecordCodec();
        for (int i = epochs.length - 1; i >= 0; i--) {
            try (SingleChronicleQueue q = ChronicleSupport.open(Segments.dir(journalDir, epochs[i]), true);
                 ExcerptTailer t = q.createTailer()) {
                long count = SegmentIndex.count(q, t);
                ExcerptReader r = new ExcerptReader(t);
                for (long j = count - 1; j >= 0; j--) {
                    if (!SegmentIndex.moveTo(q, t, j)) {
                        continue;
                    }
                    int n = r.next();
                    if (n != ExcerptReader.NONE && codec.check(r.buffer(), 0, n) == null) {
                        return RecordCodec.sequence(r.buffer(), 0) + 1;
                    }
                }
            }
        }
        return 0;
    }

    @Override
    public java.util.OptionalLong rowsReleasedBelow() {
        long below = new RowRelease(journalDir).progress();
        return below > 0 ? java.util.OptionalLong.of(below) : java.util.OptionalLong.empty();
    }

    @Override
    public long firstSequence() {
        return JournalArchive.firstLocalSequence(journalDir);
    }

    @Override
    public java.util.List<ArchivedFile> archivedFiles() {
        return JournalArchive.all(journalDir);
    }

    @Override
    public String describe() {
        return journalDir.toString();
    }
}
