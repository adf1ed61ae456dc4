package io.palisade.journal;

import io.palisade.fencing.CommitStateUnknownException;
import io.palisade.fencing.JournalCorruptedException;
import io.palisade.journal.codec.MalformedPayloadException;
import io.palisade.journal.codec.RecordCodec;
import io.palisade.journal.codec.RecordDescriptor;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;

import java.time.Duration;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * Reads a graph's Kafka journal topic in sequence order with {@code read_committed} isolation, so records of aborted
 * transactions (a writer killed or fenced mid-group) are never seen. Every record is checked like on Chronicle:
 * framing and CRC32C, dense sequence (carried in the record; Kafka offsets are sparse because of transaction
 * markers), SHA-256 chain, writer epoch never decreasing and a new epoch starting with {@code WriterStarted} of that
 * epoch, timestamps never decreasing. A record that fails its check is mid-log corruption: Kafka never exposes a torn
 * tail, so there is none to cut.
 *
 * <p>A reading stream stops at the end as of its opening: the partition's last stable offset, or, if later, one past
 * the last record this process committed ({@link KafkaTopics}). Not thread-safe; owns its consumer.
 */
final class KafkaRecordStream implements RecordStream {
    /** How long a reading stream waits for records it knows are committed to become readable. */
    static final Duration READ_DEADLINE = Duration.ofSeconds(60);
    private static final Duration FOLLOW_POLL = Duration.ofMillis(5);
    private static final Duration READ_POLL = Duration.ofMillis(200);

    private final KafkaJournalConfig config;
    private final KafkaTopics.Topic known;
    private final boolean follow;
    private final KafkaConsumer<byte[], byte[]> consumer;
    private final TopicPartition tp;
    private final RecordCodec codec = new RecordCodec();
    /** Reading streams stop at this offset; following streams use it only while positioning. */
    private final long bound;
    /** The first sequence returned; records before it are skipped (the one just before is checked for its hash). */
    private final long target;

    private Iterator<ConsumerRecord<byte[], byte[]>> batch = List.<ConsumerRecord<byte[], byte[]>>of().iterator();
    private long expectedSequence;
    private byte[] previousHash;    // null: not known (positioned mid-journal, before the record before target)
    private long lastEpoch = -1;    // -1: not known
    private long lastTimestamp = Long.MIN_VALUE;

    KafkaRecordStream(KafkaJournalConfig config, KafkaTopics.Topic known, long fromSequence, boolean follow) {
        if (fromSequence < 0) {
            throw new IllegalArgumentException("negative sequence " + fromSequence);
        }
        this.config = config;
        this.known = known;
        this.follow = follow;
        this.target = fromSequence;
        this.tp = new TopicPartition(config.topic(), 0);
        this.consumer = known.borrow(config);
        try {
            consumer.assign(List.of(tp));
            Map<TopicPartition, Long> end = consumer.endOffsets(List.of(tp));
            this.bound = Math.max(end.getOrDefault(tp, 0L), known.committedEnd.get());
            long start = fromSequence == 0 ? 0 : fromSequence - 1;
            Map.Entry<Long, Long> floor = known.offsets.floorEntry(start);
            if (fromSequence == 0) {
                expectedSequence = 0;
                previousHash = new byte[RecordDescriptor.HASH_LENGTH];
                consumer.seekToBeginning(List.of(tp));
            } else {
                expectedSequence = floor == null ? -1 : floor.getKey();
                previousHash = null;
                if (floor == null) {
                    consumer.seekToBeginning(List.of(tp));
                } else {
                    consumer.seek(tp, floor.getValue());
                }
                position();
            }
        } catch (RuntimeException e) {
            known.giveBack(consumer, false);
            throw e;
        }
    }

    /** Reads up to and including the record before {@code target}, which must exist. */
    private void position() {
        long deadline = System.nanoTime() + READ_DEADLINE.toNanos();
        while (expectedSequence != target) {
            if (batch.hasNext()) {
                accept(batch.next());
                continue;
            }
            if (consumer.position(tp) >= bound) {
                throw new IllegalArgumentException("sequence " + target + " is beyond the journal end");
            }
            fetch(READ_POLL, deadline);
        }
    }

    @Override
    public JournalRecord poll() {
        long deadline = System.nanoTime() + READ_DEADLINE.toNanos();
        while (true) {
            if (batch.hasNext()) {
                JournalRecord r = accept(batch.next());
                if (r != null) {
                    return r;
                }
                continue;
            }
            if (follow) {
                fetch(FOLLOW_POLL, Long.MAX_VALUE);
                if (!batch.hasNext()) {
                    return null;
                }
            } else {
                if (consumer.position(tp) >= bound) {
                    return null;
                }
                fetch(READ_POLL, deadline);
            }
        }
    }

    private void fetch(Duration wait, long deadline) {
        ConsumerRecords<byte[], byte[]> got;
        try {
            got = consumer.poll(wait);
        } catch (KafkaException e) {
            healthy = false;
            throw new CommitStateUnknownException("journal topic " + config.topic() + " cannot be read: " + e, e);
        }
        batch = got.records(tp).iterator();
        if (!batch.hasNext() && System.nanoTime() - deadline > 0) {
            throw new CommitStateUnknownException("journal topic " + config.topic() + ": committed records up to offset "
                    + bound + " are not readable after " + READ_DEADLINE.toSeconds() + " s", null);
        }
    }

    /** Checks one record; returns it when it is at or after {@code target}, else null (it was skipped or consumed). */
    private JournalRecord accept(ConsumerRecord<byte[], byte[]> cr) {
        byte[] b = cr.value();
        if (b == null) {
            throw new JournalCorruptedException(expectedSequence, "journal topic " + config.topic() + " offset "
                    + cr.offset() + " holds no value");
        }
        String bad = codec.check(b, 0, b.length);
        if (bad != null) {
            throw new JournalCorruptedException(expectedSequence, "journal topic " + config.topic() + " offset "
                    + cr.offset() + ": " + bad);
        }
        long seq = RecordCodec.sequence(b, 0);
        known.indexed(seq, cr.offset());
        if (expectedSequence < 0) {
            expectedSequence = seq; // positioned without an index entry: the first record is sequence 0
        }
        if (seq < target - 1 && previousHash == null) {
            // skipped without checks while positioning, as Chronicle jumps by index
            if (seq != expectedSequence) {
                throw new JournalCorruptedException(expectedSequence, "expected sequence " + expectedSequence
                        + " but the record at offset " + cr.offset() + " holds " + seq);
            }
            expectedSequence = seq + 1;
            return null;
        }
        if (seq != expectedSequence) {
            throw new JournalCorruptedException(expectedSequence, "expected sequence " + expectedSequence
                    + " but the record at offset " + cr.offset() + " of journal topic " + config.topic() + " holds " + seq);
        }
        if (previousHash != null && !RecordCodec.previousHashEquals(b, 0, previousHash)) {
            throw new JournalCorruptedException(seq, "hash chain broken: the previous-record hash does not match"
                    + " record " + (seq - 1));
        }
        long epoch = RecordCodec.epoch(b, 0);
        long ts = RecordCodec.timestamp(b, 0);
        if (lastEpoch >= 0 && epoch < lastEpoch) {
            throw new JournalCorruptedException(seq, "record stamped with writer epoch " + epoch + " after epoch "
                    + lastEpoch);
        }
        if (ts < lastTimestamp) {
            throw new JournalCorruptedException(seq, "timestamp goes backwards");
        }
        JournalRecord rec;
        try {
            rec = new JournalRecord(seq, ts, epoch, codec.decode(b, 0, b.length));
        } catch (MalformedPayloadException e) {
            throw new JournalCorruptedException(seq, e.getMessage());
        }
        boolean newEpoch = seq == 0 || (lastEpoch >= 0 && epoch > lastEpoch);
        if (newEpoch && !(rec.event() instanceof JournalEvent.WriterStarted w && w.epoch() == epoch)) {
            throw new JournalCorruptedException(seq, "writer epoch " + epoch + " does not start with WriterStarted of"
                    + " its epoch");
        }
        if (previousHash == null) {
            previousHash = new byte[RecordDescriptor.HASH_LENGTH];
        }
        codec.hash(b, 0, b.length, previousHash);
        expectedSequence = seq + 1;
        lastEpoch = epoch;
        lastTimestamp = ts;
        return seq >= target ? rec : null;
    }

    @Override
    public long expectedSequence() {
        return expectedSequence;
    }

    @Override
    public byte[] lastHash() {
        return previousHash == null ? null : previousHash.clone();
    }

    long lastEpoch() {
        return Math.max(lastEpoch, 0);
    }

    long lastTimestamp() {
        return lastTimestamp;
    }

    @Override
    public List<TornTail> cutTails() {
        return List.of();
    }

    @Override
    public TornTail openTail() {
        return null;
    }

    private boolean closed;
    private boolean healthy = true;

    /** Returns the consumer for reuse. Idempotent. */
    @Override
    public void close() {
        if (!closed) {
            closed = true;
            known.giveBack(consumer, healthy);
        }
    }
}
