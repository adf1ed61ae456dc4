package io.palisade.journal;

import java.util.List;

/**
 * The storage SPI of reading: records in sequence order, each checked (CRC32C, dense sequence, hash chain, writer
 * epoch, timestamp) before it is returned. {@link ChainReader} reads Chronicle segments; {@link KafkaRecordStream}
 * reads a graph's Kafka topic with {@code read_committed} isolation. Not thread-safe.
 */
sealed interface RecordStream extends AutoCloseable permits ChainReader, KafkaRecordStream {
    /** The next record, or {@code null} when none is available now. */
    JournalRecord poll();

    /** The sequence the next good record must hold. */
    long expectedSequence();

    /** SHA-256 of the last record returned (all zero before sequence 0); null if unknown. */
    byte[] lastHash();

    /** Torn tails skipped because a later writer cut them (never any on Kafka: an aborted transaction is invisible). */
    List<TornTail> cutTails();

    /** The torn tail at the end that no writer has cut yet, or null (always null on Kafka). */
    TornTail openTail();

    @Override
    void close();
}
