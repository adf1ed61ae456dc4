package io.palisade.journal;

import io.palisade.fencing.JournalCorruptedException;

import java.nio.file.Path;
import java.time.Instant;
import java.util.HexFormat;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Read-only access to a graph's journal, safe while a writer (in this or another process) appends:
 * cursors from a sequence or a time, to the end or following; lookups by sequence and by time
 * (binary search over the dense sequence, never a scan); and the verifier.
 */
public final class JournalReader implements AutoCloseable {
    static {
        ChronicleSupport.disableAnalytics();
    }

    private final RecordSource source;

    JournalReader(RecordSource source) {
        this.source = source;
    }

    /**
     * A reader of the journal of the graph whose {@code _palisade/} directory is {@code palisadeDir}: its Chronicle
     * segments, or its Kafka topic when {@code _palisade/journal.properties} names one ({@link KafkaJournalConfig}).
     */
    public static JournalReader open(Path palisadeDir) {
        return KafkaJournalConfig.read(palisadeDir)
                .map(c -> new JournalReader(KafkaSource.of(c)))
                .orElseGet(() -> new JournalReader(new ChronicleSource(palisadeDir.resolve(Journal.DIRECTORY))));
    }

    /** Reads from {@code fromSequence} to the current end. */
    public JournalCursor read(long fromSequence) {
        return new JournalCursor(source.open(fromSequence, false));
    }

    /** Reads from {@code fromSequence} and keeps following records appended later. */
    public JournalCursor follow(long fromSequence) {
        return new JournalCursor(source.open(fromSequence, true));
    }

    /** Reads from the first record appended at or after {@code time}, to the current end. */
    public JournalCursor read(Instant time) {
        return read(sequenceAt(time).orElse(endSequence()));
    }

    /** Follows from the first record appended at or after {@code time}. */
    public JournalCursor follow(Instant time) {
        return follow(sequenceAt(time).orElse(endSequence()));
    }

    /**
     * The first sequence the local journal holds: 0, unless the journal's file retention moved older files out
     * (docs/journal.md "File retention"). A read from before it throws
     * {@link io.palisade.fencing.JournalArchivedException}.
     */
    public long firstSequence() {
        return source.firstSequence();
    }

    /** The files the journal's file retention moved out of the local journal, oldest first; empty when none. */
    public java.util.List<ArchivedFile> archivedFiles() {
        return source.archivedFiles();
    }

    /** Reads from {@code fromSequence}, or from the first sequence the local journal holds when that is later. */
    public JournalCursor readAvailable(long fromSequence) {
        return fromFirstLocal(() -> read(Math.max(fromSequence, firstSequence())));
    }

    /**
     * {@code read}, again (twice at most) when the file retention moved files out between reading where the local
     * journal starts and reading from there.
     */
    private static <T> T fromFirstLocal(java.util.function.Supplier<T> read) {
        for (int attempt = 0; ; attempt++) {
            try {
                return read.get();
            } catch (io.palisade.fencing.JournalArchivedException e) {
                if (attempt >= 2) {
                    throw e;
                }
            }
        }
    }

    /** The record at {@code sequence}, if the journal holds it. */
    public Optional<JournalRecord> record(long sequence) {
        if (sequence < firstSequence() || sequence >= endSequence()) {
            return Optional.empty();
        }
        return recordAt(sequence);
    }

    private Optional<JournalRecord> recordAt(long sequence) {
        try (RecordStream r = source.open(sequence, false)) {
            JournalRecord rec = r.poll();
            if (rec == null || rec.sequence() != sequence) {
                return Optional.empty();
            }
            return Optional.of(rec);
        }
    }

    /**
     * The first sequence whose record was appended at or after {@code time} (timestamps never decrease
     * along the journal), by binary search; empty when every record is older.
     */
    public OptionalLong sequenceAt(Instant time) {
        long target = JournalRecord.nanos(time);
        long end = endSequence();
        long lo = Math.min(firstSequence(), end);
        long hi = end;
        while (lo < hi) {
            long mid = (lo + hi) >>> 1;
            long ts = recordAt(mid).orElseThrow(() -> new JournalCorruptedException(mid, "record missing during lookup"))
                    .timestampNanos();
            if (ts < target) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo < end ? OptionalLong.of(lo) : OptionalLong.empty();
    }

    /**
     * The sequence below which the row release has gone through every closed journal file: the rows of the
     * journal-ack writes recorded there are released (docs/journal.md "Row release"). Empty when none was released, and
     * on Kafka.
     */
    public java.util.OptionalLong rowsReleasedBelow() {
        return source.rowsReleasedBelow();
    }

    /** One past the last good record (0 for an empty journal). */
    public long endSequence() {
        return source.endSequence();
    }

    /**
     * Walks the whole journal checking every record's CRC32C, the SHA-256 chain, dense sequences and
     * epochs. Never throws for corruption: the report names the first bad sequence.
     */
    public VerificationReport verify() {
        return fromFirstLocal(this::verifyOnce);
    }

    private VerificationReport verifyOnce() {
        java.util.List<ArchivedFile> archived;
        try {
            archived = source.archivedFiles();
        } catch (JournalCorruptedException e) {
            return new VerificationReport(0, 0, "", java.util.List.of(), null, e.sequence(), e.getMessage());
        }
        ArchiveCheck a = ArchiveCheck.of(archived);
        long from = archived.isEmpty() ? 0 : archived.get(archived.size() - 1).lastSequence() + 1;
        if (a.problem() != null) {
            return new VerificationReport(0, from, "", java.util.List.of(), null, a.badSequence(), a.problem(), from,
                    archived.size(), a.copiesVerified(), a.copiesMissing());
        }
        long records = 0;
        RecordStream opened;
        try {
            opened = source.open(from, false);
        } catch (IllegalArgumentException e) {
            return new VerificationReport(0, from, "", java.util.List.of(), null, from, "the local journal does not "
                    + "hold sequence " + from + ", where the archive log says it starts (" + e.getMessage() + ")",
                    from, archived.size(), a.copiesVerified(), a.copiesMissing());
        }
        try (RecordStream r = opened) {
            try {
                while (r.poll() != null) {
                    records++;
                }
            } catch (JournalCorruptedException e) {
                return new VerificationReport(records, r.expectedSequence(), hex(r.lastHash()), r.cutTails(),
                        null, e.sequence(), e.getMessage(), from, archived.size(), a.copiesVerified(),
                        a.copiesMissing());
            }
            return new VerificationReport(records, r.expectedSequence(), hex(r.lastHash()), r.cutTails(),
                    r.openTail(), -1, null, from, archived.size(), a.copiesVerified(), a.copiesMissing());
        }
    }

    /**
     * The hex SHA-256 of the record at {@code sequence} (the value the next record's previous-hash field holds), as
     * {@link VerificationReport#lastHash()} gives it for the last record; empty when the journal does not hold it.
     * An auditor pins {@code sequence:hash} and checks later that the journal still holds that record unchanged.
     */
    public Optional<String> recordHash(long sequence) {
        if (sequence < firstSequence() || sequence >= endSequence()) {
            return Optional.empty();
        }
        try (RecordStream r = source.open(sequence, false)) {
            JournalRecord rec = r.poll();
            if (rec == null || rec.sequence() != sequence) {
                return Optional.empty();
            }
            return Optional.of(hex(r.lastHash()));
        }
    }

    private static String hex(byte[] b) {
        return b == null ? "" : HexFormat.of().formatHex(b);
    }

    @Override
    public void close() {
        // Cursors own their storage handles (Chronicle queues, Kafka consumers); nothing is held here.
    }
}
