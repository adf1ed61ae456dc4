package io.palisade.journal;

import java.nio.file.Path;
import java.util.Optional;

/**
 * The storage SPI below {@link Journal}: where one writer session's encoded records go. The record codec (framing,
 * CRC32C, SHA-256 chain, sequences, timestamps) stays in {@link Journal}, so every storage carries identical bytes.
 *
 * <ul>
 *   <li>{@link ChronicleStorage}: the embedded default. Exclusion by the local {@link WriterLease}; one Chronicle
 *       queue (segment) per session; torn tails cut at open.</li>
 *   <li>{@link KafkaStorage}: one single-partition, replicated topic per graph, written by a transactional producer
 *       whose {@code transactional.id} is the graph's: a new writer's {@code initTransactions} fences the old one,
 *       which then fails with {@link io.palisade.fencing.WriterFencedException}.</li>
 * </ul>
 * Invariant of both: {@link #write} returns only when every record of the batch is durable in the requested
 * {@link Durability} and visible to readers of this process; when it throws, the journal refuses further appends.
 */
sealed interface JournalStorage permits ChronicleStorage, KafkaStorage {
    /** This session's owner record; its epoch is stamped on every record. */
    LeaseOwner owner();

    /** The writer this session took the graph over from, if known. */
    Optional<LeaseOwner> previousOwner();

    /** What the verifying scan at open found. */
    ChainState scan();

    /**
     * Writes records {@code [offsets[i], offsets[i+1])} of {@code bytes}, {@code i < n}, as one group, holding
     * sequences {@code firstSequence ...}.
     *
     * @throws io.palisade.fencing.WriterFencedException        another writer took the journal over (nothing of
     *                                                          the group is visible)
     * @throws io.palisade.fencing.CommitStateUnknownException  the group may or may not be durable
     */
    void write(byte[] bytes, int[] offsets, int n, long firstSequence, Durability durability);

    /** Called once the session's first records ({@code WriterStarted}, ...) are durable. */
    void started();

    /** A source reading this journal. */
    RecordSource source();

    /** Where the journal is, for messages. */
    String describe();

    /**
     * Records that the record at {@code sequence}, durable, hashes to {@code hash}, so that the next open may verify the
     * chain from there ({@link ChainAnchor}). The Kafka storage keeps none: its open reads the topic.
     */
    default void anchor(long sequence, byte[] hash) {
    }

    /**
     * Releases the rows of the closed records before {@code belowSequence} whose files end before
     * {@code olderThanNanos} ({@link RowRelease}). The Kafka storage releases none: a topic's bytes are bounded by its
     * own retention.
     */
    RowReleaseReport releaseRows(long belowSequence, long olderThanNanos, RowRelease.Hook hook);

    /**
     * Moves closed files before {@code below} out of the local journal while it holds more than {@code keepBytes}
     * ({@link JournalArchive}), copying them to {@code copyTo} first when it is not null; only files whose rows are
     * released unless {@code unreleased}. The Kafka storage moves none: a topic's bytes are bounded by its own
     * retention.
     */
    default ArchiveReport archiveFiles(long below, long keepBytes, Path copyTo, boolean unreleased,
                                       JournalArchive.Hook hook) {
        return new ArchiveReport(0, 0, 0, 0);
    }

    /** Releases the storage (and the lease); {@code flush} when no write failed. */
    void close(boolean flush);
}
