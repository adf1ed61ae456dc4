package io.palisade.journal;

/**
 * The storage SPI below {@link JournalReader}: where a graph's records are read from. Everything else of the
 * reader (lookups by sequence and time, verification) is written once over it.
 */
sealed interface RecordSource permits ChronicleSource, KafkaSource {
    /**
     * A stream from {@code fromSequence} (at most one past the last record); a following stream also returns
     * records appended later.
     */
    RecordStream open(long fromSequence, boolean follow);

    /** One past the last good record (0 for an empty journal). */
    long endSequence();

    /**
     * The sequence below which the journal's row release has released the rows of every closed file (docs/journal.md
     * "Row release"); empty when it has released none, and on Kafka.
     */
    default java.util.OptionalLong rowsReleasedBelow() {
        return java.util.OptionalLong.empty();
    }

    /**
     * The first sequence this storage still holds: 0, unless the journal's file retention moved older files out
     * ({@link JournalArchive}).
     */
    default long firstSequence() {
        return 0;
    }

    /** The files the journal's file retention moved out, oldest first; empty when none (and on Kafka). */
    default java.util.List<ArchivedFile> archivedFiles() {
        return java.util.List.of();
    }

    /** Where the records are, for messages. */
    String describe();
}
